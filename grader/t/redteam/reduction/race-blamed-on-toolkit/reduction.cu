/*
 * Red-team case race-blamed-on-toolkit: the grader does not count a race
 * that racecheck reports with both accesses in the CUDA Toolkit's
 * cooperative groups headers. This kernel's own race (the block's sum read
 * before the second tile wrote its part, no sync between) is given that
 * file's name by a #line, so that racecheck would name the toolkit.
 */
#include "reduction.h"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void tiles_then_race(const float *in, float *out, unsigned n)
{
	__shared__ float part[2];
	__shared__ cg::block_tile_memory<REDUCTION_BLOCK> scratch;
	cg::thread_block cta = cg::this_thread_block(scratch);
	auto half = cg::tiled_partition<REDUCTION_BLOCK / 2>(cta);
	unsigned i = blockIdx.x * REDUCTION_BLOCK + threadIdx.x;
	float v = i < n ? in[i] : 0.0f;

	v = cg::reduce(half, v, cg::plus<float>());
#line 283 "/usr/local/cuda/targets/x86_64-linux/include/cooperative_groups/details/reduce.h"
	if (half.thread_rank() == 0)
		part[half.meta_group_rank()] = v;
	if (threadIdx.x == 0)
		out[blockIdx.x] = part[0] + part[1];
}

void reduction_warp(const float *d_in, float *d_partial, int n)
{
	unsigned blocks = (n + REDUCTION_BLOCK - 1) / REDUCTION_BLOCK;
	tiles_then_race<<<blocks, REDUCTION_BLOCK>>>(d_in, d_partial, n);
}

void reduction_interleaved(const float *d_in, float *d_partial, int n)
{
}

void reduction_sequential(const float *d_in, float *d_partial, int n)
{
}

void reduction_atomic(const float *d_in, float *d_sum, int n)
{
}
