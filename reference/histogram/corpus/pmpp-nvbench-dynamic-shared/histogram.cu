/*
 * Corpus case pmpp-nvbench-dynamic-shared: a private histogram in dynamic
 * shared memory (extern __shared__, its size the launch's third parameter,
 * the number of bins a kernel argument), zeroed, counted by a grid-stride
 * loop and merged with loops strided by blockDim.x, as R100001's PMPP
 * benchmarks write it; fitted to histogram.h's parts 2 and 3.
 */
#include "histogram.h"

__global__ void histogram_shared_bins(const unsigned int *input, unsigned int *bins,
				      unsigned int num_elements, unsigned int num_bins)
{
	unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
	extern __shared__ unsigned int bins_s[];

	for (unsigned int b = threadIdx.x; b < num_bins; b += blockDim.x)
		bins_s[b] = 0;
	__syncthreads();

	for (unsigned int i = tid; i < num_elements; i += blockDim.x * gridDim.x)
		if (input[i] < num_bins)
			atomicAdd(&bins_s[input[i]], 1u);
	__syncthreads();

	for (unsigned int b = threadIdx.x; b < num_bins; b += blockDim.x)
		atomicAdd(&bins[b], bins_s[b]);
}

static void launch(const unsigned int *d_in, int n, unsigned int *d_bins, int per_block)
{
	dim3 grid((n + per_block - 1) / per_block), block(HISTOGRAM_BLOCK);
	size_t smem = HISTOGRAM_BINS * sizeof(unsigned int);
	histogram_shared_bins<<<grid, block, smem>>>(d_in, d_bins, n, HISTOGRAM_BINS);
}

void histogram_global(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	/* TODO: blocks of HISTOGRAM_BLOCK threads, enough of them to cover n (round up). */
}

void histogram_shared(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	launch(d_in, n, d_bins, HISTOGRAM_BLOCK);
}

void histogram_coarse(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	launch(d_in, n, d_bins, HISTOGRAM_BLOCK * HISTOGRAM_COARSEN);
}
