/*
 * launch.cu - the launch ledger, in the runner (runner.cu) and the timing
 * and profile drivers: the processes that run a submission's code.
 *
 * Owns: the link-time wraps (-Wl,--wrap, see the Makefile's WRAPS) of the
 * CUDA runtime entry points that a kernel launch, cudaMalloc,
 * cudaMallocPitch, cudaFree, cudaMemcpy, cudaMemcpy2D, cudaMemcpyFromSymbol
 * and cudaMallocHost go through, so the harness can tell a student which
 * grid and block their launcher chose, which allocations it leaked, and
 * whether it copied from the host into the buffers it was given or from the
 * device to the host. Outside cl_ledger_begin/cl_ledger_end the wraps only
 * pass calls through. What it records is the runner's word to the judge,
 * believed only where a lie gains nothing (remote.h), but for the copies:
 * a lie there passes values tests with values the host computed, and takes
 * writing over this file's memory, which no name the submission may use
 * reaches (docs/threat-model.md).
 *
 * Must not: change what the wrapped calls do or return, but for
 * cudaMallocHost, whose memory a kernel cannot reach here (below).
 */
#include "cudalab.h"

#include <cxxabi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CUDAEMU
extern "C" {
unsigned __real___cudaPushCallConfiguration(dim3 grid, dim3 block, size_t smem,
					    struct CUstream_st *stream);
cudaError_t __real___cudaLaunchKernel(cudaKernel_t k, dim3 grid, dim3 block, void **args,
				      size_t smem, cudaStream_t stream);
cudaError_t __real___cudaGetKernel(cudaKernel_t *k, const void *fun);
}
#endif
extern "C" cudaError_t __real_cudaMalloc(void **p, size_t n);
extern "C" cudaError_t __real_cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height);
extern "C" cudaError_t __real_cudaFree(void *p);
extern "C" cudaError_t __real_cudaMemcpy(void *dst, const void *src, size_t n,
					 enum cudaMemcpyKind kind);
extern "C" cudaError_t __real_cudaMemcpy2D(void *dst, size_t dpitch, const void *src,
					   size_t spitch, size_t width, size_t height,
					   enum cudaMemcpyKind kind);
extern "C" cudaError_t __real_cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t n,
						   size_t offset, enum cudaMemcpyKind kind);
#ifndef CUDAEMU
extern "C" cudaError_t __real_cudaFreeHost(void *p);
#endif

int cl_shared_poison;   /* set by the test harness; the timing and profile drivers leave it */

#define MAX_KERNELS 64
#define MAX_ALLOCS 256

static struct ledger_state {
	int active;
	struct cl_ledger l;
	struct cl_launch pending;      /* configuration pushed by <<<...>>> */
	void *alloc_ptr[MAX_ALLOCS];
	size_t alloc_size[MAX_ALLOCS];
	int mallocs;                   /* cudaMalloc calls seen since begin */
	int fail_at;                   /* the one to fail, counting from 1; 0 none */
} ledger;


void cl_ledger_begin(void)
{
	ledger = ledger_state();
	ledger.active = 1;
}

const struct cl_ledger *cl_ledger_end(void)
{
	ledger.active = 0;
	ledger.l.nallocs = 0;
	ledger.l.alloc_bytes = 0;
	for (int i = 0; i < MAX_ALLOCS; i++)
		if (ledger.alloc_ptr[i]) {
			ledger.l.nallocs++;
			ledger.l.alloc_bytes += ledger.alloc_size[i];
		}
	return &ledger.l;
}

#ifdef CUDAEMU
/* The emulator reports each launch itself, with the kernel as written. */
extern "C" void cudaemu_on_launch(const cudaemu_launch *l)
{
	if (!ledger.active)
		return;
	int i = ledger.l.nlaunches++;
	if (i < CL_MAX_LAUNCHES) {
		struct cl_launch *c = &ledger.l.launch[i];
		snprintf(c->kernel, sizeof(c->kernel), "%s", l->kernel);
		c->grid = l->grid;
		c->block = l->block;
		c->dyn_smem = l->shmem;
		c->static_smem = (size_t)-1;   /* known once its blocks ran */
	}
}

/* The static __shared__ arrays the launch's blocks laid out: a GPU's count
 * is the compiler's, known before the launch; the emulator's is what the
 * threads declared as they ran (an array declared only in a branch no
 * thread took is not counted). */
extern "C" void cudaemu_on_launch_done(const cudaemu_launch *l, size_t static_shared)
{
	(void)l;
	int i = ledger.l.nlaunches - 1;
	if (ledger.active && i >= 0 && i < CL_MAX_LAUNCHES)
		ledger.l.launch[i].static_smem = static_shared;
}

