/*
 * Corpus case ach-private-no-bounds: the private histogram in shared
 * memory of NVIDIA's accelerated computing tutorial (its solution to the
 * synchronization exercise): the first threads zero and merge the bins,
 * both barriers are there, but a thread reads its element with no test
 * that it is inside the input, fitted to histogram.h's part 2.
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
	__syncthreads();

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
