/*
 * cudaemu.h - CUDA on the CPU: forced into every translation unit of an
 * emulated build (g++ -include cudaemu.h), after the grader has rewritten
 * each `k<<<grid, block[, shmem[, stream]]>>>(args)` into
 * `cudaemu::launch(CUDAEMU_KERNEL(k), "k", __FILE__, __LINE__, grid, block
 * ...)(args)` and each `extern __shared__ T s[]` into a pointer to the
 * dynamic shared memory.
 *
 * Owns: the CUDA qualifiers as macros, the index built-ins, __syncthreads,
 * atomics, the fast-math intrinsics, the warp-level intrinsics (declared
 * here, carried out by the runtime), the load and store intrinsics, and the
 * launch template. The runtime API itself (cudaMalloc ...) is declared by
 * the CUDA Toolkit's own cuda_runtime.h and defined by runtime.cc, so types
 * and error codes are exactly CUDA's. The toolkit's declarations of the
 * device intrinsics compile only under nvcc (their host versions are empty
 * stubs), so those here are written anew with the toolkit's signatures.
 *
 * Must not: change what correct CUDA code computes. Each CUDA thread is a
 * fiber; a block's fibers all run on one OS thread, so `__shared__` is
 * per-thread static storage of that OS thread.
 *
 * Also owns: the launch of a template whose arguments the launch deduces
 * (CUDAEMU_KERNEL), the toolkit's C++ overloads that nvcc alone sees (a
 * kernel's attributes, its symbols), and file-scope `extern __shared__`
 * arrays (CUDAEMU_FILE_SHARED).
 */
#ifndef CUDAEMU_H
#define CUDAEMU_H

#include <cuda_runtime.h>

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>   /* cuda_fp16.hpp's host code calls memcpy */
#include <time.h>
#include <tuple>
#include <type_traits>
#include <utility>

#define CUDAEMU 1

/* ------------------------------------------------------------ qualifiers */
#undef __host__
#undef __device__
#undef __global__
#undef __shared__
#undef __constant__
#undef __managed__
#undef __launch_bounds__
#undef __noinline__
#define __host__
#define __device__
#define __global__
#define __constant__
#define __managed__
#ifdef CUDAEMU_SERIAL_SHARED
/* AddressSanitizer does not watch thread-local storage: in its diagnostic
 * build blocks run one at a time and shared memory is plain static storage. */
#define __shared__ static
#else
#define __shared__ static __thread
#endif
#define __launch_bounds__(...)
/*
 * libstdc++ (12 and later) spells __attribute__((__noinline__)) in headers a
 * submission may include after this one (<memory>, <iostream>, and which
 * others depends on its version). There the macro below makes
 * __attribute__((__attribute__((noinline)))): an unknown attribute whose
 * argument is this constant, which g++ ignores (silently, in a system
 * header). Written in CUDA code, __noinline__ is noinline.
 */
constexpr int noinline = 0;
#define __noinline__ __attribute__((noinline))
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif

/* ------------------------------------------------------- index built-ins */
/* Set by the scheduler before it resumes a CUDA thread; __thread, not
 * thread_local, so reading one is a plain %fs-relative load. */
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread dim3 blockDim;
extern __thread dim3 gridDim;
constexpr int warpSize = 32;

/* ------------------------------------------------------------- barriers */
extern "C" void cudaemu_syncthreads(const char *file, int line, int site);
#define __syncthreads() cudaemu_syncthreads(__FILE__, __LINE__, __COUNTER__)
extern "C" int cudaemu_syncthreads_pred(const char *file, int line, int site, int pred, int op);
#define __syncthreads_count(pred) cudaemu_syncthreads_pred(__FILE__, __LINE__, __COUNTER__, (pred), 0)
#define __syncthreads_and(pred) cudaemu_syncthreads_pred(__FILE__, __LINE__, __COUNTER__, (pred), 1)
#define __syncthreads_or(pred) cudaemu_syncthreads_pred(__FILE__, __LINE__, __COUNTER__, (pred), 2)
#define __threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_block() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_system() __atomic_thread_fence(__ATOMIC_SEQ_CST)

