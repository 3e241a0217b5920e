/*
 * occ_lab.h - what the occupancy lab's suite (check_occupancy.cu) and its
 * question sheet (questions_occupancy.cu) share: the lab's GPUs, NVIDIA's
 * calculator (cuda_occupancy.h) as the source of every answer, and the
 * per-student questions.
 *
 * A student's questions come from a generator seeded by their name, so the
 * sheet printed by `cudalab questions occupancy --student ID` and the one the
 * grader checks are the same, and two students' sheets differ.
 */
#ifndef OCC_LAB_H
#define OCC_LAB_H

#include "occupancy.h"

#include <cuda_occupancy.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * The GPUs of the lab, one per compute capability, with the limits of the
 * CUDA Programming Guide's table. occ_lab_check_devices() checks what
 * cuda_occupancy.h also knows of them (block slots, allocation units,
 * register partitions).
 */
static const struct occ_device occ_lab_devices[] = {
	{"NVIDIA T4 (7.5)", 7, 5, 32, 1024, 1024, 16, 65536, 65536, 255, 256, 4, 65536, 65536, 0,
	 256},
	{"NVIDIA A100 (8.0)", 8, 0, 32, 1024, 2048, 32, 65536, 65536, 255, 256, 4, 167936, 166912,
	 1024, 128},
	{"NVIDIA RTX A6000 (8.6)", 8, 6, 32, 1024, 1536, 16, 65536, 65536, 255, 256, 4, 102400,
	 101376, 1024, 128},
	{"NVIDIA L4 (8.9)", 8, 9, 32, 1024, 1536, 24, 65536, 65536, 255, 256, 4, 102400, 101376,
	 1024, 128},
	{"NVIDIA H100 (9.0)", 9, 0, 32, 1024, 2048, 32, 65536, 65536, 255, 256, 4, 233472, 232448,
	 1024, 128},
};
#define OCC_LAB_NDEVICES (sizeof(occ_lab_devices) / sizeof(occ_lab_devices[0]))

static inline cudaOccDeviceProp occ_lab_prop(const struct occ_device *d)
{
	cudaOccDeviceProp p;

	p.computeMajor = d->cc_major;
	p.computeMinor = d->cc_minor;
	p.maxThreadsPerBlock = d->max_threads_per_block;
	p.maxThreadsPerMultiprocessor = d->max_threads_per_sm;
	p.regsPerBlock = d->regs_per_block;
	p.regsPerMultiprocessor = d->regs_per_sm;
	p.warpSize = d->warp_size;
	p.sharedMemPerBlock = 48 * 1024;
	p.sharedMemPerMultiprocessor = d->smem_per_sm;
	p.numSms = 1;
	p.sharedMemPerBlockOptin = d->smem_per_block;
	p.reservedSharedMemPerBlock = d->smem_reserved_per_block;
	return p;
}

struct occ_expected {
	int ok;          /* cuda_occupancy.h accepted the case */
	int blocks;
	unsigned limits; /* OCC_BY_* */
	int by_warps, by_regs, by_smem, by_blocks;
};

/*
 * What cuda_occupancy.h says, for a kernel whose block may use up to the
 * opt-in limit of shared memory (as after cudaFuncSetAttribute), with no
 * block barriers counted and the default shared-memory carveout.
 */
static inline struct occ_expected occ_lab_oracle(const struct occ_device *d, int threads,
						 int regs, size_t smem)
{
	cudaOccDeviceProp prop = occ_lab_prop(d);
	cudaOccFuncAttributes attr;
	cudaOccDeviceState state;
	cudaOccResult res;
	struct occ_expected e = {0, 0, 0, 0, 0, 0, 0};

	attr.maxThreadsPerBlock = d->max_threads_per_block;
	attr.numRegs = regs;
	attr.sharedSizeBytes = 0;
	attr.partitionedGCConfig = PARTITIONED_GC_OFF;
	attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
	attr.maxDynamicSharedSizeBytes = d->smem_per_block;
	attr.numBlockBarriers = 0;
	attr.virtualResourceCount = 0;
	if (cudaOccMaxActiveBlocksPerMultiprocessor(&res, &prop, &attr, &state, threads, smem) !=
	    CUDA_OCC_SUCCESS)
		return e;
	e.ok = 1;
	e.blocks = res.activeBlocksPerMultiprocessor;
	e.limits = (res.limitingFactors & OCC_LIMIT_WARPS ? OCC_BY_WARPS : 0) |
		   (res.limitingFactors & OCC_LIMIT_REGISTERS ? OCC_BY_REGISTERS : 0) |
		   (res.limitingFactors & OCC_LIMIT_SHARED_MEMORY ? OCC_BY_SHARED_MEMORY : 0) |
		   (res.limitingFactors & OCC_LIMIT_BLOCKS ? OCC_BY_BLOCKS : 0);
	e.by_warps = res.blockLimitWarps;
	e.by_regs = res.blockLimitRegs;
	e.by_smem = res.blockLimitSharedMem;
	e.by_blocks = res.blockLimitBlocks;
	return e;
}

