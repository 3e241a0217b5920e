/*
 * Similarity bench case gridstride-2d (written in the project's own words after a
 * public pattern; its origin is in SOURCE): kernel 4 written with grid-stride while loops in both dimensions, so any grid covers the matrix.
 */
#include "matmul.h"

__global__ void mm_gridstride(const float *A, const float *B, float *C, int N)
{
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	while (y < N) {
		int x = blockIdx.x * blockDim.x + threadIdx.x;
		while (x < N) {
			float v = 0.0f;
			for (int i = 0; i < N; i++)
				v += A[y * N + i] * B[i * N + x];
			C[y * N + x] = v;
			x += blockDim.x * gridDim.x;
		}
		y += blockDim.y * gridDim.y;
	}
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 blk(MATMUL_K4_P, MATMUL_K4_Q);
	dim3 grd((N + blk.x - 1) / blk.x, (N + blk.y - 1) / blk.y);
	mm_gridstride<<<grd, blk>>>(d_A, d_B, d_C, N);
}

/* The launchers this code does not provide: the stub's, unchanged. */

/* Kernel 1: one thread per block, one block per element of C (N x N blocks). */
__global__ void matmul_k1_kernel(const float *A, const float *B, float *C, int N)
{
	/* TODO: which element of C does this block compute? */
}

void matmul_k1(const float *d_A, const float *d_B, float *d_C, int N)
{
	/* TODO: launch matmul_k1_kernel with a grid of N x N blocks of 1 thread. */
}

/* Kernel 2: MATMUL_K2_P threads per block, P consecutive elements of one row. */
__global__ void matmul_k2_kernel(const float *A, const float *B, float *C, int N)
{
	/* TODO */
}

void matmul_k2(const float *d_A, const float *d_B, float *d_C, int N)
{
	/* TODO: N is a multiple of MATMUL_K2_P here. */
}

/* Kernel 3: as kernel 2, for any N. */
__global__ void matmul_k3_kernel(const float *A, const float *B, float *C, int N)
{
	/* TODO: some threads of the last block of a row have no element. */
}

void matmul_k3(const float *d_A, const float *d_B, float *d_C, int N)
{
	/* TODO */
}

/* Kernel 5 (bonus): MATMUL_TILE x MATMUL_TILE tiles in shared memory. */
__global__ void matmul_k5_kernel(const float *A, const float *B, float *C, int N)
{
	/* TODO: __shared__ tiles of A and B, and __syncthreads(). */
}

void matmul_k5(const float *d_A, const float *d_B, float *d_C, int N)
{
	/* TODO */
}
