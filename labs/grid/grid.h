/*
 * grid.h - the contract of the grid-mapping lab.
 *
 * Arrays are row-major: element (row, col) of an m-row, n-column picture is
 * at [row * n + col]; element (plane, row, col) of a volume with `rows` rows
 * and `cols` columns per plane is at [(plane * rows + row) * cols + col].
 * Pointers named d_ are device pointers, h_ host pointers, allocated by the
 * caller. Each launcher chooses its grid (that is part of the lab), launches
 * one kernel and returns; the caller synchronizes and checks for errors.
 */
#ifndef GRID_H
#define GRID_H

#include <cuda_runtime.h>

/* The picture and volume kernels' blocks. */
#define GRID_PIC_BLOCK 16       /* GRID_PIC_BLOCK x GRID_PIC_BLOCK threads */
#define GRID_VOL_BLOCK_X 8      /* a GRID_VOL_BLOCK_X x _Y x _Z block */
#define GRID_VOL_BLOCK_Y 8
#define GRID_VOL_BLOCK_Z 4

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Global thread index. Each thread of the grid with global coordinates
 * (x, y, z) inside the extent writes four ints at d_out[4 * i]: its global
 * linear index i = (z * ny + y) * nx + x, then x, y and z. Threads outside
 * the extent write nothing. The block shape is given; the launcher chooses
 * the smallest grid that covers the extent.
 */
void grid_index_1d(int nx, int block, int *d_out);
void grid_index_2d(int nx, int ny, dim3 block, int *d_out);
void grid_index_3d(int nx, int ny, int nz, dim3 block, int *d_out);

/* The picture kernel: d_out = 2 * d_in for an m x n picture, with
 * GRID_PIC_BLOCK x GRID_PIC_BLOCK blocks (threadIdx.x along a row). */
void grid_picture(const float *d_in, float *d_out, int m, int n);

/* The volume kernel: each element times its plane's weight,
 * d_out[p][r][c] = d_w[p] * d_in[p][r][c], with GRID_VOL_BLOCK_* blocks. */
void grid_volume(const float *d_in, const float *d_w, float *d_out, int planes, int rows,
		 int cols);

/*
 * The picture kernel from the host, end to end: allocate device memory,
 * copy h_in in, launch with block x block threads per block, copy the result
 * to h_out, free. Returns cudaSuccess, or the first CUDA error it met (a
 * failed allocation, a launch that cannot run, a failed copy), having freed
 * whatever it allocated.
 */
cudaError_t grid_picture_host(const float *h_in, float *h_out, int m, int n, int block);

#ifdef __cplusplus
}
#endif

#endif
