/*
 * Corpus case pmpp-segmented-no-bounds: the segmented multiblock sum of PMPP
 * (4th ed., chapter 10: each block reduces a segment of 2 * blockDim.x
 * elements, each thread adding two of them during the load, and adds its sum
 * to the total with atomicAdd), as transcribed in a public study repository,
 * rewritten for this lab's atomic part. The textbook's kernel has no bounds
 * test (it assumes the length is a multiple of the segment), and the second
 * load's offset is the constant BLOCK_DIM.
 */
#include "reduction.h"

#define BLOCK_DIM (REDUCTION_BLOCK / 2)

__global__ void segmented_sum(const float *input, float *output)
{
	__shared__ float part[BLOCK_DIM];
	unsigned seg = 2 * blockDim.x * blockIdx.x;
	unsigned t = threadIdx.x;
	unsigned i = seg + t;

	part[t] = input[i] + input[i + BLOCK_DIM];
	for (unsigned stride = blockDim.x / 2; stride >= 1; stride /= 2) {
		__syncthreads();
		if (t < stride)
			part[t] += part[t + stride];
	}
	if (t == 0)
		atomicAdd(output, part[0]);
}

void reduction_atomic(const float *d_in, float *d_sum, int n)
{
	int segments = (n + 2 * BLOCK_DIM - 1) / (2 * BLOCK_DIM);
	cudaMemset(d_sum, 0, sizeof(float));
	segmented_sum<<<segments, BLOCK_DIM>>>(d_in, d_sum);
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
