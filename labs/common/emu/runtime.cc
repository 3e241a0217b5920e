/*
 * runtime.cc - the CUDA runtime of the CPU emulator.
 *
 * Owns: device memory (each allocation between guard pages, inaccessible to
 * the host outside kernels and copies, as on a GPU), the error state (sticky
 * and pending errors as CUDA has them), kernel launches (validation, blocks
 * spread over worker threads, each CUDA thread a fiber, __syncthreads with
 * divergence reports), fault reports naming the CUDA thread, and the subset
 * of the runtime API the labs use, with the signatures of the CUDA
 * Toolkit's own cuda_runtime_api.h.
 *
 * Must not: print. What went wrong is kept for cudaemu_error_detail(), which
 * the harness adds to its messages.
 *
 * Built with CUDAEMU_TRACE (the trace runtime), it also counts, for every
 * warp-wide request a kernel makes to device memory, the 32-byte sectors the
 * request touches, as Nsight Compute's sectors per request does on a GPU.
 * The submission is then compiled with -fsanitize=thread, so the compiler
 * calls a hook before every memory access; the hooks are here, and no
 * ThreadSanitizer library is linked. Blocks run one at a time.
 */
#include "cudaemu.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifdef CUDAEMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
/* The harness's reporter of an AddressSanitizer finding, when linked in. */
extern "C" void cudaemu_on_asan_report(const char *report, const char *who)
	__attribute__((weak));
#endif
#ifdef CUDAEMU_TRACE
#include <unordered_map>
#include <vector>
#endif

__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;

extern "C" void cudaemu_switch(void **save_sp, void *load_sp);
extern "C" void cudaemu_fiber_start(void);
/* The harness's launch ledger, when it is linked in. */
extern "C" void cudaemu_on_launch(const cudaemu_launch *l) __attribute__((weak));

