/*
 * Corpus case blog-transpose-coalesced (rewritten in the project's own words; the
 * pattern's origin is in SOURCE). Two transposes written
 * for a square array whose side is a multiple of 32: 32 x 8 threads move a
 * 32 x 32 tile, each thread four elements, and the row length of both src and
 * dst is taken from the grid (gridDim.x * 32), with no range test anywhere.
 * The tiled one stages through an unpadded 32 x 32 shared tile.
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

/* ---- part transpose: no range tests, the side comes from gridDim */

#define EDGE 32   /* tile side */
#define STEP 8    /* rows of threads per block */

__global__ void swap_direct(float *dst, const float *src)
{
	const int side = EDGE * gridDim.x;       /* assumed: square, whole tiles */
	const int cx = threadIdx.x + EDGE * blockIdx.x;
	const int cy = threadIdx.y + EDGE * blockIdx.y;

	for (int k = 0; k < EDGE; k += STEP)
		dst[cx * side + cy + k] = src[(cy + k) * side + cx];
}

__global__ void swap_staged(float *dst, const float *src)
{
	__shared__ float sq[EDGE][EDGE];         /* no padding column */
	const int side = EDGE * gridDim.x;

	int cx = threadIdx.x + EDGE * blockIdx.x;
	int cy = threadIdx.y + EDGE * blockIdx.y;
	for (int k = 0; k < EDGE; k += STEP)
		sq[threadIdx.y + k][threadIdx.x] = src[(cy + k) * side + cx];

	__syncthreads();

	/* the mirrored block: rows of dst are columns of the staged tile */
	cx = threadIdx.x + EDGE * blockIdx.y;
	cy = threadIdx.y + EDGE * blockIdx.x;
	for (int k = 0; k < EDGE; k += STEP)
		dst[(cy + k) * side + cx] = sq[threadIdx.x][threadIdx.y + k];
}

static dim3 tiles_over(int m, int n)
{
	return dim3((n + EDGE - 1) / EDGE, (m + EDGE - 1) / EDGE, 1);
}

void coal_transpose_naive(const float *d_in, float *d_out, int m, int n)
{
	swap_direct<<<tiles_over(m, n), dim3(EDGE, STEP, 1)>>>(d_out, d_in);
}

void coal_transpose_tiled(const float *d_in, float *d_out, int m, int n)
{
	swap_staged<<<tiles_over(m, n), dim3(EDGE, STEP, 1)>>>(d_out, d_in);
}
