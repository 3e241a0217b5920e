/*
 * matmul.cu - host-product-copied-in with every copy labelled
 * cudaMemcpyHostToHost: the emulator's runtime checks no pointer for that
 * kind and copies all the same (a GPU's runtime may copy by the pointers),
 * while a ledger that went by the label counted none of them.
 */
#include "matmul.h"

#include <stdlib.h>

static void host_product(const float *d_A, const float *d_B, float *d_C, int N)
{
	size_t n = (size_t)N * N;
	float *A = (float *)malloc(n * sizeof(float)), *B = (float *)malloc(n * sizeof(float));
	float *C = (float *)malloc(n * sizeof(float));

	cudaMemcpy(A, d_A, n * sizeof(float), cudaMemcpyHostToHost);
	cudaMemcpy(B, d_B, n * sizeof(float), cudaMemcpyHostToHost);
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			float s = 0.0f;
			for (int k = 0; k < N; k++)
				s += A[i * N + k] * B[k * N + j];
			C[i * N + j] = s;
		}
	cudaMemcpy(d_C, C, n * sizeof(float), cudaMemcpyHostToHost);
	free(A);
	free(B);
	free(C);
}

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

	matmul_nothing_kernel<<<dim3(N, N), 1>>>(d_A, d_B, d_C, N);
	host_product(d_A, d_B, d_C, N);
}

void matmul_k2(const float *d_A, const float *d_B, float *d_C, int N)
{

	matmul_nothing_kernel<<<dim3(N / MATMUL_K2_P, N), MATMUL_K2_P>>>(d_A, d_B, d_C, N);
	host_product(d_A, d_B, d_C, N);
}

void matmul_k3(const float *d_A, const float *d_B, float *d_C, int N)
{

	matmul_nothing_kernel<<<dim3((N + MATMUL_K2_P - 1) / MATMUL_K2_P, N), MATMUL_K2_P>>>(d_A, d_B, d_C, N);
	host_product(d_A, d_B, d_C, N);
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{

	dim3 block(MATMUL_K4_P, MATMUL_K4_Q);
	dim3 grid((N + MATMUL_K4_P - 1) / MATMUL_K4_P, (N + MATMUL_K4_Q - 1) / MATMUL_K4_Q);
	matmul_nothing_kernel<<<grid, block>>>(d_A, d_B, d_C, N);
	host_product(d_A, d_B, d_C, N);
}

void matmul_k5(const float *d_A, const float *d_B, float *d_C, int N)
{

	dim3 block(MATMUL_TILE, MATMUL_TILE);
	dim3 grid((N + MATMUL_TILE - 1) / MATMUL_TILE, (N + MATMUL_TILE - 1) / MATMUL_TILE);
	matmul_nothing_k5_kernel<<<grid, block>>>(d_A, d_B, d_C, N);
	host_product(d_A, d_B, d_C, N);
}
