/*
 * vmm.h - device memory that two processes share: made by the timer (its
 * own, mapped in its own context) and mapped by a runner, to which it
 * travels as a descriptor on the runner's socket (cl_send_fd). CUDA's
 * virtual memory management with POSIX descriptors, which, unlike CUDA's
 * IPC handles, work across the sandbox's PID namespace.
 *
 * The driver's entry points are found through the runtime
 * (cudaGetDriverEntryPointByVersion), so nothing links libcuda.
 *
 * Must not: map a runner's memory into the timer, or the timer's into a
 * runner, except what the timer chose to share.
 */
#ifndef CL_VMM_H
#define CL_VMM_H

#include <cuda.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

struct cl_vmm_api {
	CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
			   unsigned long long);
	CUresult (*release)(CUmemGenericAllocationHandle);
	CUresult (*granularity)(size_t *, const CUmemAllocationProp *,
				CUmemAllocationGranularity_flags);
	CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
	CUresult (*unreserve)(CUdeviceptr, size_t);
	CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
			unsigned long long);
	CUresult (*unmap)(CUdeviceptr, size_t);
	CUresult (*access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
	CUresult (*export_fd)(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType,
			      unsigned long long);
	CUresult (*import_fd)(CUmemGenericAllocationHandle *, void *, CUmemAllocationHandleType);
};

/* The entry points, found once: NULL when the driver has none of them. */
static inline const struct cl_vmm_api *cl_vmm(void)
{
	static struct cl_vmm_api api;
	static int state;   /* 0 not yet, 1 found, -1 not there */

	if (!state) {
		struct {
			const char *name;
			void **fn;
		} want[] = {
			{"cuMemCreate", (void **)&api.create},
			{"cuMemRelease", (void **)&api.release},
			{"cuMemGetAllocationGranularity", (void **)&api.granularity},
			{"cuMemAddressReserve", (void **)&api.reserve},
			{"cuMemAddressFree", (void **)&api.unreserve},
			{"cuMemMap", (void **)&api.map},
			{"cuMemUnmap", (void **)&api.unmap},
			{"cuMemSetAccess", (void **)&api.access},
			{"cuMemExportToShareableHandle", (void **)&api.export_fd},
			{"cuMemImportFromShareableHandle", (void **)&api.import_fd},
		};
		state = 1;
		for (auto &w : want) {
			cudaDriverEntryPointQueryResult q;
			if (cudaGetDriverEntryPointByVersion(w.name, w.fn, 12000, cudaEnableDefault,
							     &q) != cudaSuccess ||
			    q != cudaDriverEntryPointSuccess || !*w.fn)
				state = -1;
		}
	}
	return state > 0 ? &api : NULL;
}

static inline CUmemAllocationProp cl_vmm_prop(int device)
{
	CUmemAllocationProp p = {};
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = device;
	p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	return p;
}

/*
 * Maps handle's bytes (a multiple of the granularity) at a new address of
 * this process, readable and writable by device: CUDA_SUCCESS and *at, or
 * the error (nothing left mapped).
 */
static inline CUresult cl_vmm_map(CUmemGenericAllocationHandle handle, size_t bytes, int device,
				  CUdeviceptr *at)
{
	const struct cl_vmm_api *v = cl_vmm();
	CUmemAccessDesc rw = {};
	CUresult e;

	if (!v)
		return CUDA_ERROR_NOT_SUPPORTED;
	rw.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	rw.location.id = device;
	rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	if ((e = v->reserve(at, bytes, 0, 0, 0)))
		return e;
	if ((e = v->map(*at, bytes, 0, handle, 0))) {
		v->unreserve(*at, bytes);
		return e;
	}
	if ((e = v->access(*at, bytes, &rw, 1))) {
		v->unmap(*at, bytes);
		v->unreserve(*at, bytes);
	}
	return e;
}

static inline void cl_vmm_unmap(CUdeviceptr at, size_t bytes)
{
	const struct cl_vmm_api *v = cl_vmm();
	if (v && at) {
		v->unmap(at, bytes);
		v->unreserve(at, bytes);
	}
}

#endif
