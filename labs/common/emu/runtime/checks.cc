/*
 * runtime/checks.cc - part of the CPU emulator's runtime: the checks. In
 * trace mode, the 32-byte sectors of each warp-wide request; in the checking
 * run, the reports of bad accesses; and the hooks instrumented code calls.
 * One translation unit with ../runtime.cc, which includes it in order and
 * says what the runtime owns and must not do: never compiled alone.
 */
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

void check_access(const void *p, size_t n, bool store, bool aligned, uintptr_t pc, bool atomic);

void trace_access(const void *addr, size_t n, bool store, uintptr_t pc, bool aligned = false,
		  bool atomic = false)
{
	worker *w = self;
	if (checks_on) {
		check_access(addr, n, store, aligned, pc, atomic);
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
 *    for two lanes of one warp). Two atomics on one word never race (a
 *    private histogram's atomicAdd from every thread); an atomic and a
 *    plain access do (bins read before the atomics are done).
 * Reports are printed as they are found (memcheck, at most 10 a launch) or
 * at the end of the launch (races, one per pair of lines, with a count).
 */
int check_memcheck_reports;          /* this launch's */

struct word_shadow {
	int wtid, rtid;                  /* last writer, a reader since; -1: none */
	bool watomic;                    /* the last write was an atomic's */
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

/*
 * The host's own access to a __device__, __constant__ or __managed__
 * variable of the submission's, by name: on a GPU the host reaches only
 * its own copy of it (nvcc's shadow, which nvcc warns of: #20091-D), never
 * what kernels wrote there; emulated they are one, so it is reported.
 */
void host_device_report(const void *p, size_t n, bool store, uintptr_t pc)
{
	if (check_memcheck_reports++ >= 10)
		return;
	checks_print("========= Invalid __global__ %s of size %zu bytes\n"
		     "=========     at host code+0x0 in @pc:0x%lx\n"
		     "=========     by the host\n"
		     "=========     Address %p is a __device__ variable, which the host's code "
		     "cannot reach\n========= \n",
		     store ? "write" : "read", n, (unsigned long)code_offset(pc), p);
}

/* One access of the running block's: bounds and alignment, and races on shared memory. */
void check_access(const void *p, size_t n, bool store, bool aligned, uintptr_t pc, bool atomic)
{
	worker *w = self;
	if (!w && in_device_variable(p, n))
		host_device_report(p, n, store, pc);
	if (!w || !w->in_block)
		return;
	bool shared = in_shared(w, p, n);
	const allocation *a = shared ? NULL : find(p, n);
	if (!shared && !a && in_host_memory(p, n)) {
		char what[160];
		snprintf(what, sizeof(what), "Address %p is host memory, which a kernel on a "
			 "GPU cannot reach", p);
		memcheck_report(w, p, n, store, pc, "global", what);
		return;
	}
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
			it = check_shadow.emplace(word, word_shadow{-1, -1, false, 0, 0, 0, 0, 0, 0,
								    false, -1, NO_WARP}).first;
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
		if (unordered(s.wtid, s.wpass, s.wwarp) && !(atomic && s.watomic)) {
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
		if (!store && atomic) {
			continue;   /* an atomic's own read: ordered against atomics */
		} else if (store) {
			s.wtid = t, s.wpass = check_pass, s.wwarp = wp, s.wpc = pc;
			s.watomic = atomic;
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

/*
 * A tile of more than a warp met (its sync or a collective): what its
 * threads did before is ordered before what they do after. The shadow
 * keeps no clock per tile, so the words they last wrote or read become
 * ordered for every thread, those of other tiles too: a race between two
 * tiles across one tile's sync is not reported (never a race where there
 * is none).
 */
void checks_tile_met(int base, int end)
{
	auto in = [&](int t) { return t >= base && t < end; };
	for (auto &e : check_shadow) {
		word_shadow &s = e.second;
		if (s.wtid >= 0 && in(s.wtid) && s.wpass == check_pass)
			s.wpass = check_pass - 1;
		if (s.rtid >= 0 && s.rpass == check_pass && in(s.rtid) &&
		    (!s.rmany || (s.rwarp_of != NO_WARP ? in((int)s.rwarp_of * 32) : in(s.rother))))
			s.rpass = check_pass - 1;
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
	if (checks_on) {
		checks_print("========= CUDALAB-EMULATOR CHECKS\n");
		/* the host's malloc, whatever its size, from the heap below the
		 * break, where a kernel's access to it is seen (memory.cc), not
		 * from a mapping of its own: the C library maps none */
		mallopt(M_MMAP_THRESHOLD, 32 << 20);
		mallopt(M_MMAP_MAX, 0);
	}
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
		trace_access((const void *)a, sizeof(T), true, PC, false, true);             \
		return builtin(a, v, __ATOMIC_SEQ_CST);                                      \
	}
#define ATOMIC_CAS(bits, T, kind)                                                            \
	extern "C" int __tsan_atomic##bits##_compare_exchange_##kind(volatile T *a, T *c, T v, \
								    int, int)            \
	{                                                                                    \
		trace_access((const void *)a, sizeof(T), true, PC, false, true);             \
		return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST,         \
						   __ATOMIC_SEQ_CST);                        \
	}
#define ATOMIC_HOOKS(bits, T)                                                                \
	extern "C" T __tsan_atomic##bits##_load(const volatile T *a, int)                    \
	{                                                                                    \
		trace_access((const void *)a, sizeof(T), false, PC, false, true);            \
		return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                 \
	}                                                                                    \
	extern "C" void __tsan_atomic##bits##_store(volatile T *a, T v, int)                 \
	{                                                                                    \
		trace_access((const void *)a, sizeof(T), true, PC, false, true);             \
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
		trace_access((const void *)a, sizeof(T), true, PC, false, true);             \
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
