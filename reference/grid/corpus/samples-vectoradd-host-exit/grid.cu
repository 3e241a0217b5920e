/*
 * Corpus case samples-vectoradd-host-exit (rewritten in the project's own words; the pattern's
 * origin is in SOURCE). The textbook picture kernel (both coordinates tested,
 * grid rounded up), and a host function that checks every CUDA call and, on
 * any failure, prints to stderr and calls exit(EXIT_FAILURE) instead of
 * returning the error, without freeing what it allocated before.
 */
#include "grid.h"
#include <stdio.h>
#include <stdlib.h>

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
	if (c < width && r < height)
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

/* ---- part host: every call checked; a failure ends the process */

static void or_quit(cudaError_t e, const char *step)
{
	if (e == cudaSuccess)
		return;
	fprintf(stderr, "%s: %s\n", step, cudaGetErrorString(e));
	exit(EXIT_FAILURE);
}

cudaError_t grid_picture_host(const float *h_in, float *h_out, int m, int n, int block)
{
	const size_t bytes = sizeof(float) * (size_t)m * n;
	float *dev_src = NULL, *dev_dst = NULL;

	or_quit(cudaMalloc((void **)&dev_src, bytes), "allocating the input");
	or_quit(cudaMalloc((void **)&dev_dst, bytes), "allocating the output");
	or_quit(cudaMemcpy(dev_src, h_in, bytes, cudaMemcpyHostToDevice), "copying in");

	dim3 t(block, block);
	dim3 g((n + block - 1) / block, (m + block - 1) / block);
	double_pixels<<<g, t>>>(dev_src, dev_dst, n, m);
	or_quit(cudaGetLastError(), "launching");

	or_quit(cudaMemcpy(h_out, dev_dst, bytes, cudaMemcpyDeviceToHost), "copying out");
	or_quit(cudaFree(dev_src), "freeing the input");
	cudaError_t last = cudaFree(dev_dst);
	or_quit(last, "freeing the output");
	return last;
}
