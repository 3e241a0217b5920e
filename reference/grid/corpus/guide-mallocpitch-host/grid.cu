/*
 * Corpus case guide-mallocpitch-host (rewritten in the project's own words; the pattern's
 * origin is in SOURCE). The host function keeps the picture in pitched device memory as the
 * CUDA Programming Guide lays out 2D arrays: one cudaMallocPitch per buffer, cudaMemcpy2D
 * in and out (host rows n floats wide, device rows `pitch` bytes apart), and a kernel that
 * finds the start of its row by stepping the pitch in bytes from a char pointer. The
 * picture launcher reuses the kernel on the dense buffers, whose pitch is n floats.
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

/* ---- part picture: one thread per pixel, rows `pitch` bytes apart */

__global__ void twice_pitched(const float *src, size_t src_pitch, float *dst, size_t dst_pitch,
			      int height, int width)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r >= height || c >= width)
		return;
	const float *in_row = (const float *)((const char *)src + r * src_pitch);
	float *out_row = (float *)((char *)dst + r * dst_pitch);
	out_row[c] = 2.0f * in_row[c];
}

static dim3 cover(int m, int n, int side)
{
	return dim3((n + side - 1) / side, (m + side - 1) / side);
}

void grid_picture(const float *d_in, float *d_out, int m, int n)
{
	size_t dense = n * sizeof(float);   /* a packed buffer: its pitch is its row */
	twice_pitched<<<cover(m, n, GRID_PIC_BLOCK), dim3(GRID_PIC_BLOCK, GRID_PIC_BLOCK)>>>(
		d_in, dense, d_out, dense, m, n);
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

/* ---- part host: pitched buffers, 2D copies, every call checked */

cudaError_t grid_picture_host(const float *h_in, float *h_out, int m, int n, int block)
{
	size_t row_bytes = n * sizeof(float);   /* one host row, packed */
	float *d_src = NULL, *d_dst = NULL;
	size_t src_pitch = 0, dst_pitch = 0;
	cudaError_t err;

	err = cudaMallocPitch((void **)&d_src, &src_pitch, row_bytes, m);
	if (err != cudaSuccess)
		goto done;
	err = cudaMallocPitch((void **)&d_dst, &dst_pitch, row_bytes, m);
	if (err != cudaSuccess)
		goto done;

	/* host rows are row_bytes apart, device rows src_pitch apart */
	err = cudaMemcpy2D(d_src, src_pitch, h_in, row_bytes, row_bytes, m,
			   cudaMemcpyHostToDevice);
	if (err != cudaSuccess)
		goto done;

	twice_pitched<<<cover(m, n, block), dim3(block, block)>>>(d_src, src_pitch, d_dst,
								  dst_pitch, m, n);
	err = cudaGetLastError();
	if (err != cudaSuccess)
		goto done;

	err = cudaMemcpy2D(h_out, row_bytes, d_dst, dst_pitch, row_bytes, m,
			   cudaMemcpyDeviceToHost);

done:
	cudaFree(d_src);   /* cudaFree(NULL) does nothing */
	cudaFree(d_dst);
	return err;
}