/* ------------------------------------------------------------- clocks */
/* A counter that only grows, in nanoseconds: what a kernel that times
 * itself needs (clock() is the C library's: processor time, growing too). */
inline long long clock64(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
/* Sleeps no thread: the others of the block run when it waits at a barrier. */
inline void __nanosleep(unsigned ns)
{
	(void)ns;
}

/* Dynamic shared memory of the running block (the third launch argument). */
extern "C" void *cudaemu_dyn_shmem(void);
/* Where the running block's `__shared__` array of declaration `site` is
 * (the grader rewrites each declaration in a function into a call). */
extern "C" void *cudaemu_static_shared(int site, size_t size);

/* ------------------------------------------------------------- atomics */
namespace cudaemu {
template <typename T, typename F> inline T atomic_update(T *p, F f)
{
	T old = __atomic_load_n(p, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(p, &old, f(old), true, __ATOMIC_SEQ_CST,
					    __ATOMIC_RELAXED))
		;
	return old;
}
/* float and double have no __atomic arithmetic: compare-and-swap their bits */
template <typename T, typename U, typename F> inline T atomic_float(T *p, F f)
{
	U *bits = reinterpret_cast<U *>(p);
	U old = __atomic_load_n(bits, __ATOMIC_RELAXED), next;
	T oldv, newv;
	do {
		__builtin_memcpy(&oldv, &old, sizeof(T));
		newv = f(oldv);
		__builtin_memcpy(&next, &newv, sizeof(T));
	} while (!__atomic_compare_exchange_n(bits, &old, next, true, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	return oldv;
}
} // namespace cudaemu

#define CUDAEMU_INT_ATOMICS(T)                                                                     \
	inline T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }      \
	inline T atomicSub(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }      \
	inline T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }    \
	inline T atomicAnd(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }      \
	inline T atomicOr(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }        \
	inline T atomicXor(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }      \
	inline T atomicMin(T *p, T v)                                                              \
	{                                                                                          \
		return cudaemu::atomic_update(p, [v](T o) { return o < v ? o : v; });              \
	}                                                                                          \
	inline T atomicMax(T *p, T v)                                                              \
	{                                                                                          \
		return cudaemu::atomic_update(p, [v](T o) { return o > v ? o : v; });              \
	}                                                                                          \
	inline T atomicCAS(T *p, T cmp, T v)                                                       \
	{                                                                                          \
		__atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
		return cmp;                                                                        \
	}
CUDAEMU_INT_ATOMICS(int)
CUDAEMU_INT_ATOMICS(unsigned int)
CUDAEMU_INT_ATOMICS(unsigned long long)
inline unsigned int atomicInc(unsigned int *p, unsigned int limit)
{
	return cudaemu::atomic_update(p, [limit](unsigned o) { return o >= limit ? 0u : o + 1; });
}
inline unsigned int atomicDec(unsigned int *p, unsigned int limit)
{
	return cudaemu::atomic_update(
		p, [limit](unsigned o) { return o == 0 || o > limit ? limit : o - 1; });
}
inline float atomicAdd(float *p, float v)
{
	return cudaemu::atomic_float<float, uint32_t>(p, [v](float o) { return o + v; });
}
inline double atomicAdd(double *p, double v)
{
	return cudaemu::atomic_float<double, uint64_t>(p, [v](double o) { return o + v; });
}
inline float atomicExch(float *p, float v)
{
	return cudaemu::atomic_float<float, uint32_t>(p, [v](float) { return v; });
}

/* ---------------------------------------------- C++ runtime overloads */
/* cuda_runtime.h declares these templates for nvcc only. */
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
				      size_t offset = 0,
				      enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
	return ::cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
					size_t offset = 0,
					enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
	return ::cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind);
}
template <class T> inline cudaError_t cudaGetSymbolAddress(void **p, const T &symbol)
{
	return ::cudaGetSymbolAddress(p, (const void *)&symbol);
}
template <class T> inline cudaError_t cudaGetSymbolSize(size_t *n, const T &)
{
	*n = sizeof(T);
	return cudaSuccess;
}

