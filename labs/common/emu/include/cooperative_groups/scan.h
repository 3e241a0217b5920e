/*
 * cooperative_groups/scan.h - the emulator's inclusive_scan and
 * exclusive_scan over a thread_block_tile, found before the CUDA Toolkit's
 * header (which needs nvcc). Names and signatures are the toolkit's; the
 * code is our own.
 *
 * Owns: the two scans, with plus by default (up to a warp: shfl_up steps
 * that double; more than a warp: each rank folds the values of the ranks
 * up to its own, brought to the tile's meeting). Rank 0 of an exclusive
 * scan gets a value-initialised T.
 */
#ifndef CUDAEMU_COOPERATIVE_GROUPS_SCAN_H
#define CUDAEMU_COOPERATIVE_GROUPS_SCAN_H

#include <cooperative_groups/reduce.h>

namespace cooperative_groups {

namespace details {
template <unsigned int Size, typename T, typename Op>
inline T tile_scan(const warp_tile<Size> &g, T value, Op op, bool inclusive, const char *file,
		   int line)
{
	for (unsigned int d = 1; d < Size; d *= 2) {
		T before = g.shfl_up(value, d, file, line);
		if (g.thread_rank() >= d)
			value = op(before, value);
	}
	if (inclusive)
		return value;
	T before = g.shfl_up(value, 1, file, line);
	return g.thread_rank() == 0 ? T() : before;
}

template <unsigned int Size, typename T, typename Op>
inline T tile_scan(const multi_warp_tile<Size> &g, T value, Op op, bool inclusive,
		   const char *file, int line)
{
	unsigned int last = g.thread_rank() + (inclusive ? 1 : 0);
	g.meet(to_word(value), inclusive ? "inclusive_scan()" : "exclusive_scan()", file, line);
	if (!last)
		return T();
	T acc = g.template brought<T>(0);
	for (unsigned int k = 1; k < last; k++)
		acc = op(acc, g.template brought<T>(k));
	return acc;
}
} // namespace details

template <unsigned int Size, typename ParentT, typename T, typename Op = plus<T>>
inline T inclusive_scan(const thread_block_tile<Size, ParentT> &g, T value, Op op = Op(),
			CUDAEMU_AT)
{
	return details::tile_scan(g, value, op, true, CUDAEMU_HERE);
}

template <unsigned int Size, typename ParentT, typename T, typename Op = plus<T>>
inline T exclusive_scan(const thread_block_tile<Size, ParentT> &g, T value, Op op = Op(),
			CUDAEMU_AT)
{
	return details::tile_scan(g, value, op, false, CUDAEMU_HERE);
}

} // namespace cooperative_groups

#endif