namespace {

/* ------------------------------------------------------------- errors */

cudaError_t last_error;     /* returned and cleared by cudaGetLastError */
cudaError_t pending_error;  /* a kernel's fault, seen at the next synchronizing call */
cudaError_t sticky_error;   /* after a fault every call returns it, as on a GPU */
char detail[4096];
pthread_mutex_t detail_lock = PTHREAD_MUTEX_INITIALIZER;

cudaError_t fail(cudaError_t e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
cudaError_t fail(cudaError_t e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	last_error = e;
	return e;
}

/* Every synchronizing call (cudaDeviceSynchronize, cudaMemcpy ...) starts here. */
cudaError_t sync_point(void)
{
	if (pending_error) {
		sticky_error = last_error = pending_error;
		pending_error = cudaSuccess;
	}
	return sticky_error;
}

/* -------------------------------------------------------- device memory */

struct allocation {
	char *map;          /* the mapping: guard page, data pages, guard page */
	size_t map_len;
	char *ptr;          /* what cudaMalloc returned; ends near the last guard page */
	size_t size;
	bool managed;       /* cudaMallocManaged: the host may touch it */
};

allocation *allocs;
size_t nallocs, alloc_cap;
size_t bytes_in_use;
pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
size_t page_size;

const size_t total_memory = 80ull << 30;

size_t page(void)
{
	if (!page_size)
		page_size = (size_t)sysconf(_SC_PAGESIZE);
	return page_size;
}

/* The data pages of a, readable and writable or not at all. */
void protect(const allocation *a, bool accessible)
{
#ifdef CUDAEMU_ASAN
	return;   /* AddressSanitizer watches the host's accesses instead */
#endif
	if (!a->managed)
		mprotect(a->map + page(), a->map_len - 2 * page(),
			 accessible ? PROT_READ | PROT_WRITE : PROT_NONE);
}

void protect_all(bool accessible)
{
	for (size_t i = 0; i < nallocs; i++)
		protect(&allocs[i], accessible);
}

/* The allocation holding [p, p + n), or NULL. */
allocation *find(const void *p, size_t n)
{
	const char *c = (const char *)p;
	for (size_t i = 0; i < nallocs; i++)
		if (c >= allocs[i].ptr && c + n <= allocs[i].ptr + allocs[i].size && c + n >= c)
			return &allocs[i];
	return NULL;
}

/* The allocation whose mapping (guards included) holds p, or NULL. */
allocation *find_near(const void *p)
{
	const char *c = (const char *)p;
	for (size_t i = 0; i < nallocs; i++)
		if (c >= allocs[i].map && c < allocs[i].map + allocs[i].map_len)
			return &allocs[i];
	return NULL;
}

/*
 * What cudaMalloc may hand out in all: at most EMU_CAPACITY, and never more
 * than a quarter of the host's memory. Every byte is the host's and is
 * written at once (poisoned): a submission that takes all it can must get
 * cudaErrorMemoryAllocation quickly, not the host's out-of-memory killer,
 * nor minutes of page faults on a busy machine grading several at once (a
 * quarter of a 24 GiB host took a test near its time limit there). The
 * labs' emulated tests use a few MiB.
 */
#define EMU_CAPACITY ((size_t)2 << 30)

size_t device_capacity(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	size_t host = pages > 0 ? (size_t)pages * page() / 4 : total_memory;
	size_t cap = host < total_memory ? host : total_memory;
	return cap < EMU_CAPACITY ? cap : EMU_CAPACITY;
}

cudaError_t device_alloc(void **p, size_t n, bool managed)
{
	if (sticky_error)
		return sticky_error;
	if (!p)
		return fail(cudaErrorInvalidValue, "cudaMalloc: the pointer to store into is NULL");
	*p = NULL;
	if (n == 0)
		return cudaSuccess;
	size_t capacity = device_capacity();
	if (n > capacity - bytes_in_use)
		return fail(cudaErrorMemoryAllocation, "cudaMalloc: %zu bytes is more than the "
			    "emulated device has left (%zu)", n, capacity - bytes_in_use);
#ifdef CUDAEMU_ASAN
	/* AddressSanitizer's redzones watch the buffer to the byte, both ways */
	void *mem;
	if (posix_memalign(&mem, 256, n))
		return fail(cudaErrorMemoryAllocation, "cudaMalloc: %zu bytes: out of memory", n);
	allocation a = {(char *)mem, n, (char *)mem, n, managed};
	memset(mem, 0xFF, n);
#else
	/* 256-byte aligned as on a GPU, ending at most 255 bytes before the guard */
	size_t pages = (n + 255 + page() - 1) / page();
	size_t len = (pages + 2) * page();
	char *map = (char *)mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);
	if (map == MAP_FAILED)
		return fail(cudaErrorMemoryAllocation, "cudaMalloc: %zu bytes: %s", n,
			    strerror(errno));
	char *end = map + (pages + 1) * page();
	allocation a = {map, len, (char *)((uintptr_t)(end - n) & ~(uintptr_t)255), n, managed};
	mprotect(map + page(), pages * page(), PROT_READ | PROT_WRITE);
	memset(a.ptr, 0xFF, n);   /* born as NaN, like memory nobody wrote */
	if (!managed)
		protect(&a, false);
#endif
	pthread_mutex_lock(&alloc_lock);
	if (nallocs == alloc_cap) {
		alloc_cap = alloc_cap ? 2 * alloc_cap : 64;
		allocs = (allocation *)realloc(allocs, alloc_cap * sizeof(*allocs));
	}
	allocs[nallocs++] = a;
	bytes_in_use += n;
	pthread_mutex_unlock(&alloc_lock);
	*p = a.ptr;
	return cudaSuccess;
}

/* ------------------------------------------------------------- workers */

const int max_threads = 1024;
const size_t stack_size = 64 * 1024;

/* WAITING: at __syncthreads; WARP_WAITING: at a warp-level call */
enum { READY, RUNNING, WAITING, WARP_WAITING, DONE };

struct fiber {
	void *sp;
	uint3 tid;
	int state;
	const char *file;   /* where it waits */
	int line, site;
};

/* A lane's warp-level call: the operation, mask, argument and width, the
 * value it brings, and the result it leaves with (apart from struct fiber,
 * which every switch reads, to keep that small). */
struct lane_call {
	int op;
	unsigned mask;
	int arg, width;
	unsigned long long in, out;
};

/*
 * A warp-level call under way: the lanes of `mask` that have arrived at a
 * call of operation `op` with that mask. It is over when every lane of the
 * mask has (lanes that do not exist, and for __syncwarp lanes that
 * returned, count as arrived).
 */
struct warp_meeting {
	unsigned mask, arrived;
	int op;
};

/* The warp-level state of one warp of the running block; its meetings
 * are the worker's meetings[warp] (a lane is in at most one). */
struct warp {
	unsigned absent;   /* lanes past the block's last thread */
	unsigned exited;   /* lanes whose thread returned */
	int nmeetings;
	int nactive;       /* lanes waiting at __activemask() */
};

/* What a worker thread keeps from one launch to the next. */
struct worker {
	char *stacks;              /* max_threads stacks, each above a guard page */
	char *altstack;            /* for the fault handler */
	char *shmem;               /* dynamic shared memory, ending at a guard page */
	size_t shmem_len;
	fiber fibers[max_threads];
	void *sched_sp;
	const void *sched_bottom;   /* the worker thread's own stack */
	size_t sched_size;
	int current, nthreads;
	/* the pass in progress: the fibers it runs, in order, and how far it got */
	int order[max_threads];
	int norder, pos;
	/* the barrier the block is gathering at: the first waiter's, and whether
	 * any thread waits at another */
	const char *phase_file;
	int phase_site, nwaiting, ndone;
	bool mismatch;
	bool in_block;
	/* the block's warps, the fibers parked at warp-level calls, and whether
	 * a fiber found a warp-level error (reported already); each fiber's
	 * place in the pass's order, for a warp-level call to go back to */
	warp warps[max_threads / 32];
	int nwarpwait;
	bool broken;
	int place[max_threads];
	warp_meeting meetings[max_threads / 32][32];
	lane_call calls[max_threads];
	/* static __shared__ arrays of the running block, in the order the block
	 * reaches their declarations: each in a slot of its own that ends at a
	 * guard page, so writing past any of them faults (on a GPU, past the
	 * block's last one does); slots are kept from block to block */
	struct { int site; char *p; size_t size; } sites[64];
	int nsites;
	struct { char *map; size_t len; } slots[64];
	sigjmp_buf jb;
	pthread_t thread;
	struct launch_state *ls;
};

struct launch_state {
	const cudaemu_launch *l;
	unsigned long long nblocks;
	unsigned long long next;   /* next block to run (atomic) */
	int failed;                /* a block faulted or diverged (atomic) */
	bool reverse;              /* run each pass's threads in reverse order */
	bool strict;               /* a thread that exits while others wait is an error */
	/* each block's shared memory starts as NaN (poison_shared), as the
	 * harness fills a GPU's before each launch, so a result that depends on
	 * shared memory no thread wrote shows; CUDALAB_SHARED_POISON=0 turns it
	 * off */
	bool poison_shared;
};

worker *pool[256];
int npool;
__thread worker *self;

struct fault {
	bool set;
	void *addr;
	bool write;
	uint3 tid, bid;
	worker *w;
} first_fault;

/*
 * Fills shared memory with the words the harness fills a GPU's with: NaN as
 * a float and, two by two, as a double; not the bits of the NaN that fills
 * outputs, so a result computed from it does not pass for an element never
 * written.
 */
void poison_shared(void *p, size_t n)
{
	uint32_t *w = (uint32_t *)p;
	size_t i;

	for (i = 0; i < n / 4; i++)
		w[i] = 0xFFF8DEADu;
	memset(w + i, 0xFF, n % 4);
}

/* A new block has no shared arrays yet. */
void shared_block_start(worker *w)
{
	w->nsites = 0;
}

#ifdef CUDAEMU_TRACE
void trace_block_end(void);
#endif

void shared_block_end(worker *w)
{
#ifdef CUDAEMU_TRACE
	trace_block_end();
#endif
#ifdef CUDAEMU_ASAN
	for (int i = 0; i < w->nsites; i++)
		free(w->sites[i].p);
#else
	(void)w;
#endif
}

worker *new_worker(void)
{
	worker *w = (worker *)calloc(1, sizeof(worker));
	size_t one = stack_size + page();
	if (!w)
		abort();
	w->stacks = (char *)mmap(NULL, one * max_threads, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	w->altstack = (char *)malloc(SIGSTKSZ * 4);
	if (w->stacks == MAP_FAILED || !w->altstack)
		abort();
	for (int t = 0; t < max_threads; t++)
		mprotect(w->stacks + t * one, page(), PROT_NONE);
	return w;
}

void *fiber_stack_top(worker *w, int t)
{
	return w->stacks + (size_t)(t + 1) * (stack_size + page());
}

/*
 * Switches stacks; under AddressSanitizer, tells it which stack is about to
 * run (bottom and size) and that the switch is over, as its fiber API asks.
 * A fiber that is done never comes back (exiting).
 */
inline void switch_stack(void **save, void *to, const void *bottom, size_t size, bool exiting)
{
#ifdef CUDAEMU_ASAN
	void *fake = NULL;
	__sanitizer_start_switch_fiber(exiting ? NULL : &fake, bottom, size);
	cudaemu_switch(save, to);
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#else
	(void)bottom, (void)size, (void)exiting;
	cudaemu_switch(save, to);
#endif
}

/*
 * Leaves the running fiber (saving its stack pointer in *save) for the next
 * fiber of the pass, or for the scheduler when the pass is over: one switch
 * per CUDA thread per barrier phase.
 */
void switch_next(worker *w, void **save, bool exiting = false)
{
	/* fibers behind the running one are ready only when a warp-level call
	 * released them, and then the pass went back to the first of them */
	while (++w->pos < w->norder) {
		int t = w->order[w->pos];
		fiber *f = &w->fibers[t];
		if (f->state != READY)
			continue;   /* waits, or returned, since the pass went back */
		w->current = t;
		threadIdx = f->tid;
		f->state = RUNNING;
		switch_stack(save, f->sp, (char *)fiber_stack_top(w, t) - stack_size, stack_size,
			     exiting);
		return;
	}
	switch_stack(save, w->sched_sp, w->sched_bottom, w->sched_size, exiting);
}

/* Leaves the running fiber for the scheduler, which abandons the block: a
 * warp-level error was found, and reported. */
void abandon_block(worker *w, void **save)
{
	w->broken = true;
	switch_stack(save, w->sched_sp, w->sched_bottom, w->sched_size, false);
	__builtin_unreachable();
}

void warp_meetings_lose_lane(worker *w, int t);

/* Lane t's thread returned: it counts as arrived at __syncwarp()s, and may
 * end or break the meetings that wait for it. */
inline void warp_lane_exits(worker *w, int t)
{
	warp *wp = &w->warps[t >> 5];
	wp->exited |= 1u << (t & 31);
	if (wp->nmeetings || wp->nactive)
		warp_meetings_lose_lane(w, t);
}

void fiber_main(void *)
{
	worker *w = self;
#ifdef CUDAEMU_ASAN
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
	w->ls->l->run(w->ls->l->closure);
	int t = w->current;
	fiber *f = &w->fibers[t];
	f->state = DONE;
	w->ndone++;
	warp_lane_exits(w, t);
	switch_next(w, &f->sp, true);
	__builtin_unreachable();
}

/* Lays out a new fiber's stack so that the first switch to it enters fiber_main. */
void *fiber_init(void *top)
{
	/* 7 words popped by cudaemu_switch, plus 8 bytes so that after its `ret`
	 * the stack is 16-byte aligned, as the trampoline's call needs */
	uint64_t *sp = (uint64_t *)((char *)top - 72);

#ifdef CUDAEMU_ASAN
	/* a stack used by an earlier CUDA thread still carries its redzones */
	__asan_unpoison_memory_region((char *)top - stack_size, stack_size);
#endif

	/* popped by cudaemu_switch: r15 r14 r13 r12 rbx rbp, then the return address */
	sp[2] = (uint64_t)(uintptr_t)fiber_main;          /* r13 */
	sp[3] = 0;                                         /* r12: its argument */
	sp[6] = (uint64_t)(uintptr_t)cudaemu_fiber_start;  /* return address */
	return sp;
}

void record_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void record_detail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&detail_lock);
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&detail_lock);
}

