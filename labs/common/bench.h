/*
 * bench.h - the timing engine every lab's timing driver (tests/bench_<lab>.cu)
 * is built on.
 *
 * Owns: the measurement method (DESIGN.md, "timing"): warm-up, an L2 flush
 * before every sample, CUDA events around the launcher with a device-wide
 * synchronize before the end event, student and reference interleaved in one
 * process, the stopping rule, fresh inputs for every pair of samples and a
 * check of every timed output; and the driver's output, one JSON object per
 * line, which the grader (grader/timing.c) reads.
 *
 * Must not: decide points. The grader scores ratios from lab.conf.
 *
 * The driver links the student's object and the reference's object, whose
 * launchers are renamed cl_ref_<name> and whose other symbols are made local
 * (see the Makefile), so the two never meet.
 */
#ifndef CUDALAB_BENCH_H
#define CUDALAB_BENCH_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Who is called. CL_STUDENT is the submission's launcher; CL_REFERENCE is
 * what it is timed against: the reference's launcher, or for a kernel whose
 * label says so, another launcher of the submission (the same work done the
 * way the handout says is slower).
 */
enum cl_who { CL_REFERENCE = 0, CL_STUDENT = 1, CL_CEILING = 2 };

/* What a lab's driver tells the engine. */
struct cl_bench_lab {
	const char *name;
	/* The kernels it can time (lab.conf's kernel = ...), NULL-terminated. */
	const char *const *kernels;
	/* Library used as an informative ceiling ("cuBLAS"), or NULL. */
	const char *ceiling_name;

	/* Device buffers to time kernel at size (the size means what the lab
	 * says); NULL with why filled when it cannot. */
	void *(*setup)(const char *kernel, int size, char *why, size_t len);
	void (*teardown)(void *ctx);
	/* Fresh inputs on the device for this seed (a trusted kernel). */
	void (*inputs)(void *ctx, uint64_t seed);
	/* NaN into who's output. */
	void (*poison)(void *ctx, enum cl_who who);
	/* Calls who's launcher of kernel (or the ceiling) on the current inputs. */
	void (*call)(void *ctx, const char *kernel, enum cl_who who);
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
	 * What who's side of kernel is, when it is not the submission against
	 * the reference ("your coal_scale_col"); NULL for those. NULL: never.
	 */
	const char *(*label)(const char *kernel, enum cl_who who);
};

/*
 * argv: --out FILE (JSON lines; "-": stdout) [--case KERNEL:SIZE]... [--cap SECONDS]
 *       [--min-samples N] [--max-samples N] [--target-rse FRACTION]
 *       [--copy-gbs GBS --uuid UUID] [--no-ceiling] [--device-only]
 * stdin: "seed=N" and "token=T" lines; the token is echoed in every output
 * line so the grader can tell the driver's lines from anything else.
 *
 * The device's ceilings (its copy bandwidth, the library's times) are the
 * grader's to cache (grader/devcache.c): --copy-gbs gives the bandwidth
 * measured before on the GPU --uuid names, used only on that GPU (the
 * "device" line says "copy_gbs_from": "given" or "measured");
 * --no-ceiling leaves the library out. --device-only measures the device
 * and the ceiling at each case's size, and calls no launcher: the grader
 * runs it in build/labs/<lab>/bench-device, which make links with the
 * reference on both sides, so no submission's code is in that process.
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
