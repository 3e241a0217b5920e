/*
 * Corpus case pmpp-contiguous-partition: the textbook's chapter on
 * histograms as m2papierz/pmpp writes it: the basic kernel (part 1), the
 * private histogram in shared memory (part 2), and coarsening by
 * contiguous partitions, each thread CFACTOR consecutive elements
 * (part 3), fitted to histogram.h.
 */
#include "histogram.h"

#define CFACTOR HISTOGRAM_COARSEN

__global__ void histogramKernel(const unsigned int *data, unsigned int length, unsigned int *histo)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < length && data[i] < HISTOGRAM_BINS)
		atomicAdd(&histo[data[i]], 1u);
}

__global__ void histogramKernelSharedMem(const unsigned int *data, unsigned int length,
					 unsigned int *histo)
{
	__shared__ unsigned int histo_s[HISTOGRAM_BINS];
	for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
		histo_s[bin] = 0u;
	__syncthreads();

	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < length && data[i] < HISTOGRAM_BINS)
		atomicAdd(&histo_s[data[i]], 1u);
	__syncthreads();

	for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x) {
		unsigned int binValue = histo_s[bin];
		if (binValue > 0)
			atomicAdd(&histo[bin], binValue);
	}
}

__global__ void histogramKernelContiguousPart(const unsigned int *data, unsigned int length,
					      unsigned int *histo)
{
	__shared__ unsigned int histo_s[HISTOGRAM_BINS];
	for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
		histo_s[bin] = 0u;
	__syncthreads();

	unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
	for (unsigned int i = tid * CFACTOR; i < min((tid + 1) * CFACTOR, length); ++i)
		if (data[i] < HISTOGRAM_BINS)
			atomicAdd(&histo_s[data[i]], 1u);
	__syncthreads();

	for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x) {
		unsigned int binValue = histo_s[bin];
		if (binValue > 0)
			atomicAdd(&histo[bin], binValue);
	}
}

static unsigned int cdiv(unsigned int a, unsigned int b)
{
	return (a + b - 1) / b;
}

void histogram_global(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	histogramKernel<<<cdiv(n, HISTOGRAM_BLOCK), HISTOGRAM_BLOCK>>>(d_in, n, d_bins);
}

void histogram_shared(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	histogramKernelSharedMem<<<cdiv(n, HISTOGRAM_BLOCK), HISTOGRAM_BLOCK>>>(d_in, n, d_bins);
}

void histogram_coarse(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	histogramKernelContiguousPart<<<cdiv(n, HISTOGRAM_BLOCK * CFACTOR), HISTOGRAM_BLOCK>>>(
		d_in, n, d_bins);
}
