/*
 * The convolution lab: your kernel and launcher. The contract is in convolution.h and the
 * handout in labs/convolution/README.md. It compiles and does nothing yet:
 * `make test LAB=convolution` tells you what each function must do.
 */
#include "convolution.h"

__global__ void scale_kernel(const float *in, float *out, int n, float a)
{
	/* TODO: one thread per element: i from blockIdx.x, blockDim.x and
	 * threadIdx.x; only i < n. */
}

void convolution_scale(const float *d_in, float *d_out, int n, float a)
{
	/* TODO: blocks of CONVOLUTION_BLOCK threads, enough of them to cover n (round up). */
}