extern "C" const char *cudaemu_error_detail(void);

const char *cl_error_detail(void)
{
	return cudaemu_error_detail();
}

/*
 * The lines of an AddressSanitizer report a student needs: what happened,
 * the access, the first frame of its stack (the kernel's line), and where
 * the address lies; without addresses of the grader's work folder.
 */
static void asan_summary(const char *report, char *out, size_t len)
{
	char cwd[1024] = "";
	bool frame_seen = false;
	size_t w = 0;

	if (getcwd(cwd, sizeof(cwd) - 1))
		strcat(cwd, "/");
	out[0] = '\0';
	for (const char *l = report; *l && w + 1 < len;) {
		size_t n = strcspn(l, "\n");
		const char *text = NULL, *end = l + n, *p;
		if ((p = (const char *)memmem(l, n, "ERROR: AddressSanitizer: ", 25))) {
			text = p + 7;
			if ((p = (const char *)memmem(text, end - text, " at pc ", 7)))
				end = p;
		} else if (memmem(l, n, "READ of size", 12) || memmem(l, n, "WRITE of size", 13)) {
			text = l;
			if ((p = (const char *)memmem(l, n, " thread T", 9)))
				end = p;
		} else if (!frame_seen && (p = (const char *)memmem(l, n, "#0 ", 3)) &&
			   (p = (const char *)memmem(l, n, " in ", 4))) {
			text = p + 4;
			frame_seen = true;
		} else if (memmem(l, n, "is located", 10)) {
			text = l;
		} else if (!strncmp(l, "Thread T", 8) || !strncmp(l, "SUMMARY", 7)) {
			break;
		}
		for (; text && text < end && w + 1 < len; text++) {
			if (*cwd && !strncmp(text, cwd, strlen(cwd)))
				text += strlen(cwd);
			out[w++] = *text;
		}
		if (text && w + 1 < len)
			out[w++] = '\n';
		l += n + (l[n] == '\n');
	}
	while (w && out[w - 1] == '\n')
		w--;
	out[w] = '\0';
}

/* The runner's (runner.cu): fails the judge's test in progress with text. */
extern "C" void cl_call_failed(const char *text) __attribute__((weak));

/* Called by the emulator's AddressSanitizer build when it finds a bad access. */
extern "C" void cudaemu_on_asan_report(const char *report, const char *who)
{
	static char summary[2048], text[4096];
	asan_summary(report, summary, sizeof(summary));
	snprintf(text, sizeof(text), "%s%s%s", summary, *who ? "\n" : "", who);
	if (cl_call_failed)
		cl_call_failed(text);
	fprintf(stderr, "%s\n", text);
	abort();
}

bool cl_barrier_broken(void)
{
	return false;   /* the emulator's strict mode fails the launch itself */
}
#else
/* ------------------------------------------------ the checked barrier */

/*
 * The readers of the translation units built with checked-barrier.h (a
 * strict lab's source files, at most eight), weak: null where the program
 * has no such unit.
 */
#define CL_READER(u) extern "C" int cl_barrier_read_unit##u(void **, const char **) \
	__attribute__((weak));
CL_READER(0) CL_READER(1) CL_READER(2) CL_READER(3)
CL_READER(4) CL_READER(5) CL_READER(6) CL_READER(7)
#undef CL_READER
static int (*const barrier_readers[])(void **, const char **) = {
	cl_barrier_read_unit0, cl_barrier_read_unit1, cl_barrier_read_unit2,
	cl_barrier_read_unit3, cl_barrier_read_unit4, cl_barrier_read_unit5,
	cl_barrier_read_unit6, cl_barrier_read_unit7};
static char barrier_detail[512];

bool cl_barrier_broken(void)
{
	/* checked-barrier.h's note: seen, line, arrived, threads, block x, y, z */
	static const unsigned clear[7] = {0};
	unsigned n[7] = {0};
	const char *file = "?";
	void *note = NULL;

	barrier_detail[0] = '\0';
	for (size_t i = 0; i < sizeof(barrier_readers) / sizeof(barrier_readers[0]); i++) {
		/* the harness's own copies (__real_): not the launcher's, for the ledger */
		if (!barrier_readers[i] || !barrier_readers[i](&note, &file) ||
		    __real_cudaMemcpy(n, note, sizeof(n), cudaMemcpyDeviceToHost) != cudaSuccess ||
		    !n[0])
			continue;
		__real_cudaMemcpy(note, clear, sizeof(clear), cudaMemcpyHostToDevice);
		const char *base = strrchr(file, '/');
		char where[160];
		/* line 0: a cooperative-groups block barrier (checked-barrier.h) */
		if (n[1])
			snprintf(where, sizeof(where), "barrier (__syncthreads()) at %s:%u",
				 base ? base + 1 : file, n[1]);
		else
			snprintf(where, sizeof(where), "cooperative-groups block barrier "
				 "(thread_block::sync()) in %s", base ? base + 1 : file);
		snprintf(barrier_detail, sizeof(barrier_detail),
			 "barrier divergence in block (%u,%u,%u): %u of its %u threads reached the "
			 "%s, the others having returned or waiting at another; every thread of a "
			 "block must reach the same barrier", n[4], n[5], n[6], n[2], n[3], where);
		return true;
	}
	return false;
}

