/*
 * The occupancy lab: your occupancy calculator. The contract is in
 * occupancy.h and the rules in the handout, labs/occupancy/README.md.
 * This is plain C that runs on the host; `make test LAB=occupancy` checks it
 * against NVIDIA's own calculator on thousands of cases.
 */
#include "occupancy.h"

int occ_blocks_per_sm(const struct occ_device *d, int threads_per_block, int regs_per_thread,
		      size_t smem_per_block, unsigned *limits)
{
	/* TODO: the blocks each limit allows (warps, registers, shared memory,
	 * block slots), with the roundings of the handout; return the smallest,
	 * and set *limits to the OCC_BY_* of every limit equal to it. */
	*limits = 0;
	return -1;
}
