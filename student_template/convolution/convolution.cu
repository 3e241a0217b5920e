/*
 * The convolution lab: your kernels and launchers. The contract is in
 * convolution.h and the handout in labs/convolution/README.md. It compiles
 * and does nothing yet: `make test LAB=convolution` tells you what each
 * function must do.
 */
#include "convolution.h"

/* ------------------------------------------------ part 1: the mask in global memory */

__global__ void conv_basic_kernel(const float *in, const float *mask, float *out, int width,
				  int height, int r)
{
	/* TODO: one thread per output pixel: col from the x indices, row from
	 * the y ones. Threads outside the image do nothing. Add up
	 * mask[i * (2r + 1) + j] * in[row - r + i][col - r + j] over the whole
	 * mask, leaving out (as 0) the pixels outside the image. */
}

void conv_basic(const float *d_in, const float *d_mask, float *d_out, int width, int height,
		int r)
{
	/* TODO: blocks of CONV_BLOCK x CONV_BLOCK threads, enough of them to
	 * cover width x height (round up in both directions). */
}

/* ---------------------------------------------- part 2: the mask in constant memory */

/* TODO: a __constant__ array of CONV_MAX_WIDTH * CONV_MAX_WIDTH floats. */

void conv_const(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r)
{
	/* TODO: copy the (2r + 1)^2 weights of h_mask into the __constant__
	 * array (cudaMemcpyToSymbol), then launch as in part 1 a kernel that
	 * reads the mask from there. */
}

/* ------------------------------- part 3: input tiles with their halo in shared memory */

void conv_tiled(const float *d_in, const float *h_mask, float *d_out, int width, int height,
		int r)
{
	/* TODO: the mask in constant memory as in part 2; one block per
	 * CONV_TILE x CONV_TILE output tile. Each block loads its input tile,
	 * (CONV_TILE + 2r) on a side, halo included (0 for a cell outside the
	 * image), into __shared__ memory, waits with __syncthreads(), and
	 * computes its output pixels from shared memory. */
}
