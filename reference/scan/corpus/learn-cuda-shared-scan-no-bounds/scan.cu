/*
 * Corpus case learn-cuda-shared-scan-no-bounds (SOURCE): a learner's scan of
 * any length (Kogge-Stone a block, the block totals scanned, then added),
 * rewritten with its defect: no kernel tests its index against the length.
 */
#include "scan.h"

#define TILE SCAN_SECTION

__global__ void tile_scan_kernel(const float *src, float *dst, float *totals, unsigned int len)
{
	__shared__ float tile[TILE];
	unsigned int t = threadIdx.x;
	unsigned int g = blockIdx.x * blockDim.x + t;

	(void)len;   /* passed, never tested */
	tile[t] = src[g];
	__syncthreads();
	for (unsigned int d = 1; d <= TILE / 2; d *= 2) {
		float left;
		if (t >= d)
			left = tile[t - d];
		__syncthreads();
		if (t >= d)
			tile[t] += left;
		__syncthreads();
	}
	if (totals != NULL && t == TILE - 1)
		totals[blockIdx.x] = tile[t];
	dst[g] = tile[t];
}

__global__ void tile_add_kernel(float *dst, const float *totals, unsigned int len)
{
	unsigned int g = blockIdx.x * blockDim.x + threadIdx.x;

	(void)len;
	if (blockIdx.x > 0)
		dst[g] += totals[blockIdx.x - 1];
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
	const unsigned int blocks = (n + TILE - 1) / TILE;

	tile_scan_kernel<<<blocks, TILE>>>(d_in, d_out, d_sums, n);
	if (blocks > 1) {
		tile_scan_kernel<<<1, TILE>>>(d_sums, d_sums, NULL, blocks);
		tile_add_kernel<<<blocks, TILE>>>(d_out, d_sums, n);
	}
}
