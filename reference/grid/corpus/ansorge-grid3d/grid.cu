/*
 * Corpus case ansorge-grid3d (rewritten in the project's own words; the
 * pattern's origin is in SOURCE). One kernel with a 3D thread coordinate and
 * an early return when any of x, y, z is outside the extent serves all three
 * index launchers (1D and 2D pass ny = nz = 1); the volume part uses the same
 * shape of kernel with the lab's work, in 8 x 8 x 4 blocks, z across planes.
 */
#include "grid.h"

/* ---- part index: one 3D kernel for 1D, 2D and 3D */

__global__ void where_am_i(int ex, int ey, int ez, int *rec)
{
	const int px = threadIdx.x + blockIdx.x * blockDim.x;
	const int py = threadIdx.y + blockIdx.y * blockDim.y;
	const int pz = threadIdx.z + blockIdx.z * blockDim.z;
	if (px >= ex || py >= ey || pz >= ez)
		return;                        /* outside the extent */

	const int lin = px + ex * (py + ey * pz);
	int *slot = rec + 4 * lin;
	slot[0] = lin;
	slot[1] = px;
	slot[2] = py;
	slot[3] = pz;
}

static unsigned cover(int len, unsigned step) { return (len + step - 1) / step; }

void grid_index_1d(int nx, int block, int *d_out)
{
	where_am_i<<<dim3(cover(nx, block), 1, 1), dim3(block, 1, 1)>>>(nx, 1, 1, d_out);
}

void grid_index_2d(int nx, int ny, dim3 block, int *d_out)
{
	dim3 g(cover(nx, block.x), cover(ny, block.y), 1);
	where_am_i<<<g, block>>>(nx, ny, 1, d_out);
}

void grid_index_3d(int nx, int ny, int nz, dim3 block, int *d_out)
{
	dim3 g(cover(nx, block.x), cover(ny, block.y), cover(nz, block.z));
	where_am_i<<<g, block>>>(nx, ny, nz, d_out);
}

/* ---- part picture: not covered by the source; the stub's bodies */

__global__ void grid_picture_kernel(const float *in, float *out, int m, int n)
{
	/* TODO: row and column of this thread; only pixels inside the picture. */
}

void grid_picture(const float *d_in, float *d_out, int m, int n)
{
	/* TODO: GRID_PIC_BLOCK x GRID_PIC_BLOCK blocks, x along a row. */
}

/* ---- part volume: the same shape of kernel, the lab's volume work */

__global__ void weigh_planes(const float *src, const float *wt, float *dst,
                             int ex, int ey, int ez)
{
	const int px = threadIdx.x + blockIdx.x * blockDim.x;
	const int py = threadIdx.y + blockIdx.y * blockDim.y;
	const int pz = threadIdx.z + blockIdx.z * blockDim.z;
	if (px >= ex || py >= ey || pz >= ez)
		return;
	const int lin = px + ex * (py + ey * pz);
	dst[lin] = src[lin] * wt[pz];
}

void grid_volume(const float *d_in, const float *d_w, float *d_out, int planes, int rows,
		 int cols)
{
	dim3 t(GRID_VOL_BLOCK_X, GRID_VOL_BLOCK_Y, GRID_VOL_BLOCK_Z);
	dim3 g(cover(cols, t.x), cover(rows, t.y), cover(planes, t.z));
	weigh_planes<<<g, t>>>(d_in, d_w, d_out, cols, rows, planes);
}

/* ---- part host: not covered by the source; the stub's body */

cudaError_t grid_picture_host(const float *h_in, float *h_out, int m, int n, int block)
{
	/* TODO: cudaMalloc, cudaMemcpy in, launch with block x block threads,
	 * cudaGetLastError, cudaMemcpy out, cudaFree; return the first error. */
	return cudaErrorNotYetImplemented;
}
