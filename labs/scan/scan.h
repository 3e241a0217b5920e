/*
 * scan.h - the contract of the scan lab: the launchers a submission
 * defines, and what the tests may assume of them.
 *
 * A scan (prefix sum) of x[0..n) writes, for every i, the sum of the
 * elements up to i: inclusive, x[0] + ... + x[i]; exclusive, x[0] + ... +
 * x[i-1], and 0 for i = 0. A section is SCAN_SECTION consecutive elements,
 * starting at a multiple of SCAN_SECTION; the last one of an array may be
 * shorter. One block scans one section.
 *
 * Pointers named d_ are device pointers, allocated by the caller. Each
 * launcher chooses its grid, launches its kernel(s) and returns; the caller
 * synchronizes and checks for errors. d_in is only read.
 */
#ifndef SCAN_H
#define SCAN_H

#include <cuda_runtime.h>

/* The elements one block scans. */
#define SCAN_SECTION 1024
/* Kogge-Stone: a thread per element of the section. */
#define SCAN_KS_THREADS SCAN_SECTION
/* Brent-Kung: a thread per two elements of the section. */
#define SCAN_BK_THREADS (SCAN_SECTION / 2)
/* The sections of n elements: the blocks of a launch over them, and the
 * floats of scan_multi's d_sums. */
#define SCAN_SECTIONS(n) (((n) + SCAN_SECTION - 1) / SCAN_SECTION)

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Part 1, Kogge-Stone. Each section of d_in[0..n) scanned on its own,
 * inclusive, into d_out: d_out[i] = d_in[s] + ... + d_in[i], where s is the
 * first element of i's section. One launch of SCAN_SECTIONS(n) blocks of
 * SCAN_KS_THREADS threads. n >= 1.
 */
void scan_ks(const float *d_in, float *d_out, int n);

/*
 * Part 2, Brent-Kung. Each section scanned on its own, exclusive:
 * d_out[i] = d_in[s] + ... + d_in[i-1], and d_out[s] = 0. One launch of
 * SCAN_SECTIONS(n) blocks of SCAN_BK_THREADS threads. n >= 1.
 */
void scan_bk(const float *d_in, float *d_out, int n);

/*
 * Part 3, any n. The whole array scanned, inclusive: d_out[i] = d_in[0] +
 * ... + d_in[i], in three launches, in this order:
 *   1. SCAN_SECTIONS(n) blocks (of SCAN_KS_THREADS or SCAN_BK_THREADS
 *      threads): each scans its section into d_out and writes the
 *      section's total into d_sums[b];
 *   2. one block: scans d_sums[0..SCAN_SECTIONS(n)) in place (there may be
 *      more sums than the block has threads);
 *   3. SCAN_SECTIONS(n) blocks: block b adds the total of sections 0 to
 *      b - 1 to every element of section b (block 0 adds nothing).
 * d_sums holds SCAN_SECTIONS(n) floats, yours to use. n >= 1.
 */
void scan_multi(const float *d_in, float *d_out, float *d_sums, int n);

#ifdef __cplusplus
}
#endif

#endif
