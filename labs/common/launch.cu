/*
 * launch.cu - the launch ledger and guarded device buffers.
 *
 * Owns: the link-time wraps (-Wl,--wrap, see the Makefile's WRAPS) of the
 * CUDA runtime entry points that a kernel launch, cudaMalloc and cudaFree go
 * through, so the harness can tell a student which grid and block their
 * launcher chose, and which allocations it leaked. Outside
 * cl_ledger_begin/cl_ledger_end the wraps only pass calls through.
 *
 * Must not: change what the wrapped calls do or return.
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
extern "C" cudaError_t __real_cudaFree(void *p);

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

const char *cl_launch_str(const struct cl_ledger *l, int i, char *buf, size_t len)
{
	if (i >= l->nlaunches || i >= CL_MAX_LAUNCHES) {
		snprintf(buf, len, "no launch");
		return buf;
	}
	const struct cl_launch *c = &l->launch[i];
	snprintf(buf, len, "%s<<<(%u,%u,%u), (%u,%u,%u)>>>", c->kernel, c->grid.x, c->grid.y,
		 c->grid.z, c->block.x, c->block.y, c->block.z);
	return buf;
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
		c->static_smem = (size_t)-1;   /* not known on the CPU */
	}
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

/* Called by the emulator's AddressSanitizer build when it finds a bad access. */
extern "C" void cudaemu_on_asan_report(const char *report, const char *who)
{
	static char summary[2048];
	asan_summary(report, summary, sizeof(summary));
	ck_abort_msg("%s%s%s", summary, *who ? "\n" : "", who);
}
#else
const char *cl_error_detail(void)
{
	return NULL;
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

extern "C" cudaError_t __wrap_cudaMalloc(void **p, size_t n)
{
	if (ledger.active && ledger.fail_at && ++ledger.mallocs == ledger.fail_at) {
		*p = NULL;   /* as a device without room answers */
		return cudaErrorMemoryAllocation;
	}
	cudaError_t err = __real_cudaMalloc(p, n);
	if (err == cudaErrorMemoryAllocation)
		cl_device_oom = 1;
	if (ledger.active && err == cudaSuccess) {
		for (int i = 0; i < MAX_ALLOCS; i++)
			if (!ledger.alloc_ptr[i]) {
				ledger.alloc_ptr[i] = *p;
				ledger.alloc_size[i] = n;
				return err;
			}
	}
	return err;
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

/* ----------------------------------------------------------- device init */

bool cl_context_lost(void)
{
	cudaGetLastError();   /* an error of the last launch's is not the context's */
	return cudaDeviceSynchronize() != cudaSuccess;
}

void cl_device_init(void)
{
	static pid_t made_in;   /* a lane runs many tests in the context it made once */
	if (made_in == getpid())
		return;
	cudaError_t err = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
	if (err == cudaSuccess)
		err = cudaFree(0);
	if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
		ck_abort_msg("no CUDA device: %s (%s)", cudaGetErrorName(err),
			     cudaGetErrorString(err));
	CL_CUDA_CHECK(err);
	made_in = getpid();
}

/* --------------------------------------------------- guarded device buffers */

int cl_safety;

/* The canary word at position i of buffer serial's guards (i counts on from
 * the guard before the array to the one after it): never the NaN that
 * poisons outputs, and unlike every other buffer's at any position. */
static uint32_t canary(uint64_t serial, size_t i)
{
	uint64_t s = serial << 32 | i;
	uint32_t v = (uint32_t)cl_rand_next(&s);
	return v == 0xFFFFFFFFu ? 0xA5A5A5A5u : v;
}

/* Both guards' canaries of b, on the host: 2 * b->guard words. */
static uint32_t *canaries(const struct cl_dbuf *b)
{
	uint32_t *w = (uint32_t *)malloc(2 * b->guard * sizeof(uint32_t));

	ck_assert(w != NULL);
	for (size_t i = 0; i < 2 * b->guard; i++)
		w[i] = canary(b->serial, i);
	return w;
}

void cl_dbuf_alloc(struct cl_dbuf *b, size_t n)
{
	static uint64_t serials;

	b->n = n;
	b->guard = cl_safety ? 0 : CL_GUARD;
	b->serial = ++serials ^ (uint64_t)getpid() << 20;
	b->elem = "float";
	CL_CUDA_CHECK(cudaMalloc((void **)&b->base, (n + 2 * b->guard) * sizeof(float)));
	b->d = b->base + b->guard;
	if (b->guard) {
		uint32_t *w = canaries(b);
		size_t bytes = b->guard * sizeof(uint32_t);
		CL_CUDA_CHECK(cudaMemcpy(b->base, w, bytes, cudaMemcpyHostToDevice));
		CL_CUDA_CHECK(cudaMemcpy(b->d + n, w + b->guard, bytes, cudaMemcpyHostToDevice));
		free(w);
	}
}

void cl_dbuf_free(struct cl_dbuf *b)
{
	if (b->base)
		CL_CUDA_CHECK(cudaFree(b->base));
	b->base = b->d = NULL;
}

void cl_dbuf_upload(struct cl_dbuf *b, const float *h)
{
	CL_CUDA_CHECK(cudaMemcpy(b->d, h, b->n * sizeof(float), cudaMemcpyHostToDevice));
}

void cl_dbuf_download(const struct cl_dbuf *b, float *h)
{
	CL_CUDA_CHECK(cudaMemcpy(h, b->d, b->n * sizeof(float), cudaMemcpyDeviceToHost));
}

void cl_dbuf_poison(struct cl_dbuf *b)
{
	/* 0xFFFFFFFF is a NaN: an element nobody wrote cannot pass a comparison. */
	CL_CUDA_CHECK(cudaMemset(b->d, 0xFF, b->n * sizeof(float)));
}

int cl_dbuf_check_guards(const struct cl_dbuf *b, const char *name, char *msg, size_t len)
{
	long first_before = -1, first_after = -1, nbefore = 0, nafter = 0;
	size_t G = b->guard, bytes = G * sizeof(uint32_t);

	if (!G)
		return 0;
	uint32_t *want = canaries(b), *got = (uint32_t *)malloc(2 * bytes);
	ck_assert(got != NULL);
	CL_CUDA_CHECK(cudaMemcpy(got, b->base, bytes, cudaMemcpyDeviceToHost));
	CL_CUDA_CHECK(cudaMemcpy(got + G, b->d + b->n, bytes, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < G; i++) {
		if (got[i] != want[i]) {
			nbefore++;
			if (first_before < 0)
				first_before = (long)(G - i);  /* distance below element 0 */
		}
		if (got[G + i] != want[G + i]) {
			nafter++;
			if (first_after < 0)
				first_after = (long)i;
		}
	}
	free(want);
	free(got);
	if (nafter)
		snprintf(msg, len, "out-of-bounds write: %ld %s%s past the end of %s (%s has %zu element%s; the "
			 "first bad write is %s[%zu])", nafter, b->elem, nafter == 1 ? "" : "s", name,
			 name, b->n, b->n == 1 ? "" : "s", name, b->n + first_after);
	else if (nbefore)
		snprintf(msg, len, "out-of-bounds write: %ld %s%s before the start of %s (as far down as %s[-%ld])",
			 nbefore, b->elem, nbefore == 1 ? "" : "s", name, name, first_before);
	return nafter || nbefore ? -1 : 0;
}

void cl_assert_guards_out_in(const char *what, const char *cfg, const struct cl_dbuf *out,
			     const struct cl_dbuf *in, const char *hint)
{
	char msg[512];
	if (cl_dbuf_check_guards(out, "out", msg, sizeof(msg)) ||
	    cl_dbuf_check_guards(in, "in", msg, sizeof(msg)))
		ck_abort_msg("%s %s (launch: %s)\nhint: %s", what, msg, cfg, hint);
}

/* ------------------------------------------------------ after one call */

static const char *error_hint(cudaError_t err, const char *buffers, char *buf, size_t len)
{
	switch (err) {
	case cudaErrorInvalidConfiguration:
		return "a block has more than 1024 threads, or a grid or block dimension is 0 "
		       "or too large";
	case cudaErrorIllegalAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorMisalignedAddress:
		snprintf(buf, len, "a thread read or wrote outside %s: check the index "
			 "arithmetic and the bounds check", buffers);
		return buf;
	case cudaErrorLaunchOutOfResources:
		return "the block needs more registers or shared memory than an SM has";
	default:
		return NULL;
	}
}

const struct cl_ledger *cl_finish_call(const char *what, const char *buffers, unsigned flags,
				       char *cfg, size_t len)
{
	cudaError_t launch_err = cudaGetLastError();
	cudaError_t sync_err = cudaDeviceSynchronize();
	const struct cl_ledger *l = cl_ledger_end();
	cudaError_t err = launch_err != cudaSuccess ? launch_err : sync_err;
	char hbuf[256];

	cl_launch_str(l, 0, cfg, len);
	if (l->frees_unknown)
		ck_abort_msg("%s called cudaFree on %d pointer%s it did not allocate\nhint: %s "
			     "belong to the caller: never free them",
			     what, l->frees_unknown, l->frees_unknown == 1 ? "" : "s", buffers);
	if (err != cudaSuccess) {
		const char *hint = error_hint(err, buffers, hbuf, sizeof(hbuf));
		const char *detail = cl_error_detail();
		ck_abort_msg("%s: %s %s: %s (launch: %s)%s%s%s%s", what,
			     launch_err != cudaSuccess ? "the launch failed with"
						       : "the kernel failed with",
			     cudaGetErrorName(err), cudaGetErrorString(err), cfg, detail ? "\n" : "",
			     detail ? detail : "", hint ? "\nhint: " : "", hint ? hint : "");
	}
	if (!l->nlaunches)
		ck_abort_msg("%s launched no kernel\nhint: the launcher must launch its kernel with "
			     "<<<grid, block>>>", what);
	if (l->nallocs && !(flags & CL_CALL_IGNORE_LEAKS))
		ck_abort_msg("%s leaked %zu bytes of device memory (%d cudaMalloc without cudaFree)",
			     what, l->alloc_bytes, l->nallocs);
	return l;
}
