/*
 * histogram.h - the contract of the histogram lab: what a submission defines,
 * and what the tests may assume of it (the handout: labs/histogram/README.md).
 *
 * The input is n values of 32 bits (d_in); a value v < HISTOGRAM_BINS is
 * counted in bin v, and a value v >= HISTOGRAM_BINS is out of range and
 * counted nowhere: it is ignored. d_bins holds HISTOGRAM_BINS counters, all
 * zero when a launcher is called (the caller zeroes them); on return, once
 * the caller has synchronized, d_bins[v] is the number of i < n with
 * d_in[i] == v. Pointers named d_ are device pointers, allocated by the
 * caller. Each launcher launches one kernel and returns; the caller
 * synchronizes and checks for errors. n is at least 1.
 */
#ifndef HISTOGRAM_H
#define HISTOGRAM_H

#include <cuda_runtime.h>

/* The bins: values 0 to HISTOGRAM_BINS - 1 are counted. */
#define HISTOGRAM_BINS 256
/* The threads of a block, in every part. */
#define HISTOGRAM_BLOCK 256
/* Part 3: the elements each thread counts (the last block's threads fewer). */
#define HISTOGRAM_COARSEN 32

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Part 1: one thread per element, each adding 1 to its value's bin in
 * global memory with atomicAdd. (n + HISTOGRAM_BLOCK - 1) / HISTOGRAM_BLOCK
 * blocks of HISTOGRAM_BLOCK threads.
 */
void histogram_global(const unsigned int *d_in, int n, unsigned int *d_bins);

/*
 * Part 2: one thread per element, as part 1; each block counts its elements
 * in a private histogram of HISTOGRAM_BINS counters in shared memory, then
 * adds it to d_bins. The same grid as part 1.
 */
void histogram_shared(const unsigned int *d_in, int n, unsigned int *d_bins);

/*
 * Part 3: part 2 with HISTOGRAM_COARSEN elements per thread:
 * (n + HISTOGRAM_BLOCK * HISTOGRAM_COARSEN - 1) / (HISTOGRAM_BLOCK * HISTOGRAM_COARSEN)
 * blocks of HISTOGRAM_BLOCK threads. Which elements a thread takes
 * (contiguous or interleaved) is the submission's choice.
 */
void histogram_coarse(const unsigned int *d_in, int n, unsigned int *d_bins);

#ifdef __cplusplus
}
#endif

#endif
