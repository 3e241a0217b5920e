/*
 * Reference solution of the occupancy lab. Hidden from students.
 */
#include "occupancy.h"

#include <limits.h>

static long round_up(long x, long unit)
{
	return (x + unit - 1) / unit * unit;
}

int occ_blocks_per_sm(const struct occ_device *d, int threads_per_block, int regs_per_thread,
		      size_t smem_per_block, unsigned *limits)
{
	int warps = (threads_per_block + d->warp_size - 1) / d->warp_size;
	int by_warps, by_regs, by_smem, by_blocks = d->max_blocks_per_sm, blocks;

	/* warps: whole warps, even for a partial one */
	if (threads_per_block > d->max_threads_per_block)
		by_warps = 0;
	else
		by_warps = d->max_threads_per_sm / d->warp_size / warps;

	/* registers: per warp, in allocation units, from one partition of the file */
	long warp_regs = round_up((long)regs_per_thread * d->warp_size, d->reg_alloc_unit);
	if (regs_per_thread > d->max_regs_per_thread ||
	    warp_regs * round_up(warps, d->reg_partitions) > d->regs_per_block ||
	    warp_regs * warps > d->regs_per_block)
		by_regs = 0;
	else if (warp_regs == 0)
		by_regs = INT_MAX;
	else
		by_regs = (int)(d->regs_per_sm / d->reg_partitions / warp_regs) * d->reg_partitions /
			  warps;

	/* shared memory: the block's plus the driver's share, in allocation units */
	size_t alloc = (size_t)round_up((long)(smem_per_block + d->smem_reserved_per_block),
					(long)d->smem_alloc_unit);
	if (smem_per_block > d->smem_per_block ||
	    alloc > d->smem_per_block + d->smem_reserved_per_block)
		by_smem = 0;
	else
		by_smem = alloc ? (int)(d->smem_per_sm / alloc) : INT_MAX;

	blocks = by_warps;
	if (by_regs < blocks)
		blocks = by_regs;
	if (by_smem < blocks)
		blocks = by_smem;
	if (by_blocks < blocks)
		blocks = by_blocks;
	*limits = (blocks == by_warps ? OCC_BY_WARPS : 0) | (blocks == by_regs ? OCC_BY_REGISTERS : 0) |
		  (blocks == by_smem ? OCC_BY_SHARED_MEMORY : 0) |
		  (blocks == by_blocks ? OCC_BY_BLOCKS : 0);
	return blocks;
}
