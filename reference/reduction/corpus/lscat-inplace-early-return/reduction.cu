/*
 * Corpus case lscat-inplace-early-return: a reduction kernel of the LS-CAT
 * data set (reduceInterleaved, after the book "Professional CUDA C
 * Programming", chapter 3), rewritten for this lab's sequential part. It adds
 * up in place in the input array in global memory, halving the stride, and
 * threads past n return before the tree: the caller's d_in is overwritten,
 * the barriers are skipped by the threads that returned, and the last block
 * reads past the end of the input.
 */
#include "reduction.h"

__global__ void reduce_in_place(const float *in, float *partial, int n)
{
	unsigned t = threadIdx.x;
	unsigned g = blockIdx.x * blockDim.x + t;
	float *seg = (float *)in + blockIdx.x * blockDim.x;   /* this block's elements */

	if (g >= (unsigned)n)
		return;
	for (int half = blockDim.x / 2; half > 0; half >>= 1) {
		if (t < (unsigned)half)
			seg[t] += seg[t + half];
		__syncthreads();
	}
	if (t == 0)
		partial[blockIdx.x] = seg[0];
}

void reduction_sequential(const float *d_in, float *d_partial, int n)
{
	int grid = (n + REDUCTION_BLOCK - 1) / REDUCTION_BLOCK;
	reduce_in_place<<<grid, REDUCTION_BLOCK>>>(d_in, d_partial, n);
}

void reduction_interleaved(const float *d_in, float *d_partial, int n)
{
	/* not this case's: the stub's empty body */
}

void reduction_warp(const float *d_in, float *d_partial, int n)
{
	/* not this case's: the stub's empty body */
}

void reduction_atomic(const float *d_in, float *d_sum, int n)
{
	/* not this case's: the stub's empty body */
}
