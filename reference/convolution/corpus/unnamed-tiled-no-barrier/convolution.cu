/*
 * Corpus case unnamed-tiled-no-barrier (SOURCE): the course template's tiled
 * kernel (O_TILE_WIDTH outputs, a block of the input tile) with three slips:
 * the output row from blockIdx.x, the load tested with col_o, and no
 * __syncthreads() between loading the tile and reading it.
 */
#include "convolution.h"

__constant__ float Mc[CONV_MAX_WIDTH * CONV_MAX_WIDTH];

#define O_TILE_WIDTH CONV_TILE
#define N_DS_MAX (O_TILE_WIDTH + CONV_MAX_WIDTH - 1)

__global__ void tiled_kernel(float *P, const float *N, int height, int width, int Mask_Width)
{
	int tx = threadIdx.x, ty = threadIdx.y;
	int row_o = blockIdx.x * O_TILE_WIDTH + ty;   /* x, where y is meant */
	int col_o = blockIdx.x * O_TILE_WIDTH + tx;
	int row_i = row_o - Mask_Width / 2;
	int col_i = col_o - Mask_Width / 2;
	__shared__ float N_ds[N_DS_MAX][N_DS_MAX];

	if (row_i >= 0 && row_i < height && col_i >= 0 && col_o < width)
		N_ds[ty][tx] = N[row_i * width + col_i];
	else
		N_ds[ty][tx] = 0.0f;
	/* no __syncthreads() here */

	float out = 0.0f;
	if (ty < O_TILE_WIDTH && tx < O_TILE_WIDTH) {
		for (int i = 0; i < Mask_Width; i++)
			for (int j = 0; j < Mask_Width; j++)
				out += Mc[i * Mask_Width + j] * N_ds[i + ty][j + tx];
		if (row_o < height && col_o < width)
			P[row_o * width + col_o] = out;
	}
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

/* not in the original (a kernel alone): the template's launch, for the contract */
void conv_tiled(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r)
{
	int mw = 2 * r + 1;

	cudaMemcpyToSymbol(Mc, h_mask, mw * mw * sizeof(float));
	dim3 block(O_TILE_WIDTH + mw - 1, O_TILE_WIDTH + mw - 1);
	dim3 grid((width - 1) / O_TILE_WIDTH + 1, (height - 1) / O_TILE_WIDTH + 1);
	tiled_kernel<<<grid, block>>>(d_out, d_in, height, width, mw);
}
