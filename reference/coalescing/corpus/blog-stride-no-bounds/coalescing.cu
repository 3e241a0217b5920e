/*
 * Corpus case blog-stride-no-bounds (rewritten in the project's own words; the
 * pattern's origin is in SOURCE). A templated copy in which
 * thread g of the grid reads element g * step of src and writes element g of
 * dst. The grid is rounded up to whole blocks of 256 and nothing tests g
 * against n, so the threads of the last block past n read and write past both
 * arrays. The index is an int.
 */
#include "coalescing.h"

/* ---- part scale: not covered by the source; the stub's bodies */

__global__ void scale_rows_kernel(const float *in, float *out, int m, int n, float a)
{
	/* TODO: x (threadIdx.x, blockIdx.x) is the column, y the row; only
	 * elements inside the array. */
}

void coal_scale_rows(const float *d_in, float *d_out, int m, int n, float a)
{
	/* TODO: COAL_BLOCK_X x COAL_BLOCK_Y blocks, enough of them to cover n
	 * columns along x and m rows along y (round up). */
}

__global__ void scale_cols_kernel(const float *in, float *out, int m, int n, float a)
{
	/* TODO: the same work, but x is the row and y the column. */
}

void coal_scale_cols(const float *d_in, float *d_out, int m, int n, float a)
{
	/* TODO: the same blocks; x now covers the m rows, y the n columns. */
}

/* ---- part strided: a copy with no range test */

template <typename E>
__global__ void pick_every(E *dst, const E *src, int step)
{
	const int g = threadIdx.x + blockIdx.x * blockDim.x;
	int at = g * step;           /* int, and g is never compared with n */
	dst[g] = src[at];
}

void coal_copy_strided(const float *d_in, float *d_out, int n, int stride)
{
	const int per_block = 256;
	const int blocks = (n + per_block - 1) / per_block;   /* rounded up */
	pick_every<float><<<blocks, per_block>>>(d_out, d_in, stride);
}

/* ---- part transpose: not covered by the source; the stub's bodies */

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
