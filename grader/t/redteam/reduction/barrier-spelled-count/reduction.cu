/*
 * The interleaved tree with its barrier inside the branch that picks the
 * active threads, spelled __syncthreads_count(1) in the hope that only
 * __syncthreads() is checked: on a GPU its values can come out right.
 */
#include "reduction.h"

__global__ void reduction_interleaved_kernel(const float *in, float *partial, int n)
{
	__shared__ float sdata[REDUCTION_BLOCK];
	unsigned tid = threadIdx.x;
	int i = blockIdx.x * REDUCTION_BLOCK + tid;

	sdata[tid] = i < n ? in[i] : 0.0f;
	__syncthreads();
	for (unsigned s = 1; s < REDUCTION_BLOCK; s *= 2) {
		if (tid % (2 * s) == 0) {
			sdata[tid] += sdata[tid + s];
			(void)__syncthreads_count(1);   /* a barrier, by another name */
		}
	}
	if (tid == 0)
		partial[blockIdx.x] = sdata[0];
}

void reduction_interleaved(const float *d_in, float *d_partial, int n)
{
	int blocks = (n + REDUCTION_BLOCK - 1) / REDUCTION_BLOCK;
	reduction_interleaved_kernel<<<blocks, REDUCTION_BLOCK>>>(d_in, d_partial, n);
}

void reduction_sequential(const float *d_in, float *d_partial, int n)
{
	/* not this fixture's: the stub's empty body */
}

void reduction_warp(const float *d_in, float *d_partial, int n)
{
	/* not this fixture's: the stub's empty body */
}

void reduction_atomic(const float *d_in, float *d_sum, int n)
{
	/* not this fixture's: the stub's empty body */
}
