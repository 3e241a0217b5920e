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
 * Must not: print (but for the checking run's reports, below, which are its
 * output). What went wrong is kept for cudaemu_error_detail(), which the
 * harness adds to its messages.
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
#include <dlfcn.h>
#include <map>
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

/*
 * New device memory is born as a NaN that is not the harness's poison
 * (cl_poison_bits, all ones): a kernel that computes from memory nobody
 * wrote writes this NaN on, and the harness can tell that from an element
 * its launcher never wrote.
 */
static void born_nan(void *p, size_t n)
{
	const uint32_t bits = 0x7FC0BADDu;
	size_t words = n / sizeof(bits);

	for (size_t i = 0; i < words; i++)
		memcpy((char *)p + i * sizeof(bits), &bits, sizeof(bits));
	memset((char *)p + words * sizeof(bits), 0xFF, n % sizeof(bits));
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
	born_nan(mem, n);
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
	born_nan(a.ptr, n);
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
	bool unnamed;        /* the CPU refused the access without its address (SI_KERNEL) */
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

#ifdef CUDAEMU_TRACE
void trace_block_end(void);
/* the safety stage's checks (CUDAEMU_CHECKS), in the trace runtime: below */
bool checks_on;
unsigned check_pass;                 /* the block's __syncthreads() passed so far */
unsigned check_warp_pass[32];        /* each warp's __syncwarp() passed so far */
void checks_block_start(void);
void checks_launch_end(const cudaemu_launch *l);
#endif

/* A new block has no shared arrays yet. */
void shared_block_start(worker *w)
{
	w->nsites = 0;
#ifdef CUDAEMU_TRACE
	if (checks_on)
		checks_block_start();
#endif
}


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
#ifdef CUDAEMU_TRACE
		check_pass++;   /* what comes after the barrier is ordered after what came before */
#endif
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
#ifdef CUDAEMU_TRACE
	if (m.op == CUDAEMU_SYNCWARP)
		check_warp_pass[i]++;   /* the lanes' accesses before it are ordered before */
#endif
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
	else if (f->unnamed)
		/* a general-protection fault: x86 names no address for it */
		snprintf(where, sizeof(where), "the CPU refused the access without naming its "
			 "address: a vector access (float4, int4, double2, ...) at an address that "
			 "is not a multiple of its size, which a GPU refuses too (misaligned "
			 "address), or a pointer that is no address at all");
	else if (c < (const char *)(uintptr_t)65536)
		snprintf(where, sizeof(where), "a NULL pointer");
	else
		snprintf(where, sizeof(where), "an address that is no device memory (a host pointer, "
			 "freed memory, or far outside every buffer)");
	/* just outside an array: out of bounds, as memcheck says it on a GPU */
	bool bounds = shared_end || (a && (c >= a->ptr + a->size || c < a->ptr));
	char at[40] = "";
	if (!f->unnamed)
		snprintf(at, sizeof(at), " at %p", f->addr);
	record_detail("in kernel %s (launched at %s:%d), thread (%u,%u,%u) of block (%u,%u,%u) "
		      "made an %s %s%s: %s", l->kernel, l->file, l->line, f->tid.x,
		      f->tid.y, f->tid.z, f->bid.x, f->bid.y, f->bid.z,
		      bounds ? "out-of-bounds" : "invalid", f->write ? "write" : "read",
		      at, where);
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
		first_fault.unnamed = si->si_code == SI_KERNEL;
		first_fault.write = (((ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
		first_fault.tid = threadIdx;
		first_fault.bid = blockIdx;
		first_fault.w = w;
	}
	siglongjmp(w->jb, 1);
}

/* --------------------------------------------- file-scope extern __shared__ */

/* How to point each file-scope `extern __shared__` array (CUDAEMU_FILE_SHARED). */
void (**file_shared_setters)(void *);
size_t nfile_shared;

/* On a worker, before its blocks run: they all see the launch's dynamic
 * shared memory, which is the worker's for the whole launch. */
void point_file_shared(void)
{
	if (!nfile_shared)
		return;
	void *base = cudaemu_dyn_shmem();
	for (size_t i = 0; i < nfile_shared; i++)
		file_shared_setters[i](base);
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
	point_file_shared();
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

/* ---------------------------------------------------- kernel attributes */

/* What a block of the emulated H100 may have in all, once its kernel opted in. */
const size_t shared_optin_max = 227 * 1024;
const size_t shared_default_max = 48 * 1024;

/* What the host set on a kernel (cudaFuncSetAttribute) and what its launches
 * showed of it (its static shared memory), by the kernel's address. */
struct kernel_attrs {
	const void *func;
	int max_dyn_shared;   /* cudaFuncAttributeMaxDynamicSharedMemorySize; -1: not set */
	int carveout;         /* cudaFuncAttributePreferredSharedMemoryCarveout; -1: not set */
	size_t static_shared; /* its __shared__ arrays, as the last launch laid them out */
};

kernel_attrs *kernels;
size_t nkernels, kernels_cap;

/* The record of kernel func; a new one when add, else NULL when there is none. */
kernel_attrs *kernel_record(const void *func, bool add)
{
	for (size_t i = 0; i < nkernels; i++)
		if (kernels[i].func == func)
			return &kernels[i];
	if (!add)
		return NULL;
	if (nkernels == kernels_cap) {
		kernels_cap = kernels_cap ? 2 * kernels_cap : 16;
		kernels = (kernel_attrs *)realloc(kernels, kernels_cap * sizeof(*kernels));
		if (!kernels)
			abort();
	}
	kernels[nkernels] = {func, -1, -1, 0};
	return &kernels[nkernels++];
}

/* What l's kernel set as its cudaFuncAttributeMaxDynamicSharedMemorySize,
 * or -1. A template kernel whose arguments the launch deduced has no
 * address here: it may have the most any kernel set. */
long dyn_shared_set(const cudaemu_launch *l)
{
	long most = -1;
	for (size_t i = 0; i < nkernels; i++)
		if ((!l->func || kernels[i].func == l->func) && kernels[i].max_dyn_shared > most)
			most = kernels[i].max_dyn_shared;
	return most;
}

/* False, with the error set, when l asks for more dynamic shared memory
 * than its kernel may have (48 KiB, or what it set); the message says what
 * the student can do. */
bool dyn_shared_fits(const cudaemu_launch *l)
{
	long set = dyn_shared_set(l);

	if (l->shmem <= (set >= 0 ? (size_t)set : shared_default_max))
		return true;
	if (l->shmem > shared_optin_max)
		fail(cudaErrorInvalidValue, "launch of %s at %s:%d asks for %zu bytes of dynamic shared "
		     "memory, more than the %zu bytes (227 KiB) a block of the emulated H100 can have",
		     l->kernel, l->file, l->line, l->shmem, shared_optin_max);
	else if (set < 0)
		fail(cudaErrorInvalidValue, "launch of %s at %s:%d asks for %zu bytes of dynamic shared "
		     "memory; a block gets 48 KiB (49152 bytes) unless its kernel opts in first with "
		     "cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, %zu)",
		     l->kernel, l->file, l->line, l->shmem, l->kernel, l->shmem);
	else
		fail(cudaErrorInvalidValue, "launch of %s at %s:%d asks for %zu bytes of dynamic shared "
		     "memory, but its kernel's cudaFuncAttributeMaxDynamicSharedMemorySize is %ld "
		     "bytes (cudaFuncSetAttribute)", l->kernel, l->file, l->line, l->shmem, set);
	return false;
}

/* After a launch of l: the static shared memory its blocks laid out. */
void note_static_shared(const cudaemu_launch *l, int nworkers)
{
	size_t most = 0;
	for (int i = 0; i < nworkers; i++) {
		size_t sum = 0;
		for (int s = 0; s < pool[i]->nsites; s++)
			sum += pool[i]->sites[s].size;
		most = sum > most ? sum : most;
	}
	if (l->func && most)
		kernel_record(l->func, true)->static_shared = most;
}

const char *error_name(cudaError_t e);

} // namespace

extern "C" void cudaemu_file_shared(void (*set)(void *))
{
	/* at static initialisation, before main: one thread */
	file_shared_setters = (void (**)(void *))realloc(file_shared_setters,
							 (nfile_shared + 1) * sizeof(set));
	if (!file_shared_setters)
		abort();
	file_shared_setters[nfile_shared++] = set;
}

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
	if (!dyn_shared_fits(l))
		return;
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
		pool[i]->nsites = 0;   /* a worker that gets no block lays out none */
		size_shmem(pool[i], l->shmem);
		if (pthread_create(&pool[i]->thread, NULL, worker_main, pool[i]))
			worker_main(pool[i]);   /* no thread: run its share here */
	}
	for (int i = 0; i < nw; i++)
		pthread_join(pool[i]->thread, NULL);
	note_static_shared(l, nw);

	protect_all(false);
#ifndef CUDAEMU_ASAN
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
#endif
	self = NULL;
#ifdef CUDAEMU_TRACE
	if (checks_on)
		checks_launch_end(l);
#endif
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

/* ------------------------------------------------------- copies and fills */

namespace {

/*
 * A copy of height rows of width bytes, each row pitch bytes after the one
 * before at either end (cudaMemcpy: one row): the direction checked against
 * what each pointer is, and every byte from the first row's first to the
 * last row's last inside one buffer at a device end. `what` names the call.
 */
cudaError_t copy_rows(const char *what, void *dst, size_t dpitch, const void *src, size_t spitch,
		      size_t width, size_t height, enum cudaMemcpyKind kind)
{
	cudaError_t e = sync_point();
	if (e)
		return e;
	if (width == 0 || height == 0)
		return cudaSuccess;
	size_t dext = dpitch * (height - 1) + width, sext = spitch * (height - 1) + width;
	allocation *d = find(dst, dext), *s = find(src, sext);
	bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
	bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
	if (kind == cudaMemcpyDefault) {
		dst_dev = d != NULL;
		src_dev = s != NULL;
	} else if (kind != cudaMemcpyHostToHost && !dst_dev && !src_dev) {
		return fail(cudaErrorInvalidMemcpyDirection, "%s: invalid direction %d", what,
			    (int)kind);
	}
	if (dst_dev && !d)
		return fail(cudaErrorInvalidValue, "%s: the destination %p is %s", what, dst,
			    find_near(dst) || find(dst, 1) ? "device memory, but the copy runs past "
			    "the end of its buffer" : "not device memory");
	if (src_dev && !s)
		return fail(cudaErrorInvalidValue, "%s: the source %p is %s", what, src,
			    find_near(src) || find(src, 1) ? "device memory, but the copy runs past "
			    "the end of its buffer" : "not device memory");
	if (d)
		protect(d, true);
	if (s)
		protect(s, true);
	for (size_t r = 0; r < height; r++)
		memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
	if (d)
		protect(d, false);
	if (s)
		protect(s, false);
	return cudaSuccess;
}

/* A fill of device memory, in rows as copy_rows copies (cudaMemset: one row). */
cudaError_t fill_rows(const char *what, void *p, size_t pitch, int value, size_t width,
		      size_t height)
{
	cudaError_t e = sync_point();
	if (e)
		return e;
	if (width == 0 || height == 0)
		return cudaSuccess;
	allocation *a = find(p, pitch * (height - 1) + width);
	if (!a)
		return fail(cudaErrorInvalidValue, "%s at %p: %s", what, p,
			    find(p, 1) ? "past the end of the buffer" : "not device memory");
	protect(a, true);
	for (size_t r = 0; r < height; r++)
		memset((char *)p + r * pitch, value, width);
	protect(a, false);
	return cudaSuccess;
}

} // namespace

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
	char what[64];

	snprintf(what, sizeof(what), "cudaMemcpy of %zu bytes", n);
	return copy_rows(what, dst, n, src, n, n, 1, kind);
}

