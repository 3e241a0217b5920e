/*
 * Corpus case gpugems-naive-plus-equals (SOURCE): the double-buffered naive
 * scan of GPU Gems 3, chapter 39, with the printed listing's slip a student
 * kept: each step adds into the half it writes (+=) instead of storing the
 * sum of two values of the half it reads.
 */
#include "scan.h"

__global__ void naive_halves_kernel(float *dst, const float *src, int len)
{
	extern __shared__ float halves[];   /* two halves of SCAN_SECTION */
	int t = threadIdx.x, g = blockIdx.x * SCAN_SECTION + t;
	int wr = 0, rd = 1;

	halves[wr * SCAN_SECTION + t] = g < len ? src[g] : 0.0f;
	__syncthreads();
	for (int d = 1; d < SCAN_SECTION; d <<= 1) {
		wr = 1 - wr;
		rd = 1 - wr;
		float add = t >= d ? halves[rd * SCAN_SECTION + t - d] : halves[rd * SCAN_SECTION + t];
		halves[wr * SCAN_SECTION + t] += add;
		__syncthreads();
	}
	if (g < len)
		dst[g] = halves[wr * SCAN_SECTION + t];
}

void scan_ks(const float *d_in, float *d_out, int n)
{
	naive_halves_kernel<<<SCAN_SECTIONS(n), SCAN_KS_THREADS,
			      2 * SCAN_SECTION * sizeof(float)>>>(d_out, d_in, n);
}

void scan_bk(const float *d_in, float *d_out, int n)
{
	/* not part of this case: the stub's body */
}

void scan_multi(const float *d_in, float *d_out, float *d_sums, int n)
{
	/* not part of this case: the stub's body */
}
