/*
 * Corpus case pmpp-scale-gridstride-copy (rewritten in the project's own words; the
 * pattern's origin is in SOURCE). The scale as the
 * textbook's 2D picture kernel (row and column from block and thread index,
 * a test that both are inside, the grid rounded up as (len - 1) / b + 1),
 * once with x along a row and once with x down a column; the strided copy as
 * a grid-stride loop whose grid is 32 blocks of 256 per multiprocessor.
 */
#include "coalescing.h"

/* ---- part scale: the picture kernel, two mappings */

__global__ void picture_rows(const float *pic, float *res, int w, int h, float k)
{
	const int col = threadIdx.x + blockDim.x * blockIdx.x;
	const int row = threadIdx.y + blockDim.y * blockIdx.y;
	if (col < w && row < h)
		res[row * w + col] = k * pic[row * w + col];
}

/* the same, but x walks down a column */
__global__ void picture_cols(const float *pic, float *res, int w, int h, float k)
{
	const int row = threadIdx.x + blockDim.x * blockIdx.x;
	const int col = threadIdx.y + blockDim.y * blockIdx.y;
	if (col < w && row < h)
		res[row * w + col] = k * pic[row * w + col];
}

void coal_scale_rows(const float *d_in, float *d_out, int m, int n, float a)
{
	dim3 thr(COAL_BLOCK_X, COAL_BLOCK_Y, 1);
	dim3 blk((n - 1) / COAL_BLOCK_X + 1, (m - 1) / COAL_BLOCK_Y + 1, 1);
	picture_rows<<<blk, thr>>>(d_in, d_out, n, m, a);
}

void coal_scale_cols(const float *d_in, float *d_out, int m, int n, float a)
{
	dim3 thr(COAL_BLOCK_X, COAL_BLOCK_Y, 1);
	dim3 blk((m - 1) / COAL_BLOCK_X + 1, (n - 1) / COAL_BLOCK_Y + 1, 1);
	picture_cols<<<blk, thr>>>(d_in, d_out, n, m, a);
}

/* ---- part strided: a grid-stride loop over out */

__global__ void sweep_copy(const float *src, float *dst, int count, int step)
{
	const int jump = gridDim.x * blockDim.x;
	for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < count; i += jump)
		dst[i] = src[(size_t)i * step];
}

void coal_copy_strided(const float *d_in, float *d_out, int n, int stride)
{
	int dev = 0, sms = 0;
	cudaGetDevice(&dev);
	cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	sweep_copy<<<32 * sms, 256>>>(d_in, d_out, n, stride);   /* 32 blocks per SM */
}

/* ---- part transpose: not covered by the sources; the stub's bodies */

void coal_transpose_naive(const float *d_in, float *d_out, int m, int n)
{
	/* TODO: one thread per element, x along a row of in; write
	 * out[col * m + row]. */
}

void coal_transpose_tiled(const float *d_in, float *d_out, int m, int n)
{
	/* TODO: a COAL_TILE x (COAL_TILE + 1) float tile in shared memory per
	 * block of COAL_TILE x COAL_TILE_ROWS threads: read the tile along
	 * rows of in, __syncthreads(), write it along rows of out. Mind the
	 * last, partial tiles. */
}
