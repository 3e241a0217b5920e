/*
 * Corpus case lio-template-transpose-16x16 (rewritten in the project's own words; the
 * pattern's origin is in SOURCE). A 16 x 16 shared-memory
 * transpose written as a template on the element type, one element per
 * thread, a 16 x 17 padded tile, a range test on the load and on the store,
 * and __syncthreads() between them, outside both tests.
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

/* ---- part strided: not covered by the source; the stub's body */

void coal_copy_strided(const float *d_in, float *d_out, int n, int stride)
{
	/* TODO: a kernel with one thread per element of out, and its launch.
	 * i * stride can pass 2^31: compute it in size_t. */
}

/* ---- part transpose */

#define PATCH 16

template <typename V>
__global__ void flip_any(V *dst, const V *src, int cols, int rows)
{
	__shared__ V held[PATCH][PATCH + 1];

	unsigned ix = PATCH * blockIdx.x + threadIdx.x;
	unsigned iy = PATCH * blockIdx.y + threadIdx.y;
	if (iy < rows && ix < cols)
		held[threadIdx.y][threadIdx.x] = src[ix + iy * cols];

	__syncthreads();

	ix = PATCH * blockIdx.y + threadIdx.x;   /* now a column of dst */
	iy = PATCH * blockIdx.x + threadIdx.y;   /* now a row of dst */
	if (iy < cols && ix < rows)
		dst[ix + iy * rows] = held[threadIdx.x][threadIdx.y];
}

/* naive: not covered by the source; the stub's body */
void coal_transpose_naive(const float *d_in, float *d_out, int m, int n)
{
	/* TODO: one thread per element, x along a row of in; write
	 * out[col * m + row]. */
}

void coal_transpose_tiled(const float *d_in, float *d_out, int m, int n)
{
	const dim3 thr(PATCH, PATCH);
	const dim3 blk((n + PATCH - 1) / PATCH, (m + PATCH - 1) / PATCH);
	flip_any<float><<<blk, thr>>>(d_out, d_in, n, m);
}
