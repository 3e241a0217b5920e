/*
 * Reference solution of the grid lab. Hidden from students.
 */
#include "grid.h"

static inline unsigned ceil_div(int n, int d)
{
	return (unsigned)((n + d - 1) / d);
}

__global__ void grid_index_kernel(int nx, int ny, int nz, int *out)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int z = blockIdx.z * blockDim.z + threadIdx.z;

	if (x >= nx || y >= ny || z >= nz)
		return;
	int i = (z * ny + y) * nx + x;
	out[4 * i] = i;
	out[4 * i + 1] = x;
	out[4 * i + 2] = y;
	out[4 * i + 3] = z;
}

void grid_index_1d(int nx, int block, int *d_out)
{
	grid_index_kernel<<<ceil_div(nx, block), block>>>(nx, 1, 1, d_out);
}

void grid_index_2d(int nx, int ny, dim3 block, int *d_out)
{
	dim3 grid(ceil_div(nx, block.x), ceil_div(ny, block.y));
	grid_index_kernel<<<grid, block>>>(nx, ny, 1, d_out);
}

void grid_index_3d(int nx, int ny, int nz, dim3 block, int *d_out)
{
	dim3 grid(ceil_div(nx, block.x), ceil_div(ny, block.y), ceil_div(nz, block.z));
	grid_index_kernel<<<grid, block>>>(nx, ny, nz, d_out);
}

__global__ void grid_picture_kernel(const float *in, float *out, int m, int n)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	int row = blockIdx.y * blockDim.y + threadIdx.y;

	if (row < m && col < n)
		out[row * n + col] = 2.0f * in[row * n + col];
}

static void launch_picture(const float *d_in, float *d_out, int m, int n, int block)
{
	dim3 b(block, block), g(ceil_div(n, block), ceil_div(m, block));
	grid_picture_kernel<<<g, b>>>(d_in, d_out, m, n);
}

void grid_picture(const float *d_in, float *d_out, int m, int n)
{
	launch_picture(d_in, d_out, m, n, GRID_PIC_BLOCK);
}

__global__ void grid_volume_kernel(const float *in, const float *w, float *out, int planes,
				   int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	int p = blockIdx.z * blockDim.z + threadIdx.z;

	if (p < planes && r < rows && c < cols) {
		int i = (p * rows + r) * cols + c;
		out[i] = w[p] * in[i];
	}
}

void grid_volume(const float *d_in, const float *d_w, float *d_out, int planes, int rows,
		 int cols)
{
	dim3 b(GRID_VOL_BLOCK_X, GRID_VOL_BLOCK_Y, GRID_VOL_BLOCK_Z);
	dim3 g(ceil_div(cols, b.x), ceil_div(rows, b.y), ceil_div(planes, b.z));
	grid_volume_kernel<<<g, b>>>(d_in, d_w, d_out, planes, rows, cols);
}

cudaError_t grid_picture_host(const float *h_in, float *h_out, int m, int n, int block)
{
	size_t bytes = (size_t)m * n * sizeof(float);
	float *d_in = NULL, *d_out = NULL;
	cudaError_t err;

	err = cudaMalloc((void **)&d_in, bytes);
	if (err == cudaSuccess)
		err = cudaMalloc((void **)&d_out, bytes);
	if (err == cudaSuccess)
		err = cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
	if (err == cudaSuccess) {
		launch_picture(d_in, d_out, m, n, block);
		err = cudaGetLastError();
	}
	if (err == cudaSuccess)
		err = cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
	cudaFree(d_in);
	cudaFree(d_out);
	return err;
}
