/*
 * Corpus case atomicvar-transpose-fixed (rewritten in the project's own words; the
 * pattern's origin is in SOURCE). A direct transpose and a
 * tiled one whose tile side is a template parameter: SIDE x (SIDE + 1) floats,
 * one element per thread in SIDE x SIDE blocks, a range test on the load and
 * on the store, and the barrier between them, outside both tests.
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

static inline unsigned up_div(int len, unsigned step) { return (len + step - 1) / step; }

/* one element per thread, the read along a row of src */
__global__ void flip_direct(float *dst, const float *src, int rows, int cols)
{
	const int r = blockIdx.y * blockDim.y + threadIdx.y;
	const int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows || c >= cols)
		return;
	dst[c * rows + r] = src[r * cols + c];
}

#define SQ 32u   /* square blocks of SQ x SQ threads for both launchers */

void coal_transpose_naive(const float *d_in, float *d_out, int m, int n)
{
	dim3 thr(SQ, SQ, 1), blk(up_div(n, SQ), up_div(m, SQ), 1);
	flip_direct<<<blk, thr>>>(d_out, d_in, m, n);
}

template <int SIDE>
__global__ void flip_padded(float *dst, const float *src, int rows, int cols)
{
	__shared__ float stage[SIDE][SIDE + 1];   /* one spare column: no bank clash */

	/* this thread's element of src ... */
	const int src_r = blockIdx.y * blockDim.y + threadIdx.y;
	const int src_c = blockIdx.x * blockDim.x + threadIdx.x;
	/* ... and, with the block's corner swapped, its element of dst */
	const int dst_r = blockIdx.x * blockDim.x + threadIdx.y;
	const int dst_c = blockIdx.y * blockDim.y + threadIdx.x;

	if (src_r < rows && src_c < cols)
		stage[threadIdx.y][threadIdx.x] = src[src_r * cols + src_c];

	__syncthreads();                          /* every thread of the block */

	if (dst_r < cols && dst_c < rows)
		dst[dst_r * rows + dst_c] = stage[threadIdx.x][threadIdx.y];
}

void coal_transpose_tiled(const float *d_in, float *d_out, int m, int n)
{
	dim3 thr(SQ, SQ, 1), blk(up_div(n, SQ), up_div(m, SQ), 1);
	flip_padded<SQ><<<blk, thr>>>(d_out, d_in, m, n);
}
