/*
 * reduction.h - the contract of the reduction lab: the sum of n floats, four
 * ways. What a submission defines, and what the tests may assume of it.
 *
 * Pointers named d_ are device pointers, allocated and filled by the caller;
 * n >= 1. Each launcher launches exactly one kernel, in blocks of
 * REDUCTION_BLOCK threads, one thread per element: block b owns the elements
 * b * REDUCTION_BLOCK to b * REDUCTION_BLOCK + REDUCTION_BLOCK - 1 that are
 * below n, so a grid of ceil(n / REDUCTION_BLOCK) blocks. It returns without
 * synchronizing; the caller synchronizes and checks for errors. A launcher
 * does not allocate device memory it does not free, and never writes d_in.
 */
#ifndef REDUCTION_H
#define REDUCTION_H

#include <cuda_runtime.h>

/* The threads of a block, and the elements each block sums: a power of two. */
#define REDUCTION_BLOCK 256

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The three tree kernels write one partial sum per block: d_partial[b] is the
 * sum of block b's elements, for 0 <= b < ceil(n / REDUCTION_BLOCK) (the
 * array's length). Any order of addition is right.
 */

/* Part 1: a tree in shared memory, interleaved addressing (tid % (2 * s)). */
void reduction_interleaved(const float *d_in, float *d_partial, int n);

/* Part 2: a tree in shared memory, sequential addressing (stride halving). */
void reduction_sequential(const float *d_in, float *d_partial, int n);

/* Part 3: as part 2 down to 32 values, then warp shuffles (__shfl_down_sync). */
void reduction_warp(const float *d_in, float *d_partial, int n);

/*
 * Part 4: the whole sum in one launch: *d_sum is the sum of d_in[0..n-1].
 * Each block adds its partial sum to *d_sum with atomicAdd; *d_sum holds
 * anything before the call (set it to 0 with cudaMemset first).
 */
void reduction_atomic(const float *d_in, float *d_sum, int n);

#ifdef __cplusplus
}
#endif

#endif
