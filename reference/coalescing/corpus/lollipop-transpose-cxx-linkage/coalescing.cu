/*
 * Corpus case lollipop-transpose-cxx-linkage (rewritten in the project's own words; the
 * pattern's origin is in SOURCE). The same two transposes
 * as lollipop-transpose without extern "C": 32 x 8 threads per 32 x 32 tile,
 * each thread four rows, a padded 32 x 33 tile, range tests on every load
 * and store, a barrier between them.
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

/* ---- part transpose: 32 x 8 threads per 32 x 32 tile, four rows each */

#define LT 32   /* tile side */
#define LR 8    /* thread rows */

__global__ void lp_direct(const float *src, float *dst, int cols, int rows)
{
	const int gx = LT * blockIdx.x + threadIdx.x;
	const int gy0 = LT * blockIdx.y + threadIdx.y;

	for (int dy = 0; dy < LT; dy += LR) {
		const int gy = gy0 + dy;
		if (gy < rows && gx < cols)
			dst[gx * rows + gy] = src[gy * cols + gx];
	}
}

__global__ void lp_tiled(const float *src, float *dst, int cols, int rows)
{
	__shared__ float pad[LT][LT + 1];   /* + 1: rows fall in different banks */

	int gx = LT * blockIdx.x + threadIdx.x;
	int gy = LT * blockIdx.y + threadIdx.y;
	for (int dy = 0; dy < LT; dy += LR)
		if (gy + dy < rows && gx < cols)
			pad[threadIdx.y + dy][threadIdx.x] = src[(gy + dy) * cols + gx];

	__syncthreads();   /* the whole tile is in before anyone reads it */

	/* the mirrored tile of dst */
	gx = LT * blockIdx.y + threadIdx.x;
	gy = LT * blockIdx.x + threadIdx.y;
	for (int dy = 0; dy < LT; dy += LR)
		if (gy + dy < cols && gx < rows)
			dst[(gy + dy) * rows + gx] = pad[threadIdx.x][threadIdx.y + dy];
}

static dim3 lp_grid(int m, int n) { return dim3((n + LT - 1) / LT, (m + LT - 1) / LT); }

void coal_transpose_naive(const float *d_in, float *d_out, int m, int n)
{
	lp_direct<<<lp_grid(m, n), dim3(LT, LR)>>>(d_in, d_out, n, m);
}

void coal_transpose_tiled(const float *d_in, float *d_out, int m, int n)
{
	lp_tiled<<<lp_grid(m, n), dim3(LT, LR)>>>(d_in, d_out, n, m);
}
