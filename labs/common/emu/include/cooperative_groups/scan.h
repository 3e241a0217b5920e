/*
 * cooperative_groups/scan.h - the emulator's inclusive_scan and
 * exclusive_scan over a thread_block_tile, found before the CUDA Toolkit's
 * header (which needs nvcc). Names and signatures are the toolkit's; the
 * code is our own.
 *
 * Owns: the two scans, with plus by default (shfl_up steps that double).
 * Rank 0 of an exclusive scan gets a value-initialised T.
 */
#ifndef CUDAEMU_COOPERATIVE_GROUPS_SCAN_H
#define CUDAEMU_COOPERATIVE_GROUPS_SCAN_H

#include <cooperative_groups/reduce.h>

namespace cooperative_groups {

template <unsigned int Size, typename ParentT, typename T, typename Op = plus<T>>
inline T inclusive_scan(const thread_block_tile<Size, ParentT> &g, T value, Op op = Op(),
			CUDAEMU_AT)
{
	for (unsigned int d = 1; d < Size; d *= 2) {
		T before = g.shfl_up(value, d, CUDAEMU_HERE);
		if (g.thread_rank() >= d)
			value = op(before, value);
	}
	return value;
}

template <unsigned int Size, typename ParentT, typename T, typename Op = plus<T>>
inline T exclusive_scan(const thread_block_tile<Size, ParentT> &g, T value, Op op = Op(),
			CUDAEMU_AT)
{
	T incl = inclusive_scan(g, value, op, CUDAEMU_HERE);
	T before = g.shfl_up(incl, 1, CUDAEMU_HERE);
	return g.thread_rank() == 0 ? T() : before;
}

} // namespace cooperative_groups

#endif
