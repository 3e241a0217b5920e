/*
 * cpus.h - the CPUs a timing phase keeps to itself.
 *
 * A timing phase has its GPU to itself (gpulock.h), but its timer and the
 * two runners it times also each keep a CPU busy, polling. On a machine
 * grading a class, the other gradings' builds and emulated tests took
 * those CPUs, and the timer, holding the GPU, timed each kernel again and
 * again until it gave up: the machine too busy to time fairly (bench.cu).
 * So where the machine has CPUs to spare, each of its GPUs gets
 * CPUS_PER_TIMING CPUs of its own, the last of the grader's (CPU 0 takes
 * most of the machine's interrupts): a timing phase on that GPU runs there,
 * and every grading's other work (builds, tests, the emulator) runs on the
 * CPUs no GPU has. Every cudalab process of the machine makes the same
 * split from the same CPUs and GPUs, with no lock between them; what other
 * programs do on those CPUs is left to the timer's own busy rule.
 */
#ifndef CPUS_H
#define CPUS_H

#include <sched.h>
#include <stdbool.h>

struct strlist;

/* The timer, the submission's runner and the reference's. */
#define CPUS_PER_TIMING 3

/*
 * Splits usable among ngpus GPUs: gpu's CPUs into timing, and those of no
 * GPU into others. False (nothing split) where ngpus is 0, gpu is not one of
 * them, or the GPUs' CPUs would leave the rest fewer than half of usable.
 */
bool cpus_split(const cpu_set_t *usable, unsigned ngpus, unsigned gpu, cpu_set_t *timing,
		cpu_set_t *others);

/*
 * Where gpu's CPUs lie among how many GPUs' (*index of *n): by the host's
 * count of GPUs (host_gpus, its /dev/nvidiaN) where gpu is a number below
 * it and the grader is not a Slurm job, so that graders given different
 * GPUs by CUDA_VISIBLE_DEVICES (0 for one, 1 for another) keep different
 * CPUs; else by gpu's place in gpus (a UUID; a Slurm job, whose numbers are
 * its own and whose cpuset is too). False where gpu is not among gpus.
 */
bool cpus_place(const struct strlist *gpus, const char *gpu, unsigned host_gpus, bool slurm,
		unsigned *n, unsigned *index);

/*
 * The split for a grading on the GPU CUDA_VISIBLE_DEVICES calls gpu, among
 * the GPUs this grader finds (gpus_discover) placed by cpus_place, of the
 * CPUs the process had when this was first called: false where there is
 * none to make (no GPU here, too few CPUs).
 */
bool cpus_for_grading(const char *gpu, cpu_set_t *timing, cpu_set_t *others);

/* A few words for a set: "13-15", "0-12", "0,2,5-7". */
void cpus_text(const cpu_set_t *set, char *buf, size_t len);

#endif
