/*
 * check_emu.cu - the CPU emulator's own tests: each CUDA construct the labs
 * use, and each diagnostic, against a known answer. Built like a submission
 * (cudalab rewrite, then g++ on cudaemu.h) and run by `make check`.
 */
/* first, before check.h defines a macro named fail. The C++ headers build,
 * after cudaemu.h: libstdc++ spells __attribute__((__noinline__)) in some */
#include <iostream>
#include <functional>
#include <future>
#include <memory>
#include <random>
#include <thread>
#include <check.h>
#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

extern "C" const char *cudaemu_error_detail(void);

#define OK(expr) ck_assert_msg((expr) == cudaSuccess, "%s: %s", #expr, cudaGetErrorName(expr))

/* ------------------------------------------------------------ indexing */

struct ids {
	unsigned t[3], b[3], bd[3], gd[3];
	int global;
};

__global__ void write_ids(ids *out)
{
	int tpb = blockDim.x * blockDim.y * blockDim.z;
	int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
	int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	int g = block * tpb + thread;
	out[g] = ids{{threadIdx.x, threadIdx.y, threadIdx.z}, {blockIdx.x, blockIdx.y, blockIdx.z},
		     {blockDim.x, blockDim.y, blockDim.z}, {gridDim.x, gridDim.y, gridDim.z}, g};
}

/* __noinline__ as CUDA code writes it, beside the C++ headers above */
static __device__ __noinline__ int twice_plus_one(int x)
{
	return 2 * x + 1;
}

__global__ void odd_numbers(int *out)
{
	out[threadIdx.x] = twice_plus_one((int)threadIdx.x);
}

__global__ void odd_numbers_grid(int *out)
{
	out[blockIdx.x * blockDim.x + threadIdx.x] =
		twice_plus_one((int)(blockIdx.x * blockDim.x + threadIdx.x));
}

START_TEST(test_emu_noinline_function)
{
	int *d, h[32];
	OK(cudaMalloc(&d, sizeof(h)));
	odd_numbers<<<1, 32>>>(d);
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq(h[i], 2 * i + 1);
	OK(cudaFree(d));
}
END_TEST

/* half precision (the toolkit's header, its host code), and a clock that grows */
__global__ void half_plus_one(__half *h, long long *ticks)
{
	long long t0 = clock64();
	h[threadIdx.x] = __hadd(h[threadIdx.x], __float2half(1.0f));
	__nanosleep(100);
	ticks[threadIdx.x] = clock64() - t0;
}

START_TEST(test_emu_half_and_clock64)
{
	__half h[32], *d;
	long long t[32], *dt;
	for (int i = 0; i < 32; i++)
		h[i] = __float2half(0.5f * i);
	OK(cudaMalloc(&d, sizeof(h)));
	OK(cudaMalloc(&dt, sizeof(t)));
	OK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
	half_plus_one<<<1, 32>>>(d, dt);
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	OK(cudaMemcpy(t, dt, sizeof(t), cudaMemcpyDeviceToHost));
	for (int i = 0; i < 32; i++) {
		ck_assert_float_eq(__half2float(h[i]), 0.5f * i + 1.0f);
		ck_assert(t[i] >= 0);
	}
	OK(cudaFree(d));
	OK(cudaFree(dt));
}
END_TEST

START_TEST(test_emu_index_builtins)
{
	dim3 grid(2, 3, 2), block(4, 2, 3);
	int n = 2 * 3 * 2 * 4 * 2 * 3;
	ids *d, *h = (ids *)calloc(n, sizeof(ids));
	OK(cudaMalloc(&d, n * sizeof(ids)));
	write_ids<<<grid, block>>>(d);
	OK(cudaGetLastError());
	OK(cudaMemcpy(h, d, n * sizeof(ids), cudaMemcpyDeviceToHost));
	for (int g = 0; g < n; g++) {
		int thread = g % 24, block_ = g / 24;
		ck_assert_int_eq(h[g].global, g);
		ck_assert_uint_eq(h[g].t[0], thread % 4);
		ck_assert_uint_eq(h[g].t[1], thread / 4 % 2);
		ck_assert_uint_eq(h[g].t[2], thread / 8);
		ck_assert_uint_eq(h[g].b[0], block_ % 2);
		ck_assert_uint_eq(h[g].b[1], block_ / 2 % 3);
		ck_assert_uint_eq(h[g].b[2], block_ / 6);
		ck_assert_uint_eq(h[g].bd[2], 3);
		ck_assert_uint_eq(h[g].gd[1], 3);
	}
	OK(cudaFree(d));
	free(h);
}
END_TEST

/* ------------------------------------------------- qualifiers, shared memory */

__host__ __device__ __forceinline__ int twice(int x)
{
	return 2 * x;
}

__device__ int add_one(int x)
{
	return x + 1;
}

/* Reverses each block's slice through static shared memory: needs the barrier. */
__global__ void __launch_bounds__(256) reverse_block(const int *__restrict__ in, int *out)
{
	__shared__ int s[256];
	int t = threadIdx.x, base = blockIdx.x * blockDim.x;
	s[t] = in[base + t];
	__syncthreads();
	out[base + t] = add_one(twice(s[blockDim.x - 1 - t]));
}

static void run_reverse(int *h_out, const int *h_in, int n)
{
	int *d_in, *d_out;
	OK(cudaMalloc(&d_in, n * sizeof(int)));
	OK(cudaMalloc(&d_out, n * sizeof(int)));
	OK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
	reverse_block<<<n / 256, 256>>>(d_in, d_out);
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
	OK(cudaFree(d_in));
	OK(cudaFree(d_out));
}

START_TEST(test_emu_static_shared_and_barrier)
{
	int n = 1024, in[1024], out[1024];
	for (int i = 0; i < n; i++)
		in[i] = i;
	run_reverse(out, in, n);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(out[i], 2 * ((i / 256) * 256 + 255 - i % 256) + 1);
	ck_assert_int_eq(twice(21), 42);   /* __host__ __device__ on the host */
}
END_TEST

/* The same result whatever order the threads of a pass run in. */
START_TEST(test_emu_reverse_order_same_result)
{
	int n = 512, in[512], fwd[512], rev[512];
	for (int i = 0; i < n; i++)
		in[i] = 3 * i;
	run_reverse(fwd, in, n);
	setenv("CUDAEMU_REVERSE", "1", 1);
	run_reverse(rev, in, n);
	unsetenv("CUDAEMU_REVERSE");
	ck_assert_int_eq(memcmp(fwd, rev, sizeof(fwd)), 0);
}
END_TEST

/* A shared scalar and a volatile shared array, written by one thread, read by all. */
__global__ void shared_scalar(int *out)
{
	__shared__ int leader;
	__shared__ volatile int flags[4];
	if (threadIdx.x == 0) {
		leader = 7;
		for (int i = 0; i < 4; i++)
			flags[i] = i * i;
	}
	__syncthreads();
	out[threadIdx.x] = leader + flags[threadIdx.x % 4];
}

START_TEST(test_emu_shared_scalar_and_volatile)
{
	int *d, h[32];
	OK(cudaMalloc(&d, sizeof(h)));
	shared_scalar<<<1, 32>>>(d);
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int t = 0; t < 32; t++)
		ck_assert_int_eq(h[t], 7 + (t % 4) * (t % 4));
}
END_TEST

/* A tree reduction in dynamic shared memory (the third launch argument). */
__global__ void block_sum(const float *in, float *out)
{
	extern __shared__ float part[];
	unsigned t = threadIdx.x;
	part[t] = in[blockIdx.x * blockDim.x + t];
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
		if (t < s)
			part[t] += part[t + s];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = part[0];
}

START_TEST(test_emu_dynamic_shared)
{
	const int blocks = 8, threads = 128, n = blocks * threads;
	float h[1024], sums[8], *d_in, *d_out;
	for (int i = 0; i < n; i++)
		h[i] = (float)(i % 7);
	OK(cudaMalloc(&d_in, n * sizeof(float)));
	OK(cudaMalloc(&d_out, blocks * sizeof(float)));
	OK(cudaMemcpy(d_in, h, sizeof(h), cudaMemcpyHostToDevice));
	block_sum<<<blocks, threads, threads * sizeof(float)>>>(d_in, d_out);
	OK(cudaMemcpy(sums, d_out, sizeof(sums), cudaMemcpyDeviceToHost));
	for (int b = 0; b < blocks; b++) {
		float want = 0;
		for (int i = 0; i < threads; i++)
			want += h[b * threads + i];
		ck_assert_float_eq(sums[b], want);
	}
	cudaFree(d_in);
	cudaFree(d_out);
}
END_TEST

/* ------------------------------------------- symbols and managed memory */

__constant__ float coeff[4];
__device__ int result_sym;

__global__ void use_symbols(float x)
{
	result_sym = (int)(coeff[0] + coeff[1] * x + coeff[2] * x * x + coeff[3]);
}

START_TEST(test_emu_constant_and_device_symbols)
{
	float c[4] = {1, 2, 3, 4};
	int r = 0;
	OK(cudaMemcpyToSymbol(coeff, c, sizeof(c)));
	use_symbols<<<1, 1>>>(2.0f);
	OK(cudaMemcpyFromSymbol(&r, result_sym, sizeof(r)));
	ck_assert_int_eq(r, 1 + 4 + 12 + 4);
}
END_TEST

__global__ void double_all(int *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] *= 2;
}

