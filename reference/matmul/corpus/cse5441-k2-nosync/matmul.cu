/*
 * Corpus case cse5441-k2-nosync (rewritten in the project's own words; the
 * pattern's origin is in SOURCE). Column-major formulation as in case
 * cse5441-k1 (out = d_C, p = d_B, q = d_A, grid (N / 32) x N of 32 threads).
 * Each block stages 32 values of one column of q in a __shared__ buffer and
 * sums over them. BUG kept on purpose: there is no barrier anywhere, neither
 * between a thread's store into the buffer and the other threads' reads of
 * it, nor before the next round overwrites it (a data race).
 */
#include "matmul.h"

__global__ void colmajor_seg_staged(float *out, const float *p, const float *q,
                                    int ld_out, int ld_p, int ld_q, int depth)
{
	__shared__ float qbuf[32];
	const int me = threadIdx.x;
	const int r = blockIdx.x * 32 + me;
	const int c = blockIdx.y;
	float acc = 0.0f;

	for (int base = 0; base < depth; base += 32) {
		qbuf[me] = q[base + me + ld_q * c];
		for (int t = 0; t < 32; t++)
			acc += p[r + ld_p * (base + t)] * qbuf[t];
	}
	out[r + ld_out * c] = acc;
}

void matmul_k2(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 shape(32, 1);
	dim3 blocks(N / 32, N);
	colmajor_seg_staged<<<blocks, shape>>>(d_C, d_B, d_A, N, N, N, N);
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
