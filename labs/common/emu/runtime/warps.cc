/*
 * runtime/warps.cc - part of the CPU emulator's runtime: warps: a block's
 * lanes in step, __syncthreads and __syncwarp, and what diverges. One
 * translation unit with ../runtime.cc, which includes it in order and says
 * what the runtime owns and must not do: never compiled alone.
 */
namespace {

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

/*
 * Fiber t has come to a meeting (a warp's or a tile's), which released
 * the lanes from pass place `first` on when it ended (max_threads: it did
 * not). Released itself, t goes on at once if first in the pass's order;
 * else the pass goes back to the first lane released and comes to t in its
 * turn. Still waiting, t leaves the pass to the others.
 */
void await_meeting(worker *w, int t, int first)
{
	fiber *f = &w->fibers[t];
	if (f->state == READY && first >= w->place[t]) {
		f->state = RUNNING;
		return;
	}
	if (f->state == READY)
		w->pos = first - 1;
	else
		go_back(w, first);
	switch_next(w, &f->sp);
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
	else if (f->state == WARP_WAITING && c->op == TILE_MEET)
		snprintf(buf, n, "waits at its tile's %s at %s:%d (a tile of %d threads)", c->what,
			 f->file, f->line, c->width);
	else if (f->state == WARP_WAITING && c->op == CUDAEMU_ACTIVEMASK)
		snprintf(buf, n, "waits at __activemask() at %s:%d", f->file, f->line);
	else if (f->state == WARP_WAITING)
		snprintf(buf, n, "waits at %s() at %s:%d with mask 0x%08x", op_name(c->op), f->file,
			 f->line, c->mask);
	else
		snprintf(buf, n, "has not arrived");
}

/* ------------------------------------------- tiles of more than a warp */

/*
 * A thread_block_tile of 64 to 512 threads (the runtime takes up to 1024)
 * meets in the runtime: a thread at one of its calls (sync, shfl, any, all,
 * reduce, the scans) parks as a lane at a warp-level call does, and the
 * last thread of the tile to come releases them all, each leaving what it
 * brought on the tile's board for the others to read. On a GPU the
 * toolkit builds the same meeting from a barrier word and a slot per warp
 * in the block_tile_memory scratch space. Errors, reported with the line
 * and the launch failing: a thread of the tile returning while others wait
 * (a GPU's wait for ever), threads of one tile at different calls, and, at
 * the end of a pass, a tile still waiting for a thread that waits
 * elsewhere.
 */

int tile_level(unsigned size)
{
	return __builtin_ctz(size) - 6;
}

/* The threads of t's tile of `size`: [*base, *end). */
void tile_span(const worker *w, int t, unsigned size, int *base, int *end)
{
	*base = t & ~(int)(size - 1);
	*end = *base + (int)size < w->nthreads ? *base + (int)size : w->nthreads;
}

bool at_tile_meeting(const worker *w, int t, unsigned size)
{
	return w->fibers[t].state == WARP_WAITING && w->calls[t].op == TILE_MEET &&
	       (unsigned)w->calls[t].width == size;
}

/* Where thread t of the running block is: "thread (x,y,z)". */
const char *thread_name(char *buf, size_t n, const worker *w, int t)
{
	snprintf(buf, n, "thread (%u,%u,%u)", w->fibers[t].tid.x, w->fibers[t].tid.y,
		 w->fibers[t].tid.z);
	return buf;
}

/* Ends the meeting of the tile [base, end): every thread of it came. The
 * first place in the pass's order among them, or the block is abandoned
 * (the running fiber's save) where they came to different calls. */
int end_tile_meeting(worker *w, int base, int end, unsigned size, void **save)
{
	int first = max_threads, level = tile_level(size);
	for (int o = base + 1; o < end; o++) {
		const lane_call *a = &w->calls[base], *b = &w->calls[o];
		if (strcmp(a->what, b->what)) {
			char at[512], who[64];
			where_in_launch(at, sizeof(at), w, base);
			record_detail("tile divergence %s calls its tile's %s at %s:%d while %s of "
				      "the same tile of %u threads calls %s at %s:%d; every thread of "
				      "a tile must reach the same call", at, a->what,
				      w->fibers[base].file, w->fibers[base].line,
				      thread_name(who, sizeof(who), w, o), size, b->what,
				      w->fibers[o].file, w->fibers[o].line);
			abandon_block(w, save);
		}
	}
	for (int o = base; o < end; o++) {
		w->tile_board[level][o] = w->calls[o].in;
		w->fibers[o].state = READY;
		w->nwarpwait--;
		w->ntilewait--;
		first = w->place[o] < first ? w->place[o] : first;
	}
#ifdef CUDAEMU_TRACE
	if (checks_on)
		checks_tile_met(base, end);
#endif
	return first;
}

/* Thread t returned: a tile of it that waits can never meet. */
void tile_loses_thread(worker *w, int t)
{
	for (unsigned size = 64; size <= (unsigned)max_threads; size *= 2) {
		int base, end;
		tile_span(w, t, size, &base, &end);
		for (int o = base; o < end; o++) {
			if (!at_tile_meeting(w, o, size))
				continue;
			char at[512], who[64];
			where_in_launch(at, sizeof(at), w, o);
			record_detail("tile divergence %s waits at its tile's %s at %s:%d, but %s of "
				      "the same tile of %u threads returned; every thread of a tile "
				      "must reach its calls", at, w->calls[o].what, w->fibers[o].file,
				      w->fibers[o].line, thread_name(who, sizeof(who), w, t), size);
			abandon_block(w, &w->fibers[t].sp);
		}
	}
}

/* The end of a pass found threads waiting at a tile's meeting: says which
 * thread of the tile is elsewhere. False when none waits at one. */
bool report_tile_deadlock(worker *w)
{
	for (int t = 0; t < w->nthreads; t++) {
		if (w->fibers[t].state != WARP_WAITING || w->calls[t].op != TILE_MEET)
			continue;
		unsigned size = (unsigned)w->calls[t].width;
		int base, end, o;
		tile_span(w, t, size, &base, &end);
		for (o = base; o < end && at_tile_meeting(w, o, size); o++)
			;
		if (o == end)
			continue;   /* cannot be: the meeting would be over */
		char at[512], who[64], other[512];
		where_in_launch(at, sizeof(at), w, t);
		describe_lane(other, sizeof(other), w, o);
		record_detail("tile divergence %s waits at its tile's %s at %s:%d, but %s of the "
			      "same tile of %u threads %s; every thread of a tile must reach its "
			      "calls", at, w->calls[t].what, w->fibers[t].file, w->fibers[t].line,
			      thread_name(who, sizeof(who), w, o), size, other);
		return true;
	}
	return false;
}

/* A meeting can never end: the end of a pass found lanes still waiting. */
void report_warp_deadlock(worker *w, const cudaemu_launch *l)
{
	int nwarps = (w->nthreads + 31) / 32;
	if (w->ntilewait && report_tile_deadlock(w))
		return;
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

/* How far from a buffer a fault is still named by it (an index gone wrong). */
#define NEAREST_BYTES ((size_t)1 << 20)

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
	else if ((a = find_nearest(f->addr, NEAREST_BYTES)) && c < a->ptr)
		snprintf(where, sizeof(where), "%zu bytes before the start of the nearest device "
			 "buffer, of %zu bytes", (size_t)(a->ptr - c), a->size);
	else if (a)
		snprintf(where, sizeof(where), "%zu bytes past the end of the nearest device "
			 "buffer, of %zu bytes", (size_t)(c - (a->ptr + a->size)), a->size);
	else
		snprintf(where, sizeof(where), "an address that is no device memory (a host pointer, "
			 "freed memory, or far outside every buffer)");
	/*
	 * Outside an array, near it: out of bounds, as memcheck says it on a
	 * GPU. Which thread faults first depends on how many workers ran the
	 * blocks; any of them beside a buffer is named so.
	 */
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

} // namespace
