/*
 * checked-barrier.h - the checked barrier of a lab that teaches barriers
 * (lab.conf: strict_barriers = yes), forced into every GPU build of its
 * code with nvcc -include: the submission's, and the reference's (so the
 * two are timed alike).
 *
 * Each __syncthreads() becomes __syncthreads_count(1) held to the number of
 * threads in the block. A barrier that some threads of a block do not
 * reach (they returned, or wait at another __syncthreads()) is seen on
 * every run, where synccheck sees it only when its schedule shows it; the
 * runner turns the first one into a failed launch with its place
 * (launch.cu: cl_barrier_broken), as the emulator's strict mode does. A
 * thread that has returned counts as arrived on current GPUs but is not
 * counted here: the early return before a barrier is reported, as strict
 * emulation reports it.
 *
 * Evidence against the submission only: code that gets around it (an
 * #undef) is graded as a plain build would be, and gains nothing.
 */
#ifndef CL_CHECKED_BARRIER_H
#define CL_CHECKED_BARRIER_H

#include <cuda_runtime.h>

/* the first broken barrier since the runner last looked: words as
 * launch.cu's cl_barrier_broken reads them */
enum { CL_BARRIER_SEEN, CL_BARRIER_LINE, CL_BARRIER_ARRIVED, CL_BARRIER_THREADS,
       CL_BARRIER_BX, CL_BARRIER_BY, CL_BARRIER_BZ, CL_BARRIER_WORDS };
static __device__ unsigned cl_barrier_note[CL_BARRIER_WORDS];

static __device__ __forceinline__ void cl_checked_syncthreads(unsigned line)
{
	unsigned threads = blockDim.x * blockDim.y * blockDim.z;
	unsigned arrived = (unsigned)__syncthreads_count(1);

	if (arrived != threads && !atomicCAS(&cl_barrier_note[CL_BARRIER_SEEN], 0u, 1u)) {
		cl_barrier_note[CL_BARRIER_LINE] = line;
		cl_barrier_note[CL_BARRIER_ARRIVED] = arrived;
		cl_barrier_note[CL_BARRIER_THREADS] = threads;
		cl_barrier_note[CL_BARRIER_BX] = blockIdx.x;
		cl_barrier_note[CL_BARRIER_BY] = blockIdx.y;
		cl_barrier_note[CL_BARRIER_BZ] = blockIdx.z;
	}
}
/*
 * The barriers that also count, AND or OR a predicate: a checked barrier
 * first (every thread must arrive), then the intrinsic itself, so a
 * submission cannot take a barrier past the check by spelling it another
 * way. The source scan refuses any of these names left in a strict lab's
 * code (an #undef of the macro).
 */
static __device__ __forceinline__ int cl_checked_syncthreads_count(int pred, unsigned line)
{
	cl_checked_syncthreads(line);
	return __syncthreads_count(pred);
}
static __device__ __forceinline__ int cl_checked_syncthreads_and(int pred, unsigned line)
{
	cl_checked_syncthreads(line);
	return __syncthreads_and(pred);
}
static __device__ __forceinline__ int cl_checked_syncthreads_or(int pred, unsigned line)
{
	cl_checked_syncthreads(line);
	return __syncthreads_or(pred);
}
/*
 * Cooperative groups' block barrier (thread_block::sync(), cg::sync(block))
 * reaches the hardware as __barrier_sync(0), from cooperative_groups'
 * own headers: barrier 0 is checked as __syncthreads() is, other named
 * barriers are left as they are. A call from those headers has no line of
 * the submission's to give; it is noted as line 0, which the runner words
 * as a cooperative-groups barrier of the unit's file.
 */
static __device__ __forceinline__ void cl_checked_barrier_sync(unsigned id, unsigned line)
{
	if (id == 0)
		cl_checked_syncthreads(line);
	else
		__barrier_sync(id);
}
static __host__ __device__ constexpr bool cl_starts_with(const char *s, const char *p)
{
	return !*p || (*s == *p && cl_starts_with(s + 1, p + 1));
}
static __host__ __device__ constexpr bool cl_in_cg_header(const char *f)
{
	return *f && (cl_starts_with(f, "cooperative_groups") || cl_in_cg_header(f + 1));
}
#define __syncthreads() cl_checked_syncthreads(__LINE__)
#define __barrier_sync(id) cl_checked_barrier_sync((id), cl_in_cg_header(__FILE__) ? 0u : __LINE__)
#define __syncthreads_count(pred) cl_checked_syncthreads_count((pred), __LINE__)
#define __syncthreads_and(pred) cl_checked_syncthreads_and((pred), __LINE__)
#define __syncthreads_or(pred) cl_checked_syncthreads_or((pred), __LINE__)

/*
 * Where this translation unit's note is on the device (*note, its
 * CL_BARRIER_WORDS words) and the file's name (*file): 1, or 0 when the
 * device cannot say. Each source file of a submission is a unit of its own
 * (CL_CHECKED_UNIT, 0-7, from the grader's -D), and the runner asks the
 * reader of each unit the program has (launch.cu); a weak symbol, not a
 * constructor, which the symbol audit refuses in a submission's object.
 * The runner reads and clears the note itself, with copies that are the
 * harness's own: one made here, in the submission's object, would be a
 * copy from the device during the launcher's call, which the launch
 * ledger fails (CL_CALL_HOST_READS).
 */
#ifndef CL_CHECKED_UNIT
#define CL_CHECKED_UNIT 0
#endif
#define CL_BARRIER_READER_(u) cl_barrier_read_unit##u
#define CL_BARRIER_READER(u) CL_BARRIER_READER_(u)

extern "C" __attribute__((weak)) int CL_BARRIER_READER(CL_CHECKED_UNIT)(void **note,
									  const char **file)
{
	if (cudaGetSymbolAddress(note, cl_barrier_note) != cudaSuccess)
		return 0;
	*file = __BASE_FILE__;
	return 1;
}

#endif