cudaError_t cudaMemset(void *p, int value, size_t n)
{
	char what[64];

	snprintf(what, sizeof(what), "cudaMemset of %zu bytes", n);
	return fill_rows(what, p, n, value, n, 1);
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
	p->memPitch = 2147483647;
	p->textureAlignment = 512;
	p->texturePitchAlignment = 32;
	p->surfaceAlignment = 512;
	p->canMapHostMemory = 1;
	p->ECCEnabled = 1;
	p->globalL1CacheSupported = 1;
	p->localL1CacheSupported = 1;
	p->streamPrioritiesSupported = 1;
	p->computePreemptionSupported = 1;
	p->cooperativeLaunch = 1;
	p->concurrentManagedAccess = 1;
	p->clusterLaunch = 1;
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
	case cudaDevAttrTotalConstantMemory: *v = (int)p.totalConstMem; break;
	case cudaDevAttrMaxPitch: *v = (int)p.memPitch; break;
	case cudaDevAttrTextureAlignment: *v = (int)p.textureAlignment; break;
	case cudaDevAttrGlobalMemoryBusWidth: *v = p.memoryBusWidth; break;
	case cudaDevAttrConcurrentKernels: *v = p.concurrentKernels; break;
	case cudaDevAttrEccEnabled: *v = p.ECCEnabled; break;
	case cudaDevAttrUnifiedAddressing: *v = p.unifiedAddressing; break;
	case cudaDevAttrManagedMemory: *v = p.managedMemory; break;
	case cudaDevAttrConcurrentManagedAccess: *v = p.concurrentManagedAccess; break;
	case cudaDevAttrCooperativeLaunch: *v = p.cooperativeLaunch; break;
	case cudaDevAttrCanMapHostMemory: *v = p.canMapHostMemory; break;
	case cudaDevAttrGlobalL1CacheSupported: *v = p.globalL1CacheSupported; break;
	case cudaDevAttrLocalL1CacheSupported: *v = p.localL1CacheSupported; break;
	case cudaDevAttrStreamPrioritiesSupported: *v = p.streamPrioritiesSupported; break;
	case cudaDevAttrComputePreemptionSupported: *v = p.computePreemptionSupported; break;
	case cudaDevAttrClusterLaunch: *v = p.clusterLaunch; break;
	case cudaDevAttrReservedSharedMemoryPerBlock: *v = (int)p.reservedSharedMemPerBlock; break;
	case cudaDevAttrIntegrated: *v = 0; break;
	case cudaDevAttrKernelExecTimeout: *v = 0; break;
	case cudaDevAttrComputeMode: *v = cudaComputeModeDefault; break;
	/* CUDA 13's cudaDeviceProp has no clocks: this is where they are read
	 * (an H100 SXM's: 1980 MHz boost, 2619 MHz HBM3) */
	case cudaDevAttrClockRate: *v = 1980000; break;
	case cudaDevAttrMemoryClockRate: *v = 2619000; break;
	default:
		return fail(cudaErrorInvalidValue, "cudaDeviceGetAttribute: attribute %d is not "
			    "emulated", (int)attr);
	}
	return cudaSuccess;
}