/* A kernel's attributes, given the kernel itself (a function, or a template
 * instance such as k<float, 16>): the toolkit's C++ API, as nvcc has it. */
template <class T>
inline cudaError_t cudaFuncSetAttribute(T *entry, enum cudaFuncAttribute attr, int value)
{
	return ::cudaFuncSetAttribute((const void *)entry, attr, value);
}
template <class T> inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry)
{
	return ::cudaFuncGetAttributes(attr, (const void *)entry);
}
template <class T> inline cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache config)
{
	return ::cudaFuncSetCacheConfig((const void *)func, config);
}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
template <class T>
__attribute__((deprecated)) inline cudaError_t cudaFuncSetSharedMemConfig(T *func,
									   enum cudaSharedMemConfig c)
{
	return ::cudaFuncSetSharedMemConfig((const void *)func, c);
}
#pragma GCC diagnostic pop

/* --------------------------------------------------------------- math */
/* CUDA's min and max for every arithmetic type, as device code has them. */
template <typename A, typename B>
inline typename std::common_type<A, B>::type min(A a, B b)
{
	return a < b ? a : b;
}
template <typename A, typename B>
inline typename std::common_type<A, B>::type max(A a, B b)
{
	return a > b ? a : b;
}
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline float __int_as_float(int i) { float f; __builtin_memcpy(&f, &i, 4); return f; }
inline int __float_as_int(float f) { int i; __builtin_memcpy(&i, &f, 4); return i; }
inline float __uint_as_float(unsigned u) { float f; __builtin_memcpy(&f, &u, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned u; __builtin_memcpy(&u, &f, 4); return u; }
inline double __longlong_as_double(long long i) { double d; __builtin_memcpy(&d, &i, 8); return d; }
inline long long __double_as_longlong(double d) { long long i; __builtin_memcpy(&i, &d, 8); return i; }
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned int __brev(unsigned int x)
{
	x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
	x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
	x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
	return __builtin_bswap32(x);
}
/* glibc declares __expf and friends itself, so the fast intrinsics must be
 * macros: they map to the accurate functions (compare results with a tolerance). */
#define __expf(x) expf(x)
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __tanf(x) tanf(x)
#define __powf(x, y) powf(x, y)
#define __exp10f(x) exp10f(x)
#define __fdividef(x, y) ((x) / (y))
#define __fsqrt_rn(x) sqrtf(x)
#define __fmaf_rn(x, y, z) fmaf(x, y, z)
#define __fadd_rn(x, y) ((x) + (y))
#define __fmul_rn(x, y) ((x) * (y))
#define __fsub_rn(x, y) ((x) - (y))
#define __fdiv_rn(x, y) ((x) / (y))
#define __frcp_rn(x) (1.0f / (x))
#define __dadd_rn(x, y) ((x) + (y))
#define __dmul_rn(x, y) ((x) * (y))
#define __fma_rn(x, y, z) fma(x, y, z)
#define __sincosf(x, s, c) sincosf(x, s, c)

/* ---------------------------------------------------------------- warps */
/*
 * The warp-level intrinsics, with the CUDA Toolkit's signatures
 * (sm_30_intrinsics.h, sm_80_rt.h for __reduce_*). Each is a meeting of the
 * lanes its mask names: the runtime's cudaemu_warp() parks the calling fiber
 * until every lane of the mask has made a warp-level call of the same kind
 * with the same mask, then gives each lane its result (a shuffled value, a
 * ballot ...). The caller's file and line come in through defaulted
 * arguments (__builtin_FILE/__builtin_LINE take the call's location), so a
 * misuse is reported where the student wrote it.
 */
enum cudaemu_warp_op {
	CUDAEMU_SYNCWARP,
	CUDAEMU_SHFL_IDX,
	CUDAEMU_SHFL_UP,
	CUDAEMU_SHFL_DOWN,
	CUDAEMU_SHFL_XOR,
	CUDAEMU_BALLOT,
	CUDAEMU_ANY,
	CUDAEMU_ALL,
	CUDAEMU_UNI,
	CUDAEMU_ACTIVEMASK,
	CUDAEMU_MATCH_ANY,
	CUDAEMU_MATCH_ALL,      /* the result's bit 32 is the predicate */
	CUDAEMU_REDUCE_ADD,
	CUDAEMU_REDUCE_MIN,     /* signed */
	CUDAEMU_REDUCE_MAX,
	CUDAEMU_REDUCE_UMIN,    /* unsigned */
	CUDAEMU_REDUCE_UMAX,
	CUDAEMU_REDUCE_AND,
	CUDAEMU_REDUCE_OR,
	CUDAEMU_REDUCE_XOR,
};

/* One lane's part in a warp-level call: its value (zero-extended to 64
 * bits) and the call's argument (source lane, delta, lane mask) and width. */
extern "C" unsigned long long cudaemu_warp(int op, unsigned mask, unsigned long long value,
					   int arg, int width, const char *file, int line);

/*
 * A tile of more than a warp (cooperative groups' thread_block_tile<64> to
 * <1024>): the calling thread waits until every thread of its tile of
 * `size` (the block's threads size by size, as tiled_partition splits it)
 * has come to a call of the same kind (`what`, such as "sync()"), each
 * bringing a value; then each may read what any of them brought
 * (cudaemu_tile_value, by rank in the tile) until the tile meets again.
 */
extern "C" void cudaemu_tile_meet(unsigned size, unsigned long long value, const char *what,
				  const char *file, int line);
extern "C" unsigned long long cudaemu_tile_value(unsigned size, unsigned rank);

/* Fails the launch: the kernel reached what the emulator cannot run. */
extern "C" void cudaemu_unsupported(const char *what, const char *file, int line);

#define CUDAEMU_AT const char *cudaemu_file = __builtin_FILE(), int cudaemu_line = __builtin_LINE()
#define CUDAEMU_HERE cudaemu_file, cudaemu_line

namespace cudaemu {
/* Moves a value of up to 8 bytes through a warp-level call by its bits. */
template <typename T>
inline T warp_value(int op, unsigned mask, T v, int arg, int width, const char *file, int line)
{
	static_assert(sizeof(T) <= 8, "a warp-level call moves at most 8 bytes");
	unsigned long long bits = 0;
	__builtin_memcpy(&bits, &v, sizeof(T));
	bits = cudaemu_warp(op, mask, bits, arg, width, file, line);
	__builtin_memcpy(&v, &bits, sizeof(T));
	return v;
}
} // namespace cudaemu

inline void __syncwarp(unsigned mask = 0xffffffffu, CUDAEMU_AT)
{
	cudaemu_warp(CUDAEMU_SYNCWARP, mask, 0, 0, warpSize, CUDAEMU_HERE);
}

#define CUDAEMU_SHUFFLES(T)                                                                        \
	inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize, CUDAEMU_AT)   \
	{                                                                                          \
		return cudaemu::warp_value(CUDAEMU_SHFL_IDX, mask, var, srcLane, width,            \
					   CUDAEMU_HERE);                                          \
	}                                                                                          \
	inline T __shfl_up_sync(unsigned mask, T var, unsigned int delta, int width = warpSize,   \
				CUDAEMU_AT)                                                        \
	{                                                                                          \
		return cudaemu::warp_value(CUDAEMU_SHFL_UP, mask, var,                             \
					   delta > 32 ? 32 : (int)delta, width, CUDAEMU_HERE);     \
	}                                                                                          \
	inline T __shfl_down_sync(unsigned mask, T var, unsigned int delta, int width = warpSize, \
				  CUDAEMU_AT)                                                      \
	{                                                                                          \
		return cudaemu::warp_value(CUDAEMU_SHFL_DOWN, mask, var,                           \
					   delta > 32 ? 32 : (int)delta, width, CUDAEMU_HERE);     \
	}                                                                                          \
	inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize,        \
				 CUDAEMU_AT)                                                       \
	{                                                                                          \
		return cudaemu::warp_value(CUDAEMU_SHFL_XOR, mask, var, laneMask, width,           \
					   CUDAEMU_HERE);                                          \
	}
