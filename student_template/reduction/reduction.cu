/*
 * The reduction lab: your kernels and launchers. The contract is in reduction.h
 * and the handout in labs/reduction/README.md. Grade yourself with:
 *
 *     make test LAB=reduction
 *
 * It compiles and does nothing yet: until you fill them in, the launchers
 * launch nothing, every test fails with "launched no kernel", and the message
 * says what the launcher must do.
 */
#include "reduction.h"

/*
 * Every kernel: blocks of REDUCTION_BLOCK threads, one element each. Thread
 * tid of block b loads element b * REDUCTION_BLOCK + tid into a __shared__
 * array, or 0 where that is past n, then the block adds its array up.
 */

/* Part 1: interleaved addressing. At level s = 1, 2, 4, ..., the threads whose
 * tid is a multiple of 2s add the value s places up into their own. */
__global__ void reduction_interleaved_kernel(const float *in, float *partial, int n)
{
	/* TODO: load, then the tree; a __syncthreads() that every thread reaches
	 * between the loads and each level; thread 0 stores partial[blockIdx.x]. */
}

/* Part 2: sequential addressing. At stride s = REDUCTION_BLOCK / 2, ..., 1, the
 * first s threads add the value s places up. */
__global__ void reduction_sequential_kernel(const float *in, float *partial, int n)
{
	/* TODO */
}

/* Part 3: as part 2 while more than a warp's worth is left, then the first warp
 * finishes with __shfl_down_sync. */
__global__ void reduction_warp_kernel(const float *in, float *partial, int n)
{
	/* TODO */
}

/* Part 4: the block's sum as in part 3, then thread 0 adds it to *sum with
 * atomicAdd. */
__global__ void reduction_atomic_kernel(const float *in, float *sum, int n)
{
	/* TODO */
}

void reduction_interleaved(const float *d_in, float *d_partial, int n)
{
	/* TODO: one block per REDUCTION_BLOCK elements, and one more for what is
	 * left over: launch reduction_interleaved_kernel<<<blocks, REDUCTION_BLOCK>>>. */
}

void reduction_sequential(const float *d_in, float *d_partial, int n)
{
	/* TODO: as reduction_interleaved, with reduction_sequential_kernel. */
}

void reduction_warp(const float *d_in, float *d_partial, int n)
{
	/* TODO: as reduction_interleaved, with reduction_warp_kernel. */
}

void reduction_atomic(const float *d_in, float *d_sum, int n)
{
	/* TODO: *d_sum holds anything now: set it to 0 (cudaMemset), then launch
	 * reduction_atomic_kernel on the same grid as the others. */
}
