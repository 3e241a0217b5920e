/*
 * Corpus case gpugems-prescan-no-bounds (SOURCE): GPU Gems 3's
 * work-efficient prescan as a stream-compaction project kept it: two
 * elements a thread, loaded and stored with no test against the length.
 */
#include "scan.h"

__global__ void gems_prescan_kernel(float *dst, const float *src, int len)
{
	extern __shared__ float tmp[];
	int t = threadIdx.x;
	int step = 1;
	const float *in = src + blockIdx.x * SCAN_SECTION;
	float *out = dst + blockIdx.x * SCAN_SECTION;

	(void)len;   /* never tested */
	tmp[2 * t] = in[2 * t];
	tmp[2 * t + 1] = in[2 * t + 1];
	for (int active = SCAN_SECTION >> 1; active > 0; active >>= 1) {
		__syncthreads();
		if (t < active)
			tmp[step * (2 * t + 2) - 1] += tmp[step * (2 * t + 1) - 1];
		step *= 2;
	}
	if (t == 0)
		tmp[SCAN_SECTION - 1] = 0.0f;
	for (int active = 1; active < SCAN_SECTION; active *= 2) {
		step >>= 1;
		__syncthreads();
		if (t < active) {
			int a = step * (2 * t + 1) - 1, b = step * (2 * t + 2) - 1;
			float keep = tmp[a];
			tmp[a] = tmp[b];
			tmp[b] += keep;
		}
	}
	__syncthreads();
	out[2 * t] = tmp[2 * t];
	out[2 * t + 1] = tmp[2 * t + 1];
}

void scan_ks(const float *d_in, float *d_out, int n)
{
	/* not part of this case: the stub's body */
}

void scan_bk(const float *d_in, float *d_out, int n)
{
	gems_prescan_kernel<<<SCAN_SECTIONS(n), SCAN_BK_THREADS,
			      SCAN_SECTION * sizeof(float)>>>(d_out, d_in, n);
}

void scan_multi(const float *d_in, float *d_out, float *d_sums, int n)
{
	/* not part of this case: the stub's body */
}
