/*
 * Corpus case gpugems-prescan-no-bounds (SOURCE): GPU Gems 3's work-efficient
 * prescan as a stream-compaction project copied it: two elements a thread,
 * loaded and stored with no test against n.
 */
#include "scan.h"

__global__ void prescan(float *g_odata, const float *g_idata, int n)
{
	extern __shared__ float temp[];
	int thid = threadIdx.x;
	int offset = 1;

	g_idata += blockIdx.x * SCAN_SECTION;
	g_odata += blockIdx.x * SCAN_SECTION;
	temp[2 * thid] = g_idata[2 * thid];
	temp[2 * thid + 1] = g_idata[2 * thid + 1];
	for (int d = SCAN_SECTION >> 1; d > 0; d >>= 1) {
		__syncthreads();
		if (thid < d) {
			int ai = offset * (2 * thid + 1) - 1;
			int bi = offset * (2 * thid + 2) - 1;
			temp[bi] += temp[ai];
		}
		offset *= 2;
	}
	if (thid == 0)
		temp[SCAN_SECTION - 1] = 0;
	for (int d = 1; d < SCAN_SECTION; d *= 2) {
		offset >>= 1;
		__syncthreads();
		if (thid < d) {
			int ai = offset * (2 * thid + 1) - 1;
			int bi = offset * (2 * thid + 2) - 1;
			float t = temp[ai];
			temp[ai] = temp[bi];
			temp[bi] += t;
		}
	}
	__syncthreads();
	g_odata[2 * thid] = temp[2 * thid];
	g_odata[2 * thid + 1] = temp[2 * thid + 1];
}

void scan_ks(const float *d_in, float *d_out, int n)
{
	/* not part of this case: the stub's body */
}

void scan_bk(const float *d_in, float *d_out, int n)
{
	prescan<<<SCAN_SECTIONS(n), SCAN_BK_THREADS, SCAN_SECTION * sizeof(float)>>>(d_out, d_in,
										       n);
}

void scan_multi(const float *d_in, float *d_out, float *d_sums, int n)
{
	/* not part of this case: the stub's body */
}
