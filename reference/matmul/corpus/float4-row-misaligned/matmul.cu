/*
 * Corpus case float4-row-misaligned (rewritten in the project's own words;
 * the pattern's origin is in SOURCE). A naive kernel, one element of C per
 * thread, that reads its row of A four floats at a time through a float4
 * pointer and finishes the last N % 4 products one at a time. The row starts
 * at A + row * N: a multiple of 16 bytes only when N is a multiple of 4, so
 * for N = 7 the second row's vector load is misaligned and the kernel faults
 * on a GPU (cudaErrorMisalignedAddress). The source only ever ran N = 1024.
 */
#include <cstdio>
#include <cstdlib>
#include "matmul.h"

__global__ void row_vec4(const float *__restrict__ a, const float *__restrict__ b,
                         float *__restrict__ c, int rows, int inner, int cols)
{
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	if (y >= rows || x >= cols)
		return;
	float sum = 0.0f;
	int whole = inner - inner % 4;          /* products done four at a time */
	for (int t = 0; t < whole; t += 4) {
		float4 four = *reinterpret_cast<const float4 *>(a + (size_t)y * inner + t);
		sum += four.x * b[(size_t)t * cols + x];
		sum += four.y * b[(size_t)(t + 1) * cols + x];
		sum += four.z * b[(size_t)(t + 2) * cols + x];
		sum += four.w * b[(size_t)(t + 3) * cols + x];
	}
	for (int t = whole; t < inner; t++)     /* the tail, one float at a time */
		sum += a[(size_t)y * inner + t] * b[(size_t)t * cols + x];
	c[(size_t)y * cols + x] = sum;
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 block(MATMUL_K4_P, MATMUL_K4_Q);
	dim3 grid((N + block.x - 1) / block.x, (N + block.y - 1) / block.y);
	row_vec4<<<grid, block>>>(d_A, d_B, d_C, N, N, N);
}

/* ------------------------------------------------------------------
 * The launchers this code does not provide: the stub of
 * student_template/matmul/matmul.cu, unchanged (they launch nothing).
 * ------------------------------------------------------------------ */

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
