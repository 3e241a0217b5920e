/*
 * Corpus case picturekernel-no-row-test (rewritten in the project's own words; the pattern's
 * origin is in SOURCE). The textbook picture kernel with the row test MISSING:
 * only the column is tested, so threads of the last row of blocks below the
 * picture read and write past its end whenever m is not a multiple of 16.
 */
#include "grid.h"

/* ---- part index: not covered by the source; the stub's bodies */

__global__ void grid_index_kernel(int nx, int ny, int nz, int *out)
{
	/* TODO: this thread's global x, y and z; return when outside the extent;
	 * then its linear index i and out[4 * i .. 4 * i + 3] = i, x, y, z. */
}

void grid_index_1d(int nx, int block, int *d_out)
{
	/* TODO: enough blocks of `block` threads to cover nx (round up). */
}

void grid_index_2d(int nx, int ny, dim3 block, int *d_out)
{
	/* TODO */
}

void grid_index_3d(int nx, int ny, int nz, dim3 block, int *d_out)
{
	/* TODO */
}

/* ---- part picture */

__global__ void double_pixels(const float *src, float *dst, int width, int height)
{
	int r = threadIdx.y + blockDim.y * blockIdx.y;
	int c = threadIdx.x + blockDim.x * blockIdx.x;
	if (c < width)                  /* no test of r against height */
		dst[c + r * width] = src[c + r * width] * 2;
}

void grid_picture(const float *d_in, float *d_out, int m, int n)
{
	dim3 t(GRID_PIC_BLOCK, GRID_PIC_BLOCK, 1);
	dim3 g(1 + (n - 1) / GRID_PIC_BLOCK, 1 + (m - 1) / GRID_PIC_BLOCK, 1);
	double_pixels<<<g, t>>>(d_in, d_out, n, m);
}

/* ---- part volume: not covered by the source; the stub's bodies */

__global__ void grid_volume_kernel(const float *in, const float *w, float *out, int planes,
				   int rows, int cols)
{
	/* TODO */
}

void grid_volume(const float *d_in, const float *d_w, float *d_out, int planes, int rows,
		 int cols)
{
	/* TODO: GRID_VOL_BLOCK_X x _Y x _Z blocks; z across the planes. */
}

/* ---- part host: not covered by the source; the stub's body */

cudaError_t grid_picture_host(const float *h_in, float *h_out, int m, int n, int block)
{
	/* TODO: cudaMalloc, cudaMemcpy in, launch with block x block threads,
	 * cudaGetLastError, cudaMemcpy out, cudaFree; return the first error. */
	return cudaErrorNotYetImplemented;
}
