/*
 * Corpus case cheatsheet-getglobalidx (rewritten in the project's own words;
 * the pattern's origin is in SOURCE). Three non-static __device__ helpers
 * give a thread's "global index" the cheatsheet way: blocks are numbered
 * first, and each block's threads are numbered inside it, so in 2D and 3D
 * the number runs block by block, not row-major over the extent. The index
 * kernels use that number as the linear index i (right in 1D only).
 */
#include "grid.h"

/* ---- part index: the block-by-block helpers as the linear index */

__device__ unsigned flat_id_1d()
{
	return threadIdx.x + blockDim.x * blockIdx.x;
}

__device__ unsigned flat_id_2d()
{
	unsigned which_block = gridDim.x * blockIdx.y + blockIdx.x;
	unsigned per_block = blockDim.x * blockDim.y;
	return which_block * per_block + blockDim.x * threadIdx.y + threadIdx.x;
}

__device__ unsigned flat_id_3d()
{
	unsigned which_block = (gridDim.y * blockIdx.z + blockIdx.y) * gridDim.x + blockIdx.x;
	unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
	unsigned inside = (blockDim.y * threadIdx.z + threadIdx.y) * blockDim.x + threadIdx.x;
	return which_block * per_block + inside;
}

__device__ void put_entry(int *rec, unsigned i, int x, int y, int z)
{
	rec[4 * i + 0] = i;
	rec[4 * i + 1] = x;
	rec[4 * i + 2] = y;
	rec[4 * i + 3] = z;
}

__global__ void idx1(int nx, int *rec)
{
	unsigned i = flat_id_1d();
	if (i < nx)
		put_entry(rec, i, i, 0, 0);
}

__global__ void idx2(int nx, int ny, int *rec)
{
	int x = threadIdx.x + blockDim.x * blockIdx.x;
	int y = threadIdx.y + blockDim.y * blockIdx.y;
	unsigned i = flat_id_2d();
	if (x < nx && y < ny)
		put_entry(rec, i, x, y, 0);
}

__global__ void idx3(int nx, int ny, int nz, int *rec)
{
	int x = threadIdx.x + blockDim.x * blockIdx.x;
	int y = threadIdx.y + blockDim.y * blockIdx.y;
	int z = threadIdx.z + blockDim.z * blockIdx.z;
	unsigned i = flat_id_3d();
	if (x < nx && y < ny && z < nz)
		put_entry(rec, i, x, y, z);
}

void grid_index_1d(int nx, int block, int *d_out)
{
	idx1<<<(nx + block - 1) / block, block>>>(nx, d_out);
}

void grid_index_2d(int nx, int ny, dim3 block, int *d_out)
{
	dim3 g((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
	idx2<<<g, block>>>(nx, ny, d_out);
}

void grid_index_3d(int nx, int ny, int nz, dim3 block, int *d_out)
{
	dim3 g((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y,
	       (nz + block.z - 1) / block.z);
	idx3<<<g, block>>>(nx, ny, nz, d_out);
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

/* ---- part volume: not covered by the source; the stub's bodies */

__global__ void grid_volume_kernel(const float *in, const float *w, float *out, int planes,
				   int rows, int cols)
{
	/* TODO */
}

void grid_volume(const float *d_in, const float *d_w, float *d_out, int planes, int rows,
		 int cols)
{
	/* TODO: GRID_VOL_BLOCK_X x _Y x _Z blocks; z across the planes. */
}

/* ---- part host: not covered by the source; the stub's body */

cudaError_t grid_picture_host(const float *h_in, float *h_out, int m, int n, int block)
{
	/* TODO: cudaMalloc, cudaMemcpy in, launch with block x block threads,
	 * cudaGetLastError, cudaMemcpy out, cudaFree; return the first error. */
	return cudaErrorNotYetImplemented;
}
