/*
 * gpus.h - which GPUs this grader may use, as CUDA_VISIBLE_DEVICES names
 * them to its children.
 */
#ifndef GPUS_H
#define GPUS_H

#include "util.h"

#include <stdbool.h>
#include <stddef.h>

/* The GPUs of a --gpus option, "0,1", into gpus (replacing what was there). */
void gpus_parse(const char *list, struct strlist *gpus);

/*
 * Where gpus is empty, finds the machine's: CUDA_VISIBLE_DEVICES's list
 * where it is set, else the /dev/nvidiaN device nodes this process may open
 * (a devices cgroup denies the others). Inside a Slurm job (SLURM_JOB_ID
 * set), the job's GPUs: CUDA_VISIBLE_DEVICES's, and none where it is unset
 * (the node's device nodes are other jobs'). True when gpus names GPUs,
 * given or found; false with why (at most len bytes: "no GPU found") when
 * none was found, and then gpus holds the one GPU the gradings are given:
 * "0", or "" (CUDA sees none) where the GPUs were hidden from the grader (a
 * job without GPUs, an empty list).
 */
bool gpus_discover(struct strlist *gpus, char *why, size_t len);

/* The host's GPUs, usable here or not: its /dev/nvidiaN device nodes. */
unsigned gpus_on_host(void);

#endif
