/*
 * gpulock.h - sharing one GPU among the gradings of a machine: at most
 * `slots` gradings run their tests on it at once, and a timing phase has it
 * to itself (no other grading's tests or timing beside it), so that a class
 * graded in parallel is timed as fairly as one submission alone.
 *
 * The locks are flock(2) locks on files in $CUDALAB_LOCK_DIR (default /tmp),
 * named after the GPU's key (gpulock_key), so separate cudalab processes (two
 * TAs, a CI runner, the tasks of a Slurm job array on one node) share them
 * too, and a grader that dies drops its own.
 */
#ifndef GPULOCK_H
#define GPULOCK_H

/*
 * The GPU as CUDA_VISIBLE_DEVICES names it to this grader's children: the
 * first of the grader's own list ("" when that is empty), or "0" when unset.
 */
char *gpulock_gpu_name(void);

/*
 * The key a GPU's lock files are named after (allocated), the same for
 * every process that uses that GPU, whatever it calls it: the GPU's UUID
 * where the probe read one (uuid; NULL or "" when not); else, inside a
 * Slurm job (SLURM_JOB_ID set), the node's own number of the GPU, which
 * Slurm gives in SLURM_STEP_GPUS, else SLURM_JOB_GPUS (the entry at gpu's
 * place in CUDA_VISIBLE_DEVICES: under ConstrainDevices every job's GPU is
 * its "0"), with the host name: "node17-gpu1"; else gpu itself, as
 * CUDA_VISIBLE_DEVICES names it.
 */
char *gpulock_key(const char *uuid, const char *gpu);

/* The folder of the lock files: $CUDALAB_LOCK_DIR, else /tmp. */
const char *gpulock_dir(void);

/*
 * A file of the GPU whose key is key: <gpulock_dir>/cudalab-gpu-<key>.<what>
 * (any '/' in key or what made '_'), allocated. The locks' whats are "lock",
 * "turnstile" and "slot0", "slot1" ...; the ceilings' cache (devcache.h)
 * lives beside them.
 */
char *gpulock_path(const char *key, const char *what);

/*
 * One of the GPU's slots (blocks until one is free); an fd, or -1 (no
 * locking). *waited (when not NULL) grows by the seconds spent waiting for
 * it. These waits end with -1 at a stop (run_stop_on): a Ctrl-C is not kept
 * waiting for the GPU.
 */
int gpulock_slot(const char *key, unsigned slots, double *waited);

/*
 * The GPU for tests (shared with other gradings' tests) or for timing
 * (exclusive; gradings waiting for the tests lock wait behind it). An fd,
 * or -1 (no locking). *waited grows by the seconds spent blocked.
 */
int gpulock_tests(const char *key, double *waited);
int gpulock_timing(const char *key, double *waited);

/* Releases what one of the above returned. */
void gpulock_release(int fd);

/* Who holds and who waits for one lock file, as the kernel says now. */
struct gpulock_state {
	long exclusive;        /* the pid that holds it alone (-1: not visible here); 0: none */
	unsigned shared;       /* holders beside each other: gradings running tests */
	unsigned waiting;      /* processes blocked on it */
};

/*
 * The state of the lock file what of key (see gpulock_path), read from
 * /proc/locks, which takes no lock; a file not there is free. 0, or -1 when
 * the kernel does not say (no /proc/locks).
 */
int gpulock_state(const char *key, const char *what, struct gpulock_state *st);

#endif
