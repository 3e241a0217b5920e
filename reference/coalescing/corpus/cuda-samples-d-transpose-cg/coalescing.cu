/*
 * Corpus case cuda-samples-d-transpose-cg (rewritten in the project's own words; the
 * pattern's origin is in SOURCE). A 16 x 16 shared-memory
 * transpose, one element per thread, with a padded 16 x 17 tile, a range test
 * on the load and on the store, and a cooperative-groups barrier on the
 * whole block between them.
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

/* ---- part transpose */

/* naive: not covered by the source; the stub's body */
void coal_transpose_naive(const float *d_in, float *d_out, int m, int n)
{
	/* TODO: one thread per element, x along a row of in; write
	 * out[col * m + row]. */
}

#define SIDE16 16

__global__ void mirror16(float *dst, const float *src, int cols, int rows)
{
	coop::thread_block grp = coop::this_thread_block();
	__shared__ float patch[SIDE16][SIDE16 + 1];

	unsigned gx = threadIdx.x + SIDE16 * blockIdx.x;   /* column of src */
	unsigned gy = threadIdx.y + SIDE16 * blockIdx.y;   /* row of src */
	if (gx < cols && gy < rows)
		patch[threadIdx.y][threadIdx.x] = src[gy * cols + gx];

	coop::sync(grp);                                   /* whole block */

	gx = threadIdx.x + SIDE16 * blockIdx.y;            /* column of dst */
	gy = threadIdx.y + SIDE16 * blockIdx.x;            /* row of dst */
	if (gx < rows && gy < cols)
		dst[gy * rows + gx] = patch[threadIdx.x][threadIdx.y];
}

void coal_transpose_tiled(const float *d_in, float *d_out, int m, int n)
{
	dim3 thr(SIDE16, SIDE16, 1);
	dim3 blk((n + SIDE16 - 1) / SIDE16, (m + SIDE16 - 1) / SIDE16, 1);
	mirror16<<<blk, thr>>>(d_out, d_in, n, m);
}