/* Describes why the threads waiting at the end of a pass cannot go on. */
void report_divergence(worker *w, const cudaemu_launch *l)
{
	fiber *first = NULL, *other = NULL, *exited = NULL;
	int nfirst = 0, nother = 0, nexited = 0;

	for (int t = 0; t < w->nthreads; t++) {
		fiber *f = &w->fibers[t];
		if (f->state == DONE) {
			nexited++;
			exited = exited ? exited : f;
		} else if (!first || (f->file == first->file && f->site == first->site)) {
			first = first ? first : f;
			nfirst++;
		} else {
			other = other ? other : f;
			nother++;
		}
	}
	if (other)
		record_detail("barrier divergence in kernel %s (launched at %s:%d), block (%u,%u,%u): "
			      "%d threads wait at __syncthreads() at %s:%d (first: thread (%u,%u,%u)) "
			      "while %d wait at the one at %s:%d (first: thread (%u,%u,%u)); every "
			      "thread of a block must reach the same __syncthreads()",
			      l->kernel, l->file, l->line, blockIdx.x, blockIdx.y, blockIdx.z, nfirst,
			      first->file, first->line, first->tid.x, first->tid.y, first->tid.z,
			      nother, other->file, other->line, other->tid.x, other->tid.y,
			      other->tid.z);
	else
		record_detail("barrier divergence in kernel %s (launched at %s:%d), block (%u,%u,%u): "
			      "%d threads wait at __syncthreads() at %s:%d, but %d threads (first: "
			      "thread (%u,%u,%u)) returned without reaching it",
			      l->kernel, l->file, l->line, blockIdx.x, blockIdx.y, blockIdx.z, nfirst,
			      first->file, first->line, nexited, exited->tid.x, exited->tid.y,
			      exited->tid.z);
}

void report_warp_deadlock(worker *w, const cudaemu_launch *l);

/*
 * Runs one block to its end in passes: each pass runs every live thread, in
 * order, until it waits at a barrier or returns. When all live threads wait
 * at the same barrier the next pass releases them; threads that returned
 * count as arrived (as on current GPUs) unless strict. Within a pass, the
 * lanes of a warp meet at warp-level calls (cudaemu_warp), and the pass
 * goes back to run the lanes a call releases. False when the block broke a
 * barrier rule or a warp-level one.
 */
bool run_block(worker *w, launch_state *ls)
{
	const cudaemu_launch *l = ls->l;
	int n = w->nthreads;

	for (int t = 0; t < n; t++) {
		fiber *f = &w->fibers[t];
		f->tid.x = t % l->block.x;
		f->tid.y = t / l->block.x % l->block.y;
		f->tid.z = t / (l->block.x * l->block.y);
		f->state = READY;
		f->sp = fiber_init(fiber_stack_top(w, t));
		w->place[t] = ls->reverse ? n - 1 - t : t;
		w->order[w->place[t]] = t;
	}
	for (int i = 0; i < (n + 31) / 32; i++) {
		warp *wp = &w->warps[i];
		int lanes = n - 32 * i < 32 ? n - 32 * i : 32;
		wp->absent = lanes == 32 ? 0 : ~0u << lanes;
		wp->exited = 0;
		wp->nmeetings = 0;
		wp->nactive = 0;
	}
	w->norder = n;
	w->ndone = 0;
	w->nwarpwait = 0;
	w->broken = false;
	for (;;) {
		w->phase_file = NULL;
		w->nwaiting = 0;
		w->mismatch = false;
		w->pos = -1;
		switch_next(w, &w->sched_sp);
		if (w->broken)
			return false;
		if (w->nwarpwait) {
			report_warp_deadlock(w, l);
			return false;
		}
		if (!w->nwaiting)
			return true;
		if (w->mismatch || (ls->strict && w->ndone)) {
			report_divergence(w, l);
			return false;
		}
		/* the waiting threads, in pass order, are the next pass */
		int m = 0;
		for (int i = 0; i < w->norder; i++) {
			int t = w->order[i];
			if (w->fibers[t].state == WAITING) {
				w->fibers[t].state = READY;
				w->place[t] = m;
				w->order[m++] = t;
			}
		}
		w->norder = m;
	}
}

/* ------------------------------------------------------------- warps */

/*
 * The lanes of a warp (32 consecutive linear thread ids) meet at warp-level
 * calls as on a GPU since Volta: a call waits until every lane its mask
 * names has made a call of the same kind with the same mask (not
 * necessarily at the same line: sm_70 and later pair them), then each lane
 * gets its result. A fiber arriving parks (WARP_WAITING) and the pass goes
 * on to the next thread; the last lane to arrive computes every lane's
 * result and the pass goes back to the first lane of the meeting, so the
 * warp's lanes run one after another from one warp-level call to the next.
 * That is the memory order __syncwarp() gives: what a lane wrote before it
 * is seen by every lane after it. Code that counts on the lanes of a warp
 * running in lock step without it (the warp-synchronous reduction of old)
 * sees them run one by one instead, and goes wrong, as it may on a GPU with
 * independent thread scheduling.
 *
 * Errors, reported with the line and the launch failing as for
 * __syncthreads: a mask that does not name the calling lane; a call that
 * exchanges values (all but __syncwarp; in strict mode __syncwarp too) whose
 * mask names a lane that returned, or a lane returning while a call that
 * names it waits (its value would be undefined); and, at the end of a pass,
 * a call still waiting for a lane that waits elsewhere (at __syncthreads, or
 * at a call of another kind or another mask). Lanes past the block's last
 * thread count as arrived; a lane reading one of them, or a lane outside
 * the mask, reads a NaN pattern (the value is undefined on a GPU).
 */

const char *const warp_op_names[] = {
	"__syncwarp", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
	"__ballot_sync", "__any_sync", "__all_sync", "__uni_sync", "__activemask",
	"__match_any_sync", "__match_all_sync", "__reduce_add_sync", "__reduce_min_sync",
	"__reduce_max_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
	"__reduce_or_sync", "__reduce_xor_sync",
};

/* What a lane reads from a lane that holds no value for it: NaN as a float
 * and as a double, the shared-memory poison's bits. */
const unsigned long long undefined_value = 0xFFF8DEADFFF8DEADull;

const char *op_name(int op)
{
	return op >= 0 && op <= CUDAEMU_REDUCE_XOR ? warp_op_names[op] : "a warp-level call";
}

int lowest_lane(unsigned lanes)
{
	return __builtin_ctz(lanes);
}

/* The value lane l of a shuffle reads: the source lane's within its
 * segment of `width` lanes, or its own where the source is out of range. */
unsigned long long shuffled(worker *w, int base, const warp_meeting *m, int l)
{
	const lane_call *f = &w->calls[base + l];
	int width = f->width, seg = l & ~(width - 1), src;

	switch (f->op) {
	case CUDAEMU_SHFL_IDX:
		src = seg + (f->arg & (width - 1));
		break;
	case CUDAEMU_SHFL_UP:
		src = l - f->arg >= seg ? l - f->arg : l;
		break;
	case CUDAEMU_SHFL_DOWN:
		src = l + f->arg < seg + width ? l + f->arg : l;
		break;
	default:   /* CUDAEMU_SHFL_XOR: a later segment is out of range */
		src = l ^ (f->arg & 31);
		src = src < seg + width ? src : l;
		break;
	}
	if (src == l)
		return f->in;
	return m->arrived & (1u << src) ? w->calls[base + src].in : undefined_value;
}

/* Gives each lane of a meeting that is over its result. */
void warp_results(worker *w, int base, const warp_meeting *m)
{
	unsigned lanes = m->arrived, ballot = 0, all_equal = 1;
	uint32_t acc = 0;
	bool first = true;

	for (unsigned b = lanes; b; b &= b - 1) {
		const lane_call *f = &w->calls[base + lowest_lane(b)];
		uint32_t v = (uint32_t)f->in;
		int32_t sv = (int32_t)v, sacc = (int32_t)acc;
		ballot |= f->in ? 1u << lowest_lane(b) : 0;
		all_equal &= f->in == w->calls[base + lowest_lane(lanes)].in;
		switch (m->op) {
		case CUDAEMU_REDUCE_ADD: acc += v; break;
		case CUDAEMU_REDUCE_MIN: acc = first || sv < sacc ? v : acc; break;
		case CUDAEMU_REDUCE_MAX: acc = first || sv > sacc ? v : acc; break;
		case CUDAEMU_REDUCE_UMIN: acc = first || v < acc ? v : acc; break;
		case CUDAEMU_REDUCE_UMAX: acc = first || v > acc ? v : acc; break;
		case CUDAEMU_REDUCE_AND: acc = first ? v : acc & v; break;
		case CUDAEMU_REDUCE_OR: acc |= v; break;
		case CUDAEMU_REDUCE_XOR: acc ^= v; break;
		}
		first = false;
	}
	for (unsigned b = lanes; b; b &= b - 1) {
		int l = lowest_lane(b);
		lane_call *f = &w->calls[base + l];
		switch (m->op) {
		case CUDAEMU_SHFL_IDX:
		case CUDAEMU_SHFL_UP:
		case CUDAEMU_SHFL_DOWN:
		case CUDAEMU_SHFL_XOR:
			f->out = shuffled(w, base, m, l);
			break;
		case CUDAEMU_BALLOT: f->out = ballot; break;
		case CUDAEMU_ANY: f->out = ballot != 0; break;
		case CUDAEMU_ALL: f->out = ballot == lanes; break;
		case CUDAEMU_UNI: f->out = ballot == 0 || ballot == lanes; break;
		case CUDAEMU_MATCH_ANY: {
			unsigned same = 0;
			for (unsigned c = lanes; c; c &= c - 1)
				if (w->calls[base + lowest_lane(c)].in == f->in)
					same |= 1u << lowest_lane(c);
			f->out = same;
			break;
		}
		case CUDAEMU_MATCH_ALL:
			f->out = all_equal ? 1ull << 32 | lanes : 0;
			break;
		case CUDAEMU_SYNCWARP:
			f->out = 0;
			break;
		default:   /* the reductions */
			f->out = acc;
			break;
		}
	}
}

