/*
 * The scan lab's reference: graded as any submission, it must score full
 * marks (cudalab check-lab scan), and the timed tests hold students to its
 * times. Each kernel is the straightforward version the handout describes:
 * a double-buffered Kogge-Stone, the work-efficient Brent-Kung (up-sweep,
 * then down-sweep), and the three-launch scan of any length built on the
 * first.
 */
#include "scan.h"

/*
 * Inclusive Kogge-Stone scan of the section in buf[0] (SCAN_SECTION values,
 * a thread per value), two buffers: each step reads one and writes the
 * other, so no thread overwrites a value another has still to read. Returns
 * the buffer that holds the result.
 */
static __device__ int ks_section(float (*buf)[SCAN_SECTION])
{
	int t = threadIdx.x, src = 0;

	for (int stride = 1; stride < SCAN_SECTION; stride *= 2) {
		__syncthreads();
		float v = buf[src][t];
		if (t >= stride)
			v += buf[src][t - stride];
		buf[src ^ 1][t] = v;
		src ^= 1;
	}
	__syncthreads();
	return src;
}

__global__ void scan_ks_kernel(const float *in, float *out, float *sums, int n)
{
	__shared__ float buf[2][SCAN_SECTION];
	int t = threadIdx.x, i = blockIdx.x * SCAN_SECTION + t;

	buf[0][t] = i < n ? in[i] : 0.0f;   /* past n: the identity */
	int r = ks_section(buf);
	if (i < n)
		out[i] = buf[r][t];
	if (sums && t == SCAN_SECTION - 1)
		sums[blockIdx.x] = buf[r][t];
}

void scan_ks(const float *d_in, float *d_out, int n)
{
	scan_ks_kernel<<<SCAN_SECTIONS(n), SCAN_KS_THREADS>>>(d_in, d_out, NULL, n);
}

/*
 * Exclusive Brent-Kung scan, two elements a thread: the up-sweep builds a
 * tree of partial sums in place (the section's total ends in its last
 * element), which is replaced by 0; the down-sweep then hands each left
 * child its parent's value and each right child its parent's plus the
 * left child's old one.
 */
__global__ void scan_bk_kernel(const float *in, float *out, int n)
{
	__shared__ float xy[SCAN_SECTION];
	int t = threadIdx.x, base = blockIdx.x * SCAN_SECTION;
	int a = t, b = t + SCAN_BK_THREADS;

	xy[a] = base + a < n ? in[base + a] : 0.0f;
	xy[b] = base + b < n ? in[base + b] : 0.0f;
	for (int stride = 1; stride < SCAN_SECTION; stride *= 2) {
		__syncthreads();
		int k = (t + 1) * 2 * stride - 1;
		if (k < SCAN_SECTION)
			xy[k] += xy[k - stride];
	}
	__syncthreads();
	if (t == 0)
		xy[SCAN_SECTION - 1] = 0.0f;
	for (int stride = SCAN_SECTION / 2; stride >= 1; stride /= 2) {
		__syncthreads();
		int k = (t + 1) * 2 * stride - 1;
		if (k < SCAN_SECTION) {
			float left = xy[k - stride];
			xy[k - stride] = xy[k];
			xy[k] += left;
		}
	}
	__syncthreads();
	if (base + a < n)
		out[base + a] = xy[a];
	if (base + b < n)
		out[base + b] = xy[b];
}

void scan_bk(const float *d_in, float *d_out, int n)
{
	scan_bk_kernel<<<SCAN_SECTIONS(n), SCAN_BK_THREADS>>>(d_in, d_out, n);
}

/*
 * The second launch: one block scans the nsums section totals in place, a
 * block's worth at a time, each chunk's results plus the running total of
 * the chunks before it.
 */
__global__ void scan_sums_kernel(float *sums, int nsums)
{
	__shared__ float buf[2][SCAN_SECTION];
	int t = threadIdx.x;
	float carry = 0.0f;

	for (int c = 0; c < nsums; c += SCAN_SECTION) {
		buf[0][t] = c + t < nsums ? sums[c + t] : 0.0f;
		int r = ks_section(buf);
		if (c + t < nsums)
			sums[c + t] = carry + buf[r][t];
		carry += buf[r][SCAN_SECTION - 1];
		__syncthreads();   /* all have read buf before the next chunk fills it */
	}
}

/* The third launch: section b > 0 gets the total of the sections before it. */
__global__ void scan_add_kernel(float *out, const float *sums, int n)
{
	int i = blockIdx.x * SCAN_SECTION + threadIdx.x;

	if (blockIdx.x > 0 && i < n)
		out[i] += sums[blockIdx.x - 1];
}

void scan_multi(const float *d_in, float *d_out, float *d_sums, int n)
{
	int sections = SCAN_SECTIONS(n);

	scan_ks_kernel<<<sections, SCAN_KS_THREADS>>>(d_in, d_out, d_sums, n);
	scan_sums_kernel<<<1, SCAN_KS_THREADS>>>(d_sums, sections);
	scan_add_kernel<<<sections, SCAN_KS_THREADS>>>(d_out, d_sums, n);
}
