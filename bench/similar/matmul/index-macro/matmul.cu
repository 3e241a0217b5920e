/*
 * Similarity bench case index-macro (written in the project's own words after a
 * public pattern; its origin is in SOURCE): kernels 1 and 4 share an IDX macro; kernel 1 reads blockIdx alone, kernel 4 a 2-D thread index with a combined bounds test.
 */
#include "matmul.h"

#define IDX(r, c, ld) ((r) * (ld) + (c))

__global__ void mm_block_per_elem(const float *A, const float *B, float *C, int N)
{
	int i = blockIdx.y, j = blockIdx.x;
	float sum = 0;
	for (int k = 0; k < N; k++)
		sum += A[IDX(i, k, N)] * B[IDX(k, j, N)];
	C[IDX(i, j, N)] = sum;
}

__global__ void mm_thread_per_elem(const float *A, const float *B, float *C, int N)
{
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N && j < N) {
		float sum = 0;
		for (int k = 0; k < N; k++)
			sum += A[IDX(i, k, N)] * B[IDX(k, j, N)];
		C[IDX(i, j, N)] = sum;
	}
}

void matmul_k1(const float *d_A, const float *d_B, float *d_C, int N)
{
	mm_block_per_elem<<<dim3(N, N), 1>>>(d_A, d_B, d_C, N);
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 t(32, 8);
	dim3 g((N + 31) / 32, (N + 7) / 8);
	mm_thread_per_elem<<<g, t>>>(d_A, d_B, d_C, N);
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

/* Kernel 5 (bonus): MATMUL_TILE x MATMUL_TILE tiles in shared memory. */
__global__ void matmul_k5_kernel(const float *A, const float *B, float *C, int N)
{
	/* TODO: __shared__ tiles of A and B, and __syncthreads(). */
}

void matmul_k5(const float *d_A, const float *d_B, float *d_C, int N)
{
	/* TODO */
}
