/*
 * scan.h - the contract of the scan lab: what a submission defines, and
 * what the tests may assume of it. FILL IN: your lab's launchers.
 *
 * Pointers named d_ are device pointers, allocated by the caller. Each
 * launcher chooses its grid, launches its kernel and returns; the caller
 * synchronizes and checks for errors.
 */
#ifndef SCAN_H
#define SCAN_H

#include <cuda_runtime.h>

/* The threads of a block. */
#define SCAN_BLOCK 256

#ifdef __cplusplus
extern "C" {
#endif

/* d_out[i] = a * d_in[i] for 0 <= i < n: one thread per element, blocks of SCAN_BLOCK. */
void scan_scale(const float *d_in, float *d_out, int n, float a);

#ifdef __cplusplus
}
#endif

#endif
