/*
 * grade.h - grading one submission end to end: intake, build, audit, link,
 * run, check, score.
 */
#ifndef GRADE_H
#define GRADE_H

#include "config.h"
#include "result.h"

struct grade_opts {
	const char *subdir;        /* the submission folder */
	const char *student;
	bool keep_workdir;         /* leave the work folder for inspection */
	unsigned long long seed;   /* 0: a fresh random seed */
	int emulate;               /* 1 always, 0 never, -1 when there is no GPU */
	unsigned gpu_slots;        /* gradings whose tests share the GPU at once (0: 4) */
	int lanes;                 /* lanes of the test binary (harness.cu): 0 the
				      default (one on a GPU, one per part on the CPU),
				      -1 none (a process per test) */
	bool require_gpu;          /* no GPU for a lab that needs one: a failure of the system */
	time_t submitted_at;       /* when it was submitted; 0: not told */
	const char *submitted_from;   /* who says so: "--submitted-at", a file of times */
};

/*
 * Grades the submission in o->subdir against lab cfg, filling r. A student's
 * failure of any kind is recorded in r and returns 0; -1 is the grader's own
 * failure (r is then incomplete and must not be stored).
 */
int grade_submission(const struct toolchain *tc, const struct lab_config *cfg,
		     const struct grade_opts *o, struct result *r);

/*
 * The driver's version in /proc/driver/nvidia/version's text ("... Kernel
 * Module for x86_64  580.65.06  Release Build ..."), or NULL.
 */
char *parse_driver_version(const char *text);

#endif
