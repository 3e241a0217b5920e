/*
 * Corpus case bpg-coalesced-syncwarp (rewritten in the project's own words;
 * the pattern's origin is in SOURCE). Blocks of MATMUL_K4_P (32) x
 * MATMUL_K4_Q threads: threadIdx.x runs along a row of C, so each warp is one
 * row segment of C. Each warp copies the piece of its row of A that the next
 * 32 steps of k need into its own row of a shared array, one element a lane,
 * and orders the copy with __syncwarp() only: no other warp ever reads that
 * row. A second __syncwarp() keeps the next copy from overwriting values a
 * slower lane still reads.
 */
#include "matmul.h"

#define PIECE MATMUL_K4_P   /* a warp's width: the piece of A one warp stages */

__global__ void warp_staged(const float *a, const float *b, float *c, int n)
{
	__shared__ float a_piece[MATMUL_K4_Q][PIECE];
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= n)
		return;   /* the whole warp: its 32 lanes share threadIdx.y */

	float *mine = a_piece[threadIdx.y];
	float sum = 0.0f;
	for (int t = 0; t < n; t += PIECE) {
		int k = t + threadIdx.x;
		mine[threadIdx.x] = k < n ? a[(size_t)row * n + k] : 0.0f;
		__syncwarp();                    /* the piece is in shared memory */
		if (col < n) {
			int len = n - t < PIECE ? n - t : PIECE;
			for (int i = 0; i < len; i++)
				sum += mine[i] * b[(size_t)(t + i) * n + col];
		}
		__syncwarp();                    /* read by every lane before the next copy */
	}
	if (col < n)
		c[(size_t)row * n + col] = sum;
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 block(MATMUL_K4_P, MATMUL_K4_Q);
	dim3 grid((N + block.x - 1) / block.x, (N + block.y - 1) / block.y);
	warp_staged<<<grid, block>>>(d_A, d_B, d_C, N);
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
