/*
 * The reduction lab's reference: graded as any submission, it must score full
 * marks (cudalab check-lab reduction), and the timed tests hold students to its
 * times. Each kernel is the plain form of its part of the handout, no more:
 * one element per thread, a tree in shared memory, thread 0 writes the result.
 */
#include "reduction.h"

#define BLOCK REDUCTION_BLOCK

static int blocks_for(int n)
{
	return (n + BLOCK - 1) / BLOCK;
}

/* Part 1: at level s, threads whose index is a multiple of 2s add the value s
 * places up; the active threads are spread over every warp. */
__global__ void reduction_interleaved_kernel(const float *in, float *partial, int n)
{
	__shared__ float sdata[BLOCK];
	unsigned tid = threadIdx.x;
	int i = blockIdx.x * BLOCK + tid;

	sdata[tid] = i < n ? in[i] : 0.0f;
	__syncthreads();
	for (unsigned s = 1; s < BLOCK; s *= 2) {
		if (tid % (2 * s) == 0)
			sdata[tid] += sdata[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		partial[blockIdx.x] = sdata[0];
}

/* Part 2: at stride s, the first s threads add the value s places up; the
 * active threads stay contiguous, so whole warps drop out. */
__global__ void reduction_sequential_kernel(const float *in, float *partial, int n)
{
	__shared__ float sdata[BLOCK];
	unsigned tid = threadIdx.x;
	int i = blockIdx.x * BLOCK + tid;

	sdata[tid] = i < n ? in[i] : 0.0f;
	__syncthreads();
	for (unsigned s = BLOCK / 2; s > 0; s /= 2) {
		if (tid < s)
			sdata[tid] += sdata[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		partial[blockIdx.x] = sdata[0];
}

/* The sum of the 64 values at sdata[0..63], in the first warp, by shuffles:
 * every lane of warp 0 takes part, so the full mask is right. */
static __device__ float block_sum(float *sdata, unsigned tid)
{
	for (unsigned s = BLOCK / 2; s > 32; s /= 2) {
		if (tid < s)
			sdata[tid] += sdata[tid + s];
		__syncthreads();
	}
	float v = 0.0f;
	if (tid < 32) {
		v = sdata[tid] + sdata[tid + 32];
		for (int offset = 16; offset > 0; offset /= 2)
			v += __shfl_down_sync(0xffffffffu, v, offset);
	}
	return v;   /* the block's sum, in thread 0 */
}

/* Part 3: part 2 down to 64 values, then one warp with shuffles. */
__global__ void reduction_warp_kernel(const float *in, float *partial, int n)
{
	__shared__ float sdata[BLOCK];
	unsigned tid = threadIdx.x;
	int i = blockIdx.x * BLOCK + tid;

	sdata[tid] = i < n ? in[i] : 0.0f;
	__syncthreads();
	float sum = block_sum(sdata, tid);
	if (tid == 0)
		partial[blockIdx.x] = sum;
}

/* Part 4: part 3's block sum, added to the total by thread 0. */
__global__ void reduction_atomic_kernel(const float *in, float *sum, int n)
{
	__shared__ float sdata[BLOCK];
	unsigned tid = threadIdx.x;
	int i = blockIdx.x * BLOCK + tid;

	sdata[tid] = i < n ? in[i] : 0.0f;
	__syncthreads();
	float s = block_sum(sdata, tid);
	if (tid == 0)
		atomicAdd(sum, s);
}

void reduction_interleaved(const float *d_in, float *d_partial, int n)
{
	reduction_interleaved_kernel<<<blocks_for(n), BLOCK>>>(d_in, d_partial, n);
}

void reduction_sequential(const float *d_in, float *d_partial, int n)
{
	reduction_sequential_kernel<<<blocks_for(n), BLOCK>>>(d_in, d_partial, n);
}

void reduction_warp(const float *d_in, float *d_partial, int n)
{
	reduction_warp_kernel<<<blocks_for(n), BLOCK>>>(d_in, d_partial, n);
}

void reduction_atomic(const float *d_in, float *d_sum, int n)
{
	cudaMemset(d_sum, 0, sizeof(float));
	reduction_atomic_kernel<<<blocks_for(n), BLOCK>>>(d_in, d_sum, n);
}
