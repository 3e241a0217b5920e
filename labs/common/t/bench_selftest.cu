/*
 * bench_selftest.cu - a timing driver on the engine (labs/common/bench.cu)
 * whose "student" is written here, to test the engine's own defences on a
 * GPU (grader/t/t4002-timing-engine.sh):
 *
 *   same     the student's launcher is the reference's: the ratio is 1;
 *   stream   the student's launcher runs the same kernel on a stream that
 *            does not wait for the default stream, and returns at once:
 *            the ratio must still be 1, because the end event is recorded
 *            only after the whole device is idle;
 *   stale    the student's launcher does nothing after its first call: the
 *            engine's check of the timed output must say so.
 *
 * The audit keeps stream calls out of submissions; this pins the second
 * line of defence behind it.
 */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kernels[] = {"same", "stream", "stale", NULL};

struct ctx {
	size_t n;
	float *in, *out[2];
	cudaStream_t side;
};

/* Enough arithmetic per element to take about a millisecond at n = 4M. */
__global__ void selftest_kernel(const float *in, float *out, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		float x = in[i], y = 0.0f;
		for (int k = 0; k < 256; k++)
			y = fmaf(y, 0.5f, x);
		out[i] = y;
	}
}

static void launch(struct ctx *c, float *out, cudaStream_t s)
{
	selftest_kernel<<<264, 256, 0, s>>>(c->in, out, c->n);
}

static void *setup(const char *, int size, char *why, size_t len)
{
	struct ctx *c = (struct ctx *)calloc(1, sizeof(*c));

	c->n = (size_t)size * 1024;
	if (cudaMalloc(&c->in, c->n * sizeof(float)) != cudaSuccess ||
	    cudaMalloc(&c->out[0], c->n * sizeof(float)) != cudaSuccess ||
	    cudaMalloc(&c->out[1], c->n * sizeof(float)) != cudaSuccess ||
	    cudaStreamCreateWithFlags(&c->side, cudaStreamNonBlocking) != cudaSuccess) {
		snprintf(why, len, "cannot allocate for size %d", size);
		return NULL;
	}
	return c;
}

static void teardown(void *p)
{
	struct ctx *c = (struct ctx *)p;
	cudaFree(c->in);
	cudaFree(c->out[0]);
	cudaFree(c->out[1]);
	cudaStreamDestroy(c->side);
	free(c);
}

static void inputs(void *p, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	cl_bench_fill(c->in, c->n, seed);
}

static void poison(void *p, enum cl_who who)
{
	struct ctx *c = (struct ctx *)p;
	if (who != CL_CEILING)
		CL_BENCH_CHECK(cudaMemset(c->out[who], 0xff, c->n * sizeof(float)));
}

static void call(void *p, const char *kernel, enum cl_who who)
{
	struct ctx *c = (struct ctx *)p;
	static int stale_calls;

	if (who == CL_REFERENCE || !strcmp(kernel, "same"))
		launch(c, c->out[who], 0);
	else if (!strcmp(kernel, "stream"))
		launch(c, c->out[who], c->side);   /* and return without waiting */
	else if (!strcmp(kernel, "stale") && stale_calls++ == 0)
		launch(c, c->out[who], 0);
}

static int verify(void *p, uint64_t seed, char *msg, size_t len)
{
	struct ctx *c = (struct ctx *)p;
	struct cl_mismatch m;

	cl_bench_compare(c->out[CL_STUDENT], c->out[CL_REFERENCE], c->n, 0.0f, &m);
	if (!m.count)
		return 0;
	snprintf(msg, len, "out[%llu] = %g, expected %g; %llu wrong", m.first, m.got, m.want,
		 m.count);
	return -1;
}

static double flop(const char *, int size)
{
	return 2.0 * 256 * size * 1024.0;
}

static double bytes(const char *, int size)
{
	return 2.0 * size * 1024.0 * sizeof(float);
}

static const struct cl_bench_lab lab = {
	"selftest", kernels, NULL, setup, teardown, inputs, poison, call, verify, flop, bytes, NULL,
	NULL,
};

int main(int argc, char **argv)
{
	return cl_bench_main(&lab, argc, argv);
}
