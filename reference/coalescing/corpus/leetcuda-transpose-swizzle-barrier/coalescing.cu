/*
 * Corpus case leetcuda-transpose-swizzle-barrier (rewritten in the project's own words; the
 * pattern's origin is in SOURCE). A 32 x 32 shared
 * tile addressed with an XOR swizzle instead of a padding column (thread
 * (x, y) stores to [x][x ^ y], and reads back [y][x ^ y]), one element per
 * thread in 32 x 32 blocks. It keeps the bug: the barrier sits inside the
 * test on the element read, and the store is nested in that same test.
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

/* naive: not covered by the source; the stub's body */
void coal_transpose_naive(const float *d_in, float *d_out, int m, int n)
{
	/* TODO: one thread per element, x along a row of in; write
	 * out[col * m + row]. */
}

__global__ void xor_flip(const float *src, float *dst, int rows, int cols)
{
	__shared__ float box[32][32];
	const unsigned tx = threadIdx.x, ty = threadIdx.y;
	const int r = ty + blockIdx.y * blockDim.y;
	const int c = tx + blockIdx.x * blockDim.x;

	if (c < cols && r < rows) {
		box[tx][tx ^ ty] = src[r * cols + c];   /* swizzled slot */
		__syncthreads();                        /* in-range threads only */

		const int orow = ty + blockIdx.x * blockDim.x;   /* row of dst */
		const int ocol = tx + blockIdx.y * blockDim.y;   /* column of dst */
		if (ocol < rows && orow < cols)
			dst[orow * rows + ocol] = box[ty][tx ^ ty];
	}
}

void coal_transpose_tiled(const float *d_in, float *d_out, int m, int n)
{
	dim3 thr(32, 32);
	dim3 blk((n + 31) / 32, (m + 31) / 32);
	xor_flip<<<blk, thr>>>(d_in, d_out, m, n);
}