/* Ends meeting k of warp wp: each of its lanes has its result and is ready
 * again. Returns the first place in the pass's order among them. */
int end_meeting(worker *w, warp *wp, int k)
{
	int i = (int)(wp - w->warps), base = 32 * i, first = max_threads;
	warp_meeting m = w->meetings[i][k];

	w->meetings[i][k] = w->meetings[i][--wp->nmeetings];
	warp_results(w, base, &m);
	for (unsigned b = m.arrived; b; b &= b - 1) {
		int t = base + lowest_lane(b);
		w->fibers[t].state = READY;
		w->nwarpwait--;
		first = w->place[t] < first ? w->place[t] : first;
	}
	return first;
}

/*
 * __activemask(): the lanes that are "converged" at the call. Fibers have no
 * convergence, so the emulator takes the lanes of the warp that reach the
 * same call (file and line) before any lane of the warp can run on: a call
 * waits until no lane of the warp is ready to run (each waits somewhere, or
 * returned). Then the lanes at the call earliest in the file (the lowest
 * line: a branch's call before the one after the branch, where a GPU
 * reconverges) get the set of them and go on; lanes at other calls wait
 * for the next time the warp stands still. After `if (i >= n) return;`
 * that is the lanes with i < n, as on a GPU; inside a branch, the lanes that
 * took it. Returns the first place in the pass's order among the lanes it
 * releases (max_threads: none yet).
 */
int try_activemask(worker *w, warp *wp)
{
	int base = (int)(wp - w->warps) * 32, first = max_threads;
	const fiber *lead = NULL;
	unsigned at = 0;

	for (unsigned b = ~wp->absent; b; b &= b - 1) {
		int t = base + lowest_lane(b);
		const fiber *f = &w->fibers[t];
		if (f->state == READY || f->state == RUNNING)
			return max_threads;
		if (f->state == WARP_WAITING && w->calls[t].op == CUDAEMU_ACTIVEMASK &&
		    (!lead || (f->file == lead->file && f->line < lead->line)))
			lead = f;
	}
	if (!lead)
		return max_threads;
	for (unsigned b = ~wp->absent; b; b &= b - 1) {
		int t = base + lowest_lane(b);
		const fiber *f = &w->fibers[t];
		if (f->state == WARP_WAITING && w->calls[t].op == CUDAEMU_ACTIVEMASK &&
		    f->file == lead->file && f->line == lead->line)
			at |= 1u << lowest_lane(b);
	}
	for (unsigned b = at; b; b &= b - 1) {
		int t = base + lowest_lane(b);
		w->calls[t].out = at;
		w->fibers[t].state = READY;
		w->nwarpwait--;
		wp->nactive--;
		first = w->place[t] < first ? w->place[t] : first;
	}
	return first;
}

/* The running fiber, which is not going on, leaves released lanes to run:
 * the pass goes back to the first of them. */
void go_back(worker *w, int first)
{
	if (first <= w->pos)
		w->pos = first - 1;
}

/* The launch, block and thread, the start of every warp-level report. */
int where_in_launch(char *buf, size_t n, worker *w, int t)
{
	const cudaemu_launch *l = w->ls->l;
	const fiber *f = &w->fibers[t];
	return snprintf(buf, n, "in kernel %s (launched at %s:%d), block (%u,%u,%u): thread "
			"(%u,%u,%u), lane %d of warp %d,", l->kernel, l->file, l->line, blockIdx.x,
			blockIdx.y, blockIdx.z, f->tid.x, f->tid.y, f->tid.z, t & 31, t >> 5);
}

/* Where lane t is, for a report on a meeting that waits for it. */
void describe_lane(char *buf, size_t n, worker *w, int t)
{
	const fiber *f = &w->fibers[t];
	const lane_call *c = &w->calls[t];
	if (f->state == DONE)
		snprintf(buf, n, "returned");
	else if (f->state == WAITING)
		snprintf(buf, n, "waits at __syncthreads() at %s:%d", f->file, f->line);
	else if (f->state == WARP_WAITING && c->op == CUDAEMU_ACTIVEMASK)
		snprintf(buf, n, "waits at __activemask() at %s:%d", f->file, f->line);
	else if (f->state == WARP_WAITING)
		snprintf(buf, n, "waits at %s() at %s:%d with mask 0x%08x", op_name(c->op), f->file,
			 f->line, c->mask);
	else
		snprintf(buf, n, "has not arrived");
}

/* A meeting can never end: the end of a pass found lanes still waiting. */
void report_warp_deadlock(worker *w, const cudaemu_launch *l)
{
	int nwarps = (w->nthreads + 31) / 32;
	for (int i = 0; i < nwarps; i++) {
		warp *wp = &w->warps[i];
		if (!wp->nmeetings)
			continue;
		const warp_meeting *m = &w->meetings[i][0];
		int base = 32 * i, t = base + lowest_lane(m->arrived);
		unsigned missing = m->mask & ~m->arrived & ~wp->absent;
		const fiber *f = &w->fibers[t];
		char at[512], other[512] = "has not arrived";
		if (!missing)   /* cannot be: the meeting would be over */
			missing = m->mask;
		int o = base + lowest_lane(missing);
		describe_lane(other, sizeof(other), w, o);
		where_in_launch(at, sizeof(at), w, t);
		record_detail("warp divergence %s and %d other lanes of its warp (0x%08x) wait at "
			      "%s() at %s:%d with mask 0x%08x, but lane %d (thread (%u,%u,%u)) %s; "
			      "every lane a warp-level call names must reach a call of the same kind "
			      "with the same mask", at, __builtin_popcount(m->arrived) - 1, m->arrived,
			      op_name(m->op), f->file, f->line, m->mask, o & 31,
			      w->fibers[o].tid.x, w->fibers[o].tid.y, w->fibers[o].tid.z, other);
		return;
	}
	record_detail("warp divergence in kernel %s (launched at %s:%d), block (%u,%u,%u): lanes "
		      "wait at a warp-level call that cannot end", l->kernel, l->file, l->line,
		      blockIdx.x, blockIdx.y, blockIdx.z);
}

/* Lane t's thread returned (warp_lane_exits): meetings that name it may
 * now be over, or broken. */
void warp_meetings_lose_lane(worker *w, int t)
{
	warp *wp = &w->warps[t >> 5];
	unsigned bit = 1u << (t & 31);
	int first = max_threads;

	for (int k = 0; k < wp->nmeetings; k++) {
		warp_meeting *m = &w->meetings[t >> 5][k];
		if (!(m->mask & bit))
			continue;
		if (m->op != CUDAEMU_SYNCWARP || w->ls->strict) {
			int o = (t & ~31) + lowest_lane(m->arrived);
			char at[512];
			where_in_launch(at, sizeof(at), w, t);
			record_detail("warp divergence %s returned while %d lanes of its warp (0x%08x, "
				      "first: thread (%u,%u,%u)) wait for it at %s() at %s:%d with mask "
				      "0x%08x; every lane a warp-level call names must reach it", at,
				      __builtin_popcount(m->arrived), m->arrived, w->fibers[o].tid.x,
				      w->fibers[o].tid.y, w->fibers[o].tid.z, op_name(m->op),
				      w->fibers[o].file, w->fibers[o].line, m->mask);
			abandon_block(w, &w->fibers[t].sp);
		}
		if (((m->arrived | wp->exited | wp->absent) & m->mask) == m->mask) {
			int f = end_meeting(w, wp, k--);
			first = f < first ? f : first;
		}
	}
	if (wp->nactive) {
		int f = try_activemask(w, wp);
		first = f < first ? f : first;
	}
	go_back(w, first);
}

