/*
 * Corpus case gpugems-naive-plus-equals (SOURCE): the double-buffered
 * Hillis-Steele scan of GPU Gems 3, chapter 39, as a student typed it in,
 * with the book's well-known slip: each step adds to the buffer it writes
 * (+=) instead of storing the sum of two values of the one it reads.
 */
#include "scan.h"

__global__ void naive_scan_kernel(float *g_odata, const float *g_idata, int n)
{
	extern __shared__ float temp[];
	int thid = threadIdx.x, i = blockIdx.x * SCAN_SECTION + thid;
	int pout = 0, pin = 1;

	temp[pout * SCAN_SECTION + thid] = i < n ? g_idata[i] : 0.0f;
	__syncthreads();
	for (int offset = 1; offset < SCAN_SECTION; offset *= 2) {
		pout = 1 - pout;
		pin = 1 - pout;
		if (thid >= offset)
			temp[pout * SCAN_SECTION + thid] += temp[pin * SCAN_SECTION + thid - offset];
		else
			temp[pout * SCAN_SECTION + thid] += temp[pin * SCAN_SECTION + thid];
		__syncthreads();
	}
	if (i < n)
		g_odata[i] = temp[pout * SCAN_SECTION + thid];
}

void scan_ks(const float *d_in, float *d_out, int n)
{
	naive_scan_kernel<<<SCAN_SECTIONS(n), SCAN_KS_THREADS,
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
