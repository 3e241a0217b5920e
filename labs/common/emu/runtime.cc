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
#include "../procfs.h"   /* cl_usable_cpus */

#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <sched.h>
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
/* ... and, after the launch ran, the static shared memory its blocks laid
 * out (what a GPU's cudaFuncGetAttributes says before any launch). */
extern "C" void cudaemu_on_launch_done(const cudaemu_launch *l, size_t static_shared)
	__attribute__((weak));

/* the parts, in order: one translation unit, so that what is file-private
 * stays so */
#include "runtime/memory.cc"
#include "runtime/workers.cc"
#include "runtime/warps.cc"
#include "runtime/shared.cc"
#include "runtime/launch.cc"
#include "runtime/api.cc"
#include "runtime/api-config.cc"
#include "runtime/error-names.cc"
#include "runtime/checks.cc"
