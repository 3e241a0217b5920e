/*
 * cudaemu.h - CUDA on the CPU: forced into every translation unit of an
 * emulated build (g++ -include cudaemu.h), after the grader has rewritten
 * each `k<<<grid, block[, shmem[, stream]]>>>(args)` into
 * `cudaemu::launch(CUDAEMU_KERNEL(k), "k", __FILE__, __LINE__, grid, block
 * ...)(args)` and each `extern __shared__ T s[]` into a pointer to the
 * dynamic shared memory.
 *
 * Owns: the CUDA qualifiers as macros, the index built-ins, __syncthreads,
 * atomics, the fast-math intrinsics, and the launch template. The runtime
 * API itself (cudaMalloc ...) is declared by the CUDA Toolkit's own
 * cuda_runtime.h and defined by runtime.cc, so types and error codes are
 * exactly CUDA's.
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
#define __threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_block() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __syncwarp(...) ((void)0)

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
#define __sincosf(x, s, c) sincosf(x, s, c)

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
		l.run = [](void *p) {
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
		l.run = [](void *p) {
			closure *cp = static_cast<closure *>(p);
			copies mine = cp->args;
			std::apply(*cp->call, mine);
		};
		l.closure = &c;
		cudaemu_launch_run(&l);
	}
};

template <typename A, typename C>
inline auto launch(kernel_ref<A, C> k, const char *name, const char *file, int line, dim3 grid,
		   dim3 block, size_t shmem = 0, cudaStream_t stream = 0)
{
	if constexpr (std::is_invocable<A, int>::value)
		return launch(k.addr(0), name, file, line, grid, block, shmem, stream);
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