START_TEST(test_emu_managed_memory_and_meminfo)
{
	int *m;
	size_t free0, free1, total;
	OK(cudaMemGetInfo(&free0, &total));
	ck_assert(total >= 80ull << 30);
	OK(cudaMallocManaged(&m, 1000 * sizeof(int)));
	OK(cudaMemGetInfo(&free1, &total));
	ck_assert_uint_eq(free0 - free1, 1000 * sizeof(int));
	for (int i = 0; i < 1000; i++)
		m[i] = i;   /* the host may touch managed memory */
	double_all<<<(1000 + 127) / 128, 128>>>(m, 1000);
	OK(cudaDeviceSynchronize());
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(m[i], 2 * i);
	OK(cudaFree(m));
	OK(cudaMemGetInfo(&free1, &total));
	ck_assert_uint_eq(free1, free0);
}
END_TEST

/* ------------------------------------------------------- atomics, math */

__global__ void atomics(int *hist, float *fsum, unsigned *mx, unsigned *mn, int *cas, unsigned *inc)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	atomicAdd(&hist[i % 10], 1);
	atomicAdd(fsum, 0.5f);
	atomicMax(mx, (unsigned)i);
	atomicMin(mn, (unsigned)i + 5);
	atomicCAS(cas, 0, i + 1);   /* only the first one wins */
	atomicInc(inc, 7);          /* wraps to 0 after 7 */
}

START_TEST(test_emu_atomics)
{
	int *hist, *cas;
	float *fsum;
	unsigned *mx, *mn, *inc;
	OK(cudaMallocManaged(&hist, 10 * sizeof(int)));
	OK(cudaMallocManaged(&fsum, sizeof(float)));
	OK(cudaMallocManaged(&mx, sizeof(unsigned)));
	OK(cudaMallocManaged(&mn, sizeof(unsigned)));
	OK(cudaMallocManaged(&cas, sizeof(int)));
	OK(cudaMallocManaged(&inc, sizeof(unsigned)));
	memset(hist, 0, 10 * sizeof(int));
	*fsum = 0, *mx = 0, *mn = ~0u, *cas = 0, *inc = 0;
	atomics<<<40, 256>>>(hist, fsum, mx, mn, cas, inc);
	OK(cudaDeviceSynchronize());
	for (int b = 0; b < 10; b++)
		ck_assert_int_eq(hist[b], 1024);
	ck_assert_float_eq(*fsum, 5120.0f);
	ck_assert_uint_eq(*mx, 10239);
	ck_assert_uint_eq(*mn, 5);
	ck_assert(*cas >= 1 && *cas <= 10240);
	ck_assert_uint_eq(*inc, 10240 % 8);
}
END_TEST

__global__ void math(float *out, float x)
{
	out[0] = __expf(x);
	out[1] = __fdividef(x, 4.0f);
	out[2] = rsqrtf(x);
	out[3] = (float)min(3, 7) + max(2.5f, 1.0f);
	out[4] = (float)__popc(0xF0F0u) + (float)__clz(1) + (float)__ffs(8);
	out[5] = __saturatef(x);
	out[6] = sqrtf(x) + sinf(x) + __logf(x);
	out[7] = __int_as_float(__float_as_int(x));
}

START_TEST(test_emu_math_and_intrinsics)
{
	float *d, h[8], x = 2.0f;
	OK(cudaMalloc(&d, sizeof(h)));
	math<<<1, 1>>>(d, x);
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	ck_assert_float_eq_tol(h[0], expf(x), 1e-5f);
	ck_assert_float_eq(h[1], 0.5f);
	ck_assert_float_eq_tol(h[2], 1.0f / sqrtf(x), 1e-6f);
	ck_assert_float_eq(h[3], 5.5f);
	ck_assert_float_eq(h[4], 8 + 31 + 4);
	ck_assert_float_eq(h[5], 1.0f);
	ck_assert_float_eq_tol(h[6], sqrtf(x) + sinf(x) + logf(x), 1e-5f);
	ck_assert_float_eq(h[7], x);
}
END_TEST

__global__ void hello(int v)
{
	printf("hello from thread %u of block %u: %d\n", threadIdx.x, blockIdx.x, v);
}

START_TEST(test_emu_printf_from_kernels)
{
	char path[] = "/tmp/cudaemu-printf-XXXXXX", buf[4096] = "";
	int fd = mkstemp(path);
	fflush(stdout);
	int saved = dup(1);
	dup2(fd, 1);
	hello<<<2, 3>>>(42);
	cudaDeviceSynchronize();
	fflush(stdout);
	dup2(saved, 1);
	lseek(fd, 0, SEEK_SET);
	ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	unlink(path);
	ck_assert_ptr_nonnull(strstr(buf, "hello from thread 2 of block 1: 42"));
	ck_assert_ptr_nonnull(strstr(buf, "hello from thread 0 of block 0: 42"));
}
END_TEST

START_TEST(test_emu_events_and_device)
{
	cudaEvent_t a, b;
	float ms = -1;
	cudaDeviceProp p;
	int n, v;
	OK(cudaEventCreate(&a));
	OK(cudaEventCreate(&b));
	OK(cudaEventRecord(a));
	OK(cudaEventRecord(b));
	OK(cudaEventSynchronize(b));
	OK(cudaEventElapsedTime(&ms, a, b));
	ck_assert(ms >= 0);
	OK(cudaEventDestroy(a));
	OK(cudaEventDestroy(b));
	OK(cudaGetDeviceCount(&n));
	ck_assert_int_eq(n, 1);
	OK(cudaGetDeviceProperties(&p, 0));
	ck_assert_int_eq(p.multiProcessorCount, 132);
	ck_assert_int_eq(p.major * 10 + p.minor, 90);
	ck_assert_int_eq(p.maxThreadsPerBlock, 1024);
	ck_assert_ptr_nonnull(strstr(p.name, "emulated"));
	OK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
	ck_assert_int_eq(v, 2048);
	ck_assert_str_eq(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
	ck_assert_str_eq(cudaGetErrorString(cudaErrorInvalidConfiguration),
			 "invalid configuration argument");
}
END_TEST

/* --------------------------------------------------------- launch rules */

__global__ void nothing(int *p)
{
	if (p)
		*p = 1;
}

START_TEST(test_emu_invalid_launch_configurations)
{
	const dim3 bad_blocks[] = {dim3(1025), dim3(32, 33), dim3(1, 1, 65), dim3(0, 1, 1)};
	for (const dim3 &b : bad_blocks) {
		nothing<<<1, b>>>(NULL);
		ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidConfiguration);
		/* not sticky: cleared by reading it */
		ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
	}
	nothing<<<dim3(1, 65536), 1>>>(NULL);
	ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidConfiguration);
	nothing<<<dim3(0), 1>>>(NULL);   /* as CUDA 13 on a GPU */
	ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
	nothing<<<1, 1, 64 * 1024>>>(NULL);
	ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
	nothing<<<2, dim3(32, 32)>>>(NULL);   /* 1024 threads is allowed */
	OK(cudaGetLastError());
	OK(cudaDeviceSynchronize());
}
END_TEST

/* The process's data limit (RLIMIT_DATA, as the grader sets it) to what it
 * uses now and extra bytes more: /proc/self/status's VmData. */
static void limit_data_to_now_plus(size_t extra)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long kb = 0;
	ck_assert(f != NULL);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmData: %lu kB", &kb) == 1)
			break;
	fclose(f);
	ck_assert_uint_gt(kb, 0);
	struct rlimit r = {kb * 1024 + extra, kb * 1024 + extra};
	ck_assert_int_eq(setrlimit(RLIMIT_DATA, &r), 0);
}

/* Asked for more workers than the memory limit has room for (each takes
 * 68 MB of fiber stacks; 48 on a 64-CPU machine overran the grader's 4 GB),
 * a launch runs on those there is room for, with the same result. */
START_TEST(test_emu_workers_fit_the_memory_limit)
{
	const int n = 64 * 1024;
	int *d_out, *h_out = (int *)malloc(n * sizeof(int));
	ck_assert(h_out != NULL);
	OK(cudaMalloc(&d_out, n * sizeof(int)));
	setenv("CUDAEMU_WORKERS", "64", 1);
	limit_data_to_now_plus(600ul << 20);
	odd_numbers_grid<<<n / 1024, 1024>>>(d_out);
	OK(cudaGetLastError());
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(h_out[i], 2 * i + 1);
	unsetenv("CUDAEMU_WORKERS");
	free(h_out);
}
END_TEST

/* With no room for even one worker, the launch fails as a GPU's without
 * room for the kernel does; the test process does not abort. */
START_TEST(test_emu_no_room_for_a_worker_fails_the_launch)
{
	int *d_out;
	OK(cudaMalloc(&d_out, 1024 * sizeof(int)));
	limit_data_to_now_plus(1ul << 20);
	odd_numbers_grid<<<1, 1024>>>(d_out);
	ck_assert_int_eq(cudaGetLastError(), cudaErrorLaunchOutOfResources);
	ck_assert_msg(strstr(cudaemu_error_detail(), "no memory left"), "%s",
		      cudaemu_error_detail());
}
END_TEST

/* A CUDA thread's stack is 16-byte aligned, as the x86-64 ABI requires:
 * aligned SSE spills (and an aligned local) must not fault. */
__global__ void aligned_locals(int *ok)
{
	alignas(16) float v[4] = {1, 2, 3, 4};
	volatile uintptr_t a = (uintptr_t)v;
	ok[threadIdx.x] = (a % 16 == 0) && v[3] == 4;
}

START_TEST(test_emu_stack_alignment)
{
	int *d, h[64];
	OK(cudaMalloc(&d, sizeof(h)));
	aligned_locals<<<1, 64>>>(d);
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int t = 0; t < 64; t++)
		ck_assert_int_eq(h[t], 1);
}
END_TEST

/* ------------------------------------------------ constructs students use */

/* A template kernel launched without its template arguments: they are
 * deduced from the launch's arguments, as nvcc deduces them. */
template <typename T> __global__ void axpy(const T *x, T *y, T a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] += a * x[i];
}

/* Overloads, told apart by the launch's arguments. */
__global__ void fill(float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = 1.5f;
}

__global__ void fill(int *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = 7;
}