void describe_fault(const launch_state *ls)
{
	const cudaemu_launch *l = ls->l;
	const fault *f = &first_fault;
	const char *c = (const char *)f->addr;
	char where[512];
	allocation *a = find_near(f->addr);

	const char *shared_end = NULL;
	size_t shared_size = 0;
	for (int i = 0; f->w && i < f->w->nsites; i++) {
		const char *p = f->w->sites[i].p;
		if (c >= p && c < p + f->w->sites[i].size + page())
			shared_end = p + f->w->sites[i].size, shared_size = f->w->sites[i].size;
	}
	if (shared_end)
		snprintf(where, sizeof(where), "%zu bytes past the end of a %zu-byte __shared__ array",
			 (size_t)(c - shared_end), shared_size);
	else if (a && c >= a->ptr + a->size)
		snprintf(where, sizeof(where), "%zu bytes past the end of a %zu-byte device buffer",
			 (size_t)(c - (a->ptr + a->size)), a->size);
	else if (a && c < a->ptr)
		snprintf(where, sizeof(where), "%zu bytes before the start of a %zu-byte device "
			 "buffer", (size_t)(a->ptr - c), a->size);
	else if (c < (const char *)(uintptr_t)65536)
		snprintf(where, sizeof(where), "a NULL pointer");
	else
		snprintf(where, sizeof(where), "an address that is no device memory (a host pointer, "
			 "freed memory, or far outside every buffer)");
	record_detail("in kernel %s (launched at %s:%d), thread (%u,%u,%u) of block (%u,%u,%u) "
		      "made an invalid %s at %p: %s", l->kernel, l->file, l->line, f->tid.x,
		      f->tid.y, f->tid.z, f->bid.x, f->bid.y, f->bid.z, f->write ? "write" : "read",
		      f->addr, where);
}

[[maybe_unused]] void on_fault(int sig, siginfo_t *si, void *uc)
{
	worker *w = self;

	if (!w || !w->in_block) {
		/* not in a kernel: the host's own crash, as it would be without us */
		signal(sig, SIG_DFL);
		return;
	}
	if (!__atomic_exchange_n(&w->ls->failed, 1, __ATOMIC_SEQ_CST)) {
		first_fault.set = true;
		first_fault.addr = si->si_addr;
		first_fault.write = (((ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
		first_fault.tid = threadIdx;
		first_fault.bid = blockIdx;
		first_fault.w = w;
	}
	siglongjmp(w->jb, 1);
}

void *worker_main(void *arg)
{
	worker *w = (worker *)arg;
	launch_state *ls = w->ls;
	const cudaemu_launch *l = ls->l;
	stack_t ss = {};

	self = w;
	pthread_attr_t attr;
	if (!pthread_getattr_np(pthread_self(), &attr)) {
		void *bottom;
		pthread_attr_getstack(&attr, &bottom, &w->sched_size);
		w->sched_bottom = bottom;
		pthread_attr_destroy(&attr);
	}
#ifndef CUDAEMU_ASAN   /* AddressSanitizer keeps a signal stack of its own */
	ss.ss_sp = w->altstack;
	ss.ss_size = SIGSTKSZ * 4;
	sigaltstack(&ss, NULL);
#else
	(void)ss;
#endif
	blockDim = l->block;
	gridDim = l->grid;
	w->nthreads = (int)(l->block.x * l->block.y * l->block.z);
	if (sigsetjmp(w->jb, 0)) {
		w->in_block = false;
		return NULL;
	}
	for (;;) {
		unsigned long long b = __atomic_fetch_add(&ls->next, 1, __ATOMIC_RELAXED);
		if (b >= ls->nblocks || __atomic_load_n(&ls->failed, __ATOMIC_RELAXED))
			break;
		blockIdx.x = (unsigned)(b % l->grid.x);
		blockIdx.y = (unsigned)(b / l->grid.x % l->grid.y);
		blockIdx.z = (unsigned)(b / ((unsigned long long)l->grid.x * l->grid.y));
		shared_block_start(w);
		if (ls->poison_shared && l->shmem)
			poison_shared(cudaemu_dyn_shmem(), l->shmem);
		w->in_block = true;
		bool ok = run_block(w, ls);
		w->in_block = false;
		shared_block_end(w);
		if (!ok && !__atomic_exchange_n(&ls->failed, 2, __ATOMIC_SEQ_CST))
			break;
	}
	return NULL;
}

int worker_count(unsigned long long nblocks)
{
	const char *env = getenv("CUDAEMU_WORKERS");
	long n = env && *env ? atol(env) : sysconf(_SC_NPROCESSORS_ONLN);
#if defined(CUDAEMU_SERIAL_SHARED) || defined(CUDAEMU_TRACE)
	n = 1;   /* shared memory is plain static storage, or the trace is one
		  * block's at a time */
#endif
	if (n < 1)
		n = 1;
	if (n > 256)
		n = 256;
	return (int)((unsigned long long)n < nblocks ? n : nblocks);
}

bool env_flag(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0");
}

/* Gives each worker dynamic shared memory of n bytes ending at a guard page. */
void size_shmem(worker *w, size_t n)
{
	size_t len = ((n + page() - 1) / page() + 1) * page();
	if (w->shmem && w->shmem_len >= len)
		return;
	if (w->shmem)
		munmap(w->shmem, w->shmem_len);
	w->shmem = (char *)mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);
	w->shmem_len = len;
	mprotect(w->shmem + len - page(), page(), PROT_NONE);
}


#ifdef CUDAEMU_ASAN
/* Adds to AddressSanitizer's report which CUDA thread made the access. */
void asan_report(const char *report)
{
	worker *w = self;
	char who[512] = "";

	if (w && w->in_block)
		snprintf(who, sizeof(who), "the access was made by CUDA thread (%u,%u,%u) of block "
			 "(%u,%u,%u) in kernel %s (launched at %s:%d)", threadIdx.x, threadIdx.y,
			 threadIdx.z, blockIdx.x, blockIdx.y, blockIdx.z, w->ls->l->kernel,
			 w->ls->l->file, w->ls->l->line);
	if (cudaemu_on_asan_report)
		cudaemu_on_asan_report(report, who);
}
#endif

const char *error_name(cudaError_t e);

} // namespace

/* ---------------------------------------------------------------- launch */

extern "C" void cudaemu_launch_run(const cudaemu_launch *l)
{
	const dim3 g = l->grid, b = l->block;
	unsigned long long threads = (unsigned long long)b.x * b.y * b.z;

	if (sticky_error) {
		last_error = sticky_error;
		return;
	}
	if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z || threads > 1024 || b.x > 1024 ||
	    b.y > 1024 || b.z > 64 || g.x > 2147483647u || g.y > 65535 || g.z > 65535) {
		fail(cudaErrorInvalidConfiguration, "launch of %s at %s:%d with grid (%u,%u,%u) and "
		     "block (%u,%u,%u): a block may have at most 1024 threads (z at most 64), no "
		     "dimension may be 0, and the grid's y and z are at most 65535",
		     l->kernel, l->file, l->line, g.x, g.y, g.z, b.x, b.y, b.z);
		return;
	}
	if (l->shmem > 48 * 1024) {
		fail(cudaErrorInvalidValue, "launch of %s at %s:%d asks for %zu bytes of dynamic "
		     "shared memory; more than 48 KiB needs cudaFuncSetAttribute", l->kernel,
		     l->file, l->line, l->shmem);
		return;
	}
	if (cudaemu_on_launch)
		cudaemu_on_launch(l);

	launch_state ls = {};
	ls.l = l;
	ls.nblocks = (unsigned long long)g.x * g.y * g.z;
	ls.reverse = env_flag("CUDAEMU_REVERSE");
	ls.strict = env_flag("CUDAEMU_STRICT_BARRIERS");
	const char *poison = getenv("CUDALAB_SHARED_POISON");
	ls.poison_shared = !poison || strcmp(poison, "0");
	int nw = worker_count(ls.nblocks);
	while (npool < nw)
		pool[npool++] = new_worker();

#ifdef CUDAEMU_ASAN
	__asan_set_error_report_callback(asan_report);   /* ASan reports faults itself */
#else
	struct sigaction sa = {}, old_segv, old_bus;
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
#endif
	first_fault.set = false;
	protect_all(true);

	for (int i = 0; i < nw; i++) {
		pool[i]->ls = &ls;
		size_shmem(pool[i], l->shmem);
		if (pthread_create(&pool[i]->thread, NULL, worker_main, pool[i]))
			worker_main(pool[i]);   /* no thread: run its share here */
	}
	for (int i = 0; i < nw; i++)
		pthread_join(pool[i]->thread, NULL);

	protect_all(false);
#ifndef CUDAEMU_ASAN
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
#endif
	self = NULL;
	if (ls.failed == 1 && first_fault.set) {
		describe_fault(&ls);
		pending_error = cudaErrorIllegalAddress;
	} else if (ls.failed) {
		pending_error = cudaErrorLaunchFailure;
	}
}

