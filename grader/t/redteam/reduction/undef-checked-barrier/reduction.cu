/* the lab checks every barrier on a GPU by a macro; undone, a barrier in a
 * branch would go unchecked there, and might pass by the schedule */
#undef __syncthreads
/*
 * Fixture barrier-in-branch: the interleaved tree with its __syncthreads()
 * inside the test that picks the active threads, so at level s only the
 * threads whose tid is a multiple of 2s reach it; the others run on through
 * the loop and end. Its values come out right where the threads that ended
 * count as arrived, but a barrier that some threads of a block skip is
 * undefined (a hang, or garbage) and synccheck reports it.
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
			__syncthreads();
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
