/*
 * Corpus case cbe-shared-temp: the two kernels of the CUDA by Example
 * histogram chapter as moocf/histogram.cuda has them (a grid-stride loop
 * of global atomics; a per-block array of 256 counters in shared memory,
 * one counter per thread, merged one per thread), fitted to histogram.h.
 * The grid-stride kernel with the private array serves parts 2 and 3.
 */
#include "histogram.h"

__global__ void cbe_global(unsigned int *hist, const unsigned int *buf, int N)
{
	int i = threadIdx.x + blockIdx.x * blockDim.x;

	while (i < N) {
		if (buf[i] < HISTOGRAM_BINS)
			atomicAdd(&hist[buf[i]], 1u);
		i += blockDim.x * gridDim.x;
	}
}

/* one counter per thread: blocks of exactly HISTOGRAM_BINS threads */
__global__ void cbe_shared(unsigned int *hist, const unsigned int *buf, int N)
{
	__shared__ unsigned int temp[HISTOGRAM_BLOCK];
	int i = threadIdx.x + blockIdx.x * blockDim.x;
	int t = threadIdx.x;

	temp[t] = 0;
	__syncthreads();
	while (i < N) {
		if (buf[i] < HISTOGRAM_BINS)
			atomicAdd(&temp[buf[i]], 1u);
		i += blockDim.x * gridDim.x;
	}
	__syncthreads();
	atomicAdd(&hist[t], temp[t]);
}

void histogram_global(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	cbe_global<<<(n + HISTOGRAM_BLOCK - 1) / HISTOGRAM_BLOCK, HISTOGRAM_BLOCK>>>(d_bins, d_in, n);
}

void histogram_shared(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	cbe_shared<<<(n + HISTOGRAM_BLOCK - 1) / HISTOGRAM_BLOCK, HISTOGRAM_BLOCK>>>(d_bins, d_in, n);
}

void histogram_coarse(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	const int per_block = HISTOGRAM_BLOCK * HISTOGRAM_COARSEN;
	cbe_shared<<<(n + per_block - 1) / per_block, HISTOGRAM_BLOCK>>>(d_bins, d_in, n);
}
