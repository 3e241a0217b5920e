/*
 * selftest_runner.cu - the launchers of the timing engine's self-test
 * (bench_selftest.cu), served by a runner (runner.cu) that plays both the
 * reference and the submission. See bench_selftest.cu for what each does.
 */
#include "remote.h"

#include <pthread.h>
#include <unistd.h>

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

extern "C" void selftest_same(const float *in, float *out, size_t n)
{
	selftest_kernel<<<264, 256>>>(in, out, n);
}

extern "C" void selftest_stream(const float *in, float *out, size_t n)
{
	static cudaStream_t side;
	if (!side)
		cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
	selftest_kernel<<<264, 256, 0, side>>>(in, out, n);   /* and return without waiting */
}

extern "C" void selftest_stale(const float *in, float *out, size_t n)
{
	static int calls;
	if (calls++ == 0)
		selftest_kernel<<<264, 256>>>(in, out, n);
}

/* A scratch buffer of its own, worked on by a thread until the runner ends. */
static void *keep_busy(void *)
{
	const size_t n = (size_t)4 << 20;
	float *a, *b;
	cudaStream_t s;
	cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
	cudaMalloc(&a, n * sizeof(float));
	cudaMalloc(&b, n * sizeof(float));
	for (;;) {
		selftest_kernel<<<264, 256, 0, s>>>(a, b, n);
		cudaStreamSynchronize(s);
		usleep(200);
	}
	return NULL;
}

extern "C" void selftest_busy(const float *in, float *out, size_t n)
{
	static pthread_t busy;
	if (!busy)
		pthread_create(&busy, NULL, keep_busy, NULL);
	selftest_kernel<<<264, 256>>>(in, out, n);
}

/* Its first call is done; every later one never returns. */
extern "C" void selftest_hang(const float *in, float *out, size_t n)
{
	static int calls;
	selftest_kernel<<<264, 256>>>(in, out, n);
	if (calls++)
		for (;;)
			pause();
}

static cl_served served_same("selftest_same", cl_serve_of<&selftest_same>::serve);
static cl_served served_stream("selftest_stream", cl_serve_of<&selftest_stream>::serve);
static cl_served served_stale("selftest_stale", cl_serve_of<&selftest_stale>::serve);
static cl_served served_busy("selftest_busy", cl_serve_of<&selftest_busy>::serve);
static cl_served served_hang("selftest_hang", cl_serve_of<&selftest_hang>::serve);
