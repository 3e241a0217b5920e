/*
 * Similarity bench case kirk-hwu-elements (written in the project's own words after a
 * public pattern; its origin is in SOURCE): i, j, k named as in the book, the elements of A and B read into Aelem and Belem before the product; here one block per element of C (kernel 1).
 */
#include "matmul.h"

__global__ void matrixMultKernel_global(const float *Ad, const float *Bd, float *Cd, int n)
{
	int i = blockIdx.y;
	int k = blockIdx.x;
	float Celem = 0;

	for (int j = 0; j < n; j++) {
		float Aelem = Ad[i * n + j];
		float Belem = Bd[j * n + k];
		Celem += Aelem * Belem;
	}
	Cd[i * n + k] = Celem;
}

void matmul_k1(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 grid(N, N);
	matrixMultKernel_global<<<grid, 1>>>(d_A, d_B, d_C, N);
}

/* The launchers this code does not provide: the stub's, unchanged. */

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
