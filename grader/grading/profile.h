/*
 * profile.h - the profile step: how each profiled launcher of lab.conf's
 * [sectors] sections uses global memory, in 32-byte sectors per warp-wide
 * request, counted by Nsight Compute on a GPU or by the CPU emulator's trace
 * runtime, and the verdict on it.
 */
#ifndef PROFILE_H
#define PROFILE_H

#include "config.h"
#include "result.h"

struct sandbox;

/*
 * Marks the profiled tests that cannot run and says why: their part failed
 * a correctness test (0 points, a final verdict), or the run has neither a
 * GPU nor the emulator (not run). Returns how many are left to measure.
 */
size_t profile_plan(const struct lab_config *cfg, struct result *r);

/*
 * Runs the linked profile driver (binary) in workdir: under ncu on a GPU
 * (ncu: its command), directly on the trace runtime when emulated (ncu
 * NULL), in sb (NULL: none), and scores what it counted. -1 only for the
 * grader's own failures.
 */
int profile_run(const struct lab_config *cfg, const char *workdir, const char *binary,
		const char *ncu, const char *const *env, const struct sandbox *sb,
		struct result *r);

/*
 * Where no counter can be read (why): each profiled test left takes the
 * verdict of its judge, a timed test of its part, or is not run.
 */
void profile_without_counters(const struct lab_config *cfg, struct result *r, const char *why);

/* ---- for the unit tests */

/*
 * Adds what ncu's CSV (text) says of each profiled kernel, in launch order,
 * into counts: 4 numbers per kernel (load requests and sectors, store
 * requests and sectors). Returns the number of kernels, or -1 with *why.
 */
long profile_read_ncu_csv(const char *text, unsigned long long (**counts)[4], char **why);

/* The ncu metrics profile_run asks for, in the order of the 4 numbers. */
extern const char *const profile_metrics[4];

#endif