/* What the emulator knows of a kernel: its static shared memory once a launch
 * laid it out, and what the host set; registers and local memory it has no
 * compiler's word for. */
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
	if (sticky_error)
		return sticky_error;
	if (!attr || !func)
		return fail(cudaErrorInvalidValue, "cudaFuncGetAttributes: %s is NULL",
			    attr ? "the kernel" : "the attributes to fill");
	const kernel_attrs *k = kernel_record(func, false);
	size_t static_shared = k ? k->static_shared : 0;
	memset(attr, 0, sizeof(*attr));
	attr->sharedSizeBytes = static_shared;
	attr->maxThreadsPerBlock = 1024;
	attr->numRegs = 32;
	attr->ptxVersion = attr->binaryVersion = 90;
	attr->maxDynamicSharedSizeBytes = k && k->max_dyn_shared >= 0 ? k->max_dyn_shared
		: static_shared < shared_default_max ? (int)(shared_default_max - static_shared) : 0;
	attr->preferredShmemCarveout = k ? k->carveout : -1;
	return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
	if (sticky_error)
		return sticky_error;
	if (!func)
		return fail(cudaErrorInvalidDeviceFunction, "cudaFuncSetAttribute: the kernel is NULL");
	switch (attr) {
	case cudaFuncAttributeMaxDynamicSharedMemorySize: {
		size_t static_shared = kernel_record(func, false) ?
			kernel_record(func, false)->static_shared : 0;
		if (value < 0 || (size_t)value + static_shared > shared_optin_max)
			return fail(cudaErrorInvalidValue, "cudaFuncSetAttribute: %d bytes of dynamic "
				    "shared memory%s is more than the %zu bytes (227 KiB) a block of the "
				    "emulated H100 can have", value, static_shared ?
				    " with the kernel's static __shared__ arrays" : "", shared_optin_max);
		kernel_record(func, true)->max_dyn_shared = value;
		return cudaSuccess;
	}
	case cudaFuncAttributePreferredSharedMemoryCarveout:
		if (value < -1 || value > 100)
			return fail(cudaErrorInvalidValue, "cudaFuncSetAttribute: a shared-memory "
				    "carveout of %d; it is a percentage (0 to 100) or -1", value);
		kernel_record(func, true)->carveout = value;
		return cudaSuccess;
	case cudaFuncAttributeRequiredClusterWidth:
	case cudaFuncAttributeRequiredClusterHeight:
	case cudaFuncAttributeRequiredClusterDepth:
	case cudaFuncAttributeNonPortableClusterSizeAllowed:
	case cudaFuncAttributeClusterSchedulingPolicyPreference:
		return cudaSuccess;   /* clusters: one block is one block here */
	default:
		return fail(cudaErrorInvalidValue, "cudaFuncSetAttribute: %d is no function attribute",
			    (int)attr);
	}
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

