/*
 * Corpus case sgemm-prefetch-past-row (rewritten in the project's own words;
 * the pattern's origin is in SOURCE). One element of C per thread, blocks of
 * MATMUL_K4_P x MATMUL_K4_Q, with a software prefetch: the first element of
 * the thread's row of A is read before the k loop, and every step reads the
 * element the next step will use before it multiplies the current one. The
 * last step still prefetches: it reads the element one past the end of the
 * row, whose value is never used. For the last row of C that element lies one
 * float past the end of A.
 */
#include "matmul.h"

__global__ void row_prefetch(const float *a, const float *b, float *c, int n)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= n || col >= n)
		return;

	const float *a_row = a + (size_t)row * n;
	float a_next = a_row[0];                 /* fetched ahead for k = 0 */
	float acc = 0.0f;
	for (int k = 0; k < n; k++) {
		float a_cur = a_next;
		a_next = a_row[k + 1];           /* ahead for k + 1; at k = n - 1, past the row */
		acc += a_cur * b[(size_t)k * n + col];
	}
	c[(size_t)row * n + col] = acc;
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 block(MATMUL_K4_P, MATMUL_K4_Q);
	dim3 grid((N + MATMUL_K4_P - 1) / MATMUL_K4_P, (N + MATMUL_K4_Q - 1) / MATMUL_K4_Q);
	row_prefetch<<<grid, block>>>(d_A, d_B, d_C, N);
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
