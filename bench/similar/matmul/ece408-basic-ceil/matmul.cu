/*
 * Similarity bench case ece408-basic-ceil (written in the project's own words after a
 * public pattern; its origin is in SOURCE): the MP's basic kernel: one element per thread, a bounds test around the dot product, a grid sized with ceil() of a float division.
 */
#include "matmul.h"

#include <math.h>

__global__ void matrixMultiply(const float *A, const float *B, float *C, int numARows,
                               int numAColumns, int numBColumns)
{
	int Row = blockIdx.y * blockDim.y + threadIdx.y;
	int Col = blockIdx.x * blockDim.x + threadIdx.x;
	if ((Row < numARows) && (Col < numBColumns)) {
		float Pvalue = 0;
		for (int k = 0; k < numAColumns; ++k)
			Pvalue += A[Row * numAColumns + k] * B[k * numBColumns + Col];
		C[Row * numBColumns + Col] = Pvalue;
	}
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 DimGrid(ceil(N / 32.0), ceil(N / 8.0), 1);
	dim3 DimBlock(32, 8, 1);
	matrixMultiply<<<DimGrid, DimBlock>>>(d_A, d_B, d_C, N, N, N);
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
