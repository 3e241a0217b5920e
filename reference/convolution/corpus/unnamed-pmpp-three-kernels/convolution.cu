/*
 * Corpus case unnamed-pmpp-three-kernels (SOURCE): one student's file with
 * the basic, constant-memory and tiled kernels of the textbook: the basic
 * kernel indexes the filter with the radius as its row length, and the
 * tiled one stores at row * width + height.
 */
#include "convolution.h"

__constant__ float filt[CONV_MAX_WIDTH * CONV_MAX_WIDTH];

__global__ void basic_kernel(float *N, float *filter, float *P, int radius, int width,
			     int height)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	float pv = 0;

	for (size_t i = 0; i < 2 * radius + 1; i++)
		for (size_t j = 0; j < 2 * radius + 1; j++) {
			int y = row - radius + i, x = col - radius + j;
			if (y >= 0 && y < height && x < width && x >= 0)
				pv += filter[i * radius + j] * N[y * width + x];   /* not (2r + 1) */
		}
	if (row < height && col < width)
		P[row * width + col] = pv;
}

__global__ void const_kernel(float *N, float *P, int radius, int width, int height)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	float pv = 0;

	for (size_t i = 0; i < 2 * radius + 1; i++)
		for (size_t j = 0; j < 2 * radius + 1; j++) {
			int y = row - radius + i, x = col - radius + j;
			if (y >= 0 && y < height && x < width && x >= 0)
				pv += filt[i * (2 * radius + 1) + j] * N[y * width + x];
		}
	if (row < height && col < width)
		P[row * width + col] = pv;
}

#define IN_EDGE_MAX (CONV_TILE + 2 * CONV_MAX_RADIUS)

__global__ void tiled_kernel(float *N, float *P, int radius, int width, int height)
{
	int col = blockIdx.x * CONV_TILE + threadIdx.x - radius;
	int row = blockIdx.y * CONV_TILE + threadIdx.y - radius;
	int tx = threadIdx.x, ty = threadIdx.y;
	__shared__ float Ns[IN_EDGE_MAX][IN_EDGE_MAX];

	if (row >= 0 and row < height && col >= 0 and col < width)
		Ns[ty][tx] = N[row * width + col];
	else
		Ns[ty][tx] = 0;
	__syncthreads();

	int tc = tx - radius, tr = ty - radius;
	if (col >= 0 && col < width && row >= 0 && row < height) {
		if (tc >= 0 && tc < CONV_TILE && tr >= 0 && tr < CONV_TILE) {
			float pv = 0;
			for (size_t i = 0; i < 2 * radius + 1; i++)
				for (size_t j = 0; j < 2 * radius + 1; j++)
					pv += Ns[tr + i][tc + j] * filt[i * (2 * radius + 1) + j];
			P[row * width + height] = pv;   /* height, where col belongs */
		}
	}
}

/* the launchers: the file's (one block size for all three), written for the contract */
void conv_basic(const float *d_in, const float *d_mask, float *d_out, int width, int height,
		int r)
{
	dim3 block(CONV_BLOCK, CONV_BLOCK);
	dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
	basic_kernel<<<grid, block>>>((float *)d_in, (float *)d_mask, d_out, r, width, height);
}

void conv_const(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r)
{
	cudaMemcpyToSymbol(filt, h_mask, (2 * r + 1) * (2 * r + 1) * sizeof(float));
	dim3 block(CONV_BLOCK, CONV_BLOCK);
	dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
	const_kernel<<<grid, block>>>((float *)d_in, d_out, r, width, height);
}

void conv_tiled(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r)
{
	cudaMemcpyToSymbol(filt, h_mask, (2 * r + 1) * (2 * r + 1) * sizeof(float));
	dim3 block(CONV_TILE + 2 * r, CONV_TILE + 2 * r);
	dim3 grid((width + CONV_TILE - 1) / CONV_TILE, (height + CONV_TILE - 1) / CONV_TILE);
	tiled_kernel<<<grid, block>>>((float *)d_in, d_out, r, width, height);
}