const char *cl_error_detail(void)
{
	return barrier_detail[0] ? barrier_detail : NULL;
}

/* Kernel handles seen by __cudaGetKernel, with the host function they stand for. */
static struct {
	cudaKernel_t handle;
	const void *fun;
} kernels[MAX_KERNELS];
static int nkernels;

static void kernel_name(const void *fun, struct cl_launch *c)
{
	const char *mangled = NULL;
	struct cudaFuncAttributes attr;
	int status;

	snprintf(c->kernel, sizeof(c->kernel), "kernel");
	c->static_smem = (size_t)-1;
	if (!fun)
		return;
	if (cudaFuncGetName(&mangled, fun) == cudaSuccess && mangled) {
		char *plain = abi::__cxa_demangle(mangled, NULL, NULL, &status);
		const char *name = plain ? plain : mangled;
		size_t n = strcspn(name, "(<");
		snprintf(c->kernel, sizeof(c->kernel), "%.*s", (int)n, name);
		free(plain);
	}
	if (cudaFuncGetAttributes(&attr, fun) == cudaSuccess)
		c->static_smem = attr.sharedSizeBytes;
}

extern "C" unsigned __wrap___cudaPushCallConfiguration(dim3 grid, dim3 block, size_t smem,
						       struct CUstream_st *stream)
{
	if (ledger.active) {
		ledger.pending.grid = grid;
		ledger.pending.block = block;
		ledger.pending.dyn_smem = smem;
	}
	return __real___cudaPushCallConfiguration(grid, block, smem, stream);
}

extern "C" cudaError_t __wrap___cudaGetKernel(cudaKernel_t *k, const void *fun)
{
	cudaError_t err = __real___cudaGetKernel(k, fun);
	if (err == cudaSuccess && nkernels < MAX_KERNELS) {
		kernels[nkernels].handle = *k;
		kernels[nkernels++].fun = fun;
	}
	return err;
}

/*
 * Shared memory keeps what the last kernel on its SM left there: a fresh
 * context's reads 0, and a kernel that reads shared memory none of its
 * threads wrote (the tail of a tile left unzeroed) gets those zeros or
 * stale values and can pass. Before each launch of the student's, this
 * kernel fills all the shared memory of every SM with NaN (as a float, and
 * as a double two words at a time; measured on an
 * H100: every word a later kernel's blocks of the first wave read, static or
 * dynamic; about 5 us), so such a result shows as NaN. Blocks of later waves
 * see what earlier blocks left, as on any GPU. CUDALAB_SHARED_POISON=0 (the
 * grader's re-run that names the cause) leaves shared memory as it is.
 */
static bool poisoning;   /* its launch may come back through the wrap: not the student's */

__global__ void cl_shared_poison_kernel(unsigned words)
{
	extern __shared__ uint32_t s[];
	for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
		s[i] = 0xFFF8DEADu;   /* NaN, not the bits of the outputs' poison */
}

static void poison_shared(void)
{
	static int state;   /* 0 not set up, 1 on, -1 off */
	static int sms, bytes;

	if (!state) {
		const char *v = getenv("CUDALAB_SHARED_POISON");
		int dev = 0;
		state = !cl_shared_poison || (v && !strcmp(v, "0")) ? -1 : 1;
		if (state > 0 &&
		    (cudaGetDevice(&dev) ||
		     cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) ||
		     cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) ||
		     cudaFuncSetAttribute(cl_shared_poison_kernel,
					  cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)))
			state = -1;
	}
	if (state < 0)
		return;
	unsigned words = (unsigned)bytes / 4;
	void *args[] = {&words};
	/* the public entry point, which the ledger's wraps do not see; two
	 * blocks per SM, each needing a whole SM's shared memory, reach every SM */
	poisoning = true;
	if (cudaLaunchKernel((const void *)cl_shared_poison_kernel, dim3(2 * sms), dim3(1024),
			     args, (size_t)bytes, 0) != cudaSuccess) {
		cudaGetLastError();   /* ours, not the student's to answer for */
		state = -1;
	}
	poisoning = false;
}

