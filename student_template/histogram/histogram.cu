/*
 * The histogram lab: your kernels and launchers. The contract is in
 * histogram.h and the handout in labs/histogram/README.md. It compiles and
 * does nothing yet: `make test LAB=histogram` tells you what each launcher
 * must do.
 */
#include "histogram.h"

/* Part 1: one thread per element, one atomicAdd on its value's bin. */
__global__ void histogram_global_kernel(const unsigned int *in, int n, unsigned int *bins)
{
	/* TODO: i from blockIdx.x, blockDim.x and threadIdx.x; only i < n;
	 * a value v >= HISTOGRAM_BINS is counted nowhere. */
}

void histogram_global(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	/* TODO: blocks of HISTOGRAM_BLOCK threads, enough of them to cover n (round up). */
}

/* Part 2: a private histogram per block in shared memory, then merged. */
__global__ void histogram_shared_kernel(const unsigned int *in, int n, unsigned int *bins)
{
	/* TODO: a __shared__ array of HISTOGRAM_BINS counters: zero it, wait
	 * for the whole block, count this thread's element into it, wait again,
	 * then add each counter to bins. */
}

void histogram_shared(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	/* TODO: the same grid as histogram_global. */
}

/* Part 3: part 2, with HISTOGRAM_COARSEN elements per thread. */
__global__ void histogram_coarse_kernel(const unsigned int *in, int n, unsigned int *bins)
{
	/* TODO: as part 2, but each thread counts up to HISTOGRAM_COARSEN
	 * elements of its block's HISTOGRAM_BLOCK * HISTOGRAM_COARSEN (which
	 * ones: see the handout, contiguous or interleaved). */
}

void histogram_coarse(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	/* TODO: one block per HISTOGRAM_BLOCK * HISTOGRAM_COARSEN elements (round up). */
}