template <typename T> static void run_axpy(T a)
{
	const int n = 300;
	T h_x[n], h_y[n], *d_x, *d_y;
	for (int i = 0; i < n; i++)
		h_x[i] = (T)i, h_y[i] = (T)1;
	OK(cudaMalloc(&d_x, sizeof(h_x)));
	OK(cudaMalloc(&d_y, sizeof(h_y)));
	OK(cudaMemcpy(d_x, h_x, sizeof(h_x), cudaMemcpyHostToDevice));
	OK(cudaMemcpy(d_y, h_y, sizeof(h_y), cudaMemcpyHostToDevice));
	axpy<<<(n + 127) / 128, 128>>>(d_x, d_y, a, n);
	OK(cudaGetLastError());
	OK(cudaMemcpy(h_y, d_y, sizeof(h_y), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++)
		ck_assert_msg(h_y[i] == (T)1 + a * (T)i, "y[%d] = %g, expected %g", i, (double)h_y[i],
			      (double)((T)1 + a * (T)i));
	OK(cudaFree(d_x));
	OK(cudaFree(d_y));
}

START_TEST(test_emu_template_kernel_deduced)
{
	run_axpy<float>(2.0f);
	run_axpy<double>(-0.5);
	run_axpy<int>(3);

	float *f;
	int *n, h_n[40];
	float h_f[40];
	OK(cudaMalloc(&f, sizeof(h_f)));
	OK(cudaMalloc(&n, sizeof(h_n)));
	fill<<<1, 64>>>(f, 40);
	fill<<<1, 64>>>(n, 40);
	OK(cudaMemcpy(h_f, f, sizeof(h_f), cudaMemcpyDeviceToHost));
	OK(cudaMemcpy(h_n, n, sizeof(h_n), cudaMemcpyDeviceToHost));
	ck_assert_float_eq(h_f[39], 1.5f);
	ck_assert_int_eq(h_n[39], 7);
}
END_TEST

/* Each thread writes its share of all the dynamic shared memory, then sums
 * it all: right only when every byte the launch asked for is there. */
__global__ void sum_dynamic(int *out, int words)
{
	extern __shared__ int buf[];
	for (int i = threadIdx.x; i < words; i += blockDim.x)
		buf[i] = i % 5;
	__syncthreads();
	if (threadIdx.x == 0) {
		int sum = 0;
		for (int i = 0; i < words; i++)
			sum += buf[i];
		out[blockIdx.x] = sum;
	}
}

template <int TILE> __global__ void sum_dynamic_t(int *out, int words)
{
	extern __shared__ int buf[];
	for (int i = threadIdx.x; i < words; i += TILE)
		buf[i] = 1;
	__syncthreads();
	if (threadIdx.x == 0) {
		int sum = 0;
		for (int i = 0; i < words; i++)
			sum += buf[i];
		out[0] = sum;
	}
}

/* The same, in a template whose arguments the launch deduces. */
template <typename T> __global__ void sum_dynamic_d(T *out, int words)
{
	extern __shared__ int buf[];
	for (int i = threadIdx.x; i < words; i += blockDim.x)
		buf[i] = 2;
	__syncthreads();
	if (threadIdx.x == 0) {
		T sum = 0;
		for (int i = 0; i < words; i++)
			sum += buf[i];
		out[0] = sum;
	}
}

static int expected_sum(int words)
{
	int sum = 0;
	for (int i = 0; i < words; i++)
		sum += i % 5;
	return sum;
}

START_TEST(test_emu_dynamic_shared_opt_in)
{
	int *d, h[2];
	const size_t big = 100 * 1024, most = 232448;
	OK(cudaMalloc(&d, sizeof(h)));

	/* over 48 KiB without opting in: refused, saying how to opt in */
	sum_dynamic<<<2, 128, big>>>(d, (int)(big / 4));
	ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
	ck_assert_msg(strstr(cudaemu_error_detail(), "cudaFuncSetAttribute(sum_dynamic, "
			     "cudaFuncAttributeMaxDynamicSharedMemorySize, 102400)"), "%s",
		      cudaemu_error_detail());

	/* a template whose arguments the launch deduces: its instance opts in */
	sum_dynamic_d<<<1, 64, 64 * 1024>>>(d, 16 * 1024);
	ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
	OK(cudaFuncSetAttribute(sum_dynamic_d<int>, cudaFuncAttributeMaxDynamicSharedMemorySize,
				64 * 1024));
	sum_dynamic_d<<<1, 64, 64 * 1024>>>(d, 16 * 1024);
	OK(cudaGetLastError());
	OK(cudaMemcpy(h, d, sizeof(int), cudaMemcpyDeviceToHost));
	ck_assert_int_eq(h[0], 2 * 16 * 1024);

	/* opted in (the kernel itself, not a const void *): accepted and all there */
	OK(cudaFuncSetAttribute(sum_dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)big));
	sum_dynamic<<<2, 128, big>>>(d, (int)(big / 4));
	OK(cudaGetLastError());
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	ck_assert_int_eq(h[0], expected_sum((int)(big / 4)));
	ck_assert_int_eq(h[1], expected_sum((int)(big / 4)));

	/* more than it opted in to: refused, and the message does not tell the
	 * student to call what they called */
	sum_dynamic<<<1, 128, big + 16>>>(d, 1);
	ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
	ck_assert_msg(strstr(cudaemu_error_detail(), "cudaFuncAttributeMaxDynamicSharedMemorySize is "
			     "102400 bytes"), "%s",
		      cudaemu_error_detail());

	/* up to the H100's 227 KiB, and not a byte more */
	ck_assert_int_eq(cudaFuncSetAttribute(sum_dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize,
					      (int)most + 1), cudaErrorInvalidValue);
	ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);   /* as any failed call */
	OK(cudaFuncSetAttribute((const void *)sum_dynamic,
				cudaFuncAttributeMaxDynamicSharedMemorySize, (int)most));
	sum_dynamic<<<1, 1024, most>>>(d, (int)(most / 4));
	OK(cudaGetLastError());
	OK(cudaMemcpy(h, d, sizeof(int), cudaMemcpyDeviceToHost));
	ck_assert_int_eq(h[0], expected_sum((int)(most / 4)));
	sum_dynamic<<<1, 32, most + 4>>>(d, 1);
	ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
	ck_assert_msg(strstr(cudaemu_error_detail(), "232448 bytes (227 KiB)"), "%s",
		      cudaemu_error_detail());

	cudaFuncAttributes a;
	OK(cudaFuncGetAttributes(&a, sum_dynamic));
	ck_assert_int_eq(a.maxDynamicSharedSizeBytes, (int)most);
	ck_assert_int_eq(a.maxThreadsPerBlock, 1024);

	/* a template instance opts in as itself; another instance has not */
	OK(cudaFuncSetAttribute(sum_dynamic_t<64>, cudaFuncAttributeMaxDynamicSharedMemorySize,
				64 * 1024));
	sum_dynamic_t<64><<<1, 64, 64 * 1024>>>(d, 16 * 1024);
	OK(cudaGetLastError());
	OK(cudaMemcpy(h, d, sizeof(int), cudaMemcpyDeviceToHost));
	ck_assert_int_eq(h[0], 16 * 1024);
	OK(cudaFuncGetAttributes(&a, sum_dynamic_t<64>));
	ck_assert_int_eq(a.maxDynamicSharedSizeBytes, 64 * 1024);
	sum_dynamic_t<32><<<1, 32, 64 * 1024>>>(d, 16 * 1024);
	ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
	OK(cudaFuncSetAttribute(sum_dynamic_t<32>, cudaFuncAttributePreferredSharedMemoryCarveout,
				cudaSharedmemCarveoutMaxShared));
	OK(cudaFuncGetAttributes(&a, sum_dynamic_t<32>));
	ck_assert_int_eq(a.preferredShmemCarveout, 100);
	ck_assert_int_eq(a.maxDynamicSharedSizeBytes, 48 * 1024);
}
END_TEST

START_TEST(test_emu_static_shared_size_reported)
{
	int *d;
	cudaFuncAttributes a;
	OK(cudaMalloc(&d, 1024 * sizeof(int)));
	reverse_block<<<4, 256>>>(d, d);
	OK(cudaDeviceSynchronize());
	OK(cudaFuncGetAttributes(&a, reverse_block));
	ck_assert_uint_eq(a.sharedSizeBytes, 256 * sizeof(int));
	ck_assert_int_eq(a.maxDynamicSharedSizeBytes, 48 * 1024 - 256 * (int)sizeof(int));
	/* occupancy: 256-thread blocks, 8 by threads; 1 KiB more shared each */
	int blocks;
	OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse_block, 256, 0));
	ck_assert_int_eq(blocks, 8);
	OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse_block, 64, 100 * 1024));
	ck_assert_int_eq(blocks, 2);
	int grid_min, block_best;
	OK(cudaOccupancyMaxPotentialBlockSize(&grid_min, &block_best, reverse_block));
	ck_assert_int_gt(block_best, 0);
}
END_TEST

/* Dynamic shared memory declared outside every function, as many course
 * kernels declare it; the launch spelled as the Visual Studio template
 * spells it. */
extern __shared__ float file_part[];

__global__ void block_sum_file_scope(const float *in, float *out)
{
	unsigned t = threadIdx.x;
	file_part[t] = in[blockIdx.x * blockDim.x + t];
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
		if (t < s)
			file_part[t] += file_part[t + s];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = file_part[0];
}

