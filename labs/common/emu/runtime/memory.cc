/*
 * runtime/memory.cc - part of the CPU emulator's runtime: errors and device
 * memory: the sticky and pending errors, and each allocation between guard
 * pages. One translation unit with ../runtime.cc, which includes it in order
 * and says what the runtime owns and must not do: never compiled alone.
 */
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

/*
 * Host memory that no kernel reaches on a GPU as cudalab grades: what
 * cudaMallocHost gave (pageable there: labs/common/launch.cu), the host
 * arrays the harness hands a launcher (cudaemu_host_memory, below the
 * namespace), and, in the checking run, the submission's own host
 * variables, the launching thread's stack and thread-local variables, and
 * the C library's heap below the program break (what the host thread's
 * malloc and new gave: the submission's own host arrays) but for what
 * cudaHostAlloc gave, which a kernel reaches on a GPU too (mapped):
 * in_host_memory. The checking run reports a kernel's access to it
 * (checks.cc); elsewhere a CPU thread reaches it, as it reaches all host
 * memory. Changed only on the host's thread, between launches.
 */
struct host_range {
	const char *p;
	size_t n;
};
struct host_ranges {
	host_range v[256];
	size_t n;
} unreachable, mapped;

void set_range(host_ranges *r, uintptr_t at, size_t n, bool add)
{
	for (size_t i = 0; i < r->n; i++)
		if ((uintptr_t)r->v[i].p == at) {
			r->v[i] = r->v[--r->n];
			break;
		}
	if (add && at && r->n < sizeof(r->v) / sizeof(r->v[0])) {
		r->v[r->n].p = (const char *)at;
		r->v[r->n++].n = n ? n : 1;
	}
}

void host_memory(uintptr_t at, size_t n, bool add)
{
	set_range(&unreachable, at, n, add);
}

/* cudaHostAlloc's memory: a kernel may reach it. */
void mapped_host_memory(uintptr_t at, size_t n, bool add)
{
	set_range(&mapped, at, n, add);
}

#ifdef CUDAEMU_TRACE
/* Whether [p, p + n) touches [lo, hi) (none where lo or hi is NULL). */
static bool in_span(const char *lo, const char *hi, const void *p, size_t n)
{
	const char *c = (const char *)p;
	return lo && hi && c < hi && c + n > lo;
}

bool in_ranges(const host_ranges *r, const void *p, size_t n)
{
	for (size_t i = 0; i < r->n; i++)
		if (in_span(r->v[i].p, r->v[i].p + r->v[i].n, p, n))
			return true;
	return false;
}

/* The heap below the program break, [heap_lo, heap_hi): the main thread's
 * malloc (the blocks' threads have arenas of their own, so what a kernel
 * allocates is not in it). Found at each launch of the checking run. */
uintptr_t heap_lo, heap_hi;
/* The stack of the host thread that launches, [stack_lo, stack_hi): its
 * launcher's local arrays (a kernel's own locals are on its fiber's stack,
 * on a worker). Found at a launch of a thread not seen before. */
uintptr_t stack_lo, stack_hi;
pthread_t stack_of;
bool stack_known;
/* The same thread's thread-local variables of the program's own (a
 * thread_local of the submission's), [tls_lo, tls_hi): on x86-64 they
 * end at the thread pointer, which glibc's pthread_self() is. A kernel's
 * __shared__ arrays are its worker's. */
uintptr_t tls_lo, tls_hi;

/* The program's own thread-local block's size, rounded to its alignment: 0 if none. */
int program_tls(struct dl_phdr_info *info, size_t, void *size)
{
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS) {
			size_t align = info->dlpi_phdr[i].p_align ? info->dlpi_phdr[i].p_align : 1;
			*(size_t *)size = (info->dlpi_phdr[i].p_memsz + align - 1) / align * align;
		}
	return 1;   /* the first object is the program */
}

