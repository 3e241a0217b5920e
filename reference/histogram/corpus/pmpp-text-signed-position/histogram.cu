/*
 * Corpus case pmpp-text-signed-position: the textbook's first histogram
 * kernel (one thread per character, its position in the alphabet as a
 * signed int, counted when 0 <= position < 26) fitted to histogram.h:
 * the position is the value itself, and the bins are 256.
 */
#include "histogram.h"

__global__ void histo_kernel(const unsigned int *data, unsigned int length, unsigned int *histo)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < length) {
		int position = (int)data[i];
		if (position >= 0 && position < HISTOGRAM_BINS)
			atomicAdd(&histo[position], 1u);
	}
}

void histogram_global(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	dim3 block(HISTOGRAM_BLOCK);
	dim3 grid((n + block.x - 1) / block.x);
	histo_kernel<<<grid, block>>>(d_in, n, d_bins);
}

void histogram_shared(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	/* TODO: the same grid as histogram_global. */
}

void histogram_coarse(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	/* TODO: one block per HISTOGRAM_BLOCK * HISTOGRAM_COARSEN elements (round up). */
}