static void run_block_sum_file_scope(int blocks, int threads)
{
	int n = blocks * threads;
	float *h = (float *)malloc(n * sizeof(float)), sums[64], *d_in, *d_out;
	for (int i = 0; i < n; i++)
		h[i] = (float)(i % 11);
	OK(cudaMalloc(&d_in, n * sizeof(float)));
	OK(cudaMalloc(&d_out, blocks * sizeof(float)));
	OK(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice));
	block_sum_file_scope<< <blocks, threads, threads * sizeof(float) >> >(d_in, d_out);
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(sums, d_out, blocks * sizeof(float), cudaMemcpyDeviceToHost));
	for (int b = 0; b < blocks; b++) {
		float want = 0;
		for (int i = 0; i < threads; i++)
			want += h[b * threads + i];
		ck_assert_msg(sums[b] == want, "block %d: sum %g, expected %g (%d threads)", b,
			      sums[b], want, threads);
	}
	cudaFree(d_in);
	cudaFree(d_out);
	free(h);
}

START_TEST(test_emu_file_scope_extern_shared)
{
	/* two launches of different sizes: the pointer follows each */
	run_block_sum_file_scope(8, 128);
	run_block_sum_file_scope(5, 512);
	setenv("CUDAEMU_WORKERS", "1", 1);
	run_block_sum_file_scope(3, 64);
	unsetenv("CUDAEMU_WORKERS");
}
END_TEST

/* Writes far past p from thread 0: a fault, sticky until a reset. */
__global__ void poke(float *p, long off)
{
	if (threadIdx.x == 0)
		p[off] = 1.0f;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
START_TEST(test_emu_more_runtime_api)
{
	/* pitched 2D memory: rows padded, copied and filled row by row */
	const size_t w = 37, hgt = 5;
	float h[hgt][w], back[hgt][w], *d;
	size_t pitch;
	for (size_t r = 0; r < hgt; r++)
		for (size_t c = 0; c < w; c++)
			h[r][c] = (float)(r * 100 + c);
	OK(cudaMallocPitch((void **)&d, &pitch, w * sizeof(float), hgt));
	ck_assert_uint_eq(pitch, 512);
	OK(cudaMemcpy2D(d, pitch, h, w * sizeof(float), w * sizeof(float), hgt,
			cudaMemcpyHostToDevice));
	OK(cudaMemset2D((char *)d + pitch, pitch, 0, 4 * sizeof(float), 2));
	OK(cudaMemcpy2D(back, w * sizeof(float), d, pitch, w * sizeof(float), hgt,
			cudaMemcpyDeviceToHost));
	ck_assert_float_eq(back[0][36], 36.0f);
	ck_assert_float_eq(back[1][3], 0.0f);
	ck_assert_float_eq(back[1][4], 104.0f);
	ck_assert_float_eq(back[2][0], 0.0f);
	ck_assert_float_eq(back[4][36], 436.0f);
	ck_assert_int_eq(cudaMemcpy2D(d, 8, h, w * sizeof(float), w * sizeof(float), hgt,
				      cudaMemcpyHostToDevice), cudaErrorInvalidPitchValue);
	ck_assert_int_eq(cudaMemcpy2D(d, pitch, h, w * sizeof(float), w * sizeof(float), hgt + 1,
				      cudaMemcpyHostToDevice), cudaErrorInvalidValue);
	ck_assert_ptr_nonnull(strstr(cudaemu_error_detail(), "cudaMemcpy2D of 6 rows of 148 bytes: "
						       "the destination"));

	/* pinned host memory */
	int *pinned, *mapped;
	OK(cudaHostAlloc((void **)&pinned, 64 * sizeof(int), cudaHostAllocMapped));
	OK(cudaHostGetDevicePointer((void **)&mapped, pinned, 0));
	pinned[63] = 5;
	ck_assert_int_eq(mapped[63], 5);
	OK(cudaFreeHost(pinned));

	/* preferences that change nothing on the CPU, accepted as a GPU does */
	enum cudaFuncCache cache;
	enum cudaSharedMemConfig banks;
	OK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
	OK(cudaDeviceGetCacheConfig(&cache));
	ck_assert_int_eq(cache, cudaFuncCachePreferShared);
	OK(cudaFuncSetCacheConfig(sum_dynamic, cudaFuncCachePreferL1));
	OK(cudaFuncSetCacheConfig(sum_dynamic_t<64>, cudaFuncCachePreferL1));
	OK(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte));
	OK(cudaDeviceGetSharedMemConfig(&banks));
	ck_assert_int_eq(banks, cudaSharedMemBankSizeFourByte);
	OK(cudaFuncSetSharedMemConfig(sum_dynamic, cudaSharedMemBankSizeFourByte));

	/* the one device, and the clocks CUDA 13 reads as attributes */
	int dev = -1, v;
	OK(cudaSetDevice(0));
	OK(cudaGetDevice(&dev));
	ck_assert_int_eq(dev, 0);
	ck_assert_int_eq(cudaSetDevice(1), cudaErrorInvalidDevice);
	OK(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, 0));
	ck_assert_int_gt(v, 0);
	OK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
	ck_assert_int_eq(v, 232448);
	cudaDeviceProp p;
	OK(cudaGetDeviceProperties(&p, 0));
	ck_assert_uint_eq(p.sharedMemPerBlockOptin, 232448);
	ck_assert_uint_eq(p.memPitch, 2147483647);

	/* a reset frees everything and forgets a sticky error */
	size_t free0, free1, total;
	OK(cudaMemGetInfo(&free0, &total));
	poke<<<1, 32>>>(d, 1 << 20);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
	OK(cudaDeviceReset());
	OK(cudaMemGetInfo(&free1, &total));
	ck_assert_uint_eq(free1, total);
	ck_assert_uint_eq(free1 - free0, pitch * hgt);
	OK(cudaMalloc(&d, 16));
}
END_TEST
#pragma GCC diagnostic pop

/* ----------------------------------------------------------- diagnostics */

__global__ void two_barriers(int *p)
{
	if (threadIdx.x % 2 == 0) {
		__syncthreads();
	} else {
		__syncthreads();
	}
	p[threadIdx.x] = 1;
}

START_TEST(test_emu_barrier_divergence_is_reported)
{
	int *d;
	OK(cudaMalloc(&d, 64 * sizeof(int)));
	two_barriers<<<1, 64>>>(d);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
	const char *why = cudaemu_error_detail();
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, "barrier divergence in kernel two_barriers") &&
		      strstr(why, "32 threads wait at __syncthreads() at check_emu.cu:"),
		      "%s", why);
	/* sticky, as on a GPU */
	ck_assert_int_eq(cudaMalloc(&d, 4), cudaErrorLaunchFailure);
}
END_TEST

__global__ void early_return(int *p, int n)
{
	__shared__ int s[64];
	int t = threadIdx.x;
	if (t >= n)
		return;
	s[t] = t;
	__syncthreads();
	p[t] = s[n - 1 - t];
}

/* Each thread: how many of the block are odd, whether all are below n, whether any is 7. */
__global__ void count_and_or(int *p, int n)
{
	int t = threadIdx.x;
	int odd = __syncthreads_count(t & 1);
	int below = __syncthreads_and(t < n);
	int seven = __syncthreads_or(t == 7);
	/* again at once: each barrier's own count, never the one before */
	int all = __syncthreads_count(1);
	p[t] = odd * 1000000 + below * 100000 + seven * 10000 + all;
}

__global__ void count_in_branch(int *p)
{
	if (threadIdx.x < 16)
		p[threadIdx.x] = __syncthreads_count(1);
}

/* A kernel with default arguments, launched with and without them. */
__global__ void with_defaults(int *p, int add = 5, int *also = NULL)
{
	p[threadIdx.x] = threadIdx.x + add;
	if (also)
		also[threadIdx.x] = -1;
}

START_TEST(test_emu_launch_takes_default_arguments)
{
	int *d, *e, h[8], g[8];
	OK(cudaMalloc(&d, sizeof(h)));
	OK(cudaMalloc(&e, sizeof(g)));
	with_defaults<<<1, 8>>>(d);   /* add 5, no second buffer */
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int t = 0; t < 8; t++)
		ck_assert_int_eq(h[t], t + 5);
	with_defaults<<<1, 8>>>(d, 1, e);
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	OK(cudaMemcpy(g, e, sizeof(g), cudaMemcpyDeviceToHost));
	ck_assert_int_eq(h[7], 8);
	ck_assert_int_eq(g[3], -1);
	/* one left out: the last takes its default */
	with_defaults<<<1, 8>>>(d, 2);
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	ck_assert_int_eq(h[0], 2);
}
END_TEST

START_TEST(test_emu_syncthreads_count_and_or)
{
	int *d, h[96];
	OK(cudaMalloc(&d, sizeof(h)));
	count_and_or<<<1, 96>>>(d, 96);
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int t = 0; t < 96; t++)
		ck_assert_int_eq(h[t], 48 * 1000000 + 100000 + 10000 + 96);
	count_and_or<<<1, 96>>>(d, 95);   /* thread 95 is not below n: and is 0 */
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	ck_assert_int_eq(h[0], 48 * 1000000 + 0 + 10000 + 96);
	/* a counting barrier in a branch is a barrier in a branch: strict says so */
	setenv("CUDAEMU_STRICT_BARRIERS", "1", 1);
	count_in_branch<<<1, 64>>>(d);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
	ck_assert_ptr_nonnull(strstr(cudaemu_error_detail(), "returned without reaching it"));
	unsetenv("CUDAEMU_STRICT_BARRIERS");
}
END_TEST

START_TEST(test_emu_exited_threads_count_as_arrived)
{
	int *d, h[64];
	OK(cudaMalloc(&d, 64 * sizeof(int)));
	early_return<<<1, 64>>>(d, 40);
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int t = 0; t < 40; t++)
		ck_assert_int_eq(h[t], 39 - t);
	/* the strict lint says which threads left */
	setenv("CUDAEMU_STRICT_BARRIERS", "1", 1);
	early_return<<<1, 64>>>(d, 40);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
	ck_assert_ptr_nonnull(strstr(cudaemu_error_detail(), "24 threads (first: thread (40,0,0)) "
						       "returned without reaching it"));
}
END_TEST

