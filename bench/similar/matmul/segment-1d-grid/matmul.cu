/*
 * Similarity bench case segment-1d-grid (written in the project's own words after a
 * public pattern; its origin is in SOURCE): kernel 2 with a 1-D grid of N*N/P blocks: the block's number split into the row and the segment by division and remainder.
 */
#include "matmul.h"

__global__ void row_segment(const float *a, const float *b, float *c, int n)
{
	int segs = n / MATMUL_K2_P;
	int row = blockIdx.x / segs;
	int col = (blockIdx.x % segs) * MATMUL_K2_P + threadIdx.x;
	float s = 0;
	for (int j = 0; j < n; ++j)
		s += a[row * n + j] * b[j * n + col];
	c[row * n + col] = s;
}

void matmul_k2(const float *d_A, const float *d_B, float *d_C, int N)
{
	int blocks = N * (N / MATMUL_K2_P);
	row_segment<<<blocks, MATMUL_K2_P>>>(d_A, d_B, d_C, N);
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

/* Kernel 3: as kernel 2, for any N. */
__global__ void matmul_k3_kernel(const float *A, const float *B, float *C, int N)
{
	/* TODO: some threads of the last block of a row have no element. */
}

void matmul_k3(const float *d_A, const float *d_B, float *d_C, int N)
{
	/* TODO */
}

/* Kernel 4: MATMUL_K4_P x MATMUL_K4_Q threads per block, a 2D tile of C. */
__global__ void matmul_k4_kernel(const float *A, const float *B, float *C, int N)
{
	/* TODO */
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
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
