/*
 * coalescing.h - the contract of the memory-coalescing lab.
 *
 * Arrays are row-major: element (row, col) of an m-row, n-column array is at
 * [row * n + col], so consecutive columns of a row are consecutive in
 * memory. Pointers named d_ are device pointers, allocated by the caller.
 * Each launcher chooses its grid, launches its kernel(s) and returns; the
 * caller synchronizes and checks for errors.
 */
#ifndef COALESCING_H
#define COALESCING_H

#include <cuda_runtime.h>

/* The scale kernels' blocks: COAL_BLOCK_X x COAL_BLOCK_Y threads. */
#define COAL_BLOCK_X 32
#define COAL_BLOCK_Y 8

/* The tiled transpose: COAL_TILE x COAL_TILE elements per block, moved by
 * COAL_TILE x COAL_TILE_ROWS threads (each thread moves COAL_TILE /
 * COAL_TILE_ROWS elements). */
#define COAL_TILE 32
#define COAL_TILE_ROWS 8

#ifdef __cplusplus
extern "C" {
#endif

/*
 * d_out = a * d_in for an m x n array, one thread per element, with
 * COAL_BLOCK_X x COAL_BLOCK_Y blocks.
 *   coal_scale_rows: threadIdx.x runs along a row (x is the column), so the
 *                    32 threads of a warp touch 32 consecutive floats;
 *   coal_scale_cols: threadIdx.x runs down a column (x is the row), so the
 *                    threads of a warp are n floats apart.
 */
void coal_scale_rows(const float *d_in, float *d_out, int m, int n, float a);
void coal_scale_cols(const float *d_in, float *d_out, int m, int n, float a);

/* d_out[i] = d_in[i * stride] for 0 <= i < n; d_in holds n * stride floats. */
void coal_copy_strided(const float *d_in, float *d_out, int n, int stride);

/*
 * d_out = the transpose of d_in: d_in is m x n, d_out is n x m, and
 * d_out[c * m + r] = d_in[r * n + c].
 *   coal_transpose_naive: one thread per element, reading along a row of
 *                         d_in (so writing down a column of d_out);
 *   coal_transpose_tiled: a COAL_TILE x COAL_TILE tile through shared
 *                         memory, so both the reads and the writes run along
 *                         rows; blocks of COAL_TILE x COAL_TILE_ROWS threads.
 */
void coal_transpose_naive(const float *d_in, float *d_out, int m, int n);
void coal_transpose_tiled(const float *d_in, float *d_out, int m, int n);

#ifdef __cplusplus
}
#endif

#endif
