/*
 * profile.h - the engine of a lab's profile driver (tests/profile_<lab>.cu):
 * a program that calls each of the submission's launchers once, so that
 * their memory requests can be counted, by Nsight Compute on a GPU or by the
 * CPU emulator's trace runtime.
 *
 * Owns: the calls, the launch count of each (from the launch ledger, so the
 * grader can tell which profiled kernels belong to which call), the
 * emulator's counts when it has them, and the driver's output, one JSON
 * object per line with the token the grader passed on standard input.
 *
 * Must not: judge. The grader (grader/grading/profile.c) compares the counts with
 * lab.conf.
 */
#ifndef CUDALAB_PROFILE_H
#define CUDALAB_PROFILE_H

#include <stddef.h>

struct cl_profile_call {
	const char *name;          /* lab.conf's call = ... */
	void (*run)(void *ctx);    /* one call of the submission's launcher */
};

struct cl_profile_lab {
	const char *name;
	const struct cl_profile_call *calls;
	size_t ncalls;
	/* Device buffers with inputs for every call; NULL with why when it cannot. */
	void *(*setup)(char *why, size_t len);
	void (*teardown)(void *ctx);
};

/*
 * argv: --out FILE [--call NAME]... (every call when none is named)
 * stdin: "token=T", echoed in every output line.
 */
int cl_profile_main(const struct cl_profile_lab *lab, int argc, char **argv);

#endif