CUDAEMU_SHUFFLES(int)
CUDAEMU_SHUFFLES(unsigned int)
CUDAEMU_SHUFFLES(long)
CUDAEMU_SHUFFLES(unsigned long)
CUDAEMU_SHUFFLES(long long)
CUDAEMU_SHUFFLES(unsigned long long)
CUDAEMU_SHUFFLES(float)
CUDAEMU_SHUFFLES(double)
#undef CUDAEMU_SHUFFLES

inline unsigned __ballot_sync(unsigned mask, int pred, CUDAEMU_AT)
{
	return (unsigned)cudaemu_warp(CUDAEMU_BALLOT, mask, pred != 0, 0, warpSize, CUDAEMU_HERE);
}
inline int __any_sync(unsigned mask, int pred, CUDAEMU_AT)
{
	return (int)cudaemu_warp(CUDAEMU_ANY, mask, pred != 0, 0, warpSize, CUDAEMU_HERE);
}
inline int __all_sync(unsigned mask, int pred, CUDAEMU_AT)
{
	return (int)cudaemu_warp(CUDAEMU_ALL, mask, pred != 0, 0, warpSize, CUDAEMU_HERE);
}
inline int __uni_sync(unsigned mask, int pred, CUDAEMU_AT)
{
	return (int)cudaemu_warp(CUDAEMU_UNI, mask, pred != 0, 0, warpSize, CUDAEMU_HERE);
}
/* The lanes of the warp that reach this call together: see runtime/warps.cc. */
inline unsigned __activemask(CUDAEMU_AT)
{
	return (unsigned)cudaemu_warp(CUDAEMU_ACTIVEMASK, 0, 0, 0, warpSize, CUDAEMU_HERE);
}

