/*
 * Similarity bench case double-accumulate (written in the project's own words after a
 * public pattern; its origin is in SOURCE): kernel 4 with a double accumulator and a cast at the store; the column from threadIdx.x, the row from threadIdx.y.
 */
#include "matmul.h"

__global__ void gemm_dbl_acc(const float *a, const float *b, float *c, int n)
{
	const int x = threadIdx.x + blockIdx.x * blockDim.x;
	const int y = threadIdx.y + blockIdx.y * blockDim.y;
	if (x < n && y < n) {
		double d = 0.0;
		for (int k = 0; k < n; ++k)
			d += (double)a[y * n + k] * (double)b[k * n + x];
		c[y * n + x] = (float)d;
	}
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 b(MATMUL_K4_P, MATMUL_K4_Q, 1);
	dim3 g;
	g.x = (N + b.x - 1) / b.x;
	g.y = (N + b.y - 1) / b.y;
	gemm_dbl_acc<<<g, b>>>(d_A, d_B, d_C, N);
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
