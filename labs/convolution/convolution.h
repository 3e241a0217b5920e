/*
 * convolution.h - the contract of the 2D convolution lab.
 *
 * Every launcher computes out = in (*) mask for a width x height image of
 * float stored row-major (pixel (row, col) is in[row * width + col]) and a
 * square mask of (2r + 1) x (2r + 1) weights, also row-major, 0 <= r <=
 * CONV_MAX_RADIUS:
 *
 *   out[row][col] = sum over i, j in 0 .. 2r of
 *                   mask[i][j] * in[row - r + i][col - r + j]
 *
 * with mask[i][j] = mask[i * (2r + 1) + j], the mask not flipped, and every
 * pixel outside the image (a ghost cell) taken as 0. Pointers named d_ are
 * device pointers, allocated and filled by the caller; h_mask is a host
 * pointer. Each launcher chooses its grid, launches exactly one kernel and
 * returns; the caller synchronizes and checks for errors. A launcher must
 * not allocate device memory it does not free.
 */
#ifndef CONVOLUTION_H
#define CONVOLUTION_H

#include <cuda_runtime.h>

/* The largest mask radius: masks of up to 7 x 7 weights. */
#define CONV_MAX_RADIUS 3
#define CONV_MAX_WIDTH (2 * CONV_MAX_RADIUS + 1)

/* Parts 1 and 2: blocks of CONV_BLOCK x CONV_BLOCK threads, one per output pixel. */
#define CONV_BLOCK 16
/* Part 3: each block computes a CONV_TILE x CONV_TILE tile of the output. */
#define CONV_TILE 16

#ifdef __cplusplus
extern "C" {
#endif

/* Part 1: one thread per output pixel, the mask read from global memory (d_mask). */
void conv_basic(const float *d_in, const float *d_mask, float *d_out, int width, int height,
		int r);

/* Part 2: as part 1, with the mask copied from the host (h_mask) into a
 * __constant__ array by this launcher (cudaMemcpyToSymbol), which the kernel
 * reads. */
void conv_const(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r);

/* Part 3: the mask in constant memory as in part 2; each block loads the input
 * tile its output tile needs, halo cells included (ghost cells as 0), into
 * shared memory, waits with __syncthreads(), and computes its tile from it. */
void conv_tiled(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r);

#ifdef __cplusplus
}
#endif

#endif
