/*
 * Corpus case racebench-scan-load-no-barrier (SOURCE): a Kogge-Stone scan
 * from a data-race benchmark, rewritten: the register and the two barriers
 * of each step are right, but nothing separates the loads from the first
 * step's read of the element to the left.
 */
#include "scan.h"

__global__ void bench_ks_kernel(const float *src, float *dst, int len)
{
	__shared__ float buf[SCAN_SECTION];
	int t = threadIdx.x, g = blockIdx.x * SCAN_SECTION + t;

	if (g < len)
		buf[t] = src[g];
	/* the benchmark's __syncthreads() here is commented out */
	for (int d = 1; d < blockDim.x; d *= 2) {
		float left = 0.0f;
		if (t >= d)
			left = buf[t - d];
		__syncthreads();
		if (t >= d)
			buf[t] += left;
		__syncthreads();
	}
	if (g < len)
		dst[g] = buf[t];
}

void scan_ks(const float *d_in, float *d_out, int n)
{
	bench_ks_kernel<<<SCAN_SECTIONS(n), SCAN_KS_THREADS>>>(d_in, d_out, n);
}

void scan_bk(const float *d_in, float *d_out, int n)
{
	/* not part of this case: the stub's body */
}

void scan_multi(const float *d_in, float *d_out, float *d_sums, int n)
{
	/* not part of this case: the stub's body */
}