/* 0 when the devices agree with cuda_occupancy.h, else -1 with why in msg. */
static inline int occ_lab_check_devices(char *msg, size_t len)
{
	for (size_t i = 0; i < OCC_LAB_NDEVICES; i++) {
		const struct occ_device *d = &occ_lab_devices[i];
		cudaOccDeviceProp p = occ_lab_prop(d);
		int blocks = 0, smem_unit = 0, reg_unit = 0, parts = 0;
		cudaOccMaxBlocksPerMultiprocessor(&blocks, &p);
		cudaOccSMemAllocationGranularity(&smem_unit, &p);
		cudaOccRegAllocationGranularity(&reg_unit, &p);
		cudaOccSubPartitionsPerMultiprocessor(&parts, &p);
		if (blocks != d->max_blocks_per_sm || (size_t)smem_unit != d->smem_alloc_unit ||
		    reg_unit != d->reg_alloc_unit || parts != d->reg_partitions) {
			snprintf(msg, len, "the lab's %s disagrees with cuda_occupancy.h (block slots "
				 "%d, shared memory unit %d, register unit %d, partitions %d)",
				 d->name, blocks, smem_unit, reg_unit, parts);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ questions */

enum occ_kind { OCC_Q_THREADS, OCC_Q_BLOCKS, OCC_Q_WARPS, OCC_Q_OCCUPANCY, OCC_Q_LIMIT,
		OCC_Q_BEST, OCC_NQUESTIONS };

/* The key of each question in answers.txt, in sheet order. */
static const char *const occ_q_keys[OCC_NQUESTIONS] = {
	"threads_per_sm", "blocks_per_sm", "warps_per_sm", "occupancy_percent",
	"limiting_resource", "best_block_size",
};

/* The words a limiting resource is named by in answers.txt, by OCC_BY_* bit. */
static const char *const occ_limit_words[4] = {"warps", "registers", "shared_memory", "blocks"};

/* A percentage is right within this many points. */
#define OCC_PERCENT_TOLERANCE 0.5

struct occ_question {
	enum occ_kind kind;
	const struct occ_device *dev;
	int threads, regs;
	size_t smem;
	int sizes[4];            /* OCC_Q_BEST: the block sizes to choose from */
	struct occ_expected e;   /* for the one configuration (not OCC_Q_BEST) */
	double answer;           /* the number; OCC_Q_LIMIT: the OCC_BY_* bit */
};

static inline uint64_t occ_lab_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Warps resident per SM as a percentage of the most the SM can hold. */
static inline double occ_lab_percent(const struct occ_device *d, int threads, int blocks)
{
	int warps = (threads + d->warp_size - 1) / d->warp_size;
	return 100.0 * blocks * warps / (d->max_threads_per_sm / d->warp_size);
}

/* A calculator: blocks per SM, with the OCC_BY_* limits; negative when it cannot say. */
typedef int (*occ_lab_calc)(const struct occ_device *d, int threads, int regs, size_t smem,
			    unsigned *limits);

/* cuda_occupancy.h as an occ_lab_calc. */
static inline int occ_lab_oracle_calc(const struct occ_device *d, int threads, int regs,
				      size_t smem, unsigned *limits)
{
	struct occ_expected e = occ_lab_oracle(d, threads, regs, smem);
	*limits = e.limits;
	return e.ok ? e.blocks : -1;
}

/* The answer to question x (not OCC_Q_BEST) when its configuration gets blocks per SM. */
static inline double occ_lab_answer_of(const struct occ_question *x, int blocks, unsigned limits)
{
	int warps = (x->threads + x->dev->warp_size - 1) / x->dev->warp_size;

	switch (x->kind) {
	case OCC_Q_THREADS:
		return (double)blocks * x->threads;
	case OCC_Q_BLOCKS:
		return blocks;
	case OCC_Q_WARPS:
		return (double)blocks * warps;
	case OCC_Q_OCCUPANCY:
		return occ_lab_percent(x->dev, x->threads, blocks);
	default:
		return limits;
	}
}

/*
 * The block size of x->sizes with the highest occupancy by calc (the first
 * of equals); *nbest, when not NULL, gets how many sizes reach it, and
 * *best_percent that occupancy.
 */
static inline int occ_lab_best(const struct occ_question *x, occ_lab_calc calc, int *nbest,
			       double *best_percent)
{
	double best = -1;
	int size = 0, n = 0;

	for (int i = 0; i < 4; i++) {
		unsigned limits;
		int b = calc(x->dev, x->sizes[i], x->regs, x->smem, &limits);
		double pc = b > 0 ? occ_lab_percent(x->dev, x->sizes[i], b) : 0;
		if (pc > best)
			best = pc, n = 1, size = x->sizes[i];
		else if (pc == best)
			n++;
	}
	if (nbest)
		*nbest = n;
	if (best_percent)
		*best_percent = best;
	return size;
}

/*
 * The student's questions, the same for the same name every time. Each
 * question gets its own GPU and configuration; every configuration can run
 * (at least one block); the limiting-resource question has exactly one
 * limiting resource, and the best-block-size question exactly one best.
 */
static inline void occ_lab_questions(const char *student, struct occ_question q[OCC_NQUESTIONS])
{
	static const int threads[] = {64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024};
	static const int regs[] = {16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128};
	static const size_t smem[] = {0, 2048, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152};
	static const int sizes[4] = {128, 256, 512, 1024};
	uint64_t s = 0xcbf29ce484222325ULL;   /* FNV-1a of "occupancy/" + the name */

	for (const char *p = "occupancy/"; *p; p++)
		s = (s ^ (unsigned char)*p) * 0x100000001b3ULL;
	for (const char *p = student; *p; p++)
		s = (s ^ (unsigned char)*p) * 0x100000001b3ULL;

	for (int k = 0; k < OCC_NQUESTIONS; k++) {
		struct occ_question *x = &q[k];
		memset(x, 0, sizeof(*x));
		x->kind = (enum occ_kind)k;
		for (;;) {
			x->dev = &occ_lab_devices[occ_lab_next(&s) % OCC_LAB_NDEVICES];
			x->threads = threads[occ_lab_next(&s) % (sizeof(threads) / sizeof(*threads))];
			x->regs = regs[occ_lab_next(&s) % (sizeof(regs) / sizeof(*regs))];
			x->smem = smem[occ_lab_next(&s) % (sizeof(smem) / sizeof(*smem))];
			if (x->kind == OCC_Q_BEST) {
				int nbest;
				double best;
				memcpy(x->sizes, sizes, sizeof(x->sizes));
				x->answer = occ_lab_best(x, occ_lab_oracle_calc, &nbest, &best);
				if (nbest == 1 && best > 0)
					break;
				continue;
			}
			x->e = occ_lab_oracle(x->dev, x->threads, x->regs, x->smem);
			if (!x->e.ok || x->e.blocks < 1)
				continue;
			if (x->kind == OCC_Q_LIMIT && (x->e.limits & (x->e.limits - 1)))
				continue;   /* a tie: not one answer */
			break;
		}
		if (x->kind != OCC_Q_BEST)
			x->answer = occ_lab_answer_of(x, x->e.blocks, x->e.limits);
	}
}

/* The question's configuration in words, for the sheet and for feedback. */
static inline const char *occ_lab_config(const struct occ_question *x, char *buf, size_t len)
{
	if (x->kind == OCC_Q_BEST)
		snprintf(buf, len, "on the %s, a kernel with %d registers per thread and %zu bytes of "
			 "shared memory per block", x->dev->name, x->regs, x->smem);
	else
		snprintf(buf, len, "on the %s, blocks of %d threads, %d registers per thread and "
			 "%zu bytes of shared memory per block", x->dev->name, x->threads, x->regs,
			 x->smem);
	return buf;
}

#endif