/* ---------------- pitched memory, pinned memory, configuration, reset */

/* Rows padded to 512 bytes, the pitch a GPU of this generation gives. */
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height)
{
	if (!pitch)
		return fail(cudaErrorInvalidValue, "cudaMallocPitch: the pitch to store into is NULL");
	*pitch = (width + 511) & ~(size_t)511;
	return device_alloc(p, *pitch * height, false);
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
			 size_t height, enum cudaMemcpyKind kind)
{
	char what[96];

	snprintf(what, sizeof(what), "cudaMemcpy2D of %zu rows of %zu bytes", height, width);
	if (width > dpitch || width > spitch)
		return fail(cudaErrorInvalidPitchValue, "%s: a row is wider than the %s pitch (%zu)",
			    what, width > dpitch ? "destination's" : "source's",
			    width > dpitch ? dpitch : spitch);
	return copy_rows(what, dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t cudaMemset2D(void *p, size_t pitch, int value, size_t width, size_t height)
{
	char what[96];

	snprintf(what, sizeof(what), "cudaMemset2D of %zu rows of %zu bytes", height, width);
	if (width > pitch)
		return fail(cudaErrorInvalidPitchValue, "%s: a row is wider than the pitch (%zu)",
			    what, pitch);
	return fill_rows(what, p, pitch, value, width, height);
}

/* Mapped or portable, pinned host memory is host memory the CPU's kernels
 * reach as they reach any. */
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int)
{
	return cudaMallocHost(p, n);
}

cudaError_t cudaHostGetDevicePointer(void **device, void *host, unsigned int)
{
	*device = host;
	return sticky_error;
}

/* Cache and bank preferences: kept and given back, and change nothing. */
static enum cudaFuncCache cache_config = cudaFuncCachePreferNone;

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache c)
{
	if ((unsigned)c > cudaFuncCachePreferEqual)
		return fail(cudaErrorInvalidValue, "cudaDeviceSetCacheConfig: %d is no cache "
			    "configuration", (int)c);
	cache_config = c;
	return sticky_error;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *c)
{
	*c = cache_config;
	return sticky_error;
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache c)
{
	if (!func)
		return fail(cudaErrorInvalidDeviceFunction, "cudaFuncSetCacheConfig: the kernel is NULL");
	if ((unsigned)c > cudaFuncCachePreferEqual)
		return fail(cudaErrorInvalidValue, "cudaFuncSetCacheConfig: %d is no cache "
			    "configuration", (int)c);
	return sticky_error;
}

