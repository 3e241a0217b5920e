/*
 * Corpus case ach-private-no-barrier: the first private histogram of
 * NVIDIA's accelerated computing tutorial, the one it shows to be wrong:
 * each thread adds its element to its block's histogram and the first
 * threads add the block's bins to the global ones at once, with no
 * barrier between, and no test that the element is inside the input;
 * fitted to histogram.h's part 2 (the block's histogram in shared memory,
 * zeroed before a barrier, as the tutorial's next step has it).
 */
#include "histogram.h"

__global__ void histogram_kernel(const unsigned int *values, unsigned int *histogram)
{
	__shared__ unsigned int block_histogram[HISTOGRAM_BINS];

	if (threadIdx.x < HISTOGRAM_BINS)
		block_histogram[threadIdx.x] = 0;
	__syncthreads();

	int cell = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int bin = values[cell];
	if (bin < HISTOGRAM_BINS)
		atomicAdd(&block_histogram[bin], 1u);

	if (threadIdx.x < HISTOGRAM_BINS)
		atomicAdd(&histogram[threadIdx.x], block_histogram[threadIdx.x]);
}

void histogram_shared(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	int block_size = HISTOGRAM_BLOCK;
	int grid_size = (n + block_size - 1) / block_size;
	histogram_kernel<<<grid_size, block_size>>>(d_in, d_bins);
}

void histogram_global(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	/* TODO: blocks of HISTOGRAM_BLOCK threads, enough of them to cover n (round up). */
}

void histogram_coarse(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	/* TODO: one block per HISTOGRAM_BLOCK * HISTOGRAM_COARSEN elements (round up). */
}
