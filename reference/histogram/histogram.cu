/*
 * The histogram lab's reference: graded as any submission, it must score
 * full marks (cudalab check-lab histogram), and the timed tests hold
 * students to its times.
 */
#include "histogram.h"

/* Part 1: every element one atomicAdd on its bin in global memory. */
__global__ void histogram_global_kernel(const unsigned int *in, int n, unsigned int *bins)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		unsigned int v = in[i];
		if (v < HISTOGRAM_BINS)
			atomicAdd(&bins[v], 1u);
	}
}

void histogram_global(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	int blocks = (n + HISTOGRAM_BLOCK - 1) / HISTOGRAM_BLOCK;
	histogram_global_kernel<<<blocks, HISTOGRAM_BLOCK>>>(d_in, n, d_bins);
}

/*
 * A block's private histogram: zeroed, filled by its threads' elements,
 * then added to the global one, bin by bin. Each phase ends at a barrier:
 * no thread counts into a bin before it is zeroed, none reads a bin for
 * the merge before every thread of the block has counted.
 */
__device__ static void merge_private(const unsigned int *s_bins, unsigned int *bins)
{
	for (int b = threadIdx.x; b < HISTOGRAM_BINS; b += blockDim.x) {
		unsigned int c = s_bins[b];
		if (c)
			atomicAdd(&bins[b], c);
	}
}

__global__ void histogram_shared_kernel(const unsigned int *in, int n, unsigned int *bins)
{
	__shared__ unsigned int s_bins[HISTOGRAM_BINS];

	for (int b = threadIdx.x; b < HISTOGRAM_BINS; b += blockDim.x)
		s_bins[b] = 0;
	__syncthreads();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		unsigned int v = in[i];
		if (v < HISTOGRAM_BINS)
			atomicAdd(&s_bins[v], 1u);
	}
	__syncthreads();
	merge_private(s_bins, bins);
}

void histogram_shared(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	int blocks = (n + HISTOGRAM_BLOCK - 1) / HISTOGRAM_BLOCK;
	histogram_shared_kernel<<<blocks, HISTOGRAM_BLOCK>>>(d_in, n, d_bins);
}

/*
 * Part 3, interleaved: a block owns HISTOGRAM_BLOCK * HISTOGRAM_COARSEN
 * consecutive elements, and in step k its threads read the k-th run of
 * HISTOGRAM_BLOCK of them, one each, so a warp's 32 loads are 32
 * consecutive words in every step.
 */
__global__ void histogram_coarse_kernel(const unsigned int *in, int n, unsigned int *bins)
{
	__shared__ unsigned int s_bins[HISTOGRAM_BINS];

	for (int b = threadIdx.x; b < HISTOGRAM_BINS; b += blockDim.x)
		s_bins[b] = 0;
	__syncthreads();
	long long first = (long long)blockIdx.x * blockDim.x * HISTOGRAM_COARSEN + threadIdx.x;
	for (int k = 0; k < HISTOGRAM_COARSEN; k++) {
		long long i = first + (long long)k * blockDim.x;
		if (i >= n)
			break;
		unsigned int v = in[i];
		if (v < HISTOGRAM_BINS)
			atomicAdd(&s_bins[v], 1u);
	}
	__syncthreads();
	merge_private(s_bins, bins);
}

void histogram_coarse(const unsigned int *d_in, int n, unsigned int *d_bins)
{
	const int per_block = HISTOGRAM_BLOCK * HISTOGRAM_COARSEN;
	int blocks = (n + per_block - 1) / per_block;
	histogram_coarse_kernel<<<blocks, HISTOGRAM_BLOCK>>>(d_in, n, d_bins);
}
