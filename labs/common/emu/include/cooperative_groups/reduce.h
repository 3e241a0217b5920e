/*
 * cooperative_groups/reduce.h - the emulator's cooperative_groups::reduce
 * and its operators, found before the CUDA Toolkit's header (which needs
 * nvcc). Names and signatures are the toolkit's; the code is our own.
 *
 * Owns: reduce(group, value, op) over a thread_block_tile (a butterfly of
 * shfl_xor, every rank getting the result) or a coalesced_group (rank by
 * rank), and the operators plus, less, greater, bit_and, bit_or, bit_xor.
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

template <unsigned int Size, typename ParentT, typename T, typename Op>
inline T reduce(const thread_block_tile<Size, ParentT> &g, T value, Op op, CUDAEMU_AT)
{
	for (unsigned int d = Size / 2; d > 0; d /= 2)
		value = op(value, g.shfl_xor(value, d, CUDAEMU_HERE));
	return value;
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
