/*
 * The coalescing lab: your kernels and launchers. The contract is in
 * coalescing.h and the handout in labs/coalescing/README.md. Every function
 * compiles and does nothing yet: `make test LAB=coalescing` tells you what
 * each one must do.
 */
#include "coalescing.h"

/* ---- part scale: out = a * in, two ways */

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

/* ---- part strided: out[i] = in[i * stride] */

void coal_copy_strided(const float *d_in, float *d_out, int n, int stride)
{
	/* TODO: a kernel with one thread per element of out, and its launch.
	 * i * stride can pass 2^31: compute it in size_t. */
}

/* ---- part transpose: out (n x m) = in (m x n) transposed */

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
