/*
 * cooperative_groups.h - the emulator's cooperative groups, found before the
 * CUDA Toolkit's (whose header needs nvcc and libcu++). The emulated build
 * puts labs/common/emu/include first on the include path.
 *
 * Owns: namespace cooperative_groups as far as a block goes: the block
 * (this_thread_block), tiles of it (tiled_partition: at run time up to a
 * warp; at compile time up to a warp, and of 64 to 512 threads with the
 * block_tile_memory scratch space), coalesced_threads(), this_grid() without
 * sync, and the free functions sync, thread_rank, num_threads, group_size.
 * The names and signatures are the toolkit's (cooperative_groups.h); the
 * code is the emulator's own: every call maps to a __syncthreads(), a
 * __syncwarp(), a warp-level intrinsic of cudaemu.h or, for a tile of more
 * than a warp, a meeting of the tile's threads (cudaemu_tile_meet), so the
 * runtime checks a group's synchronization as it checks those.
 *
 * Must not: be included by nvcc builds (it is only on the emulator's path).
 */
#ifndef CUDAEMU_COOPERATIVE_GROUPS_H
#define CUDAEMU_COOPERATIVE_GROUPS_H

#include <type_traits>

namespace cooperative_groups {

namespace details {
/* The calling thread's place in its block, and the block's size. */
inline unsigned block_rank()
{
	return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned block_threads()
{
	return blockDim.x * blockDim.y * blockDim.z;
}
/* The lanes of the calling thread's warp in its tile of `size` lanes. */
inline unsigned tile_mask(unsigned size)
{
	unsigned lane = block_rank() & 31;
	return size >= 32 ? ~0u : ((1u << size) - 1) << (lane & ~(size - 1));
}
/* Moves a value of any trivially copyable type through a warp-level call,
 * eight bytes at a time (the GPU moves it four at a time). */
template <typename T>
inline T move(int op, unsigned mask, T var, int arg, int width, const char *file, int line)
{
	static_assert(std::is_trivially_copyable<T>::value,
		      "a group's shuffle moves trivially copyable values only");
	unsigned long long words[(sizeof(T) + 7) / 8] = {};
	__builtin_memcpy(words, &var, sizeof(T));
	for (unsigned i = 0; i < (sizeof(T) + 7) / 8; i++)
		words[i] = cudaemu_warp(op, mask, words[i], arg, width, file, line);
	__builtin_memcpy(&var, words, sizeof(T));
	return var;
}
inline int clamp_delta(unsigned delta)
{
	return delta > 32 ? 32 : (int)delta;
}
/* The lane of the rank-th lane (from 0) of mask. */
inline int nth_lane(unsigned mask, unsigned rank)
{
	for (; rank; rank--)
		mask &= mask - 1;
	return mask ? __builtin_ctz(mask) : -1;
}
} // namespace details

/* A group known at run time: the block, or a tile of it (tiled_partition
 * with a run-time size). */
class thread_group {
protected:
	unsigned tile;   /* lanes per tile; 0: the whole block */

public:
	/* not the toolkit's: tiled_partition's way to make one */
	explicit thread_group(unsigned tile_size) : tile(tile_size) {}
	unsigned long long size() const
	{
		return tile ? tile : details::block_threads();
	}
	unsigned long long num_threads() const
	{
		return size();
	}
	unsigned long long thread_rank() const
	{
		return tile ? details::block_rank() & (tile - 1) : details::block_rank();
	}
	unsigned int meta_group_rank() const
	{
		return tile ? details::block_rank() / tile : 0;
	}
	unsigned int meta_group_size() const
	{
		return tile ? (details::block_threads() + tile - 1) / tile : 1;
	}
	void sync(CUDAEMU_AT) const
	{
		if (tile)
			__syncwarp(details::tile_mask(tile), CUDAEMU_HERE);
		else
			cudaemu_syncthreads(cudaemu_file, cudaemu_line, -cudaemu_line);
	}
};

/* The calling thread's block. A block barrier here is __syncthreads(): the
 * site given to the runtime is the negated line, apart from __COUNTER__'s. */
class thread_block : public thread_group {
	friend thread_block this_thread_block();
	thread_block() : thread_group(0) {}

public:
	static void sync(CUDAEMU_AT)
	{
		cudaemu_syncthreads(cudaemu_file, cudaemu_line, -cudaemu_line);
	}
	static unsigned int size()
	{
		return details::block_threads();
	}
	static unsigned int num_threads()
	{
		return details::block_threads();
	}
	static unsigned int thread_rank()
	{
		return details::block_rank();
	}
	static dim3 group_index()
	{
		return dim3(blockIdx.x, blockIdx.y, blockIdx.z);
	}
	static dim3 thread_index()
	{
		return dim3(threadIdx.x, threadIdx.y, threadIdx.z);
	}
	static dim3 group_dim()
	{
		return blockDim;
	}
	static dim3 dim_threads()
	{
		return blockDim;
	}
};

inline thread_block this_thread_block()
{
	return thread_block();
}

/*
 * The shared memory a block declares for its tiles of more than a warp
 * (`__shared__ block_tile_memory<256> scratch;`), handed to
 * this_thread_block. The toolkit keeps the tiles' barriers and one slot per
 * warp in it; the emulator's tiles meet in the runtime, so it only takes the
 * room a GPU's does (32 bytes and 8 a warp).
 */
template <unsigned int MaxBlockSize = 1024> struct block_tile_memory {
	static_assert(MaxBlockSize >= 32 && MaxBlockSize <= 1024 && MaxBlockSize % 32 == 0,
		      "block_tile_memory's size is a block's: a multiple of 32 up to 1024");
	unsigned long long room[4 + MaxBlockSize / 32];
};

template <unsigned int MaxBlockSize>
inline thread_block this_thread_block(block_tile_memory<MaxBlockSize> &)
{
	return this_thread_block();
}

/* A run-time tile: a power of 2 up to a warp, as the emulator supports. */
inline thread_group tiled_partition(const thread_group &parent, unsigned int tilesz,
				    CUDAEMU_AT)
{
	if (!tilesz || tilesz > 32 || (tilesz & (tilesz - 1)))
		cudaemu_unsupported("tiled_partition() with a size that is not a power of 2 up to "
				    "32", cudaemu_file, cudaemu_line);
	(void)parent;
	return thread_group(tilesz);
}

namespace details {
/* A compile-time tile's place in the block: the block's threads, Size by Size. */
template <unsigned int Size> struct tile_ranks {
	static unsigned int thread_rank()
	{
		return details::block_rank() & (Size - 1);
	}
	static constexpr unsigned long long num_threads()
	{
		return Size;
	}
	static constexpr unsigned long long size()
	{
		return Size;
	}
	static unsigned int meta_group_rank()
	{
		return details::block_rank() / Size;
	}
	static unsigned int meta_group_size()
	{
		return (details::block_threads() + Size - 1) / Size;
	}
};

/* A tile of Size lanes (a power of 2 up to 32) of the block, known at
 * compile time: its calls are warp-level calls on the tile's lanes. */
template <unsigned int Size> class warp_tile : public tile_ranks<Size> {
	static_assert(Size >= 1 && Size <= 32 && !(Size & (Size - 1)),
		      "a tile of up to a warp has 1, 2, 4, 8, 16 or 32 threads");

	static unsigned base_lane()
	{
		return (details::block_rank() & 31) & ~(Size - 1);
	}

public:
	static unsigned int build_mask()
	{
		return details::tile_mask(Size);
	}
	static void sync(CUDAEMU_AT)
	{
		__syncwarp(build_mask(), CUDAEMU_HERE);
	}
	template <typename T> T shfl(T var, int srcRank, CUDAEMU_AT) const
	{
		return details::move(CUDAEMU_SHFL_IDX, build_mask(), var, srcRank, Size,
				     CUDAEMU_HERE);
	}
	template <typename T> T shfl_down(T var, unsigned int delta, CUDAEMU_AT) const
	{
		return details::move(CUDAEMU_SHFL_DOWN, build_mask(), var,
				     details::clamp_delta(delta), Size, CUDAEMU_HERE);
	}
	template <typename T> T shfl_up(T var, unsigned int delta, CUDAEMU_AT) const
	{
		return details::move(CUDAEMU_SHFL_UP, build_mask(), var,
				     details::clamp_delta(delta), Size, CUDAEMU_HERE);
	}
	template <typename T> T shfl_xor(T var, unsigned int laneMask, CUDAEMU_AT) const
	{
		return details::move(CUDAEMU_SHFL_XOR, build_mask(), var, (int)(laneMask & 31),
				     Size, CUDAEMU_HERE);
	}
	int any(int predicate, CUDAEMU_AT) const
	{
		return __any_sync(build_mask(), predicate, CUDAEMU_HERE);
	}
	int all(int predicate, CUDAEMU_AT) const
	{
		return __all_sync(build_mask(), predicate, CUDAEMU_HERE);
	}
	/* bit r is the tile's rank r */
	unsigned int ballot(int predicate, CUDAEMU_AT) const
	{
		return __ballot_sync(build_mask(), predicate, CUDAEMU_HERE) >> base_lane();
	}
	template <typename T> unsigned int match_any(T val, CUDAEMU_AT) const
	{
		return __match_any_sync(build_mask(), val, CUDAEMU_HERE) >> base_lane();
	}
	template <typename T> unsigned int match_all(T val, int &pred, CUDAEMU_AT) const
	{
		return __match_all_sync(build_mask(), val, &pred, CUDAEMU_HERE) >> base_lane();
	}
	operator thread_group() const
	{
		return tiled_partition(this_thread_block(), Size);
	}
};

/* Moves a value of at most 8 bytes through its tile's meeting. */
template <typename T> inline unsigned long long to_word(const T &v)
{
	static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
		      "collectives of a tile of more than 32 threads move trivially copyable "
		      "values of at most 8 bytes");
	unsigned long long word = 0;
	__builtin_memcpy(&word, &v, sizeof(T));
	return word;
}
template <typename T> inline T from_word(unsigned long long word)
{
	T v;
	__builtin_memcpy(&v, &word, sizeof(T));
	return v;
}

/*
 * A tile of Size threads (64, 128, 256 or 512) of the block, known at
 * compile time, as the toolkit has them on sm_80 and later: sync, shfl, any,
 * all, and what reduce and the scans need. Its threads meet in the runtime
 * (cudaemu_tile_meet), which checks that every thread of the tile comes.
 */
template <unsigned int Size> class multi_warp_tile : public tile_ranks<Size> {
	static_assert(Size >= 64 && Size <= 512 && !(Size & (Size - 1)),
		      "a tile of more than a warp has 64, 128, 256 or 512 threads");

public:
	/* not the toolkit's: every thread brings word to the tile's `what` */
	static void meet(unsigned long long word, const char *what, const char *file, int line)
	{
		cudaemu_tile_meet(Size, word, what, file, line);
	}
	/* not the toolkit's: what the thread of that rank brought to the last meeting */
	template <typename T> static T brought(unsigned int rank)
	{
		return from_word<T>(cudaemu_tile_value(Size, rank));
	}
	static void sync(CUDAEMU_AT)
	{
		meet(0, "sync()", CUDAEMU_HERE);
	}
	template <typename T> T shfl(T var, unsigned int srcRank, CUDAEMU_AT) const
	{
		meet(to_word(var), "shfl()", CUDAEMU_HERE);
		return brought<T>(srcRank % Size);
	}
	int any(int predicate, CUDAEMU_AT) const
	{
		meet(predicate != 0, "any()", CUDAEMU_HERE);
		int r = 0;
		for (unsigned int k = 0; k < Size; k++)
			r |= brought<int>(k) == 1;   /* past the block's end: neither 0 nor 1 */
		return r;
	}
	int all(int predicate, CUDAEMU_AT) const
	{
		meet(predicate != 0, "all()", CUDAEMU_HERE);
		int r = 1;
		for (unsigned int k = 0; k < Size; k++)
			r &= brought<int>(k) != 0;
		return r;
	}
};

template <unsigned int Size>
using tile_of = typename std::conditional<(Size > 32), multi_warp_tile<Size>,
					  warp_tile<Size>>::type;
} // namespace details

/* A tile of Size threads of the block, known at compile time. */
template <unsigned int Size, typename ParentT = void> class thread_block_tile;

template <unsigned int Size>
class thread_block_tile<Size, void> : public details::tile_of<Size> {
};

/* tiled_partition<Size>(parent) gives this; it converts to the plain tile. */
template <unsigned int Size, typename ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
};

