/*
 * The grid-mapping lab: your kernels and launchers. The contract is in
 * grid.h and the handout in labs/grid/README.md. Every function compiles and
 * does nothing yet: `make test LAB=grid` tells you what each one must do.
 */
#include "grid.h"

/* ---- part index: every thread writes its global linear index and x, y, z */

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

/* ---- part picture: out = 2 * in, one thread per pixel */

__global__ void grid_picture_kernel(const float *in, float *out, int m, int n)
{
	/* TODO: row and column of this thread; only pixels inside the picture. */
}

void grid_picture(const float *d_in, float *d_out, int m, int n)
{
	/* TODO: GRID_PIC_BLOCK x GRID_PIC_BLOCK blocks, x along a row. */
}

/* ---- part volume: out = w[plane] * in */

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

/* ---- part host: the whole round trip, with every error checked */

cudaError_t grid_picture_host(const float *h_in, float *h_out, int m, int n, int block)
{
	/* TODO: cudaMalloc, cudaMemcpy in, launch with block x block threads,
	 * cudaGetLastError, cudaMemcpy out, cudaFree; return the first error. */
	return cudaErrorNotYetImplemented;
}
