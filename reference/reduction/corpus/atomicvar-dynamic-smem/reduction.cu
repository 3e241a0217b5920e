/*
 * Corpus case atomicvar-dynamic-smem: the first and third block reductions of
 * a public collection of CUDA patterns (AtomicVar/CUDA-Patterns, 5-reduce-sum,
 * V1 and V3), rewritten for this lab: the interleaved tree (tid % (2 * s))
 * and the sequential one (stride halving), each on an extern __shared__ array
 * sized by the launch's third argument, the loads guarded (0 past n).
 */
#include "reduction.h"

__global__ void interleaved_v1(const float *src, float *block_sums, int len)
{
	extern __shared__ float buf[];
	int t = threadIdx.x;
	int g = blockIdx.x * blockDim.x + t;

	buf[t] = g < len ? src[g] : 0.0f;
	__syncthreads();
	for (int s = 1; s < blockDim.x; s *= 2) {
		if (t % (2 * s) == 0)
			buf[t] += buf[t + s];
		__syncthreads();
	}
	if (t == 0)
		block_sums[blockIdx.x] = buf[0];
}

__global__ void contiguous_v3(const float *src, float *block_sums, int len)
{
	extern __shared__ float buf[];
	int t = threadIdx.x;
	int g = blockIdx.x * blockDim.x + t;

	buf[t] = g < len ? src[g] : 0.0f;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s /= 2) {
		if (t < s)
			buf[t] += buf[t + s];
		__syncthreads();
	}
	if (t == 0)
		block_sums[blockIdx.x] = buf[0];
}

void reduction_interleaved(const float *d_in, float *d_partial, int n)
{
	int grid = (n + REDUCTION_BLOCK - 1) / REDUCTION_BLOCK;
	interleaved_v1<<<grid, REDUCTION_BLOCK, REDUCTION_BLOCK * sizeof(float)>>>(d_in, d_partial, n);
}

void reduction_sequential(const float *d_in, float *d_partial, int n)
{
	int grid = (n + REDUCTION_BLOCK - 1) / REDUCTION_BLOCK;
	contiguous_v3<<<grid, REDUCTION_BLOCK, REDUCTION_BLOCK * sizeof(float)>>>(d_in, d_partial, n);
}

void reduction_warp(const float *d_in, float *d_partial, int n)
{
	/* not this case's: the stub's empty body */
}

void reduction_atomic(const float *d_in, float *d_sum, int n)
{
	/* not this case's: the stub's empty body */
}
