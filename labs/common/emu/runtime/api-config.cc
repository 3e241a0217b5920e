/*
 * runtime/api-config.cc - part of the CPU emulator's runtime: pitched
 * memory, pinned memory, configuration and reset. One translation unit with
 * ../runtime.cc, which includes it in order and says what the runtime owns
 * and must not do: never compiled alone.
 */
extern "C" {

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
 * reach as they reach any (unlike cudaMallocHost's, in a grading: memory.cc). */
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int)
{
	*p = malloc(n ? n : 1);
	if (!*p)
		return fail(cudaErrorMemoryAllocation, "cudaHostAlloc: out of memory");
	mapped_host_memory((uintptr_t)*p, n, true);
	return cudaSuccess;
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