__global__ void write_far(float *p, long off)
{
	if (blockIdx.x == 1 && threadIdx.x == 3)
		p[off] = 1.0f;
}

START_TEST(test_emu_out_of_bounds_names_the_thread)
{
	float *d;
	OK(cudaMalloc(&d, 1000 * sizeof(float)));
	write_far<<<2, 32>>>(d, 1000 + 300);
	ck_assert_int_eq(cudaGetLastError(), cudaSuccess);   /* seen at the next sync */
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
	const char *why = cudaemu_error_detail();
	ck_assert_msg(strstr(why, "thread (3,0,0) of block (1,0,0) made an out-of-bounds write") &&
		      strstr(why, "past the end of a 4000-byte device buffer"), "%s", why);
	ck_assert_int_eq(cudaGetLastError(), cudaErrorIllegalAddress);   /* sticky */
}
END_TEST

/* A 16-byte vector load at an address that is not a multiple of 16: x86
 * refuses it as a GPU does, but names no address (a general-protection fault). */
typedef float emu_v4 __attribute__((vector_size(16)));
__global__ void load_misaligned(const float *p, float *out)
{
	emu_v4 v = *(const volatile emu_v4 *)(p + 1 + threadIdx.x * 4);
	out[threadIdx.x] = v[0] + v[3];
}

START_TEST(test_emu_misaligned_vector_load_is_no_null_pointer)
{
	float *d;
	OK(cudaMalloc(&d, 1024 * sizeof(float)));
	load_misaligned<<<1, 32>>>(d, d + 512);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
	const char *why = cudaemu_error_detail();
	ck_assert_msg(strstr(why, "made an invalid read: the CPU refused the access without "
				  "naming its address: a vector access") &&
		      !strstr(why, "NULL") && !strstr(why, "(nil)"), "%s", why);
}
END_TEST

/* Past the end of a block's __shared__ array faults, as on an H100. */
__global__ void shared_past_end(int *out)
{
	__shared__ int a[32];
	__shared__ int b[32];
	a[threadIdx.x] = 1;
	b[threadIdx.x + (threadIdx.x == 31)] = 2;
	__syncthreads();
	out[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x];
}

START_TEST(test_emu_shared_overflow_faults)
{
	int *d;
	OK(cudaMalloc(&d, 32 * sizeof(int)));
	shared_past_end<<<1, 32>>>(d);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
	const char *why = cudaemu_error_detail();
	ck_assert_msg(strstr(why, "thread (31,0,0) of block (0,0,0) made an out-of-bounds write") &&
		      strstr(why, "0 bytes past the end of a 128-byte __shared__ array"), "%s", why);
}
END_TEST

START_TEST(test_emu_use_after_free)
{
	float *d;
	OK(cudaMalloc(&d, 4096 * sizeof(float)));
	OK(cudaFree(d));
	write_far<<<2, 32>>>(d, 5);
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
	ck_assert_ptr_nonnull(strstr(cudaemu_error_detail(), "no device memory"));
}
END_TEST

/* The host cannot read device memory, as with a GPU: this test must crash. */
START_TEST(test_emu_host_dereference_crashes)
{
	float *d;
	OK(cudaMalloc(&d, 64));
	volatile float x = d[0];
	(void)x;
}
END_TEST

START_TEST(test_emu_memcpy_checks)
{
	float *d, h[8];
	OK(cudaMalloc(&d, 8 * sizeof(float)));
	ck_assert_int_eq(cudaMemcpy(d, h, 9 * sizeof(float), cudaMemcpyHostToDevice),
			 cudaErrorInvalidValue);
	ck_assert_ptr_nonnull(strstr(cudaemu_error_detail(), "past the end of its buffer"));
	ck_assert_int_eq(cudaMemcpy(h, h + 4, 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
	ck_assert_ptr_nonnull(strstr(cudaemu_error_detail(), "not device memory"));
	ck_assert_int_eq(cudaFree(h), cudaErrorInvalidValue);
	OK(cudaMemset(d, 0, 8 * sizeof(float)));
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	ck_assert_float_eq(h[7], 0.0f);
}
END_TEST

/* ----------------------------------------------------------------- warps */

#define FULL 0xffffffffu

/* Where lane `lane` reads from, by the CUDA Programming Guide's rules for
 * each shuffle: within its segment of `width` lanes, or its own value. */
static int shuffle_source(int kind, int lane, int arg, int width)
{
	int seg = lane / width * width;
	switch (kind) {
	case 0: return seg + ((arg % width) + width) % width;   /* __shfl_sync */
	case 1: return lane - arg >= seg ? lane - arg : lane;   /* up */
	case 2: return lane + arg < seg + width ? lane + arg : lane;   /* down */
	default: return (lane ^ arg) < seg + width ? lane ^ arg : lane;   /* xor */
	}
}

/* Each type's value of thread t: distinct, and using the type's range. */
#define SHUFFLE_VALUES(t)                                                                  \
	int vi = -1000 * (int)(t) - 7;                                                     \
	unsigned vu = 0x80000000u + 3 * (t);                                               \
	long long vl = -(1LL << 40) - (long long)(t);                                      \
	unsigned long long vul = (1ULL << 63) + 5 * (t);                                   \
	float vf = 0.5f * (t) + 0.25f;                                                     \
	double vd = 1e300 + (double)(t) * 1e285

struct shuffled {
	int i[5];
	unsigned u[5];
	long long l[5];
	unsigned long long ul[5];
	float f[5];
	double d[5];
};

/* Five shuffles of each type: an index, up, down within 16 lanes, xor within
 * 8 lanes (bit 3 of the mask leaves the segment), and an index past the
 * width (taken modulo 16). */
#define SHUFFLE_ALL(v, dst)                                                               \
	dst[0] = __shfl_sync(FULL, v, 3);                                                  \
	dst[1] = __shfl_up_sync(FULL, v, 2);                                               \
	dst[2] = __shfl_down_sync(FULL, v, 5, 16);                                         \
	dst[3] = __shfl_xor_sync(FULL, v, 9, 8);                                           \
	dst[4] = __shfl_sync(FULL, v, 35, 16)

__global__ void shuffles(shuffled *out)
{
	unsigned t = threadIdx.x;
	SHUFFLE_VALUES(t);
	shuffled *o = &out[t];
	SHUFFLE_ALL(vi, o->i);
	SHUFFLE_ALL(vu, o->u);
	SHUFFLE_ALL(vl, o->l);
	SHUFFLE_ALL(vul, o->ul);
	SHUFFLE_ALL(vf, o->f);
	SHUFFLE_ALL(vd, o->d);
}

static void check_shuffles(void)
{
	const int n = 64;
	const int args[5][3] = {{0, 3, 32}, {1, 2, 32}, {2, 5, 16}, {3, 9, 8}, {0, 35, 16}};
	shuffled *d, *h = (shuffled *)calloc(n, sizeof(shuffled));
	OK(cudaMalloc(&d, n * sizeof(shuffled)));
	shuffles<<<1, n>>>(d);
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h, d, n * sizeof(shuffled), cudaMemcpyDeviceToHost));
	for (int t = 0; t < n; t++)
		for (int k = 0; k < 5; k++) {
			unsigned s = (unsigned)(t / 32 * 32 +
						shuffle_source(args[k][0], t % 32, args[k][1],
							       args[k][2]));
			SHUFFLE_VALUES(s);
			ck_assert_msg(h[t].i[k] == vi && h[t].u[k] == vu && h[t].l[k] == vl &&
				      h[t].ul[k] == vul && h[t].f[k] == vf && h[t].d[k] == vd,
				      "shuffle %d of thread %d: got int %d (expected %d, from lane %u), "
				      "float %g (expected %g)", k, t, h[t].i[k], vi, s % 32, h[t].f[k],
				      vf);
		}
	OK(cudaFree(d));
	free(h);
}

START_TEST(test_emu_warp_shuffles)
{
	check_shuffles();
}
END_TEST

/* The lanes meet whatever order a pass runs them in. */
START_TEST(test_emu_warp_shuffles_reverse_order)
{
	setenv("CUDAEMU_REVERSE", "1", 1);
	check_shuffles();
	unsetenv("CUDAEMU_REVERSE");
}
END_TEST

/* Votes, matches and reductions, in a block of 48: its second warp has 16
 * lanes, and a full mask there names 16 lanes that do not exist. */
__global__ void votes(unsigned *out)
{
	unsigned t = threadIdx.x, lane = t % 32, *o = out + 20 * t;
	int pred;
	o[0] = __ballot_sync(FULL, lane % 3 == 0);
	o[1] = __any_sync(FULL, lane == 5);
	o[2] = __all_sync(FULL, lane < 32);
	o[3] = __all_sync(FULL, lane != 7);
	o[4] = __uni_sync(FULL, 1);
	o[5] = __uni_sync(FULL, lane & 1);
	o[6] = __match_any_sync(FULL, (int)(lane % 4));
	o[7] = __match_all_sync(FULL, 7.5, &pred);
	o[8] = pred;
	o[9] = __match_all_sync(FULL, (long long)lane, &pred);
	o[10] = pred;
	o[11] = __reduce_add_sync(FULL, lane);
	o[12] = (unsigned)__reduce_min_sync(FULL, (int)lane - 10);
	o[13] = __reduce_max_sync(FULL, lane * 3);
	o[14] = (unsigned)__reduce_max_sync(FULL, -(int)lane);
	o[15] = __reduce_and_sync(FULL, 0xffu ^ (1u << (lane % 8)));
	o[16] = __reduce_or_sync(FULL, 1u << lane);
	o[17] = __reduce_xor_sync(FULL, lane * lane);
	o[18] = __ballot_sync((0x0000ff00u & (lane >= 8 && lane < 16 ? FULL : 0)) | (1u << lane),
			      1);
	o[19] = __reduce_min_sync(FULL, lane + 5);
}

