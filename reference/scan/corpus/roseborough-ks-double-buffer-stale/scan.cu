/*
 * Corpus case roseborough-ks-double-buffer-stale (SOURCE): Kogge-Stone
 * with two buffers, written from PMPP's exercise: the steps alternate
 * between the buffers, but only the threads at or past the stride write the
 * other buffer, so the rest leave a stale value there.
 */
#include "scan.h"

__global__ void ks_double_kernel(const float *X, float *Y, unsigned int N)
{
	__shared__ float bufA[SCAN_SECTION];
	__shared__ float bufB[SCAN_SECTION];
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < N)
		bufA[threadIdx.x] = X[i];
	else
		bufA[threadIdx.x] = 0.0f;
	unsigned int step = 0;
	for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
		__syncthreads();
		if (step % 2 == 0 && threadIdx.x >= stride)
			bufB[threadIdx.x] = bufA[threadIdx.x] + bufA[threadIdx.x - stride];
		else if (threadIdx.x >= stride)
			bufA[threadIdx.x] = bufB[threadIdx.x] + bufB[threadIdx.x - stride];
		step += 1;
	}
	if (i < N) {
		if (step % 2 == 0)
			Y[i] = bufA[threadIdx.x];
		else
			Y[i] = bufB[threadIdx.x];
	}
}

void scan_ks(const float *d_in, float *d_out, int n)
{
	ks_double_kernel<<<SCAN_SECTIONS(n), SCAN_KS_THREADS>>>(d_in, d_out, n);
}

void scan_bk(const float *d_in, float *d_out, int n)
{
	/* not part of this case: the stub's body */
}

void scan_multi(const float *d_in, float *d_out, float *d_sums, int n)
{
	/* not part of this case: the stub's body */
}
