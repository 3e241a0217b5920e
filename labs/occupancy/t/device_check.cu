/*
 * device_check.cu - on a GPU, the occupancy lab's reference calculator
 * against the CUDA runtime's own answer (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
 * for real kernels like the other labs' (registers and static shared memory
 * as the compiler made them), over block sizes and dynamic shared memory.
 * Run by grader/t/t3004-gpu-occupancy-device.sh under make check-gpu; prints one
 * line per disagreement and a last line "N cases, M disagree".
 */
#include "occupancy.h"

#include <cuda_runtime.h>

/* The reference calculator, as make builds it (renamed, see the Makefile). */
extern "C" int cl_ref_occ_blocks_per_sm(const struct occ_device *d, int threads_per_block,
					int regs_per_thread, size_t smem_per_block,
					unsigned *limits);
#include <stdio.h>
#include <string.h>

#define TILE 16

__global__ void picture_kernel(const float *in, float *out, int m, int n)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row < m && col < n)
		out[row * n + col] = 2.0f * in[row * n + col];
}

__global__ void tiled_matmul_kernel(const float *A, const float *B, float *C, int N)
{
	__shared__ float As[TILE][TILE], Bs[TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
	float sum = 0.0f;
	for (int t = 0; t < N; t += TILE) {
		As[ty][tx] = row < N && t + tx < N ? A[row * N + t + tx] : 0.0f;
		Bs[ty][tx] = t + ty < N && col < N ? B[(t + ty) * N + col] : 0.0f;
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			sum += As[ty][k] * Bs[k][tx];
		__syncthreads();
	}
	if (row < N && col < N)
		C[row * N + col] = sum;
}

/* Many live values: a kernel that needs many registers. */
__global__ void heavy_kernel(const float *in, float *out, int n)
{
	float v[24];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	for (int k = 0; k < 24; k++)
		v[k] = in[(i + k * 97) % n];
	float s = 0;
	for (int r = 0; r < 8; r++)
		for (int k = 0; k < 24; k++)
			s = fmaf(v[k], v[(k + r) % 24], s);
	out[i] = s;
}

__global__ void dynamic_smem_kernel(float *out)
{
	extern __shared__ float buf[];
	buf[threadIdx.x] = threadIdx.x;
	__syncthreads();
	out[blockIdx.x * blockDim.x + threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}

int main(void)
{
	cudaDeviceProp p;
	struct occ_device d;
	int dev, cases = 0, bad = 0;
	const struct {
		const char *name;
		const void *fn;
		bool dynamic;
	} kernels[] = {{"picture", (const void *)picture_kernel, false},
		       {"tiled matmul", (const void *)tiled_matmul_kernel, false},
		       {"heavy", (const void *)heavy_kernel, false},
		       {"dynamic shared memory", (const void *)dynamic_smem_kernel, true}};
	static const int sizes[] = {32, 64, 96, 128, 160, 256, 384, 512, 640, 768, 1000, 1024};
	static const size_t dyn[] = {0, 1024, 4096, 12000, 24576, 40000};

	if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
		printf("no CUDA device\n");
		return 3;
	}
	memset(&d, 0, sizeof(d));
	d.name = p.name;
	d.cc_major = p.major;
	d.cc_minor = p.minor;
	d.warp_size = p.warpSize;
	d.max_threads_per_block = p.maxThreadsPerBlock;
	d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
	d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
	d.regs_per_sm = p.regsPerMultiprocessor;
	d.regs_per_block = p.regsPerBlock;
	d.max_regs_per_thread = 255;
	d.reg_alloc_unit = 256;
	d.reg_partitions = 4;
	d.smem_per_sm = p.sharedMemPerMultiprocessor;
	d.smem_per_block = p.sharedMemPerBlockOptin;
	d.smem_reserved_per_block = p.reservedSharedMemPerBlock;
	d.smem_alloc_unit = p.major >= 8 ? 128 : 256;

	for (const auto &k : kernels) {
		cudaFuncAttributes a;
		if (cudaFuncGetAttributes(&a, k.fn) != cudaSuccess) {
			printf("cannot read the attributes of the %s kernel\n", k.name);
			return 3;
		}
		for (int bs : sizes)
			for (size_t ds : dyn) {
				if (!k.dynamic && ds)
					continue;
				if (ds + a.sharedSizeBytes > (size_t)a.maxDynamicSharedSizeBytes)
					continue;
				int want = -1;
				unsigned limits;
				if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&want, k.fn, bs, ds) !=
				    cudaSuccess)
					continue;
				int got = cl_ref_occ_blocks_per_sm(&d, bs, a.numRegs, a.sharedSizeBytes + ds,
							    &limits);
				cases++;
				if (got != want) {
					bad++;
					printf("%s kernel (%d registers, %zu static bytes), %d threads, "
					       "%zu dynamic bytes: calculator %d, runtime %d\n", k.name,
					       a.numRegs, (size_t)a.sharedSizeBytes, bs, ds, got, want);
				}
			}
	}
	printf("%s: %d cases, %d disagree\n", p.name, cases, bad);
	return bad ? 1 : 0;
}