#define CUDAEMU_MATCHES(T)                                                                         \
	inline unsigned __match_any_sync(unsigned mask, T value, CUDAEMU_AT)                       \
	{                                                                                          \
		unsigned long long bits = 0;                                                       \
		__builtin_memcpy(&bits, &value, sizeof(T));                                        \
		return (unsigned)cudaemu_warp(CUDAEMU_MATCH_ANY, mask, bits, 0, warpSize,         \
					      CUDAEMU_HERE);                                       \
	}                                                                                          \
	inline unsigned __match_all_sync(unsigned mask, T value, int *pred, CUDAEMU_AT)            \
	{                                                                                          \
		unsigned long long bits = 0;                                                       \
		__builtin_memcpy(&bits, &value, sizeof(T));                                        \
		bits = cudaemu_warp(CUDAEMU_MATCH_ALL, mask, bits, 0, warpSize, CUDAEMU_HERE);     \
		*pred = (int)(bits >> 32);                                                         \
		return (unsigned)bits;                                                             \
	}
CUDAEMU_MATCHES(int)
CUDAEMU_MATCHES(unsigned int)
CUDAEMU_MATCHES(long)
CUDAEMU_MATCHES(unsigned long)
CUDAEMU_MATCHES(long long)
CUDAEMU_MATCHES(unsigned long long)
CUDAEMU_MATCHES(float)
CUDAEMU_MATCHES(double)
#undef CUDAEMU_MATCHES

/* sm_80 and later, as the emulated H100 */
#define CUDAEMU_REDUCE(name, T, op)                                                                \
	inline T name(unsigned mask, T value, CUDAEMU_AT)                                          \
	{                                                                                          \
		return (T)cudaemu_warp(op, mask, (unsigned)value, 0, warpSize, CUDAEMU_HERE);      \
	}
CUDAEMU_REDUCE(__reduce_add_sync, unsigned, CUDAEMU_REDUCE_ADD)
CUDAEMU_REDUCE(__reduce_add_sync, int, CUDAEMU_REDUCE_ADD)
CUDAEMU_REDUCE(__reduce_min_sync, unsigned, CUDAEMU_REDUCE_UMIN)
CUDAEMU_REDUCE(__reduce_min_sync, int, CUDAEMU_REDUCE_MIN)
CUDAEMU_REDUCE(__reduce_max_sync, unsigned, CUDAEMU_REDUCE_UMAX)
CUDAEMU_REDUCE(__reduce_max_sync, int, CUDAEMU_REDUCE_MAX)
CUDAEMU_REDUCE(__reduce_and_sync, unsigned, CUDAEMU_REDUCE_AND)
CUDAEMU_REDUCE(__reduce_or_sync, unsigned, CUDAEMU_REDUCE_OR)
CUDAEMU_REDUCE(__reduce_xor_sync, unsigned, CUDAEMU_REDUCE_XOR)
#undef CUDAEMU_REDUCE

