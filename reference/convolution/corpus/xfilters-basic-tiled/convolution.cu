/*
 * Corpus case xfilters-basic-tiled (SOURCE): a tutorial repository's basic
 * kernel (the filter in global memory) and its tiled kernel after the
 * textbook (input-sized blocks, the filter in constant memory).
 */
#include "convolution.h"

__constant__ float dF[CONV_MAX_WIDTH * CONV_MAX_WIDTH];

__global__ void naive_kernel(const float *dN, const float *dFg, float *dP, int n_rows, int n_cols,
			     int r)
{
	int oc = blockIdx.x * blockDim.x + threadIdx.x;
	int orow = blockIdx.y * blockDim.y + threadIdx.y;

	if (orow < n_rows && oc < n_cols) {
		float v = 0.0f;
		for (int fr = 0; fr < 2 * r + 1; fr++)
			for (int fc = 0; fc < 2 * r + 1; fc++) {
				int ir = orow + (fr - r), ic = oc + (fc - r);
				if (ir >= 0 && ir < n_rows && ic >= 0 && ic < n_cols)
					v += dFg[fr * (2 * r + 1) + fc] * dN[ir * n_cols + ic];
			}
		dP[orow * n_cols + oc] = v;
	}
}

#define IN_EDGE_MAX (CONV_TILE + 2 * CONV_MAX_RADIUS)

__global__ void tiled_kernel(const float *dN, float *dP, int n_rows, int n_cols, int r)
{
	int oc = blockIdx.x * CONV_TILE + threadIdx.x - r;
	int orow = blockIdx.y * CONV_TILE + threadIdx.y - r;
	__shared__ float sh[IN_EDGE_MAX][IN_EDGE_MAX];

	if (orow >= 0 && orow < n_rows && oc >= 0 && oc < n_cols)
		sh[threadIdx.y][threadIdx.x] = dN[orow * n_cols + oc];
	else
		sh[threadIdx.y][threadIdx.x] = 0.0f;
	__syncthreads();

	int tc = threadIdx.x - r, tr = threadIdx.y - r;
	if (orow >= 0 && orow < n_rows && oc >= 0 && oc < n_cols) {
		if (tr >= 0 && tr < CONV_TILE && tc >= 0 && tc < CONV_TILE) {
			float v = 0.0f;
#pragma unroll
			for (int fr = 0; fr < 2 * r + 1; fr++)
				for (int fc = 0; fc < 2 * r + 1; fc++)
					v += dF[fr * (2 * r + 1) + fc] * sh[tr + fr][tc + fc];
			dP[orow * n_cols + oc] = v;
		}
	}
}

void conv_basic(const float *d_in, const float *d_mask, float *d_out, int width, int height,
		int r)
{
	dim3 block(CONV_BLOCK, CONV_BLOCK, 1);
	dim3 grid(ceil(width / (float)CONV_BLOCK), ceil(height / (float)CONV_BLOCK), 1);
	naive_kernel<<<grid, block>>>(d_in, d_mask, d_out, height, width, r);
}

/* not in the original: the stub's body */
void conv_const(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r)
{
}

void conv_tiled(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r)
{
	cudaMemcpyToSymbol(dF, h_mask, (2 * r + 1) * (2 * r + 1) * sizeof(float));
	dim3 block(CONV_TILE + 2 * r, CONV_TILE + 2 * r, 1);
	dim3 grid(ceil(width / (float)CONV_TILE), ceil(height / (float)CONV_TILE), 1);
	tiled_kernel<<<grid, block>>>(d_in, d_out, height, width, r);
}