extern "C" void cudaemu_syncthreads(const char *file, int line, int site)
{
	worker *w = self;
	if (!w || !w->in_block)
		return;
	fiber *f = &w->fibers[w->current];
	f->state = WAITING;
	f->file = file;
	f->line = line;
	f->site = site;
	if (!w->phase_file) {
		w->phase_file = file;
		w->phase_site = site;
	} else if (file != w->phase_file || site != w->phase_site) {
		w->mismatch = true;
	}
	w->nwaiting++;
	if (w->warps[w->current >> 5].nactive)
		go_back(w, try_activemask(w, &w->warps[w->current >> 5]));
	switch_next(w, &f->sp);
}

/* A warp-level call outside a kernel: the host thread is a warp of one lane. */
static unsigned long long host_warp(int op, unsigned long long value)
{
	switch (op) {
	case CUDAEMU_BALLOT:
	case CUDAEMU_ACTIVEMASK:
	case CUDAEMU_MATCH_ANY:
		return op == CUDAEMU_BALLOT ? value != 0 : 1;
	case CUDAEMU_MATCH_ALL:
		return 1ull << 32 | 1;
	case CUDAEMU_ALL:
	case CUDAEMU_ANY:
		return value != 0;
	case CUDAEMU_UNI:
		return 1;
	default:
		return value;
	}
}

/*
 * One lane's warp-level call (see "warps" above): it joins the meeting of
 * its warp for this operation and mask, and waits for the meeting to end,
 * the other lanes of the pass running meanwhile.
 */
extern "C" unsigned long long cudaemu_warp(int op, unsigned mask, unsigned long long value,
					   int arg, int width, const char *file, int line)
{
	worker *w = self;
	if (!w || !w->in_block)
		return host_warp(op, value);
	int t = w->current, lane = t & 31;
	unsigned bit = 1u << lane;
	fiber *f = &w->fibers[t];
	lane_call *c = &w->calls[t];
	warp *wp = &w->warps[t >> 5];
	char at[512];
	int first = max_threads;

	c->op = op;
	c->mask = mask;
	c->arg = arg;
	c->width = width;
	c->in = value;
	f->file = file;
	f->line = line;
	if (op == CUDAEMU_ACTIVEMASK) {
		f->state = WARP_WAITING;
		w->nwarpwait++;
		wp->nactive++;
		first = try_activemask(w, wp);
		goto wait;
	}
	if (!(mask & bit)) {
		where_in_launch(at, sizeof(at), w, t);
		record_detail("invalid warp-level call %s calls %s() at %s:%d with mask 0x%08x, "
			      "which does not name its own lane", at, op_name(op), file, line, mask);
		abandon_block(w, &f->sp);
	}
	if (op >= CUDAEMU_SHFL_IDX && op <= CUDAEMU_SHFL_XOR &&
	    (width < 1 || width > 32 || (width & (width - 1)))) {
		where_in_launch(at, sizeof(at), w, t);
		record_detail("invalid warp-level call %s calls %s() at %s:%d with width %d; the "
			      "width must be a power of 2 from 1 to 32", at, op_name(op), file, line,
			      width);
		abandon_block(w, &f->sp);
	}
	if ((op != CUDAEMU_SYNCWARP || w->ls->strict) && (mask & wp->exited)) {
		int o = (t & ~31) + lowest_lane(mask & wp->exited);
		where_in_launch(at, sizeof(at), w, t);
		record_detail("warp divergence %s calls %s() at %s:%d with mask 0x%08x, but lanes "
			      "0x%08x of its warp (first: thread (%u,%u,%u)) returned; a warp-level "
			      "call may name only lanes that reach it (take the mask from "
			      "__ballot_sync() or __activemask() before threads return)", at,
			      op_name(op), file, line, mask, mask & wp->exited, w->fibers[o].tid.x,
			      w->fibers[o].tid.y, w->fibers[o].tid.z);
		abandon_block(w, &f->sp);
	}

	{
		warp_meeting *ms = w->meetings[t >> 5];
		int k = 0;
		while (k < wp->nmeetings && (ms[k].mask != mask || ms[k].op != op))
			k++;
		if (k == wp->nmeetings)
			ms[wp->nmeetings++] = warp_meeting{mask, 0, op};
		warp_meeting *m = &ms[k];
		m->arrived |= bit;
		f->state = WARP_WAITING;
		w->nwarpwait++;
		if (((m->arrived | wp->exited | wp->absent) & mask) == mask)
			first = end_meeting(w, wp, k);
		else if (wp->nactive)
			first = try_activemask(w, wp);
	}
wait:
	if (f->state == READY) {
		/* released: go on at once if first in the pass's order, else the
		 * pass goes back to the first lane released and comes to this one
		 * in its turn */
		if (first < w->place[t]) {
			w->pos = first - 1;
			switch_next(w, &f->sp);
		} else {
			f->state = RUNNING;
		}
	} else {
		go_back(w, first);
		switch_next(w, &f->sp);
	}
	return c->out;
}

/* A construct the emulator cannot run (a grid-wide barrier ...): the launch
 * fails, saying so. */
extern "C" void cudaemu_unsupported(const char *what, const char *file, int line)
{
	worker *w = self;
	char at[512];
	if (!w || !w->in_block)
		return;
	where_in_launch(at, sizeof(at), w, w->current);
	record_detail("not emulated %s calls %s at %s:%d, which the CPU emulator cannot run; "
		      "run on a GPU", at, what, file, line);
	abandon_block(w, &w->fibers[w->current].sp);
}

