/*
 * Corpus case cudastudy-bk-inclusive (SOURCE): the textbook Brent-Kung as a
 * student wrote it: a reduction tree, then a distribution tree that makes
 * the INCLUSIVE scan; past the input's end nothing is loaded.
 */
#include "scan.h"

__global__ void study_bk_kernel(const float *src, float *dst, int len)
{
	__shared__ float sec[SCAN_SECTION];
	int t = threadIdx.x;
	int g = 2 * blockIdx.x * blockDim.x + t;

	if (g < len)
		sec[t] = src[g];
	if (g + blockDim.x < len)
		sec[t + blockDim.x] = src[g + blockDim.x];
	for (unsigned int d = 1; d <= blockDim.x; d *= 2) {
		__syncthreads();
		int k = (t + 1) * 2 * d - 1;
		if (k < SCAN_SECTION)
			sec[k] += sec[k - d];
	}
	for (int d = SCAN_SECTION / 4; d > 0; d /= 2) {
		__syncthreads();
		int k = (t + 1) * 2 * d - 1;
		if (k + d < SCAN_SECTION)
			sec[k + d] += sec[k];
	}
	__syncthreads();
	if (g < len)
		dst[g] = sec[t];
	if (g + blockDim.x < len)
		dst[g + blockDim.x] = sec[t + blockDim.x];
}

void scan_ks(const float *d_in, float *d_out, int n)
{
	/* not part of this case: the stub's body */
}

void scan_bk(const float *d_in, float *d_out, int n)
{
	study_bk_kernel<<<SCAN_SECTIONS(n), SCAN_BK_THREADS>>>(d_in, d_out, n);
}

void scan_multi(const float *d_in, float *d_out, float *d_sums, int n)
{
	/* not part of this case: the stub's body */
}