/* ------------------------------------------------ load and store intrinsics */
/*
 * __ldg and the cache-hinted loads and stores (sm_32_intrinsics.h declares
 * them for each scalar and vector type): the CPU has no such caches, so each
 * is a plain access. One template serves every type the toolkit lists; nvcc,
 * which compiles the submission first, rejects the types it does not.
 */
namespace cudaemu {
template <typename T> struct same {
	typedef T type;
};
} // namespace cudaemu
#define CUDAEMU_LOAD(name)                                                                         \
	template <typename T> inline T name(const T *ptr)                                          \
	{                                                                                          \
		return *ptr;                                                                       \
	}
#define CUDAEMU_STORE(name)                                                                        \
	template <typename T> inline void name(T *ptr, typename cudaemu::same<T>::type value)      \
	{                                                                                          \
		*ptr = value;                                                                      \
	}
CUDAEMU_LOAD(__ldg)
CUDAEMU_LOAD(__ldca)
CUDAEMU_LOAD(__ldcg)
CUDAEMU_LOAD(__ldcs)
CUDAEMU_LOAD(__ldlu)
CUDAEMU_LOAD(__ldcv)
CUDAEMU_STORE(__stwb)
CUDAEMU_STORE(__stcg)
CUDAEMU_STORE(__stcs)
CUDAEMU_STORE(__stwt)
#undef CUDAEMU_LOAD
#undef CUDAEMU_STORE

/* ------------------------------------------------------------- launches */
struct cudaemu_launch {
	const char *kernel;         /* the kernel as written at the launch */
	const char *file;
	int line;
	dim3 grid, block;
	size_t shmem;
	void (*run)(void *closure);  /* runs the kernel body of one CUDA thread */
	void *closure;
	const void *func;            /* the kernel's address; NULL for a template
				      * whose arguments the launch deduced */
};

/* Runs a launch to completion on the CPU; the errors it sets are CUDA's. */
extern "C" void cudaemu_launch_run(const cudaemu_launch *l);

