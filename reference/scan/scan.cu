/*
 * The scan lab's reference: graded as any submission, it must score full
 * marks (cudalab check-lab scan), and the timed tests hold students to its
 * times. FILL IN: your lab's solution.
 */
#include "scan.h"

__global__ void scale_kernel(const float *in, float *out, int n, float a)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = a * in[i];
}

void scan_scale(const float *d_in, float *d_out, int n, float a)
{
	scale_kernel<<<(n + SCAN_BLOCK - 1) / SCAN_BLOCK, SCAN_BLOCK>>>(d_in, d_out, n, a);
}
