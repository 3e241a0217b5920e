/*
 * gpulock.h - sharing one GPU among the gradings of a machine: at most
 * `slots` gradings run their tests on it at once, and a timing phase has it
 * to itself (no other grading's tests or timing beside it), so that a class
 * graded in parallel is timed as fairly as one submission alone.
 *
 * The locks are flock(2) locks on files in $CUDALAB_LOCK_DIR (default /tmp),
 * named after the GPU, so separate cudalab processes (two TAs, a CI runner)
 * share them too, and a grader that dies drops its own.
 */
#ifndef GPULOCK_H
#define GPULOCK_H

/*
 * The GPU as CUDA_VISIBLE_DEVICES names it to this grader's children: the
 * first of the grader's own list ("" when that is empty), or "0" when unset.
 */
char *gpulock_gpu_name(void);

/* One of the GPU's slots (blocks until one is free); an fd, or -1 (no locking). */
int gpulock_slot(const char *gpu, unsigned slots);

/*
 * The GPU for tests (shared with other gradings' tests) or for timing
 * (exclusive; gradings waiting for the tests lock wait behind it). An fd,
 * or -1 (no locking). *waited grows by the seconds spent blocked.
 */
int gpulock_tests(const char *gpu, double *waited);
int gpulock_timing(const char *gpu, double *waited);

/* Releases what one of the above returned. */
void gpulock_release(int fd);

#endif
