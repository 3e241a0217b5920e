/*
 * The scan lab: your kernels and launchers. The contract is in scan.h and
 * the handout in labs/scan/README.md. It compiles and does nothing yet:
 * `make test LAB=scan` tells you what each function must do.
 */
#include "scan.h"

/* ------------------------------------------------ part 1: Kogge-Stone */

__global__ void scan_ks_kernel(const float *in, float *out, int n)
{
	/* TODO: load your element of the block's section into shared memory
	 * (0 past n), then log2(SCAN_SECTION) steps: in the step of stride s,
	 * each thread t >= s adds the value s places to its left. Every thread
	 * reads before any thread writes: two buffers, or a __syncthreads()
	 * between the read and the write. Store your element if it is below n. */
}

void scan_ks(const float *d_in, float *d_out, int n)
{
	/* TODO: SCAN_SECTIONS(n) blocks of SCAN_KS_THREADS threads. */
}

/* ------------------------------------------------- part 2: Brent-Kung */

__global__ void scan_bk_kernel(const float *in, float *out, int n)
{
	/* TODO: two elements a thread into shared memory (0 past n); the
	 * up-sweep (a tree of partial sums, the total ends in the last
	 * element); that element set to 0; the down-sweep. The result is the
	 * exclusive scan: out[first of a section] = 0. */
}

void scan_bk(const float *d_in, float *d_out, int n)
{
	/* TODO: SCAN_SECTIONS(n) blocks of SCAN_BK_THREADS threads. */
}

/* ---------------------------------------------- part 3: any length */

void scan_multi(const float *d_in, float *d_out, float *d_sums, int n)
{
	/* TODO: three launches, in this order:
	 *   1. SCAN_SECTIONS(n) blocks scan their sections into d_out and
	 *      write each section's total into d_sums[b];
	 *   2. one block scans d_sums[0 .. SCAN_SECTIONS(n)) in place (there
	 *      may be more sums than the block has threads);
	 *   3. SCAN_SECTIONS(n) blocks: block b > 0 adds d_sums[b - 1] to
	 *      every element of its section. */
}