extern "C" cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t k, dim3 grid, dim3 block,
						 void **args, size_t smem, cudaStream_t stream)
{
	if (ledger.active && !poisoning) {
		poison_shared();
		int i = ledger.l.nlaunches++;
		if (i < CL_MAX_LAUNCHES) {
			const void *fun = NULL;
			for (int j = 0; j < nkernels; j++)
				if (kernels[j].handle == k)
					fun = kernels[j].fun;
			ledger.l.launch[i] = ledger.pending;
			ledger.l.launch[i].grid = grid;
			ledger.l.launch[i].block = block;
			ledger.l.launch[i].dyn_smem = smem;
			kernel_name(fun, &ledger.l.launch[i]);
		}
	}
	return __real___cudaLaunchKernel(k, grid, block, args, smem, stream);
}

#endif

void cl_ledger_fail_malloc(int nth)
{
	ledger.fail_at = nth + 1;
}

int cl_device_oom;

/*
 * Whether this allocation is the one a test asked to fail
 * (cl_ledger_fail_malloc): then *p is NULL, as a device without room
 * answers.
 */
static bool malloc_fails_now(void **p)
{
	if (!ledger.active || !ledger.fail_at || ++ledger.mallocs != ledger.fail_at)
		return false;
	*p = NULL;
	return true;
}

/* An allocation's outcome, into the ledger: n bytes at p. */
static cudaError_t malloc_record(cudaError_t err, void *p, size_t n)
{
	if (err == cudaErrorMemoryAllocation)
		cl_device_oom = 1;
	if (ledger.active && err == cudaSuccess) {
		for (int i = 0; i < MAX_ALLOCS; i++)
			if (!ledger.alloc_ptr[i]) {
				ledger.alloc_ptr[i] = p;
				ledger.alloc_size[i] = n;
				return err;
			}
	}
	return err;
}

extern "C" cudaError_t __wrap_cudaMalloc(void **p, size_t n)
{
	if (malloc_fails_now(p))
		return cudaErrorMemoryAllocation;
	cudaError_t err = __real_cudaMalloc(p, n);
	return malloc_record(err, err == cudaSuccess ? *p : NULL, n);
}

/* A pitched allocation is one allocation of height rows of *pitch bytes. */
extern "C" cudaError_t __wrap_cudaMallocPitch(void **p, size_t *pitch, size_t width,
					      size_t height)
{
	if (malloc_fails_now(p))
		return cudaErrorMemoryAllocation;
	cudaError_t err = __real_cudaMallocPitch(p, pitch, width, height);
	if (ledger.active && err == cudaSuccess)
		ledger.l.pitched_allocs++;
	return malloc_record(err, err == cudaSuccess ? *p : NULL,
			     err == cudaSuccess ? *pitch * height : 0);
}

extern "C" cudaError_t __wrap_cudaFree(void *p)
{
	if (ledger.active && p) {
		int found = 0;
		for (int i = 0; i < MAX_ALLOCS && !found; i++)
			if (ledger.alloc_ptr[i] == p) {
				ledger.alloc_ptr[i] = NULL;
				found = 1;
			}
		if (!found)
			ledger.l.frees_unknown++;
	}
	return __real_cudaFree(p);
}

/* Whether p is host memory, by what the runtime says the pointer is. */
#ifdef CUDAEMU
extern "C" int cudaemu_is_device(const void *p);
#endif
static bool is_host(const void *p)
{
#ifdef CUDAEMU
	return !cudaemu_is_device(p);
#else
	struct cudaPointerAttributes a;
	bool pending = cudaPeekAtLastError() != cudaSuccess;   /* the student's: kept */
	if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
		if (!pending)
			cudaGetLastError();   /* ours, not the student's to answer for */
		return true;
	}
	return a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged;
#endif
}

/*
 * A copy's direction is told by its kind where the kind says the host is
 * one end, else by where its pointers point, whatever the kind: with
 * unified addressing the runtime may copy by the pointers, so a copy
 * labelled cudaMemcpyDeviceToDevice (or a symbol's, which the emulator
 * copies by its pointers alone) can take device memory to the host.
 * from_host: host memory into device memory; to_host: device memory (src
 * NULL: a __device__ variable) into host memory.
 */
static bool from_host(void *dst, const void *src, enum cudaMemcpyKind kind)
{
	return kind == cudaMemcpyHostToDevice || (is_host(src) && !is_host(dst));
}

