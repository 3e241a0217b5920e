/*
 * Corpus case udacity-shmem-unguarded: the shared-memory reduction of
 * Udacity's CS344 "Intro to Parallel Programming" (unit 3, shmem_reduce_kernel,
 * as collected in the LS-CAT data set), rewritten for this lab's sequential
 * part. Its load has no bounds test: the course sums 2^20 elements with
 * blocks of 1024, so every block is full. For any other n the last block
 * reads past the end of the input.
 */
#include "reduction.h"

__global__ void shmem_reduce(float *out, const float *in)
{
	extern __shared__ float s[];
	int me = threadIdx.x + blockDim.x * blockIdx.x;
	int t = threadIdx.x;

	s[t] = in[me];
	__syncthreads();
	for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
		if (t < half)
			s[t] += s[t + half];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = s[0];
}

void reduction_sequential(const float *d_in, float *d_partial, int n)
{
	int blocks = (n + REDUCTION_BLOCK - 1) / REDUCTION_BLOCK;
	shmem_reduce<<<blocks, REDUCTION_BLOCK, REDUCTION_BLOCK * sizeof(float)>>>(d_partial, d_in);
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