/* Since Volta banks are four bytes wide whatever is asked. */
static cudaError_t set_bank_size(const char *fn, enum cudaSharedMemConfig c)
{
	if ((unsigned)c > cudaSharedMemBankSizeEightByte)
		return fail(cudaErrorInvalidValue, "%s: %d is no bank size", fn, (int)c);
	return sticky_error;
}

cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig c)
{
	return set_bank_size("cudaDeviceSetSharedMemConfig", c);
}

cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *c)
{
	*c = cudaSharedMemBankSizeFourByte;
	return sticky_error;
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig c)
{
	if (!func)
		return fail(cudaErrorInvalidDeviceFunction, "cudaFuncSetSharedMemConfig: the kernel "
			    "is NULL");
	return set_bank_size("cudaFuncSetSharedMemConfig", c);
}

/* Frees every allocation and forgets every error and kernel attribute, as
 * a GPU's reset does. */
cudaError_t cudaDeviceReset(void)
{
	pthread_mutex_lock(&alloc_lock);
	for (size_t i = 0; i < nallocs; i++)
#ifdef CUDAEMU_ASAN
		free(allocs[i].map);
#else
		munmap(allocs[i].map, allocs[i].map_len);
#endif
	nallocs = 0;
	bytes_in_use = 0;
	pthread_mutex_unlock(&alloc_lock);
	nkernels = 0;
	cache_config = cudaFuncCachePreferNone;
	last_error = pending_error = sticky_error = cudaSuccess;
	return cudaSuccess;
}