static bool to_host(const void *dst, const void *src, enum cudaMemcpyKind kind)
{
	return kind == cudaMemcpyDeviceToHost || ((!src || !is_host(src)) && is_host(dst));
}

/*
 * A copy of bytes from the device to the host (to_host), into the ledger: the
 * host's one way to read what a kernel can reach (host memory a kernel
 * could write is none: __wrap_cudaMallocHost), and with it the inputs it
 * could compute the outputs from.
 */
static void read_record(const void *dst, const void *src, size_t bytes,
			enum cudaMemcpyKind kind)
{
	if (!ledger.active || !bytes)
		return;
	if (to_host(dst, src, kind)) {
		ledger.l.host_reads++;
		ledger.l.host_read_bytes += bytes;
	}
}

/*
 * A copy of bytes from src to dst, into the ledger when it takes host
 * memory into device memory the call did not allocate: the caller's
 * buffers, whose values a kernel must compute. One into a buffer of the
 * call's own (a staging copy) is the launcher's business.
 */
static void copy_record(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
	if (!ledger.active || !bytes || !from_host(dst, src, kind))
		return;
	for (int i = 0; i < MAX_ALLOCS; i++)
		if (ledger.alloc_ptr[i] && (char *)dst >= (char *)ledger.alloc_ptr[i] &&
		    (char *)dst < (char *)ledger.alloc_ptr[i] + ledger.alloc_size[i])
			return;
	ledger.l.host_copies++;
	ledger.l.host_copy_bytes += bytes;
}

extern "C" cudaError_t __wrap_cudaMemcpy(void *dst, const void *src, size_t n,
					 enum cudaMemcpyKind kind)
{
	cudaError_t err = __real_cudaMemcpy(dst, src, n, kind);
	if (err == cudaSuccess) {
		copy_record(dst, src, n, kind);
		read_record(dst, src, n, kind);
	}
	return err;
}

extern "C" cudaError_t __wrap_cudaMemcpy2D(void *dst, size_t dpitch, const void *src,
					   size_t spitch, size_t width, size_t height,
					   enum cudaMemcpyKind kind)
{
	cudaError_t err = __real_cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
	if (err == cudaSuccess) {
		copy_record(dst, src, width * height, kind);
		read_record(dst, src, width * height, kind);
	}
	return err;
}

/* A __device__ variable read from the host: a copy from the device as any other. */
extern "C" cudaError_t __wrap_cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t n,
						   size_t offset, enum cudaMemcpyKind kind)
{
	cudaError_t err = __real_cudaMemcpyFromSymbol(dst, symbol, n, offset, kind);
	if (err == cudaSuccess)
		read_record(dst, NULL, n, kind);
	return err;
}

#ifndef CUDAEMU
/*
 * cudaMallocHost's memory is mapped for the GPU, where a kernel could
 * write the inputs for the host to read, and read back what the host
 * computed from them, with no copy for the ledger to see. A submission
 * gets page-aligned pageable memory instead: cudaMemcpy takes it as
 * before, and a kernel that touches it faults, as with any host memory
 * (on a machine whose GPU reaches pageable memory, HMM or a Grace Hopper,
 * it does not: docs/threat-model.md).
 */
#define MAX_HOST_ALLOCS 256
static void *host_alloc[MAX_HOST_ALLOCS];

extern "C" cudaError_t __wrap_cudaMallocHost(void **p, size_t n)
{
	void *m = NULL;
	int slot = -1;

	for (int i = 0; i < MAX_HOST_ALLOCS && slot < 0; i++)
		if (!host_alloc[i])
			slot = i;
	if (slot < 0 || posix_memalign(&m, 4096, n ? n : 1)) {
		*p = NULL;
		return cudaErrorMemoryAllocation;
	}
	*p = host_alloc[slot] = m;
	return cudaSuccess;
}

extern "C" cudaError_t __wrap_cudaFreeHost(void *p)
{
	for (int i = 0; p && i < MAX_HOST_ALLOCS; i++)
		if (host_alloc[i] == p) {
			host_alloc[i] = NULL;
			free(p);
			return cudaSuccess;
		}
	return __real_cudaFreeHost(p);
}
#endif

#ifdef CUDAEMU
extern "C" void cudaemu_host_memory(const void *p, size_t n, int add);
#endif

void cl_host_arrays(const void *p, size_t n, bool add)
{
#ifdef CUDAEMU
	cudaemu_host_memory(p, n, add);
#else
	(void)p, (void)n, (void)add;
#endif
}

/* ------------------------------------------------------------- the context */

bool cl_context_lost(void)
{
	cudaGetLastError();   /* an error of the last launch's is not the context's */
	return cudaDeviceSynchronize() != cudaSuccess;
}

