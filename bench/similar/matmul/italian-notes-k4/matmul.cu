/*
 * Similarity bench case italian-notes-k4 (written in the project's own words after a
 * public pattern; its origin is in SOURCE): Md/Nd/Pd names, the bounds test as an if around the whole body, the loop counting k with ++k.
 */
#include "matmul.h"

__global__ void MatrixMulKernel(const float *Md, const float *Nd, float *Pd, int Width)
{
	/* posizione globale dell'elemento */
	int riga = blockIdx.y * blockDim.y + threadIdx.y;
	int colonna = blockIdx.x * blockDim.x + threadIdx.x;

	/* il thread e' dentro la matrice? */
	if (colonna < Width && riga < Width) {
		float Pvalue = 0;
		for (int k = 0; k < Width; ++k)
			Pvalue += Md[riga * Width + k] * Nd[k * Width + colonna];
		Pd[riga * Width + colonna] = Pvalue;
	}
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 dimBlock(MATMUL_K4_P, MATMUL_K4_Q);
	dim3 dimGrid((N + dimBlock.x - 1) / dimBlock.x, (N + dimBlock.y - 1) / dimBlock.y);
	MatrixMulKernel<<<dimGrid, dimBlock>>>(d_A, d_B, d_C, N);
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
