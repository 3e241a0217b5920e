/*
 * occupancy.h - the contract of the occupancy lab: an occupancy calculator,
 * plain C that runs on the host.
 *
 * An SM holds as many blocks of a kernel at once as the tightest of four
 * limits allows: its warps, its registers, its shared memory, and its
 * count of block slots. The handout (labs/occupancy/README.md) gives each
 * rule with its rounding; the grader checks the calculator against NVIDIA's
 * own (cuda_occupancy.h in the CUDA Toolkit).
 */
#ifndef OCCUPANCY_H
#define OCCUPANCY_H

#include <stddef.h>

/* What limits the blocks per SM; several when they tie. */
#define OCC_BY_WARPS 0x1
#define OCC_BY_REGISTERS 0x2
#define OCC_BY_SHARED_MEMORY 0x4
#define OCC_BY_BLOCKS 0x8

/* A GPU as the calculator sees it. */
struct occ_device {
	const char *name;               /* "NVIDIA H100 (9.0)" */
	int cc_major, cc_minor;         /* compute capability */
	int warp_size;                  /* threads per warp: 32 */
	int max_threads_per_block;      /* 1024 */
	int max_threads_per_sm;         /* resident threads per SM */
	int max_blocks_per_sm;          /* resident blocks per SM */
	int regs_per_sm;                /* 32-bit registers per SM */
	int regs_per_block;             /* the most one block may use */
	int max_regs_per_thread;        /* 255 */
	int reg_alloc_unit;             /* registers are given to a warp in units of this many */
	int reg_partitions;             /* the register file is split evenly among this many
					   warp schedulers; a warp's registers come from one */
	size_t smem_per_sm;             /* shared memory an SM can give its blocks, bytes */
	size_t smem_per_block;          /* the most one block may ask for (opt-in limit) */
	size_t smem_reserved_per_block; /* the driver's own share of each block's */
	size_t smem_alloc_unit;         /* shared memory is given in units of this many bytes */
};

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Blocks of a kernel one SM of d holds at once, for blocks of
 * threads_per_block threads, each thread using regs_per_thread registers
 * and each block smem_per_block bytes of shared memory. *limits gets the
 * OCC_BY_* of every limit that equals the result. 0 when a block cannot run
 * at all (too many threads, registers or bytes for one block).
 */
int occ_blocks_per_sm(const struct occ_device *d, int threads_per_block, int regs_per_thread,
		      size_t smem_per_block, unsigned *limits);

#ifdef __cplusplus
}
#endif

#endif
