/*
 * Corpus case pmpp-interleaved-gridstride: the textbook's coarsened
 * kernel with interleaved partitioning (a grid-stride loop over a private
 * histogram in shared memory) as yanis-falaki/pmpp writes it, fitted to
 * histogram.h's part 3.
 */
#include "histogram.h"

__global__ void histo_private_coarsened_interleaved_kernel(const unsigned int *data,
							   unsigned int length,
							   unsigned int *histo)
{
	__shared__ unsigned int histo_s[HISTOGRAM_BINS];
	for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
		histo_s[bin] = 0u;
	__syncthreads();

	unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
	for (unsigned int i = tid; i < length; i += blockDim.x * gridDim.x) {
		unsigned int value = data[i];
		if (value < HISTOGRAM_BINS)
			atomicAdd(&histo_s[value], 1u);
	}
	__syncthreads();

	for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x) {
		unsigned int binValue = histo_s[bin];
		if (binValue > 0)
			atomicAdd(&histo[bin], binValue);
	}
}

void histogram_coarse(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	unsigned int per_block = HISTOGRAM_BLOCK * HISTOGRAM_COARSEN;
	dim3 grid((n + per_block - 1) / per_block);
	histo_private_coarsened_interleaved_kernel<<<grid, HISTOGRAM_BLOCK>>>(d_in, n, d_bins);
}

void histogram_global(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	/* TODO: blocks of HISTOGRAM_BLOCK threads, enough of them to cover n (round up). */
}

void histogram_shared(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	/* TODO: the same grid as histogram_global. */
}
