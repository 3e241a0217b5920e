/*
 * bench.h - the timer: the trusted program that times a submission's
 * launchers against the reference's, and the engine every lab's timing
 * driver (tests/bench_<lab>.cu) is built on.
 *
 * Owns: the measurement (docs/DESIGN.md, "timing"). The timer runs outside the
 * sandbox and never runs submission code. It starts two runners
 * (remote.h): the reference's (build/labs/<lab>/runner-ref) and the
 * submission's (the runner its tests used, in the sandbox), and shares
 * with each only the device memory that runner's calls need (vmm.h):
 * inputs, and that side's own output. One timed call of either side:
 *
 *   poison the output, flush the L2;  start = an event before the inputs
 *   are written (the timer's kernel, from the pair's seed), waited for;
 *   the request to the runner: call the launcher, wait for the whole
 *   device, answer;  a copy of the output at positions the runner never
 *   learns;  end = an event after that copy.
 *
 * Both events are the timer's own, so no event or clock of the runner's
 * enters a time. A pair of calls is the submission's, then the reference's
 * on the same inputs: the submission meets a pair's inputs only in its own
 * window, so nothing can be computed ahead or kept from an earlier call.
 * After the pair the timer checks the submission's output against the
 * reference's and the exact result at a few places, and that it still
 * holds what the copy saw at its end: a runner that answered before its
 * work was done is caught there. An empty call's time (both runners',
 * measured before any code of the submission's has run) is taken off each
 * sample, so a ratio compares what the launchers do.
 *
 * The reference's runner is timed alone first, before the submission's
 * first call; a case whose reference ran slower beside the submission
 * than alone (by more than GUARD) is measured again with the submission's
 * runner ended, and is "disturbed" when the difference was the
 * submission's (work left running on the GPU between its calls).
 *
 * Must not: decide points (the grader scores ratios from lab.conf), run
 * code of the submission's, or let the submission's runner see what it
 * could turn into its output before its call is done: it sees new inputs
 * only once its time has started, and never the reference (a process of
 * its own) or the reference's output of those inputs (made after its call).
 */
#ifndef CUDALAB_BENCH_H
#define CUDALAB_BENCH_H

#include "remote.h"

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Who is called. CL_STUDENT is the submission's launcher; CL_REFERENCE is
 * what it is timed against: a launcher of the reference's (the one of the
 * same name, unless the lab's label says another). CL_CEILING: a vendor
 * library, called in the timer itself (informative only).
 */
enum cl_who { CL_REFERENCE = 0, CL_STUDENT = 1, CL_CEILING = 2 };

#define CL_SHARE_REFERENCE (1u << CL_REFERENCE)
#define CL_SHARE_STUDENT (1u << CL_STUDENT)

/*
 * Device memory of the timer's, mapped into the runners share names
 * (CL_SHARE_*; 0: the timer's alone). The timer's address, or NULL.
 */
void *cl_bench_shared(size_t bytes, unsigned share);
void cl_bench_free(void *p);

/* p's address (p from cl_bench_shared) in who's runner, which it is shared with. */
void *cl_bench_at(const void *p, enum cl_who who);

/* A launcher's call, for a runner: its name and arguments (remote.h). */
struct cl_call {
	char name[64];
	struct cl_wire args;
};

/* The call of name with a...: each argument of the type the launcher declares. */
template <class... A> inline void cl_bench_call(struct cl_call *c, const char *name, A... a)
{
	snprintf(c->name, sizeof(c->name), "%s", name);
	(cl_put_arg<A>(&c->args, a), ...);
}

/* What a lab's driver tells the engine. */
struct cl_bench_lab {
	const char *name;
	/* The kernels it can time (lab.conf's kernel = ...), NULL-terminated. */
	const char *const *kernels;
	/* Library used as an informative ceiling ("cuBLAS"), or NULL. */
	const char *ceiling_name;

