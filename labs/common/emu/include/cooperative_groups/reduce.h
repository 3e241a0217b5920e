/*
 * cooperative_groups/reduce.h - the emulator's cooperative_groups::reduce
 * and its operators, found before the CUDA Toolkit's header (which needs
 * nvcc). Names and signatures are the toolkit's; the code is our own.
 *
 * Owns: reduce(group, value, op) over a thread_block_tile (up to a warp: a
 * butterfly of shfl_xor, every rank getting the result; more than a warp:
 * each warp's butterfly, then the warps' results in rank order, through
 * the tile's meeting) or a coalesced_group (rank by rank), and the
 * operators plus, less, greater, bit_and, bit_or, bit_xor.
 */
#ifndef CUDAEMU_COOPERATIVE_GROUPS_REDUCE_H
#define CUDAEMU_COOPERATIVE_GROUPS_REDUCE_H

#include <cooperative_groups.h>

namespace cooperative_groups {

template <typename T> struct plus {
	T operator()(const T &a, const T &b) const
	{
		return a + b;
	}
};
/* less and greater pick the lesser and the greater value: min and max */
template <typename T> struct less {
	T operator()(const T &a, const T &b) const
	{
		return b < a ? b : a;
	}
};
template <typename T> struct greater {
	T operator()(const T &a, const T &b) const
	{
		return a < b ? b : a;
	}
};
template <typename T> struct bit_and {
	T operator()(const T &a, const T &b) const
	{
		return a & b;
	}
};
template <typename T> struct bit_or {
	T operator()(const T &a, const T &b) const
	{
		return a | b;
	}
};
template <typename T> struct bit_xor {
	T operator()(const T &a, const T &b) const
	{
		return a ^ b;
	}
};

namespace details {
template <unsigned int Size, typename T, typename Op>
inline T tile_reduce(const warp_tile<Size> &g, T value, Op op, const char *file, int line)
{
	for (unsigned int d = Size / 2; d > 0; d /= 2)
		value = op(value, g.shfl_xor(value, d, file, line));
	return value;
}

template <unsigned int Size, typename T, typename Op>
inline T tile_reduce(const multi_warp_tile<Size> &g, T value, Op op, const char *file, int line)
{
	for (int d = 16; d > 0; d /= 2)
		value = op(value, move(CUDAEMU_SHFL_XOR, ~0u, value, d, 32, file, line));
	g.meet(to_word(value), "reduce()", file, line);
	T acc = g.template brought<T>(0);
	for (unsigned int w = 1; w < Size / 32; w++)
		acc = op(acc, g.template brought<T>(32 * w));
	return acc;
}
} // namespace details

template <unsigned int Size, typename ParentT, typename T, typename Op>
inline T reduce(const thread_block_tile<Size, ParentT> &g, T value, Op op, CUDAEMU_AT)
{
	return details::tile_reduce(g, value, op, CUDAEMU_HERE);
}

template <typename T, typename Op>
inline T reduce(const coalesced_group &g, T value, Op op, CUDAEMU_AT)
{
	T acc = g.shfl(value, 0, CUDAEMU_HERE);
	for (unsigned int r = 1; r < g.num_threads(); r++)
		acc = op(acc, g.shfl(value, r, CUDAEMU_HERE));
	return acc;
}

} // namespace cooperative_groups

#endif