START_TEST(test_emu_warp_votes_and_reductions)
{
	const int n = 48;
	unsigned *d, h[48 * 20];
	OK(cudaMalloc(&d, sizeof(h)));
	votes<<<1, n>>>(d);
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int t = 0; t < n; t++) {
		unsigned lanes = t < 32 ? 32 : 16, live = lanes == 32 ? FULL : 0xffffu;
		unsigned *o = h + 20 * t, ballot = 0, andv = 0xffu, xorv = 0, lane = t % 32;
		int sum = 0;
		for (unsigned l = 0; l < lanes; l++) {
			ballot |= l % 3 == 0 ? 1u << l : 0;
			andv &= 0xffu ^ (1u << (l % 8));
			xorv ^= l * l;
			sum += l;
		}
		ck_assert_uint_eq(o[0], ballot);
		ck_assert_uint_eq(o[1], 1);
		ck_assert_uint_eq(o[2], 1);
		ck_assert_uint_eq(o[3], 0);
		ck_assert_uint_eq(o[4], 1);
		ck_assert_uint_eq(o[5], 0);
		ck_assert_uint_eq(o[6], 0x11111111u << (lane % 4) & live);
		ck_assert_uint_eq(o[7], live);
		ck_assert_uint_eq(o[8], 1);
		ck_assert_uint_eq(o[9], 0);
		ck_assert_uint_eq(o[10], 0);
		ck_assert_uint_eq(o[11], (unsigned)sum);
		ck_assert_int_eq((int)o[12], -10);
		ck_assert_uint_eq(o[13], 3 * (lanes - 1));
		ck_assert_int_eq((int)o[14], 0);
		ck_assert_uint_eq(o[15], andv);
		ck_assert_uint_eq(o[16], live);
		ck_assert_uint_eq(o[17], xorv);
		ck_assert_uint_eq(o[18], lane >= 8 && lane < 16 ? 0x0000ff00u : 1u << lane);
		ck_assert_uint_eq(o[19], 5);
	}
	OK(cudaFree(d));
}
END_TEST

/* __activemask(): the lanes that reach the call together. */
__global__ void active(unsigned *out, int n)
{
	unsigned t = threadIdx.x, lane = t % 32;
	if ((int)t >= n)
		return;
	out[3 * t] = __activemask();
	out[3 * t + 1] = 0;
	if (lane < 10)
		out[3 * t + 1] = __activemask();
	out[3 * t + 2] = __ballot_sync(__activemask(), 1);
}

START_TEST(test_emu_activemask)
{
	unsigned *d, h[64 * 3];
	OK(cudaMalloc(&d, sizeof(h)));
	active<<<1, 64>>>(d, 40);
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int t = 0; t < 40; t++) {
		unsigned live = t < 32 ? FULL : 0xffu;
		ck_assert_uint_eq(h[3 * t], live);
		ck_assert_uint_eq(h[3 * t + 1], t % 32 < 10 ? 0x3ffu & live : 0);
		ck_assert_uint_eq(h[3 * t + 2], live);
	}
}
END_TEST

/*
 * A warp-synchronous sum of 32 values in shared memory: with __syncwarp()
 * between the reads and the writes of each step it is right; the pre-Volta
 * form without it (lock step assumed) is not, as on a GPU that does not run
 * the warp in lock step.
 */
__global__ void warp_sum(const int *in, int *out, int with_syncwarp)
{
	__shared__ int s[64];
	unsigned t = threadIdx.x;
	s[t] = in[t];
	s[t + 32] = 0;
	__syncwarp();
	if (with_syncwarp) {
		int v = s[t];
		for (int off = 16; off > 0; off /= 2) {
			v += s[t + off];
			__syncwarp();
			s[t] = v;
			__syncwarp();
		}
	} else {
		volatile int *vs = s;
		if (t < 16) {
			vs[t] += vs[t + 16];
			vs[t] += vs[t + 8];
			vs[t] += vs[t + 4];
			vs[t] += vs[t + 2];
			vs[t] += vs[t + 1];
		}
	}
	if (t == 0)
		*out = s[0];
}

static int run_warp_sum(const int *h_in, int with_syncwarp)
{
	int *d_in, *d_out, sum = -1;
	OK(cudaMalloc(&d_in, 32 * sizeof(int)));
	OK(cudaMalloc(&d_out, sizeof(int)));
	OK(cudaMemcpy(d_in, h_in, 32 * sizeof(int), cudaMemcpyHostToDevice));
	warp_sum<<<1, 32>>>(d_in, d_out, with_syncwarp);
	OK(cudaMemcpy(&sum, d_out, sizeof(int), cudaMemcpyDeviceToHost));
	OK(cudaFree(d_in));
	OK(cudaFree(d_out));
	return sum;
}

START_TEST(test_emu_syncwarp_orders_memory)
{
	int in[32], want = 0;
	for (int i = 0; i < 32; i++)
		want += in[i] = i * i + 1;
	ck_assert_int_eq(run_warp_sum(in, 1), want);
	setenv("CUDAEMU_REVERSE", "1", 1);
	ck_assert_int_eq(run_warp_sum(in, 1), want);
	unsetenv("CUDAEMU_REVERSE");
	int racy = run_warp_sum(in, 0);
	ck_assert_msg(racy != want, "the sum without __syncwarp() came out right (%d)", racy);
}
END_TEST

/* The misuses, each with the line of the call. */
__global__ void mask_without_self(int *p)
{
	p[threadIdx.x] = __shfl_sync(0x0000ff00u, (int)threadIdx.x, 8);
}
static const int mask_without_self_line = __LINE__ - 2;

__global__ void shuffle_with_returned(int *p)
{
	if (threadIdx.x >= 16)
		return;
	p[threadIdx.x] = __shfl_down_sync(FULL, (int)threadIdx.x, 16);
}
static const int shuffle_with_returned_line = __LINE__ - 2;

__global__ void vote_against_barrier(int *p)
{
	if (threadIdx.x % 32 == 5)
		__syncthreads();
	else
		p[threadIdx.x] = __ballot_sync(FULL, 1);
}
static const int vote_against_barrier_line = __LINE__ - 2;

__global__ void syncwarp_masks_differ(int *p)
{
	if (threadIdx.x < 16)
		__syncwarp(FULL);
	else
		__syncwarp(0xfffffff0u);
	p[threadIdx.x] = 1;
}
static const int syncwarp_masks_differ_line = __LINE__ - 3;

static void expect_warp_error(const char *a, const char *b, const char *c)
{
	ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
	const char *why = cudaemu_error_detail();
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, a) && strstr(why, b) && (!c || strstr(why, c)),
		      "expected '%s', '%s' and '%s' in: %s", a, b, c ? c : "", why);
}

START_TEST(test_emu_warp_mask_without_own_lane)
{
	int *d;
	char at[64];
	OK(cudaMalloc(&d, 32 * sizeof(int)));
	mask_without_self<<<1, 32>>>(d);
	snprintf(at, sizeof(at), "__shfl_sync() at check_emu.cu:%d", mask_without_self_line);
	expect_warp_error(at, "mask 0x0000ff00, which does not name its own lane",
			  "thread (0,0,0), lane 0 of warp 0");
}
END_TEST

START_TEST(test_emu_warp_lane_returned)
{
	int *d;
	char at[64];
	OK(cudaMalloc(&d, 32 * sizeof(int)));
	snprintf(at, sizeof(at), "__shfl_down_sync() at check_emu.cu:%d",
		 shuffle_with_returned_line);
	shuffle_with_returned<<<1, 32>>>(d);
	expect_warp_error(at, "thread (16,0,0), lane 16 of warp 0, returned while 16 lanes",
			  "mask 0xffffffff");
}
END_TEST

/* In reverse order the lanes that return go first: the call names them. */
START_TEST(test_emu_warp_mask_names_returned_lanes)
{
	int *d;
	char at[64];
	OK(cudaMalloc(&d, 32 * sizeof(int)));
	snprintf(at, sizeof(at), "__shfl_down_sync() at check_emu.cu:%d",
		 shuffle_with_returned_line);
	setenv("CUDAEMU_REVERSE", "1", 1);
	shuffle_with_returned<<<1, 32>>>(d);
	unsetenv("CUDAEMU_REVERSE");
	expect_warp_error(at, "but lanes 0xffff0000 of its warp (first: thread (16,0,0)) returned",
			  "thread (15,0,0), lane 15");
}
END_TEST

START_TEST(test_emu_warp_lane_at_syncthreads)
{
	int *d;
	char at[64], other[96];
	OK(cudaMalloc(&d, 64 * sizeof(int)));
	vote_against_barrier<<<1, 64>>>(d);
	snprintf(at, sizeof(at), "__ballot_sync() at check_emu.cu:%d", vote_against_barrier_line);
	snprintf(other, sizeof(other), "lane 5 (thread (5,0,0)) waits at __syncthreads() at "
		 "check_emu.cu:%d", vote_against_barrier_line - 2);
	expect_warp_error("warp divergence", at, other);
}
END_TEST

START_TEST(test_emu_warp_masks_differ)
{
	int *d;
	char at[64], other[128];
	OK(cudaMalloc(&d, 32 * sizeof(int)));
	syncwarp_masks_differ<<<1, 32>>>(d);
	snprintf(at, sizeof(at), "__syncwarp() at check_emu.cu:%d with mask 0xffffffff",
		 syncwarp_masks_differ_line - 2);
	snprintf(other, sizeof(other), "lane 16 (thread (16,0,0)) waits at __syncwarp() at "
		 "check_emu.cu:%d with mask 0xfffffff0", syncwarp_masks_differ_line);
	expect_warp_error("warp divergence", at, other);
}
END_TEST

