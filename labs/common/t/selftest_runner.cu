/*
 * selftest_runner.cu - the launchers of the timing engine's self-test
 * (bench_selftest.cu), served by a runner (runner.cu) that plays both the
 * reference and the submission. See bench_selftest.cu for what each does.
 */
#include "remote.h"

#include <pthread.h>
#include <signal.h>
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

/* Once the device is idle (the call's reply goes out then), waits a little
 * and stops the whole program: the timer's next request is never answered. */
static void *stop_soon(void *)
{
	cudaDeviceSynchronize();
	usleep(300);
	kill(getpid(), SIGSTOP);
	return NULL;
}

/* Each call computes, then leaves a thread that stops the program after it
 * has returned, before the timer asks again (at n = 4M the reference's
 * call between takes a millisecond). */
extern "C" void selftest_stop(const float *in, float *out, size_t n)
{
	pthread_t t;
	selftest_kernel<<<264, 256>>>(in, out, n);
	if (!pthread_create(&t, NULL, stop_soon, NULL))
		pthread_detach(t);
}

static cl_served served_same("selftest_same", cl_serve_of<&selftest_same>::serve);
static cl_served served_stream("selftest_stream", cl_serve_of<&selftest_stream>::serve);
static cl_served served_stale("selftest_stale", cl_serve_of<&selftest_stale>::serve);
static cl_served served_busy("selftest_busy", cl_serve_of<&selftest_busy>::serve);
static cl_served served_hang("selftest_hang", cl_serve_of<&selftest_hang>::serve);
static cl_served served_stop("selftest_stop", cl_serve_of<&selftest_stop>::serve);
