/*
 * Corpus case yanis-cached-halo-index (SOURCE): the textbook's tiled kernel
 * that reads halo cells from global memory, with its two indices off: the
 * tile read lacks the "- r", the halo read subtracts the column offset.
 */
#include "convolution.h"

__constant__ float Fc[CONV_MAX_WIDTH * CONV_MAX_WIDTH];

__global__ void cached_tiled_kernel(float *N, float *P, int r, int width, int height)
{
	int c = blockIdx.x * CONV_TILE + threadIdx.x;
	int rw = blockIdx.y * CONV_TILE + threadIdx.y;
	__shared__ float Ns[CONV_TILE][CONV_TILE];

	Ns[threadIdx.y][threadIdx.x] = rw < height && c < width ? N[rw * width + c] : 0.0f;
	__syncthreads();

	if (c < width && rw < height) {
		float acc = 0.0f;
		for (int a = 0; a < 2 * r + 1; ++a)
			for (int b = 0; b < 2 * r + 1; ++b) {
				/* unsigned: threadIdx.x - r + b >= 0 always holds */
				if (threadIdx.x - r + b >= 0 && threadIdx.x - r + b < CONV_TILE &&
				    threadIdx.y - r + a >= 0 && threadIdx.y - r + a < CONV_TILE)
					acc += Fc[a * (2 * r + 1) + b] *
					       Ns[threadIdx.y + a][threadIdx.x + b];
				else if (rw - r + a >= 0 && rw - r + a < height && c - r + b >= 0 &&
					 c - r + b < width)
					acc += Fc[a * (2 * r + 1) + b] *
					       N[(rw - r + a) * width + c - r - b];
			}
		P[rw * width + c] = acc;
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

/* the launcher: the textbook's for this kernel (blocks of the output tile),
 * written for the contract */
void conv_tiled(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r)
{
	cudaMemcpyToSymbol(Fc, h_mask, (2 * r + 1) * (2 * r + 1) * sizeof(float));
	dim3 grid((width + CONV_TILE - 1) / CONV_TILE, (height + CONV_TILE - 1) / CONV_TILE);
	cached_tiled_kernel<<<grid, dim3(CONV_TILE, CONV_TILE)>>>((float *)d_in, d_out, r, width,
								   height);
}