/* __syncwarp() may name lanes that returned (the CUDA Programming Guide
 * asks only the lanes that did not exit to arrive); strict mode refuses. */
__global__ void syncwarp_after_return(int *p, int n)
{
	if ((int)threadIdx.x >= n)
		return;
	p[threadIdx.x] = 1;
	__syncwarp();
	int next = p[(threadIdx.x + 1) % n];
	__syncwarp();
	p[threadIdx.x] += next;
}

START_TEST(test_emu_syncwarp_with_returned_lanes)
{
	int *d, h[32];
	OK(cudaMalloc(&d, 32 * sizeof(int)));
	syncwarp_after_return<<<1, 32>>>(d, 20);
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h, d, 20 * sizeof(int), cudaMemcpyDeviceToHost));
	for (int t = 0; t < 20; t++)
		ck_assert_int_eq(h[t], 2);
	setenv("CUDAEMU_STRICT_BARRIERS", "1", 1);
	syncwarp_after_return<<<1, 32>>>(d, 20);
	unsetenv("CUDAEMU_STRICT_BARRIERS");
	expect_warp_error("thread (20,0,0), lane 20 of warp 0, returned while 20 lanes",
			  "__syncwarp()", NULL);
}
END_TEST

/* --------------------------------------------- load and store intrinsics */

__global__ void cache_hints(const float *f, const float4 *f4, const int2 *i2, const double *d,
			    float *of, float4 *of4, int2 *oi2, double *od)
{
	unsigned t = threadIdx.x;
	float4 a = __ldg(&f4[t]);
	int2 b = __ldcg(&i2[t]);
	__stcs(&of[t], __ldg(&f[t]) + __ldca(&f[t]) + __ldcs(&f[t]) + __ldlu(&f[t]) +
		       __ldcv(&f[t]));
	__stwb(&of4[t], make_float4(a.w, a.z, a.y, a.x));
	__stcg(&oi2[t], make_int2(b.y, b.x));
	__stwt(&od[t], 2.0 * __ldg(&d[t]));
}

START_TEST(test_emu_load_store_intrinsics)
{
	const int n = 8;
	float hf[8], rf[8];
	float4 hf4[8], rf4[8];
	int2 hi2[8], ri2[8];
	double hd[8], rd[8];
	float *f, *of;
	float4 *f4, *of4;
	int2 *i2, *oi2;
	double *d, *od;
	for (int i = 0; i < n; i++) {
		hf[i] = i + 0.5f;
		hf4[i] = make_float4(i, i + 1, i + 2, i + 3);
		hi2[i] = make_int2(-i, 10 * i);
		hd[i] = i * 1e10;
	}
	OK(cudaMalloc(&f, sizeof(hf)));
	OK(cudaMalloc(&of, sizeof(hf)));
	OK(cudaMalloc(&f4, sizeof(hf4)));
	OK(cudaMalloc(&of4, sizeof(hf4)));
	OK(cudaMalloc(&i2, sizeof(hi2)));
	OK(cudaMalloc(&oi2, sizeof(hi2)));
	OK(cudaMalloc(&d, sizeof(hd)));
	OK(cudaMalloc(&od, sizeof(hd)));
	OK(cudaMemcpy(f, hf, sizeof(hf), cudaMemcpyHostToDevice));
	OK(cudaMemcpy(f4, hf4, sizeof(hf4), cudaMemcpyHostToDevice));
	OK(cudaMemcpy(i2, hi2, sizeof(hi2), cudaMemcpyHostToDevice));
	OK(cudaMemcpy(d, hd, sizeof(hd), cudaMemcpyHostToDevice));
	cache_hints<<<1, n>>>(f, f4, i2, d, of, of4, oi2, od);
	OK(cudaMemcpy(rf, of, sizeof(rf), cudaMemcpyDeviceToHost));
	OK(cudaMemcpy(rf4, of4, sizeof(rf4), cudaMemcpyDeviceToHost));
	OK(cudaMemcpy(ri2, oi2, sizeof(ri2), cudaMemcpyDeviceToHost));
	OK(cudaMemcpy(rd, od, sizeof(rd), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++) {
		ck_assert_float_eq(rf[i], 5 * hf[i]);
		ck_assert_float_eq(rf4[i].x, hf4[i].w);
		ck_assert_float_eq(rf4[i].w, hf4[i].x);
		ck_assert_int_eq(ri2[i].x, hi2[i].y);
		ck_assert_int_eq(ri2[i].y, hi2[i].x);
		ck_assert_double_eq(rd[i], 2 * hd[i]);
	}
}
END_TEST

/* ---------------------------------------------------- cooperative groups */

namespace cg = cooperative_groups;

struct cg_facts {
	unsigned rank, size, gx, tx, ty, dx, dy;
	unsigned tile_rank, tile_meta, tile_sum, tile_any, tile_all, tile_ballot;
	int reduced, reduced_max, dyn_rank, dyn_size, dyn_meta, coalesced, coalesced_rank;
	int scanned;
};

/* A block of 16 x 4: tiles of 32 and 16 reduce, the block barrier orders a
 * reversal through shared memory, a run-time tile of 8 syncs. */
__global__ void groups(const int *in, cg_facts *out)
{
	cg::thread_block block = cg::this_thread_block();
	__shared__ int s[64];
	unsigned r = block.thread_rank();
	cg_facts *o = &out[blockIdx.x * 64 + r];
	int v = in[blockIdx.x * 64 + r];

	o->rank = r;
	o->size = block.size() + 1000 * block.num_threads();
	o->gx = block.group_index().x;
	o->tx = block.thread_index().x;
	o->ty = block.thread_index().y;
	o->dx = block.dim_threads().x;
	o->dy = block.dim_threads().y;

	cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
	int sum = v;
	for (unsigned off = warp.size() / 2; off > 0; off /= 2)
		sum += warp.shfl_down(sum, off);
	o->tile_sum = warp.shfl(sum, 0);
	o->tile_rank = warp.thread_rank();
	o->tile_meta = warp.meta_group_rank();
	o->tile_any = warp.any(v == 3);
	o->tile_all = warp.all(v >= 0);
	o->tile_ballot = warp.ballot(warp.thread_rank() % 2);

	auto half = cg::tiled_partition<16>(block);
	o->reduced = cg::reduce(half, v, cg::plus<int>());
	o->reduced_max = cg::reduce(half, v, cg::greater<int>());
	o->scanned = cg::inclusive_scan(half, 1);

	cg::thread_group eight = cg::tiled_partition(block, 8);
	o->dyn_rank = (int)eight.thread_rank();
	o->dyn_size = (int)eight.size();
	o->dyn_meta = (int)eight.meta_group_rank();
	eight.sync();

	s[r] = v;
	cg::sync(block);
	v = s[63 - r];
	block.sync();
	s[r] = v;

	o->coalesced = o->coalesced_rank = 0;
	if (r % 32 < 12) {
		cg::coalesced_group some = cg::coalesced_threads();
		o->coalesced = (int)some.size();
		o->coalesced_rank = (int)some.thread_rank();
	}
}

START_TEST(test_emu_cooperative_groups)
{
	const int blocks = 2, n = blocks * 64;
	int h_in[128], *d_in;
	cg_facts *d, *h = (cg_facts *)calloc(n, sizeof(cg_facts));
	for (int i = 0; i < n; i++)
		h_in[i] = (i * 7) % 11;
	OK(cudaMalloc(&d_in, sizeof(h_in)));
	OK(cudaMalloc(&d, n * sizeof(cg_facts)));
	OK(cudaMemcpy(d_in, h_in, sizeof(h_in), cudaMemcpyHostToDevice));
	groups<<<blocks, dim3(16, 4)>>>(d_in, d);
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h, d, n * sizeof(cg_facts), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++) {
		const cg_facts *o = &h[i];
		int b = i / 64, r = i % 64, w = r / 32, half = r / 16;
		int wsum = 0, hsum = 0, hmax = 0, any3 = 0;
		for (int k = 0; k < 32; k++) {
			wsum += h_in[b * 64 + w * 32 + k];
			any3 |= h_in[b * 64 + w * 32 + k] == 3;
		}
		for (int k = 0; k < 16; k++) {
			int x = h_in[b * 64 + half * 16 + k];
			hsum += x;
			hmax = x > hmax ? x : hmax;
		}
		ck_assert_uint_eq(o->rank, r);
		ck_assert_uint_eq(o->size, 64 * 1001);
		ck_assert_uint_eq(o->gx, b);
		ck_assert_uint_eq(o->tx, r % 16);
		ck_assert_uint_eq(o->ty, r / 16);
		ck_assert_uint_eq(o->dx, 16);
		ck_assert_uint_eq(o->dy, 4);
		ck_assert_uint_eq(o->tile_sum, wsum);
		ck_assert_uint_eq(o->tile_rank, r % 32);
		ck_assert_uint_eq(o->tile_meta, w);
		ck_assert_uint_eq(o->tile_any, any3);
		ck_assert_uint_eq(o->tile_all, 1);
		ck_assert_uint_eq(o->tile_ballot, 0xaaaaaaaau);
		ck_assert_int_eq(o->reduced, hsum);
		ck_assert_int_eq(o->reduced_max, hmax);
		ck_assert_int_eq(o->scanned, r % 16 + 1);
		ck_assert_int_eq(o->dyn_rank, r % 8);
		ck_assert_int_eq(o->dyn_size, 8);
		ck_assert_int_eq(o->dyn_meta, r / 8);
		ck_assert_int_eq(o->coalesced, r % 32 < 12 ? 12 : 0);
		ck_assert_int_eq(o->coalesced_rank, r % 32 < 12 ? r % 32 : 0);
	}
	OK(cudaFree(d));
	OK(cudaFree(d_in));
	free(h);
}
END_TEST

