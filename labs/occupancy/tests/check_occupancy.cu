/*
 * check_occupancy.cu - correctness suite of the occupancy lab.
 *
 * The answer for every case comes from NVIDIA's occupancy calculator,
 * cuda_occupancy.h from the CUDA Toolkit (header-only, runs on the host),
 * never from a table typed in here. Part calculator:
 *   edges    every combination of edge values (1 and 1024 threads, sizes
 *            not multiples of 32, 0 to 255 registers, 0 to the largest
 *            shared memory and one byte more) on five GPUs;
 *   random   thousands of random configurations, from this run's seed;
 *   limits   the limiting factors reported with the answer.
 * The suite calls no CUDA: it runs the same with and without a GPU.
 */
#include "cudalab.h"
#include "occupancy.h"

#include <cuda_occupancy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The GPUs of the lab, one per compute capability, with the limits of the
 * CUDA Programming Guide's table. The harness checks the ones cuda_occupancy.h
 * also knows (block slots, allocation units, register partitions) against it
 * before any test.
 */
static const struct occ_device devices[] = {
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
#define NDEVICES (sizeof(devices) / sizeof(devices[0]))

static uint64_t run_seed;

static cudaOccDeviceProp occ_prop(const struct occ_device *d)
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

struct expected {
	int blocks;
	unsigned limits;
	int by_warps, by_regs, by_smem, by_blocks;
};

/*
 * What cuda_occupancy.h says, for a kernel whose block may use up to the
 * opt-in limit of shared memory (as after cudaFuncSetAttribute), with no
 * block barriers counted and the default shared-memory carveout.
 */
static struct expected oracle(const struct occ_device *d, int threads, int regs, size_t smem)
{
	cudaOccDeviceProp prop = occ_prop(d);
	cudaOccFuncAttributes attr;
	cudaOccDeviceState state;
	cudaOccResult res;
	struct expected e;

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
		ck_abort_msg("harness: cuda_occupancy.h refused %s, %d threads, %d registers, %zu "
			     "bytes", d->name, threads, regs, smem);
	e.blocks = res.activeBlocksPerMultiprocessor;
	e.limits = 0;
	if (res.limitingFactors & OCC_LIMIT_WARPS)
		e.limits |= OCC_BY_WARPS;
	if (res.limitingFactors & OCC_LIMIT_REGISTERS)
		e.limits |= OCC_BY_REGISTERS;
	if (res.limitingFactors & OCC_LIMIT_SHARED_MEMORY)
		e.limits |= OCC_BY_SHARED_MEMORY;
	if (res.limitingFactors & OCC_LIMIT_BLOCKS)
		e.limits |= OCC_BY_BLOCKS;
	e.by_warps = res.blockLimitWarps;
	e.by_regs = res.blockLimitRegs;
	e.by_smem = res.blockLimitSharedMem;
	e.by_blocks = res.blockLimitBlocks;
	return e;
}

static const char *limit_names(unsigned l, char *buf, size_t len)
{
	static const char *const names[] = {"warps", "registers", "shared memory", "block slots"};
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < 4; i++)
		if (l & (1u << i))
			n += snprintf(buf + n, len - n, "%s%s", n ? " and " : "", names[i]);
	if (!n)
		snprintf(buf, len, "nothing");
	return buf;
}

static const char *limit_value(int v, char *buf, size_t len)
{
	if (v == 2147483647)
		snprintf(buf, len, "no limit");
	else
		snprintf(buf, len, "%d", v);
	return buf;
}

/* One case: the student's answer against the oracle's; with_limits also the factors. */
static void check_case(const struct occ_device *d, int threads, int regs, size_t smem,
		       bool with_limits)
{
	struct expected e = oracle(d, threads, regs, smem);
	unsigned limits = 0xdead;
	int got = occ_blocks_per_sm(d, threads, regs, smem, &limits);
	char a[64], b[64], w[16], r[16], s[16], k[16];

	if (got == e.blocks && (!with_limits || limits == e.limits))
		return;
	ck_abort_msg("%s, blocks of %d threads, %d registers per thread, %zu bytes of shared "
		     "memory per block: you said %d block%s per SM (limited by %s), expected %d "
		     "(limited by %s)\nthe limits: warps allow %s, registers %s, shared memory %s, "
		     "block slots %s%s",
		     d->name, threads, regs, smem, got, got == 1 ? "" : "s",
		     limit_names(limits, a, sizeof(a)), e.blocks, limit_names(e.limits, b, sizeof(b)),
		     limit_value(e.by_warps, w, sizeof(w)), limit_value(e.by_regs, r, sizeof(r)),
		     limit_value(e.by_smem, s, sizeof(s)), limit_value(e.by_blocks, k, sizeof(k)),
		     got < 0 ? "\nhint: a negative count: occ_blocks_per_sm is not written yet"
		     : got == e.blocks ? "\nhint: the number is right; the limits are every one "
					 "that equals it"
				       : "");
}

