/*
 * Corpus case cudakernels-addkernel-32x32 (rewritten in the project's own
 * words; the pattern's origin is in SOURCE). An image "sum of two sources"
 * kernel with a row pitch and an early-return bounds test, called with the
 * input as both sources (in + in = 2 * in). The launch uses 32 x 32 blocks
 * (not the lab's GRID_PIC_BLOCK) and an explicit stream argument 0, with the
 * angle brackets spaced the way Visual Studio formats them.
 */
#include "grid.h"

typedef float pix_t;	/* the pixel type, float for this lab */

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

/* ---- part picture: sum of two images with a pitch */

__global__ void sum_images(const pix_t *p, const pix_t *q, pix_t *r, int pitch, int w, int h)
{
	int cx = threadIdx.x + blockDim.x * blockIdx.x;
	int cy = threadIdx.y + blockDim.y * blockIdx.y;
	if (cx >= w || cy >= h)
		return;
	int at = cx + cy * pitch;
	r[at] = p[at] + q[at];
}

void grid_picture(const float *d_in, float *d_out, int m, int n)
{
	const dim3 tb(32, 32);
	const dim3 nb((n + tb.x - 1) / tb.x, (m + tb.y - 1) / tb.y);
	sum_images << <nb, tb, 0, 0 >> > (d_in, d_in, d_out, n, n, m);
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