/*
 * Tiles of more than a warp (the block_tile_memory scratch): a block of 256
 * in two tiles of 128 and four of 64. Each tile reduces, scans, votes and
 * shuffles; the tile's sync orders a reversal across its warps through
 * shared memory. One output row of 8 ints per thread.
 */
__global__ void big_tiles(const int *in, int *out)
{
	__shared__ cg::block_tile_memory<256> scratch;
	__shared__ int s[256];
	cg::thread_block block = cg::this_thread_block(scratch);
	auto tile = cg::tiled_partition<128>(block);
	cg::thread_block_tile<64> quarter = cg::tiled_partition<64>(block);
	unsigned r = block.thread_rank();
	int v = in[r], *o = &out[8 * r];

	o[0] = cg::reduce(tile, v, cg::plus<int>());
	o[1] = cg::reduce(quarter, v, cg::greater<int>());
	o[2] = cg::exclusive_scan(tile, 1);
	o[3] = tile.shfl(v, 127);
	o[4] = tile.any(v == 5) + 10 * tile.all(v >= 0) + 100 * (int)tile.meta_group_rank() +
	       1000 * (int)tile.meta_group_size();
	s[r] = v;
	tile.sync();
	o[5] = s[(r & ~127u) + 127 - tile.thread_rank()];
	o[6] = (int)(tile.thread_rank() + 1000 * tile.num_threads());
	o[7] = cg::inclusive_scan(quarter, v);
}

START_TEST(test_emu_tiles_of_more_than_a_warp)
{
	int h_in[256], h[8 * 256], *d_in, *d;
	for (int i = 0; i < 256; i++)
		h_in[i] = (i * 13) % 17;
	OK(cudaMalloc(&d_in, sizeof(h_in)));
	OK(cudaMalloc(&d, sizeof(h)));
	OK(cudaMemcpy(d_in, h_in, sizeof(h_in), cudaMemcpyHostToDevice));
	big_tiles<<<1, 256>>>(d_in, d);
	OK(cudaDeviceSynchronize());
	OK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int r = 0; r < 256; r++) {
		int t = r / 128 * 128, q = r / 64 * 64, sum = 0, most = 0, five = 0, upto = 0;
		for (int k = t; k < t + 128; k++) {
			sum += h_in[k];
			five |= h_in[k] == 5;
		}
		for (int k = q; k < q + 64; k++)
			most = h_in[k] > most ? h_in[k] : most;
		for (int k = q; k <= r; k++)
			upto += h_in[k];
		const int *o = &h[8 * r];
		ck_assert_int_eq(o[0], sum);
		ck_assert_int_eq(o[1], most);
		ck_assert_int_eq(o[2], r - t);
		ck_assert_int_eq(o[3], h_in[t + 127]);
		ck_assert_int_eq(o[4], five + 10 + 100 * (r / 128) + 2000);
		ck_assert_int_eq(o[5], h_in[t + 127 - (r - t)]);
		ck_assert_int_eq(o[6], r - t + 128000);
		ck_assert_int_eq(o[7], upto);
	}
	OK(cudaFree(d));
	OK(cudaFree(d_in));
}
END_TEST

/* The first thread of a tile of 64 returns before its tile's sync; in the other
 * kernel half a tile syncs, the other half reduces. */
__global__ void tile_with_returned(int *p)
{
	__shared__ cg::block_tile_memory<128> scratch;
	auto tile = cg::tiled_partition<64>(cg::this_thread_block(scratch));
	if (threadIdx.x == 64)
		return;
	p[threadIdx.x] = 1;
	tile.sync();
}
static const int tile_returns_line = __LINE__ - 2;

__global__ void tile_calls_differ(int *p)
{
	__shared__ cg::block_tile_memory<128> scratch;
	auto tile = cg::tiled_partition<128>(cg::this_thread_block(scratch));
	if (threadIdx.x < 64)
		tile.sync();
	else
		p[0] = cg::reduce(tile, 1, cg::plus<int>());
}
static const int tile_calls_differ_line = __LINE__ - 2;

/* A launch that failed fails every later one (as a GPU's sticky error): one a test. */
START_TEST(test_emu_tile_thread_returned)
{
	int *d;
	char at[64];
	OK(cudaMalloc(&d, 128 * sizeof(int)));
	tile_with_returned<<<1, 128>>>(d);
	snprintf(at, sizeof(at), "sync() at check_emu.cu:%d", tile_returns_line);
	/* thread 64 returns before any thread of its tile waits */
	expect_warp_error(at, "thread (65,0,0), lane 1 of warp 2, calls its tile's sync()",
			  "but thread (64,0,0) of the same tile of 64 threads returned");
}
END_TEST

START_TEST(test_emu_tile_thread_returned_reverse_order)
{
	int *d;
	char at[64];
	OK(cudaMalloc(&d, 128 * sizeof(int)));
	/* in reverse order, after the rest of its tile came */
	setenv("CUDAEMU_REVERSE", "1", 1);
	tile_with_returned<<<1, 128>>>(d);
	unsetenv("CUDAEMU_REVERSE");
	snprintf(at, sizeof(at), "sync() at check_emu.cu:%d", tile_returns_line);
	expect_warp_error(at, "waits at its tile's sync()", "but thread (64,0,0) of the same tile");
}
END_TEST

START_TEST(test_emu_tile_calls_differ)
{
	int *d;
	char at[64];
	OK(cudaMalloc(&d, 128 * sizeof(int)));
	tile_calls_differ<<<1, 128>>>(d);
	snprintf(at, sizeof(at), "reduce() at check_emu.cu:%d", tile_calls_differ_line);
	expect_warp_error(at, "tile divergence", "every thread of a tile must reach the same call");
}
END_TEST

/* A tile's shuffle has a tile's mask: a lane outside it is never waited for,
 * and a grid-wide barrier fails the launch, saying why. */
__global__ void grid_barrier(int *p)
{
	cg::grid_group grid = cg::this_grid();
	p[grid.thread_rank()] = (int)grid.size();
	grid.sync();
}

START_TEST(test_emu_grid_sync_is_not_emulated)
{
	int *d;
	OK(cudaMalloc(&d, 64 * sizeof(int)));
	grid_barrier<<<2, 32>>>(d);
	expect_warp_error("grid_group::sync()", "check_emu.cu:", "cannot run");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("emu");
	TCase *tc = tcase_create("emu");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_emu_index_builtins);
	tcase_add_test(tc, test_emu_tiles_of_more_than_a_warp);
	tcase_add_test(tc, test_emu_tile_thread_returned);
	tcase_add_test(tc, test_emu_tile_thread_returned_reverse_order);
	tcase_add_test(tc, test_emu_tile_calls_differ);
	tcase_add_test(tc, test_emu_noinline_function);
	tcase_add_test(tc, test_emu_half_and_clock64);
	tcase_add_test(tc, test_emu_static_shared_and_barrier);
	tcase_add_test(tc, test_emu_reverse_order_same_result);
	tcase_add_test(tc, test_emu_dynamic_shared);
	tcase_add_test(tc, test_emu_shared_scalar_and_volatile);
	tcase_add_test(tc, test_emu_constant_and_device_symbols);
	tcase_add_test(tc, test_emu_managed_memory_and_meminfo);
	tcase_add_test(tc, test_emu_atomics);
	tcase_add_test(tc, test_emu_math_and_intrinsics);
	tcase_add_test(tc, test_emu_printf_from_kernels);
	tcase_add_test(tc, test_emu_events_and_device);
	tcase_add_test(tc, test_emu_invalid_launch_configurations);
	tcase_add_test(tc, test_emu_workers_fit_the_memory_limit);
	tcase_add_test(tc, test_emu_no_room_for_a_worker_fails_the_launch);
	tcase_add_test(tc, test_emu_stack_alignment);
	tcase_add_test(tc, test_emu_template_kernel_deduced);
	tcase_add_test(tc, test_emu_dynamic_shared_opt_in);
	tcase_add_test(tc, test_emu_static_shared_size_reported);
	tcase_add_test(tc, test_emu_file_scope_extern_shared);
	tcase_add_test(tc, test_emu_more_runtime_api);
	tcase_add_test(tc, test_emu_barrier_divergence_is_reported);
	tcase_add_test(tc, test_emu_exited_threads_count_as_arrived);
	tcase_add_test(tc, test_emu_syncthreads_count_and_or);
	tcase_add_test(tc, test_emu_launch_takes_default_arguments);
	tcase_add_test(tc, test_emu_out_of_bounds_names_the_thread);
	tcase_add_test(tc, test_emu_shared_overflow_faults);
	tcase_add_test(tc, test_emu_misaligned_vector_load_is_no_null_pointer);
	tcase_add_test(tc, test_emu_use_after_free);
	tcase_add_test_raise_signal(tc, test_emu_host_dereference_crashes, SIGSEGV);
	tcase_add_test(tc, test_emu_memcpy_checks);
	tcase_add_test(tc, test_emu_warp_shuffles);
	tcase_add_test(tc, test_emu_warp_shuffles_reverse_order);
	tcase_add_test(tc, test_emu_warp_votes_and_reductions);
	tcase_add_test(tc, test_emu_activemask);
	tcase_add_test(tc, test_emu_syncwarp_orders_memory);
	tcase_add_test(tc, test_emu_warp_mask_without_own_lane);
	tcase_add_test(tc, test_emu_warp_lane_returned);
	tcase_add_test(tc, test_emu_warp_mask_names_returned_lanes);
	tcase_add_test(tc, test_emu_warp_lane_at_syncthreads);
	tcase_add_test(tc, test_emu_warp_masks_differ);
	tcase_add_test(tc, test_emu_syncwarp_with_returned_lanes);
	tcase_add_test(tc, test_emu_load_store_intrinsics);
	tcase_add_test(tc, test_emu_cooperative_groups);
	tcase_add_test(tc, test_emu_grid_sync_is_not_emulated);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
