/*
 * matmul.h - the contract of the matrix-multiplication lab.
 *
 * Every function computes C = A * B for square N x N matrices of float stored
 * row-major (element (i, j) of A is A[i * N + j]). The pointers are device
 * pointers, already allocated and filled by the caller; C is to be written.
 * Each launcher chooses its own grid and block (that is part of the lab),
 * launches exactly one kernel, and returns; the caller synchronizes and checks
 * for errors. A launcher must not allocate device memory it does not free.
 */
#ifndef MATMUL_H
#define MATMUL_H

/* Kernel 2 and 3: threads per block, each computing one element of a row. */
#define MATMUL_K2_P 32
/* Kernel 4: a block of P x Q threads computes a tile of Q rows by P columns of C. */
#define MATMUL_K4_P 32   /* threads along a row of C: blockDim.x */
#define MATMUL_K4_Q 8    /* rows of C: blockDim.y */
/* Kernel 5: a block of TILE x TILE threads, tiles of A and B in shared memory. */
#define MATMUL_TILE 16

#ifdef __cplusplus
extern "C" {
#endif

/* One thread per block, one block per element of C: a grid of N x N blocks. */
void matmul_k1(const float *d_A, const float *d_B, float *d_C, int N);

/* MATMUL_K2_P threads per block, each block computes P consecutive elements of
 * one row of C. Only called with N a multiple of MATMUL_K2_P. */
void matmul_k2(const float *d_A, const float *d_B, float *d_C, int N);

/* As kernel 2, for any N >= 1: the last block of a row is partly idle. */
void matmul_k3(const float *d_A, const float *d_B, float *d_C, int N);

/* MATMUL_K4_P x MATMUL_K4_Q threads per block, one element of C each, any N. */
void matmul_k4(const float *d_A, const float *d_B, float *d_C, int N);

/* Bonus: MATMUL_TILE x MATMUL_TILE tiles of A and B staged in shared memory,
 * with __syncthreads(), any N. */
void matmul_k5(const float *d_A, const float *d_B, float *d_C, int N);

#ifdef __cplusplus
}
#endif

#endif
