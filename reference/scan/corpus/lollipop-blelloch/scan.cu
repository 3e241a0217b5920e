/*
 * Corpus case lollipop-blelloch (SOURCE): the work-efficient (Blelloch)
 * exclusive scan of a kernel library: interleaved pairs, an up-sweep with a
 * shrinking count of active threads, the root cleared by thread 0 right
 * after its own last write, then the down-sweep.
 */
#include "scan.h"

__global__ void prefix_sum_blelloch(const float *in, float *out, int n)
{
	extern __shared__ float temp[];
	int tid = threadIdx.x, base = blockIdx.x * SCAN_SECTION;
	int offset = 1;

	temp[2 * tid] = (base + 2 * tid < n) ? in[base + 2 * tid] : 0;
	temp[2 * tid + 1] = (base + 2 * tid + 1 < n) ? in[base + 2 * tid + 1] : 0;

	for (int d = SCAN_SECTION >> 1; d > 0; d >>= 1) {
		__syncthreads();
		if (tid < d) {
			int ai = offset * (2 * tid + 1) - 1;
			int bi = offset * (2 * tid + 2) - 1;
			temp[bi] += temp[ai];
		}
		offset *= 2;
	}

	if (tid == 0)
		temp[SCAN_SECTION - 1] = 0;

	for (int d = 1; d < SCAN_SECTION; d *= 2) {
		offset >>= 1;
		__syncthreads();
		if (tid < d) {
			int ai = offset * (2 * tid + 1) - 1;
			int bi = offset * (2 * tid + 2) - 1;
			float t = temp[ai];
			temp[ai] = temp[bi];
			temp[bi] += t;
		}
	}

	__syncthreads();
	if (base + 2 * tid < n)
		out[base + 2 * tid] = temp[2 * tid];
	if (base + 2 * tid + 1 < n)
		out[base + 2 * tid + 1] = temp[2 * tid + 1];
}

void scan_ks(const float *d_in, float *d_out, int n)
{
	/* not part of this case: the stub's body */
}

void scan_bk(const float *d_in, float *d_out, int n)
{
	prefix_sum_blelloch<<<SCAN_SECTIONS(n), SCAN_BK_THREADS,
			      SCAN_SECTION * sizeof(float)>>>(d_in, d_out, n);
}

void scan_multi(const float *d_in, float *d_out, float *d_sums, int n)
{
	/* not part of this case: the stub's body */
}