extern "C" void *cudaemu_static_shared(int site, size_t size)
{
	worker *w = self;
	if (!w || !w->in_block)
		return NULL;
	for (int i = 0; i < w->nsites; i++)
		if (w->sites[i].site == site)
			return w->sites[i].p;
	if (w->nsites == 64)
		abort();
#ifdef CUDAEMU_ASAN
	/* a heap block of its own: AddressSanitizer watches its bounds to the byte */
	char *p = (char *)malloc(size ? size : 1);
#else
	int i = w->nsites;
	size_t len = (size + page() - 1) / page() * page() + page();
	if (w->slots[i].len < len) {
		if (w->slots[i].map)
			munmap(w->slots[i].map, w->slots[i].len);
		w->slots[i].map = (char *)mmap(NULL, len, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (w->slots[i].map == MAP_FAILED)
			abort();
		w->slots[i].len = len;
		mprotect(w->slots[i].map + len - page(), page(), PROT_NONE);
	}
	/* 16-byte aligned, ending at most 15 bytes before the guard page */
	char *p = (char *)((uintptr_t)(w->slots[i].map + w->slots[i].len - page() - size) &
			   ~(uintptr_t)15);
#endif
	if (w->ls->poison_shared)
		poison_shared(p, size);
	w->sites[w->nsites].site = site;
	w->sites[w->nsites].size = size;
	w->sites[w->nsites++].p = p;
	return p;
}

extern "C" void *cudaemu_dyn_shmem(void)
{
	worker *w = self;
	if (!w || !w->ls)
		return NULL;
	/* the requested bytes end exactly at the guard page */
	size_t n = (w->ls->l->shmem + 15) & ~(size_t)15;
	return w->shmem + w->shmem_len - page() - n;
}

extern "C" const char *cudaemu_error_detail(void)
{
	return detail[0] ? detail : NULL;
}

/* ------------------------------------------------------------ runtime API */

extern "C" {

cudaError_t cudaMalloc(void **p, size_t n)
{
	return device_alloc(p, n, false);
}

cudaError_t cudaMallocManaged(void **p, size_t n, unsigned int)
{
	return device_alloc(p, n, true);
}

cudaError_t cudaFree(void *p)
{
	if (sticky_error)
		return sticky_error;
	if (!p)
		return cudaSuccess;
	pthread_mutex_lock(&alloc_lock);
	for (size_t i = 0; i < nallocs; i++)
		if (allocs[i].ptr == p) {
#ifdef CUDAEMU_ASAN
			free(allocs[i].map);   /* into ASan's quarantine: a later use is reported */
#else
			munmap(allocs[i].map, allocs[i].map_len);
#endif
			bytes_in_use -= allocs[i].size;
			allocs[i] = allocs[--nallocs];
			pthread_mutex_unlock(&alloc_lock);
			return cudaSuccess;
		}
	pthread_mutex_unlock(&alloc_lock);
	return fail(cudaErrorInvalidValue, "cudaFree(%p): not a pointer cudaMalloc returned (or "
		    "freed already)", p);
}

cudaError_t cudaMallocHost(void **p, size_t n)
{
	*p = malloc(n ? n : 1);
	return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation, "cudaMallocHost: out of memory");
}

cudaError_t cudaFreeHost(void *p)
{
	free(p);
	return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	cudaError_t e = sync_point();
	if (e)
		return e;
	if (n == 0)
		return cudaSuccess;
	allocation *d = find(dst, n), *s = find(src, n);
	bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
	bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
	if (kind == cudaMemcpyDefault) {
		dst_dev = d != NULL;
		src_dev = s != NULL;
	} else if (kind != cudaMemcpyHostToHost && !dst_dev && !src_dev) {
		return fail(cudaErrorInvalidMemcpyDirection, "cudaMemcpy: invalid direction %d",
			    (int)kind);
	}
	if (dst_dev && !d)
		return fail(cudaErrorInvalidValue, "cudaMemcpy of %zu bytes: the destination %p is %s",
			    n, dst, find_near(dst) || find(dst, 1) ? "device memory, but the copy "
			    "runs past the end of its buffer" : "not device memory");
	if (src_dev && !s)
		return fail(cudaErrorInvalidValue, "cudaMemcpy of %zu bytes: the source %p is %s", n,
			    src, find_near(src) || find(src, 1) ? "device memory, but the copy runs "
			    "past the end of its buffer" : "not device memory");
	if (d)
		protect(d, true);
	if (s)
		protect(s, true);
	memmove(dst, src, n);
	if (d)
		protect(d, false);
	if (s)
		protect(s, false);
	return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int value, size_t n)
{
	cudaError_t e = sync_point();
	if (e)
		return e;
	if (n == 0)
		return cudaSuccess;
	allocation *a = find(p, n);
	if (!a)
		return fail(cudaErrorInvalidValue, "cudaMemset of %zu bytes at %p: %s", n, p,
			    find(p, 1) ? "past the end of the buffer" : "not device memory");
	protect(a, true);
	memset(p, value, n);
	protect(a, false);
	return cudaSuccess;
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t n, size_t offset,
			       enum cudaMemcpyKind)
{
	cudaError_t e = sync_point();
	if (e)
		return e;
	memcpy((char *)symbol + offset, src, n);
	return cudaSuccess;
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t n, size_t offset,
				 enum cudaMemcpyKind)
{
	cudaError_t e = sync_point();
	if (e)
		return e;
	memcpy(dst, (const char *)symbol + offset, n);
	return cudaSuccess;
}

cudaError_t cudaGetSymbolAddress(void **p, const void *symbol)
{
	*p = (void *)symbol;
	return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
	*total = total_memory;
	*free_bytes = total_memory - bytes_in_use;
	return sticky_error;
}

cudaError_t cudaDeviceSynchronize(void)
{
	return sync_point();
}

cudaError_t cudaGetLastError(void)
{
	cudaError_t e = sticky_error ? sticky_error : last_error;
	last_error = cudaSuccess;
	return e;
}

cudaError_t cudaPeekAtLastError(void)
{
	return sticky_error ? sticky_error : last_error;
}

const char *cudaGetErrorName(cudaError_t e)
{
	return error_name(e);
}

const char *cudaGetErrorString(cudaError_t e);

cudaError_t cudaGetDeviceCount(int *n)
{
	*n = 1;
	return cudaSuccess;
}

cudaError_t cudaGetDevice(int *d)
{
	*d = 0;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int d)
{
	return d == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice, "the emulator has device 0 only");
}

cudaError_t cudaSetDeviceFlags(unsigned int)
{
	return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
	*v = CUDART_VERSION;
	return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
	*v = CUDART_VERSION;
	return cudaSuccess;
}

/* The emulated device: an H100 SXM's limits, so launch rules and occupancy
 * questions get a real GPU's answers. */
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int dev)
{
	if (dev != 0)
		return fail(cudaErrorInvalidDevice, "the emulator has device 0 only");
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "NVIDIA H100 80GB HBM3 (emulated on the CPU)");
	p->totalGlobalMem = total_memory;
	p->sharedMemPerBlock = 48 * 1024;
	p->regsPerBlock = 65536;
	p->warpSize = 32;
	p->maxThreadsPerBlock = 1024;
	p->maxThreadsDim[0] = 1024;
	p->maxThreadsDim[1] = 1024;
	p->maxThreadsDim[2] = 64;
	p->maxGridSize[0] = 2147483647;
	p->maxGridSize[1] = 65535;
	p->maxGridSize[2] = 65535;
	p->totalConstMem = 64 * 1024;
	p->major = 9;
	p->minor = 0;
	p->multiProcessorCount = 132;
	p->l2CacheSize = 50 * 1024 * 1024;
	p->maxThreadsPerMultiProcessor = 2048;
	p->sharedMemPerMultiprocessor = 228 * 1024;
	p->regsPerMultiprocessor = 65536;
	p->sharedMemPerBlockOptin = 227 * 1024;
	p->maxBlocksPerMultiProcessor = 32;
	p->memoryBusWidth = 5120;
	p->managedMemory = 1;
	p->concurrentKernels = 1;
	p->unifiedAddressing = 1;
	p->reservedSharedMemPerBlock = 1024;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr attr, int dev)
{
	struct cudaDeviceProp p;
	cudaError_t e = cudaGetDeviceProperties(&p, dev);
	if (e)
		return e;
	switch (attr) {
	case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
	case cudaDevAttrMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
	case cudaDevAttrMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
	case cudaDevAttrMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
	case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; break;
	case cudaDevAttrMaxGridDimY: *v = p.maxGridSize[1]; break;
	case cudaDevAttrMaxGridDimZ: *v = p.maxGridSize[2]; break;
	case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int)p.sharedMemPerBlock; break;
	case cudaDevAttrWarpSize: *v = p.warpSize; break;
	case cudaDevAttrMaxRegistersPerBlock: *v = p.regsPerBlock; break;
	case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
	case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
	case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
	case cudaDevAttrL2CacheSize: *v = p.l2CacheSize; break;
	case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
	case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
		*v = (int)p.sharedMemPerMultiprocessor;
		break;
	case cudaDevAttrMaxRegistersPerMultiprocessor: *v = p.regsPerMultiprocessor; break;
	case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = (int)p.sharedMemPerBlockOptin; break;
	case cudaDevAttrMaxBlocksPerMultiprocessor: *v = p.maxBlocksPerMultiProcessor; break;
	default:
		return fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute: attribute %d is not "
			    "emulated", (int)attr);
	}
	return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *)
{
	memset(attr, 0, sizeof(*attr));
	attr->maxThreadsPerBlock = 1024;
	attr->numRegs = 32;
	attr->ptxVersion = attr->binaryVersion = 90;
	return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *, enum cudaFuncAttribute, int)
{
	return cudaSuccess;
}

/* Events: wall-clock time on the CPU; their elapsed times say nothing about a GPU. */
struct CUevent_st {
	struct timespec t;
};

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
	*e = (cudaEvent_t)calloc(1, sizeof(struct CUevent_st));
	return *e ? cudaSuccess : fail(cudaErrorMemoryAllocation, "cudaEventCreate: out of memory");
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int)
{
	return cudaEventCreate(e);
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t)
{
	clock_gettime(CLOCK_MONOTONIC, &e->t);
	return sticky_error;
}

cudaError_t cudaEventSynchronize(cudaEvent_t)
{
	return sync_point();
}

cudaError_t cudaEventQuery(cudaEvent_t)
{
	return sticky_error;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	*ms = (float)((b->t.tv_sec - a->t.tv_sec) * 1e3 + (b->t.tv_nsec - a->t.tv_nsec) / 1e6);
	return sticky_error;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
	free(e);
	return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t)
{
	return sync_point();
}

} // extern "C"

/* ------------------------------------------------------------ error names */

