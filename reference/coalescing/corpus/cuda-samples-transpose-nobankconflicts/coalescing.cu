/*
 * Corpus case cuda-samples-transpose-nobankconflicts (rewritten in the project's own words; the
 * pattern's origin is in SOURCE). Two transposes that take
 * the width and height but assume both are whole multiples of the 32-element
 * tile: 32 x 16 threads per tile, each thread two elements, no range test at
 * all. The tiled one stages through a padded 32 x 33 tile and synchronises
 * with a cooperative-groups barrier.
 */
#include "coalescing.h"
#include <cooperative_groups.h>

namespace coop = cooperative_groups;

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

/* ---- part transpose: whole tiles assumed, no range tests */

#define T_SIDE 32
#define T_ROWS 16   /* thread rows per block: each thread moves T_SIDE / T_ROWS */

__global__ void turn_plain(float *dst, const float *src, int wide, int tall)
{
	const int px = threadIdx.x + T_SIDE * blockIdx.x;
	const int py = threadIdx.y + T_SIDE * blockIdx.y;
	const int from = py * wide + px;
	const int to = px * tall + py;

	for (int s = 0; s < T_SIDE; s += T_ROWS)
		dst[to + s] = src[from + s * wide];
}

__global__ void turn_padded(float *dst, const float *src, int wide, int tall)
{
	coop::thread_block grp = coop::this_thread_block();
	__shared__ float cell[T_SIDE][T_SIDE + 1];

	const int from = (threadIdx.x + T_SIDE * blockIdx.x)
	               + (threadIdx.y + T_SIDE * blockIdx.y) * wide;
	const int to = (threadIdx.x + T_SIDE * blockIdx.y)
	             + (threadIdx.y + T_SIDE * blockIdx.x) * tall;

	for (int s = 0; s < T_SIDE; s += T_ROWS)
		cell[threadIdx.y + s][threadIdx.x] = src[from + s * wide];

	coop::sync(grp);

	for (int s = 0; s < T_SIDE; s += T_ROWS)
		dst[to + s * tall] = cell[threadIdx.x][threadIdx.y + s];
}

void coal_transpose_naive(const float *d_in, float *d_out, int m, int n)
{
	dim3 blk((n + T_SIDE - 1) / T_SIDE, (m + T_SIDE - 1) / T_SIDE);
	turn_plain<<<blk, dim3(T_SIDE, T_ROWS)>>>(d_out, d_in, n, m);
}

void coal_transpose_tiled(const float *d_in, float *d_out, int m, int n)
{
	dim3 blk((n + T_SIDE - 1) / T_SIDE, (m + T_SIDE - 1) / T_SIDE);
	turn_padded<<<blk, dim3(T_SIDE, T_ROWS)>>>(d_out, d_in, n, m);
}
