/*
 * Similarity bench case device-dot-helper (written in the project's own words after a
 * public pattern; its origin is in SOURCE): kernel 4 calls a __device__ function for one element's dot product; the kernel only maps threads and tests bounds.
 */
#include "matmul.h"

__device__ float dot_row_col(const float *A, const float *B, int N, int row, int col)
{
	float total = 0.0f;
	for (int k = 0; k < N; ++k)
		total += A[row * N + k] * B[k * N + col];
	return total;
}

__global__ void matmul_tile2d(const float *A, const float *B, float *C, int N)
{
	int col = blockIdx.x * MATMUL_K4_P + threadIdx.x;
	int row = blockIdx.y * MATMUL_K4_Q + threadIdx.y;
	if (row >= N || col >= N)
		return;
	C[row * N + col] = dot_row_col(A, B, N, row, col);
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 block(MATMUL_K4_P, MATMUL_K4_Q);
	dim3 grid((N + MATMUL_K4_P - 1) / MATMUL_K4_P, (N + MATMUL_K4_Q - 1) / MATMUL_K4_Q);
	matmul_tile2d<<<grid, block>>>(d_A, d_B, d_C, N);
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
