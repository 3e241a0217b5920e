/*
 * bench_reduction.cu - the reduction lab's timer: each launcher of the
 * submission against the reference's, each in its own runner, on the engine
 * in labs/common/bench.cu (docs/lab-authoring.md, "Timed kernels").
 *
 * Kernels (lab.conf's kernel = ...), size n floats:
 *   interleaved, sequential, warp   reduction_<kernel>: a partial sum per block
 *   atomic                          reduction_atomic: the whole sum
 * A reduction only reads: each is rated by its effective bandwidth, the bytes
 * it must move (n floats read, its output written) over the median time.
 *
 * The inputs are small whole numbers (-2, -1, 1, 2, from the pair's seed,
 * written by the timer's kernel into the buffer both runners see), so that
 * every partial sum of any order of addition is a whole number far below
 * 2^24 and exact in float: the submission's output is held to the exact sums,
 * with no tolerance. (The whole sum of 2^28 of them is a random walk: over
 * 2^24 in no order that a run of blocks could take, by hundreds of standard
 * deviations.) The exact sums are computed after every pair by a kernel of the
 * timer's, from the seed and not from the input buffer, which a runner can
 * write, in integers, into memory no runner sees. Each side writes an output
 * of its own, shared with its runner only.
 */
#include "bench.h"
#include "reduction.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK REDUCTION_BLOCK

static const char *const kernels[] = {"interleaved", "sequential", "warp", "atomic", NULL};

struct ctx {
	int n, nblocks;
	bool total;                /* the atomic kernel: one float out */
	float *in;                 /* both runners */
	float *out[2];             /* by enum cl_who: each side's, for its runner only */
	float *exact;              /* the timer's: each block's exact sum */
	unsigned long long *sum;   /* the timer's: the exact whole sum, two's complement */
};

/* The input at i for seed: a whole number, the same on the host and the device. */
__host__ __device__ static inline float input_value(uint64_t seed, size_t i)
{
	float x = cl_bench_value(seed, i);
	return x < -0.5f ? -2.0f : x < 0.0f ? -1.0f : x < 0.5f ? 1.0f : 2.0f;
}

__global__ void fill_kernel(float *d, size_t n, uint64_t seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		d[i] = input_value(seed, i);
}

/* Each block's sum and the whole sum, in integers: exact, whatever the order. */
__global__ void exact_kernel(int n, uint64_t seed, float *part, unsigned long long *sum)
{
	__shared__ int block_sum;
	size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x;

	if (threadIdx.x == 0)
		block_sum = 0;
	__syncthreads();
	if (i < (size_t)n)
		atomicAdd(&block_sum, (int)input_value(seed, i));
	__syncthreads();
	if (threadIdx.x == 0) {
		part[blockIdx.x] = (float)block_sum;
		atomicAdd(sum, (unsigned long long)(long long)block_sum);
	}
}

static void teardown(void *p)
{
	struct ctx *c = (struct ctx *)p;
	cl_bench_free(c->in);
	cl_bench_free(c->out[CL_REFERENCE]);
	cl_bench_free(c->out[CL_STUDENT]);
	cl_bench_free(c->exact);
	if (c->sum)
		cudaFree(c->sum);
	free(c);
}

static void *setup(const char *kernel, int size, char *why, size_t len)
{
	struct ctx *c = (struct ctx *)calloc(1, sizeof(*c));

	c->n = size;
	c->nblocks = (size + BLOCK - 1) / BLOCK;
	c->total = !strcmp(kernel, "atomic");
	size_t in_bytes = (size_t)size * sizeof(float);
	size_t out_bytes = (c->total ? 1 : (size_t)c->nblocks) * sizeof(float);
	if (!(c->in = (float *)cl_bench_shared(in_bytes, CL_SHARE_REFERENCE | CL_SHARE_STUDENT)) ||
	    !(c->out[CL_REFERENCE] = (float *)cl_bench_shared(out_bytes, CL_SHARE_REFERENCE)) ||
	    !(c->out[CL_STUDENT] = (float *)cl_bench_shared(out_bytes, CL_SHARE_STUDENT)) ||
	    !(c->exact = (float *)cl_bench_shared((size_t)c->nblocks * sizeof(float), 0)) ||
	    cudaMalloc((void **)&c->sum, sizeof(*c->sum)) != cudaSuccess) {
		snprintf(why, len, "cannot allocate %d floats and their sums", size);
		cudaGetLastError();
		teardown(c);
		return NULL;
	}
	return c;
}