namespace cudaemu {
template <typename... P> struct launcher {
	void (*kernel)(P...);
	cudaemu_launch l;

	/* The kernel's own parameter types: arguments convert as in a call to it
	 * (NULL to a pointer, an int to a float ...), once; each CUDA thread then
	 * gets its own copy. */
	void operator()(typename std::decay<P>::type... args)
	{
		struct closure {
			void (*kernel)(P...);
			std::tuple<typename std::decay<P>::type...> args;
		} c{kernel, {args...}};
		/* the closure is on the launching thread's stack, host memory a
		 * kernel of the submission's must not touch (the checking run
		 * reports it): its copy here is the emulator's, not checked */
		l.run = [](void *p) __attribute__((no_sanitize("thread"))) {
			closure *cp = static_cast<closure *>(p);
			std::tuple<typename std::decay<P>::type...> mine = cp->args;
			std::apply(cp->kernel, mine);
		};
		l.closure = &c;
		cudaemu_launch_run(&l);
	}
};

template <typename... P>
inline launcher<P...> launch(void (*kernel)(P...), const char *name, const char *file, int line,
			     dim3 grid, dim3 block, size_t shmem = 0, cudaStream_t = 0)
{
	return launcher<P...>{kernel, {name, file, line, grid, block, shmem, nullptr, nullptr,
				       (const void *)kernel}};
}

/*
 * A kernel named at a launch, as CUDAEMU_KERNEL gives it: `addr`, called
 * with any tag, returns the kernel's address when the name is one function
 * (or one template instance, k<float>), and cannot be called when it names
 * a template whose arguments the launch's arguments must deduce; `call`
 * then calls it with them, and the compiler deduces them as nvcc does.
 * (The tag makes the address a dependent expression, so that a name with
 * no address is a substitution failure, not an error.)
 */
template <typename A, typename C> struct kernel_ref {
	A addr;
	C call;
};
template <typename A, typename C> inline kernel_ref<A, C> make_kernel_ref(A addr, C call)
{
	return {addr, call};
}
template <typename Tag, typename... P> inline auto kernel_address(void (*k)(P...), Tag)
{
	return k;
}

/* The launch of a template kernel with deduced arguments: each CUDA thread
 * calls it with its own copy of the arguments, as they were passed. */
template <typename C> struct deduced_launcher {
	C call;
	cudaemu_launch l;

	template <typename... A> void operator()(A &&...args)
	{
		typedef std::tuple<typename std::decay<A>::type...> copies;
		struct closure {
			C *call;
			copies args;
		} c{&call, copies(std::forward<A>(args)...)};
		/* on the launching thread's stack, as launcher's: its copy unchecked */
		l.run = [](void *p) __attribute__((no_sanitize("thread"))) {
			closure *cp = static_cast<closure *>(p);
			copies mine = cp->args;
			std::apply(*cp->call, mine);
		};
		l.closure = &c;
		cudaemu_launch_run(&l);
	}
};

/*
 * The launch of a kernel that is one function: its arguments convert to its
 * parameters' types, as in a call to it; a launch that leaves out trailing
 * parameters calls it by name (call), which takes their defaults, as nvcc's
 * launch does (a kernel's default arguments: `float *totals = NULL`).
 */
template <typename C, typename... P> struct named_launcher : launcher<P...> {
	deduced_launcher<C> fewer;

	/* every argument: launcher's call, which converts each (NULL to a pointer) */
	using launcher<P...>::operator();
	template <typename... A, typename = typename std::enable_if<(sizeof...(A) <
								      sizeof...(P))>::type>
	void operator()(A &&...args)
	{
		fewer(std::forward<A>(args)...);
	}
};

template <typename C, typename... P>
inline named_launcher<C, P...> launch_named(void (*kernel)(P...), C call, const char *name,
					    const char *file, int line, dim3 grid, dim3 block,
					    size_t shmem)
{
	return {launch(kernel, name, file, line, grid, block, shmem),
		deduced_launcher<C>{call, {name, file, line, grid, block, shmem, nullptr, nullptr,
					   (const void *)kernel}}};
}

template <typename A, typename C>
inline auto launch(kernel_ref<A, C> k, const char *name, const char *file, int line, dim3 grid,
		   dim3 block, size_t shmem = 0, cudaStream_t = 0)
{
	if constexpr (std::is_invocable<A, int>::value)
		return launch_named(k.addr(0), k.call, name, file, line, grid, block, shmem);
	else
		return deduced_launcher<C>{k.call, {name, file, line, grid, block, shmem, nullptr,
						    nullptr, nullptr}};
}
} // namespace cudaemu

/* What the grader's rewrite puts at each launch for the kernel k. */
#define CUDAEMU_KERNEL(...)                                                                        \
	cudaemu::make_kernel_ref(                                                                  \
		[&](auto tag) -> decltype(cudaemu::kernel_address(__VA_ARGS__, tag)) {             \
			return cudaemu::kernel_address(__VA_ARGS__, tag);                          \
		},                                                                                 \
		[&](auto &...a) { __VA_ARGS__(a...); })

/* ------------------------------------------ file-scope extern __shared__ */
/*
 * `extern __shared__ T s[];` outside every function: the grader's rewrite
 * makes s a pointer of each OS thread (`static __thread T *s;`) and
 * registers, with this macro, how to set it; on every worker, before the
 * launch's blocks run there, the runtime points it at the worker's dynamic
 * shared memory, which each of them has for its own while it runs.
 */
extern "C" void cudaemu_file_shared(void (*set)(void *base));
namespace cudaemu {
struct file_shared {
	explicit file_shared(void (*set)(void *)) { cudaemu_file_shared(set); }
};
} // namespace cudaemu
#define CUDAEMU_FILE_SHARED(name)                                                                  \
	static cudaemu::file_shared cudaemu_file_shared_##name(                                    \
		[](void *base) { name = (decltype(name))base; })

#endif