namespace {
struct error_text {
	cudaError_t e;
	const char *name, *text;
};
const error_text errors[] = {
	{cudaSuccess, "cudaSuccess", "no error"},
	{cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
	{cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
	{cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
	{cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
	 "invalid configuration argument"},
	{cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
	 "invalid copy direction for memcpy"},
	{cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
	{cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
	{cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
	{cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
	{cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
	 "an illegal memory access was encountered"},
	{cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
	{cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
	 "too many resources requested for launch"},
	{cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
	{cudaErrorInvalidAddressSpace, "cudaErrorInvalidAddressSpace",
	 "operation not supported on global/shared address space"},
	{cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
	{cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
	{cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
	{cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle",
	 "invalid resource handle"},
	{cudaErrorNotYetImplemented, "cudaErrorNotYetImplemented",
	 "function not yet implemented"},
	{cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const error_text *lookup(cudaError_t e)
{
	for (const error_text &t : errors)
		if (t.e == e)
			return &t;
	return NULL;
}

const char *error_name(cudaError_t e)
{
	const error_text *t = lookup(e);
	return t ? t->name : "cudaErrorUnknown";
}
} // namespace

extern "C" const char *cudaGetErrorString(cudaError_t e)
{
	const error_text *t = lookup(e);
	return t ? t->text : "unrecognized error code";
}

/* ------------------------------------------------------------ trace mode */
#ifdef CUDAEMU_TRACE
namespace {

/*
 * One warp-wide request: the accesses that the 32 threads of one warp make
 * from one instruction (the hook's return address) for the same time (each
 * thread's k-th pass there), loads and stores apart.
 */
struct request_key {
	uintptr_t pc;
	unsigned warp, pass;
	bool store;
	bool operator==(const request_key &o) const
	{
		return pc == o.pc && warp == o.warp && pass == o.pass && store == o.store;
	}
};

struct request_hash {
	size_t operator()(const request_key &k) const
	{
		uint64_t h = k.pc * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)k.warp << 32 | k.pass) ^ k.store;
		return (size_t)(h ^ (h >> 29));
	}
};

struct thread_pass_key {
	uintptr_t pc;
	unsigned thread;
	bool store;
	bool operator==(const thread_pass_key &o) const
	{
		return pc == o.pc && thread == o.thread && store == o.store;
	}
};

struct thread_pass_hash {
	size_t operator()(const thread_pass_key &k) const
	{
		return (size_t)(k.pc * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)k.thread << 1 | k.store));
	}
};

/* The running block's requests (their sectors) and each thread's passes. */
std::unordered_map<request_key, std::vector<uint64_t>, request_hash> block_requests;
std::unordered_map<thread_pass_key, unsigned, thread_pass_hash> block_passes;
/* Since the last cudaemu_trace_take: load requests and their sectors, then stores'. */
unsigned long long totals[4];

void trace_access(const void *addr, size_t n, bool store, uintptr_t pc)
{
	worker *w = self;
	if (!w || !w->in_block || !find(addr, n))
		return;   /* host code, or not device memory (shared, local, the stack) */
	unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	unsigned pass = block_passes[{pc, t, store}]++;
	std::vector<uint64_t> &sectors = block_requests[{pc, t / 32, pass, store}];
	for (uint64_t s = (uintptr_t)addr / 32; s <= ((uintptr_t)addr + n - 1) / 32; s++) {
		bool seen = false;
		for (uint64_t o : sectors)
			seen |= o == s;
		if (!seen)
			sectors.push_back(s);
	}
}

void trace_block_end(void)
{
	for (const auto &r : block_requests) {
		totals[r.first.store ? 2 : 0]++;
		totals[r.first.store ? 3 : 1] += r.second.size();
	}
	block_requests.clear();
	block_passes.clear();
}

} // namespace

extern "C" int cudaemu_trace_take(unsigned long long out[4])
{
	memcpy(out, totals, sizeof(totals));
	memset(totals, 0, sizeof(totals));
	return 0;
}

/* The hooks -fsanitize=thread puts before memory accesses and around calls. */
#define PC ((uintptr_t)__builtin_return_address(0))
#define ACCESS_HOOKS(n)                                                                      \
	extern "C" void __tsan_read##n(void *p) { trace_access(p, n, false, PC); }           \
	extern "C" void __tsan_write##n(void *p) { trace_access(p, n, true, PC); }           \
	extern "C" void __tsan_unaligned_read##n(void *p) { trace_access(p, n, false, PC); } \
	extern "C" void __tsan_unaligned_write##n(void *p) { trace_access(p, n, true, PC); } \
	extern "C" void __tsan_volatile_read##n(void *p) { trace_access(p, n, false, PC); }  \
	extern "C" void __tsan_volatile_write##n(void *p) { trace_access(p, n, true, PC); }
ACCESS_HOOKS(1)
ACCESS_HOOKS(2)
ACCESS_HOOKS(4)
ACCESS_HOOKS(8)
ACCESS_HOOKS(16)
extern "C" void __tsan_read_range(void *p, size_t n) { trace_access(p, n, false, PC); }
extern "C" void __tsan_write_range(void *p, size_t n) { trace_access(p, n, true, PC); }
extern "C" void __tsan_init(void) {}
extern "C" void __tsan_func_entry(void *) {}
extern "C" void __tsan_func_exit(void) {}
extern "C" void __tsan_vptr_update(void **, void *) {}
extern "C" void __tsan_vptr_read(void **) {}

/*
 * Atomics: the hook is the operation itself (and a request of its own).
 * Orders are ints in the instrumentation's interface; blocks run one at a
 * time, so sequential consistency serves them all.
 */
#define ATOMIC_RMW(bits, T, op, builtin)                                                     \
	extern "C" T __tsan_atomic##bits##_##op(volatile T *a, T v, int)                     \
	{                                                                                    \
		trace_access((const void *)a, sizeof(T), true, PC);                          \
		return builtin(a, v, __ATOMIC_SEQ_CST);                                      \
	}
#define ATOMIC_CAS(bits, T, kind)                                                            \
	extern "C" int __tsan_atomic##bits##_compare_exchange_##kind(volatile T *a, T *c, T v, \
								    int, int)            \
	{                                                                                    \
		trace_access((const void *)a, sizeof(T), true, PC);                          \
		return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST,         \
						   __ATOMIC_SEQ_CST);                        \
	}
#define ATOMIC_HOOKS(bits, T)                                                                \
	extern "C" T __tsan_atomic##bits##_load(const volatile T *a, int)                    \
	{                                                                                    \
		trace_access((const void *)a, sizeof(T), false, PC);                         \
		return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                 \
	}                                                                                    \
	extern "C" void __tsan_atomic##bits##_store(volatile T *a, T v, int)                 \
	{                                                                                    \
		trace_access((const void *)a, sizeof(T), true, PC);                          \
		__atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                    \
	}                                                                                    \
	ATOMIC_RMW(bits, T, exchange, __atomic_exchange_n)                                   \
	ATOMIC_RMW(bits, T, fetch_add, __atomic_fetch_add)                                   \
	ATOMIC_RMW(bits, T, fetch_sub, __atomic_fetch_sub)                                   \
	ATOMIC_RMW(bits, T, fetch_and, __atomic_fetch_and)                                   \
	ATOMIC_RMW(bits, T, fetch_or, __atomic_fetch_or)                                     \
	ATOMIC_RMW(bits, T, fetch_xor, __atomic_fetch_xor)                                   \
	ATOMIC_RMW(bits, T, fetch_nand, __atomic_fetch_nand)                                 \
	ATOMIC_CAS(bits, T, strong)                                                          \
	ATOMIC_CAS(bits, T, weak)                                                            \
	extern "C" T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int, \
								int)                     \
	{                                                                                    \
		trace_access((const void *)a, sizeof(T), true, PC);                          \
		__atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST,               \
					    __ATOMIC_SEQ_CST);                               \
		return c;                                                                    \
	}
ATOMIC_HOOKS(8, uint8_t)
ATOMIC_HOOKS(16, uint16_t)
ATOMIC_HOOKS(32, uint32_t)
ATOMIC_HOOKS(64, uint64_t)
extern "C" void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
extern "C" void __tsan_atomic_signal_fence(int) {}
#undef PC

#else /* !CUDAEMU_TRACE */

extern "C" int cudaemu_trace_take(unsigned long long out[4])
{
	memset(out, 0, 4 * sizeof(*out));
	return -1;   /* not the trace runtime */
}
#endif
