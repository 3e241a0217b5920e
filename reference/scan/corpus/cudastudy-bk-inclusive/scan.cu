/*
 * Corpus case cudastudy-bk-inclusive (SOURCE): PMPP's Brent-Kung kernel as a
 * student wrote it while studying CUDA: the reduction tree, then the
 * distribution tree that makes it an inclusive scan; no identity is loaded
 * past the input's end.
 */
#include "scan.h"

__global__ void Brent_Kung_scan_kernel(const float *X, float *Y, int InputSize)
{
	__shared__ float XY[SCAN_SECTION];
	int i = 2 * blockIdx.x * blockDim.x + threadIdx.x;

	if (i < InputSize)
		XY[threadIdx.x] = X[i];
	if (i + blockDim.x < InputSize)
		XY[threadIdx.x + blockDim.x] = X[i + blockDim.x];
	for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
		__syncthreads();
		int index = (threadIdx.x + 1) * 2 * stride - 1;
		if (index < SCAN_SECTION)
			XY[index] += XY[index - stride];
	}
	for (int stride = SCAN_SECTION / 4; stride > 0; stride /= 2) {
		__syncthreads();
		int index = (threadIdx.x + 1) * stride * 2 - 1;
		if (index + stride < SCAN_SECTION)
			XY[index + stride] += XY[index];
	}
	__syncthreads();
	if (i < InputSize)
		Y[i] = XY[threadIdx.x];
	if (i + blockDim.x < InputSize)
		Y[i + blockDim.x] = XY[threadIdx.x + blockDim.x];
}

void scan_ks(const float *d_in, float *d_out, int n)
{
	/* not part of this case: the stub's body */
}

void scan_bk(const float *d_in, float *d_out, int n)
{
	Brent_Kung_scan_kernel<<<SCAN_SECTIONS(n), SCAN_BK_THREADS>>>(d_in, d_out, n);
}

void scan_multi(const float *d_in, float *d_out, float *d_sums, int n)
{
	/* not part of this case: the stub's body */
}
