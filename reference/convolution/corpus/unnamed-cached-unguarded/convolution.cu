/*
 * Corpus case unnamed-cached-unguarded (SOURCE): a tiled kernel that keeps
 * the block's own cells in shared memory and reads the others from global
 * memory, with neither its load nor its store tested against the image.
 */
#include "convolution.h"

__constant__ float M[CONV_MAX_WIDTH * CONV_MAX_WIDTH];

__global__ void tiled_kernel(float *d_N, float *d_P, int width, int height, int r)
{
	int orow = blockDim.y * blockIdx.y + threadIdx.y;
	int ocol = blockDim.x * blockIdx.x + threadIdx.x;
	int mw = 2 * r + 1;
	__shared__ float N_ds[CONV_TILE][CONV_TILE];

	int row0 = orow - mw / 2, col0 = ocol - mw / 2;

	/* 1: the tile, whatever the thread's place */
	N_ds[threadIdx.y][threadIdx.x] = d_N[orow * width + ocol];
	__syncthreads();

	/* 2: the sum, from the tile where the cell is in it, else from global memory */
	float p = 0.0;
	for (int i = 0; i < mw; i++)
		for (int j = 0; j < mw; j++) {
			int y = row0 + i, x = col0 + j;
			if (y >= 0 && y < height && x >= 0 && x < width) {
				bool in_tile = y >= blockDim.y * blockIdx.y &&
					       y < blockDim.y * (blockIdx.y + 1) &&
					       x >= blockDim.x * blockIdx.x &&
					       x < blockDim.x * (blockIdx.x + 1);
				if (in_tile)
					p += N_ds[y - blockDim.y * blockIdx.y]
						 [x - blockDim.x * blockIdx.x] * M[i * mw + j];
				else
					p += d_N[y * width + x] * M[i * mw + j];
			}
		}
	d_P[orow * width + ocol] = p;
}

/* not in the original: the stub's body */
void conv_basic(const float *d_in, const float *d_mask, float *d_out, int width, int height,
		int r)
{
}

/* not in the original: the stub's body */
void conv_const(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r)
{
}

void conv_tiled(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r)
{
	cudaMemcpyToSymbol(M, h_mask, (2 * r + 1) * (2 * r + 1) * sizeof(float), 0,
			   cudaMemcpyHostToDevice);
	dim3 dimGrid(ceil(float(width) / CONV_TILE), ceil(float(height) / CONV_TILE), 1);
	dim3 dimBlock(CONV_TILE, CONV_TILE, 1);
	tiled_kernel<<<dimGrid, dimBlock>>>((float *)d_in, d_out, width, height, r);
}
