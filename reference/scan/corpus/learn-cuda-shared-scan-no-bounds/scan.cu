/*
 * Corpus case learn-cuda-shared-scan-no-bounds (SOURCE): a learner's
 * three-step scan of any length (Kogge-Stone in shared memory a block, the
 * partial sums scanned, then added), with no bounds test in any kernel.
 */
#include "scan.h"

#define BLOCK_DIM SCAN_SECTION

__global__ void scan_kernel(const float *input, float *output, float *partialSums,
			    unsigned int N)
{
	unsigned int i = blockDim.x * blockIdx.x + threadIdx.x;

	__shared__ float buffer_s[BLOCK_DIM];
	buffer_s[threadIdx.x] = input[i];
	__syncthreads();
	for (unsigned int stride = 1; stride <= BLOCK_DIM / 2; stride *= 2) {
		float v;
		if (threadIdx.x >= stride)
			v = buffer_s[threadIdx.x - stride];
		__syncthreads();
		if (threadIdx.x >= stride)
			buffer_s[threadIdx.x] += v;
		__syncthreads();
	}
	if (partialSums != NULL && threadIdx.x == BLOCK_DIM - 1)
		partialSums[blockIdx.x] = buffer_s[threadIdx.x];
	output[i] = buffer_s[threadIdx.x];
}

__global__ void add_kernel(float *output, float *partialSums, unsigned int N)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (blockIdx.x > 0)
		output[i] += partialSums[blockIdx.x - 1];
}

void scan_ks(const float *d_in, float *d_out, int n)
{
	/* not part of this case: the stub's body */
}

void scan_bk(const float *d_in, float *d_out, int n)
{
	/* not part of this case: the stub's body */
}

void scan_multi(const float *d_in, float *d_out, float *d_sums, int n)
{
	const unsigned int numThreadsPerBlock = BLOCK_DIM;
	const unsigned int numElementsPerBlock = numThreadsPerBlock;
	const unsigned int numBlocks = (n + numElementsPerBlock - 1) / numElementsPerBlock;

	scan_kernel<<<numBlocks, numThreadsPerBlock>>>(d_in, d_out, d_sums, n);
	if (numBlocks > 1) {
		scan_kernel<<<1, numThreadsPerBlock>>>(d_sums, d_sums, NULL, numBlocks);
		add_kernel<<<numBlocks, numThreadsPerBlock>>>(d_out, d_sums, n);
	}
}
