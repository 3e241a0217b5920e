/*
 * runtime/workers.cc - part of the CPU emulator's runtime: the worker
 * threads that run a launch's blocks, and the fibers of its CUDA threads.
 * One translation unit with ../runtime.cc, which includes it in order and
 * says what the runtime owns and must not do: never compiled alone.
 */
namespace {

/* ------------------------------------------------------------- workers */

const int max_threads = 1024;
const size_t stack_size = 64 * 1024;

/* WAITING: at __syncthreads; WARP_WAITING: at a warp-level call, or at a
 * tile's (cudaemu_tile_meet: its lane_call's op is TILE_MEET) */
enum { READY, RUNNING, WAITING, WARP_WAITING, DONE };

struct fiber {
	void *sp;
	uint3 tid;
	int state;
	const char *file;   /* where it waits */
	int line, site;
	int pred;           /* what it brings to a __syncthreads_count, _and, _or */
};

/* A lane's warp-level call: the operation, mask, argument and width, the
 * value it brings, and the result it leaves with (apart from struct fiber,
 * which every switch reads, to keep that small). */
struct lane_call {
	int op;
	unsigned mask;
	int arg, width;
	unsigned long long in, out;
	const char *what;   /* at a tile's meeting: the call, as the student wrote it */
};

/* A fiber's op at a meeting of its tile of more than a warp: not a warp's. */
const int TILE_MEET = -1;
/* Tiles of 64, 128, 256, 512 and 1024 threads: one board each (tile_board). */
const int tile_levels = 5;

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
	/* the barrier the block last left: how many of its threads reached it,
	 * and how many of those brought a true predicate (__syncthreads_count) */
	int released, released_true;
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
	/* fibers parked at a tile's meeting; what each thread brought to the
	 * last meeting of its tile, by tile size (a tile of 64 may meet again
	 * while the lanes of a tile of 128 around it still read theirs) */
	int ntilewait;
	unsigned long long tile_board[tile_levels][max_threads];
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
void checks_tile_met(int base, int end);
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

/*
 * A new worker, or NULL where there is no memory for one: its fiber stacks
 * count against the test process's data limit (RLIMIT_DATA, the grader's
 * memory limit), and so does what the submission allocated.
 */
worker *new_worker(void)
{
	worker *w = (worker *)calloc(1, sizeof(worker));
	size_t one = stack_size + page();
	if (!w)
		return NULL;
	w->stacks = (char *)mmap(NULL, one * max_threads, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	w->altstack = (char *)malloc(SIGSTKSZ * 4);
	if (w->stacks == MAP_FAILED || !w->altstack) {
		if (w->stacks != MAP_FAILED)
			munmap(w->stacks, one * max_threads);
		free(w->altstack);
		free(w);
		return NULL;
	}
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
void tile_loses_thread(worker *w, int t);

inline void warp_lane_exits(worker *w, int t)
{
	warp *wp = &w->warps[t >> 5];
	wp->exited |= 1u << (t & 31);
	if (w->ntilewait)
		tile_loses_thread(w, t);
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
	w->ntilewait = 0;
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
		/* the waiting threads, in pass order, are the next pass; what
		 * they brought is counted before any of them runs on */
		int m = 0;
		w->released = w->released_true = 0;
		for (int i = 0; i < w->norder; i++) {
			int t = w->order[i];
			if (w->fibers[t].state == WAITING) {
				w->released++;
				w->released_true += w->fibers[t].pred != 0;
				w->fibers[t].state = READY;
				w->place[t] = m;
				w->order[m++] = t;
			}
		}
		w->norder = m;
	}
}

} // namespace
