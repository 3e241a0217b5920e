/*
 * Corpus case openmm-shared-one-past (rewritten in the project's own words;
 * the pattern's origin is in SOURCE). The textbook tiled kernel (guarded
 * loads with zero else-branches, two barriers, guarded store), whose inner
 * loop reads the next element of the thread's row of the A tile ahead of the
 * step that uses it. At the last step that index is one past the end of the
 * row: in most threads it falls on the next row of the tile (read, never
 * used), in the threads of the tile's last row (threadIdx.y == 15) it is one
 * float past the end of the shared array.
 */
#include "matmul.h"

#define TW MATMUL_TILE

__global__ void tiles_read_ahead(const float *a, const float *b, float *c, int n)
{
	__shared__ float sa[TW][TW];
	__shared__ float sb[TW][TW];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TW + ty;
	int col = blockIdx.x * TW + tx;
	float acc = 0.0f;

	for (int p = 0; p < (n + TW - 1) / TW; p++) {
		int ka = p * TW + tx, kb = p * TW + ty;
		sa[ty][tx] = (row < n && ka < n) ? a[(size_t)row * n + ka] : 0.0f;
		sb[ty][tx] = (kb < n && col < n) ? b[(size_t)kb * n + col] : 0.0f;
		__syncthreads();

		float a_k = sa[ty][0];
		for (int q = 0; q < TW; q++) {
			float a_ahead = sa[ty][q + 1];   /* q = TW - 1: one past the row */
			acc += a_k * sb[q][tx];
			a_k = a_ahead;
		}
		__syncthreads();
	}
	if (row < n && col < n)
		c[(size_t)row * n + col] = acc;
}

void matmul_k5(const float *d_A, const float *d_B, float *d_C, int N)
{
	dim3 threads(TW, TW);
	dim3 blocks((N + TW - 1) / TW, (N + TW - 1) / TW);
	tiles_read_ahead<<<blocks, threads>>>(d_A, d_B, d_C, N);
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

/* Kernel 4: MATMUL_K4_P x MATMUL_K4_Q threads per block, a 2D tile of C. */
__global__ void matmul_k4_kernel(const float *A, const float *B, float *C, int N)
{
	/* TODO */
}

void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N)
{
	/* TODO */
}