template <unsigned int Size, typename ParentT>
inline thread_block_tile<Size, ParentT> tiled_partition(const ParentT &)
{
	return thread_block_tile<Size, ParentT>();
}

/* The lanes of the warp that reach the call together (__activemask). */
class coalesced_group {
	unsigned mask;
	explicit coalesced_group(unsigned m) : mask(m) {}
	friend coalesced_group coalesced_threads(const char *, int);

	unsigned rank_of_lane(unsigned lane) const
	{
		return __builtin_popcount(mask & ((1u << lane) - 1));
	}
	unsigned lane() const
	{
		return details::block_rank() & 31;
	}
	/* The lanes of mask, packed to the ranks they are in the group. */
	unsigned pack(unsigned lanes) const
	{
		unsigned r = 0;
		for (unsigned b = lanes & mask; b; b &= b - 1)
			r |= 1u << rank_of_lane(__builtin_ctz(b));
		return r;
	}

public:
	unsigned int get_mask() const
	{
		return mask;
	}
	unsigned int num_threads() const
	{
		return __builtin_popcount(mask);
	}
	unsigned int size() const
	{
		return num_threads();
	}
	unsigned int thread_rank() const
	{
		return rank_of_lane(lane());
	}
	unsigned int meta_group_rank() const
	{
		return 0;
	}
	unsigned int meta_group_size() const
	{
		return 1;
	}
	void sync(CUDAEMU_AT) const
	{
		__syncwarp(mask, CUDAEMU_HERE);
	}
	template <typename T> T shfl(T var, unsigned int srcRank, CUDAEMU_AT) const
	{
		int src = details::nth_lane(mask, srcRank % num_threads());
		return details::move(CUDAEMU_SHFL_IDX, mask, var, src, 32, CUDAEMU_HERE);
	}
	template <typename T> T shfl_down(T var, unsigned int delta, CUDAEMU_AT) const
	{
		unsigned r = thread_rank() + delta;
		int src = r < num_threads() ? details::nth_lane(mask, r) : (int)lane();
		return details::move(CUDAEMU_SHFL_IDX, mask, var, src, 32, CUDAEMU_HERE);
	}
	template <typename T> T shfl_up(T var, unsigned int delta, CUDAEMU_AT) const
	{
		unsigned r = thread_rank();
		int src = delta <= r ? details::nth_lane(mask, r - delta) : (int)lane();
		return details::move(CUDAEMU_SHFL_IDX, mask, var, src, 32, CUDAEMU_HERE);
	}
	int any(int predicate, CUDAEMU_AT) const
	{
		return __any_sync(mask, predicate, CUDAEMU_HERE);
	}
	int all(int predicate, CUDAEMU_AT) const
	{
		return __all_sync(mask, predicate, CUDAEMU_HERE);
	}
	unsigned int ballot(int predicate, CUDAEMU_AT) const
	{
		return pack(__ballot_sync(mask, predicate, CUDAEMU_HERE));
	}
	template <typename T> unsigned int match_any(T val, CUDAEMU_AT) const
	{
		return pack(__match_any_sync(mask, val, CUDAEMU_HERE));
	}
	template <typename T> unsigned int match_all(T val, int &pred, CUDAEMU_AT) const
	{
		return pack(__match_all_sync(mask, val, &pred, CUDAEMU_HERE));
	}
};

