/*
 * Corpus case vs-template-picturekernel (rewritten in the project's own words; the pattern's
 * origin is in SOURCE). The picture kernel (both coordinates tested) launched
 * with ceil() of a float quotient, and a host function in the style of the
 * Visual Studio CUDA template: one status variable, a jump to a cleanup label
 * that frees both buffers, checks on device selection, launch, synchronize
 * and copy out -- but the two cudaMalloc calls and the copy in are NOT
 * checked.
 */
#include "grid.h"
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

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

/* ---- part picture: the kernel and a ceil() launch */

__global__ void twice(float *src, float *dst, int height, int width)
{
	int c = threadIdx.x + blockDim.x * blockIdx.x;
	int r = threadIdx.y + blockDim.y * blockIdx.y;
	if (r < height && c < width)
		dst[c + r * width] = src[c + r * width] * 2;
}

void grid_picture(const float *d_in, float *d_out, int m, int n)
{
	dim3 per_block(16, 16, 1);
	dim3 blocks(ceil(n / 16.0), ceil(m / 16.0), 1);
	twice<<<blocks, per_block>>>((float *)d_in, d_out, m, n);
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

/* ---- part host: a cleanup label, allocations and copy in unchecked */

cudaError_t grid_picture_host(const float *h_in, float *h_out, int m, int n, int block)
{
	float *buf_in, *buf_out;
	int bytes = m * n * sizeof(float);
	cudaError_t st;

	cudaMalloc((void **)&buf_in, bytes);                     /* not checked */
	cudaMemcpy(buf_in, h_in, bytes, cudaMemcpyHostToDevice); /* not checked */
	cudaMalloc((void **)&buf_out, bytes);                    /* not checked */

	dim3 per_block(block, block, 1);
	dim3 blocks(ceil(n / (double)block), ceil(m / (double)block), 1);

	st = cudaSetDevice(0);
	if (st != cudaSuccess) {
		fprintf(stderr, "no usable device");
		goto cleanup;
	}

	twice<<<blocks, per_block>>>(buf_in, buf_out, m, n);
	st = cudaGetLastError();
	if (st != cudaSuccess) {
		fprintf(stderr, "launch: %s\n", cudaGetErrorString(st));
		goto cleanup;
	}

	st = cudaDeviceSynchronize();
	if (st != cudaSuccess) {
		fprintf(stderr, "kernel ended with error %d\n", st);
		goto cleanup;
	}

	st = cudaMemcpy(h_out, buf_out, bytes, cudaMemcpyDeviceToHost);
	if (st != cudaSuccess)
		fprintf(stderr, "copy out failed");

cleanup:
	cudaFree(buf_in);
	cudaFree(buf_out);
	return st;
}