static void check_edges(bool with_limits)
{
	static const int threads[] = {1, 31, 32, 33, 64, 96, 100, 128, 192, 256, 320, 384, 512,
				      640, 768, 1000, 1024, 1025};
	static const int regs[] = {0, 1, 16, 24, 32, 33, 40, 48, 64, 65, 72, 96, 128, 168, 255};

	for (size_t i = 0; i < NDEVICES; i++) {
		const struct occ_device *d = &devices[i];
		const size_t smem[] = {0, 1, 1024, 4000, 12288, 48 * 1024, 48 * 1024 + 1, 70000,
				       d->smem_per_block - 1, d->smem_per_block,
				       d->smem_per_block + 1};
		for (int t : threads)
			for (int r : regs)
				for (size_t s : smem)
					check_case(d, t, r, s, with_limits);
	}
}

START_TEST(test_occupancy_calculator_edges)
{
	check_edges(false);
}
END_TEST

START_TEST(test_occupancy_calculator_random)
{
	uint64_t s = run_seed ^ 0x0cc0cc0cc0ULL;

	for (int i = 0; i < 20000; i++) {
		const struct occ_device *d = &devices[cl_rand_next(&s) % NDEVICES];
		int threads = 1 + (int)(cl_rand_next(&s) % 1024);
		int regs = (int)(cl_rand_next(&s) % 256);
		/* small sizes often, up to the block limit now and then */
		size_t smem = cl_rand_next(&s) % 4 ? (size_t)(cl_rand_next(&s) % 16384)
						    : (size_t)(cl_rand_next(&s) % (d->smem_per_block + 1));
		check_case(d, threads, regs, smem, false);
	}
}
END_TEST

START_TEST(test_occupancy_calculator_limits)
{
	check_edges(true);
}
END_TEST

/* The harness's devices agree with what cuda_occupancy.h knows of them. */
static void check_devices(void)
{
	for (size_t i = 0; i < NDEVICES; i++) {
		const struct occ_device *d = &devices[i];
		cudaOccDeviceProp p = occ_prop(d);
		int blocks = 0, smem_unit = 0, reg_unit = 0, parts = 0;
		cudaOccMaxBlocksPerMultiprocessor(&blocks, &p);
		cudaOccSMemAllocationGranularity(&smem_unit, &p);
		cudaOccRegAllocationGranularity(&reg_unit, &p);
		cudaOccSubPartitionsPerMultiprocessor(&parts, &p);
		if (blocks != d->max_blocks_per_sm || (size_t)smem_unit != d->smem_alloc_unit ||
		    reg_unit != d->reg_alloc_unit || parts != d->reg_partitions) {
			fprintf(stderr, "check_occupancy: the harness's %s disagrees with "
				"cuda_occupancy.h (blocks %d, shared memory unit %d, register unit "
				"%d, partitions %d)\n", d->name, blocks, smem_unit, reg_unit, parts);
			exit(3);
		}
	}
}

static void occupancy_setup(uint64_t seed, const char *const *parts, size_t nparts)
{
	run_seed = seed;
	check_devices();
}

static const struct cl_test tests[] = {
	{"calculator", test_occupancy_calculator_edges},
	{"calculator", test_occupancy_calculator_random},
	{"calculator", test_occupancy_calculator_limits},
};

int main(int argc, char **argv)
{
	static const struct cl_lab lab = {"occupancy", tests, sizeof(tests) / sizeof(tests[0]),
					  occupancy_setup};
	return cl_main(&lab, argc, argv);
}