static void inputs(void *p, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	fill_kernel<<<1024, 256>>>(c->in, c->n, seed);
	CL_BENCH_CHECK(cudaGetLastError());
}

/* NaN into who's output before its call. */
static void poison(void *p, enum cl_who who, uint64_t)
{
	struct ctx *c = (struct ctx *)p;
	size_t count = c->total ? 1 : (size_t)c->nblocks;

	if (who != CL_CEILING)
		CL_BENCH_CHECK(cudaMemset(c->out[who], 0xff, count * sizeof(float)));
}

static void call(void *p, const char *kernel, enum cl_who who, struct cl_call *call)
{
	struct ctx *c = (struct ctx *)p;
	char name[64];

	snprintf(name, sizeof(name), "reduction_%s", kernel);
	cl_bench_call(call, name, (const float *)cl_bench_at(c->in, who),
		      (float *)cl_bench_at(c->out[who], who), c->n);
}

static void output(void *p, enum cl_who who, const float **out, size_t *n)
{
	struct ctx *c = (struct ctx *)p;
	*out = c->out[who];
	*n = c->total ? 1 : (size_t)c->nblocks;
}

static int verify(void *p, uint64_t seed, char *msg, size_t len)
{
	struct ctx *c = (struct ctx *)p;
	unsigned long long sum;
	struct cl_mismatch m;

	CL_BENCH_CHECK(cudaMemset(c->sum, 0, sizeof(*c->sum)));
	exact_kernel<<<c->nblocks, BLOCK>>>(c->n, seed, c->exact, c->sum);
	CL_BENCH_CHECK(cudaGetLastError());
	CL_BENCH_CHECK(cudaMemcpy(&sum, c->sum, sizeof(sum), cudaMemcpyDeviceToHost));

	if (c->total) {
		float got;
		double want = (double)(long long)sum;
		CL_BENCH_CHECK(cudaMemcpy(&got, c->out[CL_STUDENT], sizeof(got),
					  cudaMemcpyDeviceToHost));
		if (!((double)got == want)) {
			snprintf(msg, len, "*d_sum = %g, expected %.0f (the exact sum of %d whole "
				 "numbers)%s", got, want, c->n,
				 got != got ? "\nhint: still NaN: set *d_sum to 0, then every block "
					      "adds its sum to it, in every call" : "");
			return -1;
		}
		return 0;
	}
	cl_bench_compare(c->out[CL_STUDENT], c->exact, c->nblocks, 0.0f, &m);
	if (m.count) {
		snprintf(msg, len, "d_partial[%llu] = %g, expected %g (the exact sum of its block's "
			 "whole numbers); %llu of %d partial sums wrong%s", m.first, m.got, m.want,
			 m.count, c->nblocks,
			 m.got != m.got ? "\nhint: still NaN: each call must write every partial "
					  "sum from the inputs it is given now" : "");
		return -1;
	}
	return 0;
}

static double flop(const char *, int)
{
	return 0;   /* rated by bandwidth */
}

/* n floats read once, the output written once */
static double bytes(const char *kernel, int size)
{
	double out = strcmp(kernel, "atomic") ? (size + BLOCK - 1) / BLOCK : 1;
	return ((double)size + out) * sizeof(float);
}

static const struct cl_bench_lab lab = {
	"reduction", kernels, NULL, setup, teardown, inputs, poison, call, output, verify, flop,
	bytes, NULL, NULL,
};

int main(int argc, char **argv)
{
	return cl_bench_main(&lab, argc, argv);
}
