/*
 * Corpus case cbe-bytes-no-range: CUDA by Example's histogram of bytes,
 * fitted to histogram.h's 32-bit values as a student would: the types
 * change, but the pattern has no test that a value is below the number
 * of bins (a byte always is), so a value out of range adds past the end of
 * the bins, in global memory (part 1) and in shared memory (part 2).
 */
#include "histogram.h"

__global__ void histo_kernel(const unsigned int *buffer, long size, unsigned int *histo)
{
	int i = threadIdx.x + blockIdx.x * blockDim.x;
	int offset = blockDim.x * gridDim.x;

	while (i < size) {
		atomicAdd(&histo[buffer[i]], 1u);
		i += offset;
	}
}

__global__ void histo_shared_kernel(const unsigned int *buffer, long size, unsigned int *histo)
{
	__shared__ unsigned int temp[256];
	temp[threadIdx.x] = 0;
	__syncthreads();

	int i = threadIdx.x + blockIdx.x * blockDim.x;
	int offset = blockDim.x * gridDim.x;
	while (i < size) {
		atomicAdd(&temp[buffer[i]], 1u);
		i += offset;
	}
	__syncthreads();
	atomicAdd(&histo[threadIdx.x], temp[threadIdx.x]);
}

void histogram_global(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	histo_kernel<<<(n + 255) / 256, 256>>>(d_in, n, d_bins);
}

void histogram_shared(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	histo_shared_kernel<<<(n + 255) / 256, 256>>>(d_in, n, d_bins);
}

void histogram_coarse(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	/* TODO: one block per HISTOGRAM_BLOCK * HISTOGRAM_COARSEN elements (round up). */
}
