/*
 * runtime/api.cc - part of the CPU emulator's runtime: the runtime API:
 * memory, copies, symbols, errors, devices, function attributes, events and
 * streams. One translation unit with ../runtime.cc, which includes it in
 * order and says what the runtime owns and must not do: never compiled
 * alone.
 */
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

/* Page-locked host memory: plain host memory here, as far from a kernel as a GPU's (memory.cc). */
cudaError_t cudaMallocHost(void **p, size_t n)
{
	void *m = malloc(n ? n : 1);
	*p = m;
	if (!m)
		return fail(cudaErrorMemoryAllocation, "cudaMallocHost: out of memory");
	host_memory((uintptr_t)m, n, true);
	return cudaSuccess;
}

cudaError_t cudaFreeHost(void *p)
{
	host_memory((uintptr_t)p, 0, false);
	mapped_host_memory((uintptr_t)p, 0, false);
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

} // extern "C"