inline coalesced_group coalesced_threads(CUDAEMU_AT)
{
	return coalesced_group(__activemask(CUDAEMU_HERE));
}

/* The grid: its indices, but not its barrier, which needs every block
 * running at once (a cooperative launch); the emulator runs a few at a time. */
class grid_group {
	friend grid_group this_grid();
	grid_group() {}

public:
	bool is_valid() const
	{
		return false;   /* not launched with cudaLaunchCooperativeKernel */
	}
	void sync(CUDAEMU_AT) const
	{
		cudaemu_unsupported("grid_group::sync() (a grid-wide barrier)", cudaemu_file,
				    cudaemu_line);
	}
	static unsigned long long num_blocks()
	{
		return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
	}
	static unsigned long long block_rank()
	{
		return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y +
			(unsigned long long)gridDim.y * blockIdx.z);
	}
	static unsigned long long num_threads()
	{
		return num_blocks() * details::block_threads();
	}
	static unsigned long long size()
	{
		return num_threads();
	}
	static unsigned long long thread_rank()
	{
		return block_rank() * details::block_threads() + details::block_rank();
	}
	static dim3 dim_blocks()
	{
		return gridDim;
	}
	static dim3 block_index()
	{
		return dim3(blockIdx.x, blockIdx.y, blockIdx.z);
	}
	static dim3 group_dim()
	{
		return dim3(blockDim.x * gridDim.x, blockDim.y * gridDim.y, blockDim.z * gridDim.z);
	}
	static dim3 dim_threads()
	{
		return group_dim();
	}
};

inline grid_group this_grid()
{
	return grid_group();
}

/* The free functions on any group. */
template <class GroupT> inline void sync(GroupT const &g, CUDAEMU_AT)
{
	g.sync(CUDAEMU_HERE);
}
template <class GroupT> inline auto thread_rank(GroupT const &g) -> decltype(g.thread_rank())
{
	return g.thread_rank();
}
template <class GroupT> inline auto num_threads(GroupT const &g) -> decltype(g.num_threads())
{
	return g.num_threads();
}
template <class GroupT> inline auto group_size(GroupT const &g) -> decltype(g.num_threads())
{
	return g.num_threads();
}

} // namespace cooperative_groups

#endif
