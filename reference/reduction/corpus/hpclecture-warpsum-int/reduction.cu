/*
 * Corpus case hpclecture-warpsum-int: the warp-shuffle sum of an HPC lecture's
 * CUDA examples (zwr17/hpc_lecture, cuda/07_warp_sum.cu), rewritten for this
 * lab's atomic part. Two bugs are kept: the warp's sum is computed in float
 * but returned as int, so every fraction is dropped; and threads past n
 * return before a __shfl_down_sync whose full mask names them.
 */
#include "reduction.h"

static __device__ int lane_sum(float s)
{
	for (int d = 16; d > 0; d >>= 1)
		s += __shfl_down_sync(0xffffffff, s, d);
	return s;
}

__global__ void warp_sum_atomic(const float *a, float *total, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	float s = lane_sum(a[i]);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(total, s);
}

void reduction_atomic(const float *d_in, float *d_sum, int n)
{
	cudaMemset(d_sum, 0, sizeof(float));
	warp_sum_atomic<<<(n + REDUCTION_BLOCK - 1) / REDUCTION_BLOCK, REDUCTION_BLOCK>>>(d_in,
										    d_sum, n);
}

void reduction_interleaved(const float *d_in, float *d_partial, int n)
{
	/* not this case's: the stub's empty body */
}

void reduction_sequential(const float *d_in, float *d_partial, int n)
{
	/* not this case's: the stub's empty body */
}

void reduction_warp(const float *d_in, float *d_partial, int n)
{
	/* not this case's: the stub's empty body */
}
