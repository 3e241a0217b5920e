/*
 * Similarity bench case row-cache-k2 (written in the project's own words after a
 * public pattern; its origin is in SOURCE): kernel 2 stages the row of A in shared memory one chunk of P at a time, every thread loading one element, with a barrier before and after use.
 */
#include "matmul.h"

__global__ void rowchunk(const float *A, const float *B, float *C, int N)
{
	__shared__ float chunk[MATMUL_K2_P];
	int row = blockIdx.y;
	int col = blockIdx.x * MATMUL_K2_P + threadIdx.x;
	float val = 0;
	for (int base = 0; base < N; base += MATMUL_K2_P) {
		chunk[threadIdx.x] = A[row * N + base + threadIdx.x];
		__syncthreads();
		for (int q = 0; q < MATMUL_K2_P; ++q)
			val += chunk[q] * B[(base + q) * N + col];
		__syncthreads();
	}
	C[row * N + col] = val;
}

void matmul_k2(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 grid(N / MATMUL_K2_P, N);
	rowchunk<<<grid, MATMUL_K2_P>>>(d_A, d_B, d_C, N);
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
