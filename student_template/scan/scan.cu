/*
 * The scan lab: your kernel and launcher. The contract is in scan.h and the
 * handout in labs/scan/README.md. It compiles and does nothing yet:
 * `make test LAB=scan` tells you what each function must do.
 */
#include "scan.h"

__global__ void scale_kernel(const float *in, float *out, int n, float a)
{
	/* TODO: one thread per element: i from blockIdx.x, blockDim.x and
	 * threadIdx.x; only i < n. */
}

void scan_scale(const float *d_in, float *d_out, int n, float a)
{
	/* TODO: blocks of SCAN_BLOCK threads, enough of them to cover n (round up). */
}
