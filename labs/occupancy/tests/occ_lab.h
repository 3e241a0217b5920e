/*
 * occ_lab.h - NVIDIA's calculator (cuda_occupancy.h, in every CUDA Toolkit)
 * on the lab's GPUs: what the calculator tests (check_occupancy.cu) compare
 * a submission with, and, in the course's repository, what the answer key
 * (tests/hidden/occ_key.h) is computed from. The question sheet does not
 * include it: it draws its questions from a table (occ_questions.h).
 */
#ifndef OCC_LAB_H
#define OCC_LAB_H

#include "occ_devices.h"

#include <cuda_occupancy.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

#endif