void note_host_memory(void)
{
	if (!stack_known || !pthread_equal(stack_of, pthread_self())) {
		pthread_attr_t attr;
		void *at;
		size_t size;
		stack_lo = stack_hi = 0;
		if (!pthread_getattr_np(pthread_self(), &attr)) {
			if (!pthread_attr_getstack(&attr, &at, &size)) {
				stack_lo = (uintptr_t)at;
				stack_hi = stack_lo + size;
			}
			pthread_attr_destroy(&attr);
		}
		stack_of = pthread_self();
		stack_known = true;
		size_t tls = 0;
		dl_iterate_phdr(program_tls, &tls);
		tls_hi = (uintptr_t)pthread_self();
		tls_lo = tls_hi - tls;
	}
	if (!heap_lo) {
		FILE *maps = fopen("/proc/self/maps", "re");
		char line[512];
		while (maps && fgets(line, sizeof(line), maps)) {
			unsigned long lo;
			if (strstr(line, "[heap]") && sscanf(line, "%lx-", &lo) == 1) {
				heap_lo = lo;
				break;
			}
		}
		if (maps)
			fclose(maps);
	}
	heap_hi = (uintptr_t)sbrk(0);
}

/*
 * The submission's own host variables (not its __device__, __constant__ or
 * __managed__ ones), where the grader's checking build put them: sections
 * named for them (grader/grading/build.c), absent in other programs.
 */
extern "C" char __start_cudaemu_host_data[] __attribute__((weak));
extern "C" char __stop_cudaemu_host_data[] __attribute__((weak));
extern "C" char __start_cudaemu_host_bss[] __attribute__((weak));
extern "C" char __stop_cudaemu_host_bss[] __attribute__((weak));

extern "C" char __start_cudaemu_dev_data[] __attribute__((weak));
extern "C" char __stop_cudaemu_dev_data[] __attribute__((weak));
extern "C" char __start_cudaemu_dev_bss[] __attribute__((weak));
extern "C" char __stop_cudaemu_dev_bss[] __attribute__((weak));

/* Whether [p, p + n) touches a __device__ (__constant__, __managed__) variable of the submission's. */
bool in_device_variable(const void *p, size_t n)
{
	return in_span(__start_cudaemu_dev_data, __stop_cudaemu_dev_data, p, n) ||
	       in_span(__start_cudaemu_dev_bss, __stop_cudaemu_dev_bss, p, n);
}

/* Whether [p, p + n) touches host memory no kernel reaches. */
bool in_host_memory(const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;
	if (in_ranges(&unreachable, p, n) ||
	    in_span(__start_cudaemu_host_data, __stop_cudaemu_host_data, p, n) ||
	    in_span(__start_cudaemu_host_bss, __stop_cudaemu_host_bss, p, n) ||
	    in_span((const char *)stack_lo, (const char *)stack_hi, p, n) ||
	    in_span((const char *)tls_lo, (const char *)tls_hi, p, n))
		return true;
	return heap_lo && a < heap_hi && a + n > heap_lo && !in_ranges(&mapped, p, n);
}
#endif

/* The allocation whose mapping (guards included) holds p, or NULL. */
allocation *find_near(const void *p)
{
	const char *c = (const char *)p;
	for (size_t i = 0; i < nallocs; i++)
		if (c >= allocs[i].map && c < allocs[i].map + allocs[i].map_len)
			return &allocs[i];
	return NULL;
}

/* The allocation nearest p, within within bytes of its data, or NULL. */
allocation *find_nearest(const void *p, size_t within)
{
	const char *c = (const char *)p;
	allocation *best = NULL;
	size_t best_d = within + 1;
	for (size_t i = 0; i < nallocs; i++) {
		const char *lo = allocs[i].ptr, *hi = lo + allocs[i].size;
		size_t d = c < lo ? (size_t)(lo - c) : c >= hi ? (size_t)(c - hi) + 1 : 0;
		if (d < best_d)
			best = &allocs[i], best_d = d;
	}
	return best;
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

} // namespace

/* The harness's host arrays, given to a launcher and taken back (add 0). */
extern "C" void cudaemu_host_memory(const void *p, size_t n, int add)
{
	host_memory((uintptr_t)p, n, add != 0);
}