	/* Device buffers (cl_bench_shared) to time kernel at size (the size
	 * means what the lab says); NULL with why filled when it cannot. */
	void *(*setup)(const char *kernel, int size, char *why, size_t len);
	void (*teardown)(void *ctx);
	/* Fresh inputs on the device for this seed (a kernel of the timer's). */
	void (*inputs)(void *ctx, uint64_t seed);
	/* NaN into who's output, before its call on the inputs of seed (the
	 * first the lab hears of that call). */
	void (*poison)(void *ctx, enum cl_who who, uint64_t seed);
	/* who's call of kernel on the current inputs into *c, with the
	 * addresses of who's runner (cl_bench_at); for CL_CEILING, the call
	 * itself, here, and *c left empty. A timed call's request is made
	 * before inputs() writes its inputs (inside the timed window): a
	 * value the call carries that depends on the seed (a host array) is
	 * made by poison(), which is told the seed first. */
	void (*call)(void *ctx, const char *kernel, enum cl_who who, struct cl_call *c);
	/* who's output, as the timer sees it: floats. */
	void (*output)(void *ctx, enum cl_who who, const float **out, size_t *n);
	/*
	 * Checks the student's output against the other's and against the
	 * exact result at a few places computed on the CPU from seed; 0, or
	 * -1 with the first wrong element described in msg.
	 */
	int (*verify)(void *ctx, uint64_t seed, char *msg, size_t len);
	/* Arithmetic (0 for none) and the least DRAM traffic of one call, for
	 * rates and floors. */
	double (*flop)(const char *kernel, int size);
	double (*bytes)(const char *kernel, int size);
	/* Loads the ceiling's library; 0, or -1 with why. NULL: no ceiling. */
	int (*ceiling_init)(char *why, size_t len);
	/*
	 * What who's side of kernel is, when it is not the submission's
	 * launcher against the reference's of the same name ("the
	 * reference's coal_scale_cols"); NULL for those. NULL: never.
	 */
	const char *(*label)(const char *kernel, enum cl_who who);
};

/*
 * argv: --out FILE (JSON lines; "-": stdout) [--case KERNEL:SIZE]... [--cap SECONDS]
 *       --runner RECIPE --reference RECIPE (spawn.h: the submission's
 *       runner, and the reference's)
 *       [--min-samples N] [--max-samples N] [--target-rse FRACTION]
 *       [--copy-gbs GBS --uuid UUID] [--no-ceiling] [--device-only]
 * stdin: "seed=N" and "token=T" lines; the token is echoed in every output
 * line so the grader can tell the driver's lines from anything else.
 *
 * The device's ceilings (its copy bandwidth, the library's times) are the
 * grader's to cache (grader/grading/devcache.c): --copy-gbs gives the bandwidth
 * measured before on the GPU --uuid names, used only on that GPU (the
 * "device" line says "copy_gbs_from": "given" or "measured");
 * --no-ceiling leaves the library out. --device-only measures the device
 * and the ceiling at each case's size, and starts no runner (no recipe is
 * needed): the grader's trusted measurement of the GPU, for its cache.
 */
int cl_bench_main(const struct cl_bench_lab *lab, int argc, char **argv);

/* ------------------------------------- helpers for the labs' drivers */

/* A uniform float in [-1, 1) with 24 random bits: exactly representable,
 * the same on the host and the device. */
__host__ __device__ static inline float cl_bench_value(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (float)(int32_t)((z >> 40) - (1u << 23)) * (1.0f / (1u << 23));
}

/* d[i] = cl_bench_value(seed, i) for i < n. */
void cl_bench_fill(float *d, size_t n, uint64_t seed);

struct cl_mismatch {
	unsigned long long count;   /* elements off by more than the tolerance, or NaN */
	unsigned long long first;   /* index of the first of them */
	float got, want;
};

/* Compares got with want on the device: |got - want| <= tol, NaN never equal. */
void cl_bench_compare(const float *got, const float *want, size_t n, float tol,
		      struct cl_mismatch *out);

/* Fails the driver (exit 3) with the call, its location and the CUDA error. */
#define CL_BENCH_CHECK(expr) cl_bench_check((expr), #expr, __FILE__, __LINE__)
void cl_bench_check(cudaError_t err, const char *expr, const char *file, int line);

#endif
