/*
 * Corpus case unnamed-tiled-grid-rounds-down (SOURCE): the textbook's tiled
 * kernel, right, launched on a grid of rows / OUT_TILE x columns / OUT_TILE
 * blocks: rounded down, x and y swapped.
 */
#include <cstdio>
#include <cstdlib>

#include "convolution.h"

__constant__ float F[CONV_MAX_WIDTH * CONV_MAX_WIDTH];

#define IN_EDGE_MAX (CONV_TILE + 2 * CONV_MAX_RADIUS)

__global__ void tiled_kernel(const float *N, float *P, int r, int width, int height)
{
	/* the pixel this thread loads, and may compute */
	int orow = blockIdx.y * CONV_TILE + threadIdx.y - r;
	int ocol = blockIdx.x * CONV_TILE + threadIdx.x - r;
	__shared__ float tile[IN_EDGE_MAX][IN_EDGE_MAX];

	if (orow >= 0 && orow < height && ocol >= 0 && ocol < width)
		tile[threadIdx.y][threadIdx.x] = N[orow * width + ocol];
	else
		tile[threadIdx.y][threadIdx.x] = 0.0f;
	__syncthreads();

	int tr = threadIdx.y - r, tc = threadIdx.x - r;
	if (orow >= 0 && orow < height && ocol >= 0 && ocol < width) {
		if (tr >= 0 && tr < CONV_TILE && tc >= 0 && tc < CONV_TILE) {
			float acc = 0.0f;
			for (int a = 0; a < 2 * r + 1; a++)
				for (int b = 0; b < 2 * r + 1; b++)
					acc += tile[tr + a][tc + b] * F[a * (2 * r + 1) + b];
			P[orow * width + ocol] = acc;
		}
	}
}

static void check(cudaError_t err, const char *what)
{
	if (err != cudaSuccess) {
		fprintf(stderr, "error: %s %s\n", what, cudaGetErrorString(err));
		exit(EXIT_FAILURE);
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

void conv_tiled(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r)
{
	check(cudaMemcpyToSymbol(F, h_mask, (2 * r + 1) * (2 * r + 1) * sizeof(float)),
	      "copying the filter to constant memory");
	dim3 grid(height / CONV_TILE, width / CONV_TILE, 1);
	dim3 block(CONV_TILE + 2 * r, CONV_TILE + 2 * r, 1);
	tiled_kernel<<<grid, block>>>(d_in, d_out, r, width, height);
}
