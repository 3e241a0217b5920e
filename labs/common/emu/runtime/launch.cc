/*
 * runtime/launch.cc - part of the CPU emulator's runtime: a kernel launch
 * (its validation, its blocks over the workers), copies and fills. One
 * translation unit with ../runtime.cc, which includes it in order and says
 * what the runtime owns and must not do: never compiled alone.
 */
/* ---------------------------------------------------------------- launch */

extern "C" void cudaemu_launch_run(const cudaemu_launch *l)
{
	const dim3 g = l->grid, b = l->block;
	unsigned long long threads = (unsigned long long)b.x * b.y * b.z;

	if (sticky_error) {
		last_error = sticky_error;
		return;
	}
	/* CUDA 13 answers a grid with a dimension of 0 so (seen on an H200) */
	if (!g.x || !g.y || !g.z) {
		fail(cudaErrorInvalidValue, "launch of %s at %s:%d with grid (%u,%u,%u): a grid "
		     "dimension of 0 launches nothing (rounded down?)", l->kernel, l->file, l->line,
		     g.x, g.y, g.z);
		return;
	}
	if (!b.x || !b.y || !b.z || threads > 1024 || b.x > 1024 ||
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
#ifdef CUDAEMU_TRACE
	if (checks_on)
		note_host_memory();
#endif

	launch_state ls = {};
	ls.l = l;
	ls.nblocks = (unsigned long long)g.x * g.y * g.z;
	ls.reverse = env_flag("CUDAEMU_REVERSE");
	ls.strict = env_flag("CUDAEMU_STRICT_BARRIERS");
	const char *poison = getenv("CUDALAB_SHARED_POISON");
	ls.poison_shared = !poison || strcmp(poison, "0");
	int nw = worker_count(ls.nblocks);
	while (npool < nw) {
		worker *w = new_worker();
		if (!w)
			break;
		pool[npool++] = w;
	}
	/* fewer workers where memory is short (the blocks are the same), none:
	 * the launch fails as a GPU's does that has no room for the kernel */
	if (nw > npool)
		nw = npool;
	for (int i = 0; i < nw; i++)
		if (!size_shmem(pool[i], l->shmem)) {
			nw = i;
			break;
		}
	if (!nw) {
		fail(cudaErrorLaunchOutOfResources, "launch of %s at %s:%d: no memory left for "
		     "the kernel's threads (the program has used up its memory limit)",
		     l->kernel, l->file, l->line);
		return;
	}

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

	bool started[256];   /* worker_count's most */
	for (int i = 0; i < nw; i++) {
		pool[i]->ls = &ls;
		pool[i]->nsites = 0;   /* a worker that gets no block lays out none */
		started[i] = !pthread_create(&pool[i]->thread, NULL, worker_main, pool[i]);
		if (!started[i])
			worker_main(pool[i]);   /* no thread (no room for one): its share here */
	}
	for (int i = 0; i < nw; i++)
		if (started[i])
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

/* The calling thread waits at the block's barrier at file:line (site), bringing pred. */
static void block_barrier(worker *w, const char *file, int line, int site, int pred)
{
	fiber *f = &w->fibers[w->current];
	f->pred = pred;
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

extern "C" void cudaemu_syncthreads(const char *file, int line, int site)
{
	worker *w = self;
	if (w && w->in_block)
		block_barrier(w, file, line, site, 0);
}

/*
 * __syncthreads_count, _and and _or: a barrier, whose threads each bring a
 * predicate; every one leaves with how many of those that reached it
 * brought a true one (op 0), whether all did (1), or any did (2). Threads
 * that returned bring nothing, as on a GPU. Outside a kernel: the host
 * thread alone.
 */
extern "C" int cudaemu_syncthreads_pred(const char *file, int line, int site, int pred, int op)
{
	worker *w = self;
	if (!w || !w->in_block)
		return pred != 0;
	block_barrier(w, file, line, site, pred);
	/* released: the block's count, taken before any thread ran on */
	switch (op) {
	case 0:
		return w->released_true;
	case 1:
		return w->released_true == w->released;
	default:
		return w->released_true > 0;
	}
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
	await_meeting(w, t, first);
	return c->out;
}

/*
 * One thread's call on its tile of more than a warp (see "tiles of more
 * than a warp" in warps.cc): it waits for the rest of the tile, the other
 * threads of the pass running meanwhile.
 */
extern "C" void cudaemu_tile_meet(unsigned size, unsigned long long value, const char *what,
				  const char *file, int line)
{
	worker *w = self;
	if (!w || !w->in_block)
		return;   /* the host thread: a tile of one */
	int t = w->current, base, end, first = max_threads;
	fiber *f = &w->fibers[t];
	lane_call *c = &w->calls[t];

	if (size < 64 || size > (unsigned)max_threads || (size & (size - 1)))
		cudaemu_unsupported("a tile of a size that is not a power of 2 from 64 to 1024",
				    file, line);
	c->op = TILE_MEET;
	c->width = (int)size;
	c->in = value;
	c->what = what;
	f->file = file;
	f->line = line;
	tile_span(w, t, size, &base, &end);
	for (int o = base; o < end; o++)
		if (w->fibers[o].state == DONE) {
			char at[512], who[64];
			where_in_launch(at, sizeof(at), w, t);
			record_detail("tile divergence %s calls its tile's %s at %s:%d, but %s of the "
				      "same tile of %u threads returned; every thread of a tile must "
				      "reach its calls", at, what, file, line,
				      thread_name(who, sizeof(who), w, o), size);
			abandon_block(w, &f->sp);
		}
	f->state = WARP_WAITING;
	w->nwarpwait++;
	w->ntilewait++;
	int o = base;
	while (o < end && at_tile_meeting(w, o, size))
		o++;
	if (o == end)
		first = end_tile_meeting(w, base, end, size, &f->sp);
	else if (w->warps[t >> 5].nactive)
		first = try_activemask(w, &w->warps[t >> 5]);
	await_meeting(w, t, first);
}

/* What the thread of the given rank in the caller's tile of `size` brought
 * to the tile's last meeting. */
extern "C" unsigned long long cudaemu_tile_value(unsigned size, unsigned rank)
{
	worker *w = self;
	if (!w || !w->in_block || size < 64 || size > (unsigned)max_threads || rank >= size)
		return undefined_value;
	int base, end;
	tile_span(w, w->current, size, &base, &end);
	if (base + (int)rank >= end)
		return undefined_value;   /* past the block's last thread */
	return w->tile_board[tile_level(size)][base + rank];
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

/* Whether p lies in device memory (the harness's ledger: a copy's source). */
extern "C" int cudaemu_is_device(const void *p)
{
	return find(p, 1) != NULL;
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
