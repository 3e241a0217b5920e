/*
 * runtime/shared.cc - part of the CPU emulator's runtime: file-scope extern
 * __shared__ arrays, and kernel attributes. One translation unit with
 * ../runtime.cc, which includes it in order and says what the runtime owns
 * and must not do: never compiled alone.
 */
namespace {

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
	long n = env && *env ? atol(env) : cl_usable_cpus();
#if defined(CUDAEMU_SERIAL_SHARED) || defined(CUDAEMU_TRACE)
	n = 1;   /* shared memory is plain static storage, or the trace is one
		  * block's at a time */
#endif
	if (n < 1)
		n = 1;
	/* Not one per CPU of a big machine: each worker's fiber stacks take
	 * 68 MB of the test's memory limit (48 of them overran 4 GB), and a
	 * class grades many tests at once, each with its own workers. */
	long most = env && *env ? 256 : 16;
	if (n > most)
		n = most;
	return (int)((unsigned long long)n < nblocks ? n : nblocks);
}

bool env_flag(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0");
}

/* Gives each worker dynamic shared memory of n bytes ending at a guard page;
 * false where there is no memory for it. */
bool size_shmem(worker *w, size_t n)
{
	size_t len = ((n + page() - 1) / page() + 1) * page();
	if (w->shmem && w->shmem_len >= len)
		return true;
	if (w->shmem)
		munmap(w->shmem, w->shmem_len);
	w->shmem = (char *)mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);
	if (w->shmem == MAP_FAILED) {
		w->shmem = NULL;
		w->shmem_len = 0;
		return false;
	}
	w->shmem_len = len;
	mprotect(w->shmem + len - page(), page(), PROT_NONE);
	return true;
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

/* After a launch of l: the static shared memory its blocks laid out, for
 * cudaFuncGetAttributes and the harness's launch ledger. */
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
	if (cudaemu_on_launch_done)
		cudaemu_on_launch_done(l, most);
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