/*
 * Resident blocks of func per SM, as the H100 has them: at most 32 blocks
 * and 2048 threads (in whole warps), and its 228 KiB of shared memory, 1 KiB
 * of it reserved per block. Registers count as 32 a thread (the emulator has
 * no compiler's count), which never limits before the threads do.
 */
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *func,
								   int block_size, size_t dyn_shared,
								   unsigned int)
{
	if (sticky_error)
		return sticky_error;
	if (!blocks || !func || block_size <= 0)
		return fail(cudaErrorInvalidValue, "cudaOccupancyMaxActiveBlocksPerMultiprocessor: "
			    "%s", !blocks ? "the count to store into is NULL" : !func ?
			    "the kernel is NULL" : "the block size is not positive");
	const kernel_attrs *k = kernel_record(func, false);
	size_t shared = dyn_shared + (k ? k->static_shared : 0) + 1024;
	int warps = (block_size + 31) / 32, n = 32;
	if (block_size > 1024) {
		*blocks = 0;
		return cudaSuccess;
	}
	if (2048 / (warps * 32) < n)
		n = 2048 / (warps * 32);
	if (shared - 1024 > shared_optin_max)
		n = 0;
	else if ((int)(228 * 1024 / shared) < n)
		n = (int)(228 * 1024 / shared);
	*blocks = n;
	return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func,
							  int block_size, size_t dyn_shared)
{
	return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size,
								      dyn_shared, 0);
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
	{cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
	{cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
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

void check_access(const void *p, size_t n, bool store, bool aligned, uintptr_t pc);

void trace_access(const void *addr, size_t n, bool store, uintptr_t pc, bool aligned = false)
{
	worker *w = self;
	if (checks_on) {
		check_access(addr, n, store, aligned, pc);
		return;   /* the safety stage's run counts no sectors */
	}
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

/* ------------------------------------------------------------- the checks */

/*
 * The safety stage's run (CUDAEMU_CHECKS set; the trace runtime, so every
 * access of the submission's comes through a hook and blocks run one at a
 * time) checks what compute-sanitizer checks on a GPU, and reports it in
 * the same form (grader/grading/safety.c reads both), with "@pc:0xOFFSET" where
 * the sanitizer names a source line: the grader asks addr2line.
 *  - memcheck: an access to device memory outside every buffer, to the
 *    byte (the normal runtime's guard pages leave up to 255 bytes of slack
 *    after a buffer); an access of 2, 4, 8 or 16 bytes the compiler took
 *    to be aligned that is not, which faults on a GPU;
 *  - racecheck: two threads that touch one word of shared memory, one of
 *    them writing, with no __syncthreads() between (no __syncwarp() either,
 *    for two lanes of one warp). Atomics are not plain accesses: exempt.
 * Reports are printed as they are found (memcheck, at most 10 a launch) or
 * at the end of the launch (races, one per pair of lines, with a count).
 */
int check_memcheck_reports;          /* this launch's */

struct word_shadow {
	int wtid, rtid;                  /* last writer, a reader since; -1: none */
	unsigned wpass, wwarp, rpass, rwarp;   /* rwarp: the latest read's warp pass */
	uintptr_t wpc, rpc;
	bool rmany;                      /* more than one thread read it */
	int rother;                      /* with rmany: a reader other than rtid */
	unsigned rwarp_of;               /* with rmany: the warp of every reader, or
					    NO_WARP when they are of several */
};
#define NO_WARP (~0u)
std::unordered_map<uintptr_t, word_shadow> check_shadow;

struct race_key {
	uintptr_t pc1, pc2;
	bool w1, w2;
	bool operator<(const race_key &o) const
	{
		return pc1 != o.pc1 ? pc1 < o.pc1 : pc2 != o.pc2 ? pc2 < o.pc2
		       : w1 != o.w1 ? w1 < o.w1 : w2 < o.w2;
	}
};
struct race_seen {
	unsigned long count;
	int t1, t2;
	uint3 block;
};
std::map<race_key, race_seen> check_races;

uintptr_t code_offset(uintptr_t pc)
{
	Dl_info info;
	/* the return address is after the call: the access is the byte before */
	if (dladdr((void *)pc, &info) && info.dli_fbase)
		return pc - 1 - (uintptr_t)info.dli_fbase;
	return pc - 1;
}

uint3 tid_of(int t, dim3 b)
{
	uint3 u;
	u.x = t % b.x;
	u.y = t / b.x % b.y;
	u.z = t / (b.x * b.y);
	return u;
}

void checks_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void checks_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fflush(stdout);
}

bool in_shared(const worker *w, const void *p, size_t n)
{
	const char *c = (const char *)p;
	for (int i = 0; i < w->nsites; i++)
		if (c >= w->sites[i].p && c + n <= w->sites[i].p + w->sites[i].size)
			return true;
	return w->shmem && c >= w->shmem && c + n <= w->shmem + w->shmem_len;
}

void memcheck_report(const worker *w, const void *p, size_t n, bool store, uintptr_t pc,
		     const char *space, const char *what)
{
	if (check_memcheck_reports++ >= 10)
		return;
	checks_print("========= Invalid __%s__ %s of size %zu bytes\n"
		     "=========     at %s+0x0 in @pc:0x%lx\n"
		     "=========     by thread (%u,%u,%u) in block (%u,%u,%u)\n"
		     "=========     %s\n========= \n",
		     space, store ? "write" : "read", n, w->ls->l->kernel,
		     (unsigned long)code_offset(pc), threadIdx.x, threadIdx.y, threadIdx.z,
		     blockIdx.x, blockIdx.y, blockIdx.z, what);
}

/* One access of the running block's: bounds and alignment, and races on shared memory. */
void check_access(const void *p, size_t n, bool store, bool aligned, uintptr_t pc)
{
	worker *w = self;
	if (!w || !w->in_block)
		return;
	bool shared = in_shared(w, p, n);
	const allocation *a = shared ? NULL : find(p, n);
	if (!shared && !a) {
		const allocation *near = find_near(p);
		if (near) {
			char what[256];
			const char *c = (const char *)p;
			const char *end = near->ptr + near->size;
			bool after = c >= near->ptr;
			snprintf(what, sizeof(what), "Address %p is out of bounds\n"
				 "=========     and is %zu bytes %s the nearest allocation at %p of "
				 "size %zu bytes", p,
				 after ? (c >= end ? (size_t)(c - end) : 0) : (size_t)(near->ptr - c),
				 after ? "after" : "before", (void *)near->ptr, near->size);
			memcheck_report(w, p, n, store, pc, "global", what);
		}
		return;   /* not device memory: the stack, or the host's */
	}
	if (aligned && n > 1 && (uintptr_t)p % n) {
		char what[96];
		snprintf(what, sizeof(what), "Address %p is misaligned", p);
		memcheck_report(w, p, n, store, pc, shared ? "shared" : "global", what);
	}
	if (!shared)
		return;
	int t = (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
	unsigned warp = (unsigned)t / 32, wp = check_warp_pass[warp];
	for (uintptr_t word = (uintptr_t)p / 4; word <= ((uintptr_t)p + n - 1) / 4; word++) {
		auto it = check_shadow.find(word);
		if (it == check_shadow.end())
			it = check_shadow.emplace(word, word_shadow{-1, -1, 0, 0, 0, 0, 0, 0, false, -1,
								    NO_WARP}).first;
		word_shadow &s = it->second;
		/* whether thread o's access at (pass, warp pass) and this one had no barrier between */
		auto unordered = [&](int o, unsigned opass, unsigned owarp) {
			return o >= 0 && o != t && opass == check_pass &&
			       ((unsigned)o / 32 != warp || owarp == wp);
		};
		int other = -1;
		uintptr_t opc = 0;
		bool owrite = false;
		/*
		 * Several readers since the last barrier: a store is ordered after
		 * them only when they are all lanes of this thread's warp and a
		 * __syncwarp() came after the last of their reads (per-warp
		 * staging); the thread named is one of them other than this one.
		 */
		bool readers_unordered = s.rmany && s.rpass == check_pass &&
					 (s.rwarp_of != warp || s.rwarp == wp);
		if (unordered(s.wtid, s.wpass, s.wwarp)) {
			other = s.wtid, opc = s.wpc, owrite = true;
		} else if (store && !s.rmany && unordered(s.rtid, s.rpass, s.rwarp)) {
			other = s.rtid, opc = s.rpc;
		} else if (store && readers_unordered) {
			other = s.rtid != t ? s.rtid : s.rother, opc = s.rpc;
		}
		if (other >= 0) {
			race_seen &r = check_races[{opc, pc, owrite, store}];
			if (!r.count++)
				r = {1, other, t, blockIdx};
		}
		if (store) {
			s.wtid = t, s.wpass = check_pass, s.wwarp = wp, s.wpc = pc;
			s.rtid = -1, s.rmany = false;
		} else if (s.rtid < 0 || s.rpass != check_pass) {
			s.rtid = t, s.rpass = check_pass, s.rwarp = wp, s.rpc = pc, s.rmany = false;
		} else if (s.rtid != t || s.rmany) {
			if (!s.rmany)
				s.rwarp_of = (unsigned)s.rtid / 32;
			if (s.rwarp_of != warp)
				s.rwarp_of = NO_WARP;
			if (t != s.rtid)
				s.rother = t;
			s.rmany = true;
			s.rwarp = s.rwarp > wp ? s.rwarp : wp;
		} else {
			s.rwarp = wp;   /* the one reader again, later */
		}
	}
}

void checks_block_start(void)
{
	check_pass = 0;
	memset(check_warp_pass, 0, sizeof(check_warp_pass));
	check_shadow.clear();
}

void checks_launch_end(const cudaemu_launch *l)
{
	int printed = 0;
	for (const auto &e : check_races) {
		if (printed++ >= 10)
			break;
		const race_key &k = e.first;
		const race_seen &r = e.second;
		uint3 a = tid_of(r.t1, l->block), b = tid_of(r.t2, l->block);
		checks_print("========= Error: Race reported between %s access at %s+0x0 in "
			     "@pc:0x%lx\n"
			     "=========     and %s access at %s+0x0 in @pc:0x%lx [%lu hazard%s; "
			     "first: thread (%u,%u,%u) and thread (%u,%u,%u) of block (%u,%u,%u)]\n"
			     "========= \n",
			     k.w1 ? "Write" : "Read", l->kernel, (unsigned long)code_offset(k.pc1),
			     k.w2 ? "Write" : "Read", l->kernel, (unsigned long)code_offset(k.pc2),
			     r.count, r.count == 1 ? "" : "s", a.x, a.y, a.z, b.x, b.y, b.z,
			     r.block.x, r.block.y, r.block.z);
	}
	check_races.clear();
	check_memcheck_reports = 0;
}

} // namespace

/* The safety stage's run says it is one before anything else, as compute-sanitizer does. */
__attribute__((constructor)) static void checks_init(void)
{
	checks_on = env_flag("CUDAEMU_CHECKS");
	if (checks_on)
		checks_print("========= CUDALAB-EMULATOR CHECKS\n");
}

extern "C" int cudaemu_trace_take(unsigned long long out[4])
{
	memcpy(out, totals, sizeof(totals));
	memset(totals, 0, sizeof(totals));
	return 0;
}

/* The hooks -fsanitize=thread puts before memory accesses and around calls. */
#define PC ((uintptr_t)__builtin_return_address(0))
#define ACCESS_HOOKS(n)                                                                      \
	extern "C" void __tsan_read##n(void *p) { trace_access(p, n, false, PC, true); }     \
	extern "C" void __tsan_write##n(void *p) { trace_access(p, n, true, PC, true); }     \
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
