/*
 * cudalab.h - trusted helpers shared by every lab harness.
 *
 * Owns: the harness entry point (cl_main), the launch ledger that records
 * what student code launched and allocated, device buffers with guard
 * canaries, and CUDA error checks that fail the current Check test.
 *
 * The test binary is two programs (remote.h): the judge (harness.cu,
 * buffers.cu, remote.cu, the lab's suite) and the runner (runner.cu,
 * launch.cu, the submission). A test calls CUDA and the lab's launchers as
 * before; in the judge those calls are carried out by the runner.
 *
 * Must not: touch CUDA outside a test body. Check runs each test in a forked
 * child; CUDA state created before fork() is undefined in the child, so the
 * harness's main process and its per-part processes never call CUDA.
 */
#ifndef CUDALAB_H
#define CUDALAB_H

#include <check.h>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- harness */

struct cl_test {
	const char *tcase;   /* graded part, as in lab.conf */
	const TTest *test;   /* START_TEST(test_<lab>_<part>_<case>) */
};

struct cl_lab {
	const char *name;
	const struct cl_test *tests;
	size_t ntests;
	/*
	 * Called once in the harness's main process, before any test forks,
	 * with the run's seed and the parts to run: prepare inputs and CPU
	 * reference results there (CPU only, never CUDA), so every forked test
	 * shares them.
	 */
	void (*setup)(uint64_t seed, const char *const *parts, size_t nparts);
};

/*
 * The tests of the lab's tests/hidden/ (kept out of a student's handout),
 * where it has any: a file there defines both (extern const, one file per
 * lab), and cl_main runs them after lab->tests, as if they were listed
 * there. Absent (a handout), they are null, and --list does not name them:
 * the grader holds back the tests of lab.conf that are not listed.
 */
extern const struct cl_test cl_hidden_tests[] __attribute__((weak));
extern const size_t cl_hidden_ntests __attribute__((weak));

/*
 * argv: [--list] [--xml-dir DIR] [--timeout PART=SECONDS]... [PART...]
 * stdin: "seed=N" (the seed is never taken from argv or the environment,
 * which other processes can read).
 */
int cl_main(const struct cl_lab *lab, int argc, char **argv);

/* ------------------------------------------------------------ CUDA checks */

/* Fails the current test with the call, its location and the CUDA error. */
#define CL_CUDA_CHECK(expr)                                                        \
	do {                                                                       \
		cudaError_t cl_err_ = (expr);                                      \
		if (cl_err_ != cudaSuccess)                                        \
			ck_abort_msg("harness: %s failed at %s:%d: %s (%s)", #expr,  \
				     __FILE__, __LINE__, cudaGetErrorName(cl_err_),  \
				     cudaGetErrorString(cl_err_));                   \
	} while (0)

/*
 * Creates the CUDA context of this test process, once: in a lane, later
 * tests use the one it made. Every test body calls it first; it fails the
 * test cleanly when no device is there.
 */
void cl_device_init(void);

/* --------------------------------------------------------- launch ledger */

#define CL_MAX_LAUNCHES 8

struct cl_launch {
	char kernel[96];     /* demangled kernel name, or "?" */
	dim3 grid, block;
	size_t dyn_smem;     /* dynamic shared memory per block, bytes */
	size_t static_smem;  /* static shared memory per block, bytes (-1 unknown);
			      * emulated, what the blocks laid out as they ran */
};

struct cl_ledger {
	int nlaunches;                 /* kernels launched during the call */
	struct cl_launch launch[CL_MAX_LAUNCHES];
	int nallocs;                   /* cudaMalloc calls still not freed */
	size_t alloc_bytes;            /* bytes they hold */
	int frees_unknown;             /* cudaFree of pointers the call did not allocate */
	int pitched_allocs;            /* cudaMallocPitch calls that succeeded (freed or not) */
	int host_copies;               /* copies from the host into memory the call did not
					* allocate (the caller's buffers) */
	size_t host_copy_bytes;        /* bytes they copied */
	int host_reads;                /* copies from device memory to the host (cudaMemcpy,
					* cudaMemcpy2D, cudaMemcpyFromSymbol), any buffer */
	size_t host_read_bytes;        /* bytes they copied */
};

/*
 * Records, between begin and end, every kernel launch, cudaMalloc and
 * cudaFree made by code in the process (the student's launcher), its
 * copies from the host (cudaMemcpy, cudaMemcpy2D) into device memory it did
 * not allocate, and its copies from the device to the host.
 */
void cl_ledger_begin(void);
const struct cl_ledger *cl_ledger_end(void);
/*
 * After cl_ledger_begin: the nth cudaMalloc of the call (counting from 0)
 * fails with cudaErrorMemoryAllocation, as on a device that is full, so a
 * test can see whether the student's code checks for it.
 */
void cl_ledger_fail_malloc(int nth);

/*
 * Set when a cudaMalloc of this process (the harness's or the student's)
 * failed for want of device memory, not by cl_ledger_fail_malloc; cleared as
 * each test starts. A test that passed so may owe its verdict to another
 * program holding the GPU's memory: the harness tells the grader, which runs
 * it again with the GPU to itself.
 */
extern int cl_device_oom;

/*
 * What is known of the last error beyond its code: the CPU emulator's
 * account (the CUDA thread that faulted, the barrier that diverged), on a
 * GPU the checked barrier's (cl_barrier_broken); else NULL.
 */
const char *cl_error_detail(void);

/*
 * On a GPU, after a wait for the device: whether a barrier of code built
 * with checked-barrier.h broke since the last look (its account is then
 * cl_error_detail's). Emulated always false: strict emulation fails the
 * launch itself.
 */
bool cl_barrier_broken(void);

/* "grid (7,7,1) block (1,1,1)" for launch i of the ledger, or "no launch". */
const char *cl_launch_str(const struct cl_ledger *l, int i, char *buf, size_t len);

/* Flags of cl_finish_call. */
#define CL_CALL_IGNORE_LEAKS 1u   /* the test judges the launch, not the memory */
#define CL_CALL_HOST_COPIES 2u    /* copies from the host into the caller's buffers
				   * are the launcher's business */
#define CL_CALL_HOST_READS 4u     /* so are copies from the device to the host */
/* the test judges the launch alone: not its memory, nor where its outputs came from */
#define CL_CALL_LAUNCH_ONLY (CL_CALL_IGNORE_LEAKS | CL_CALL_HOST_COPIES | CL_CALL_HOST_READS)

/*
 * Ends the ledger of one call of a student's launcher and fails the test on
 * what every lab forbids: freeing memory the call did not allocate (checked
 * first: it is what makes the call fail), a launch or kernel error (with the
 * emulator's detail and a hint), no kernel launched, device memory leaked,
 * host memory copied into the caller's buffers (the outputs are a kernel's
 * to compute; CL_CALL_HOST_COPIES allows it), device memory copied to the
 * host (what the host reads of the device it could compute the outputs
 * from, for a kernel to copy in from a buffer of the call's own or from
 * memory a kernel can reach; CL_CALL_HOST_READS allows it).
 * what names the call in the messages ("matmul_k1(N=64)"), buffers the
 * caller's buffers ("A, B or C"). The launch configuration goes into cfg.
 */
const struct cl_ledger *cl_finish_call(const char *what, const char *buffers, unsigned flags,
				       char *cfg, size_t len);

static inline long long cl_threads(dim3 d)
{
	return (long long)d.x * d.y * d.z;
}

/* --------------------------------------------------- guarded device buffers */

/*
 * A device array of n floats with `CL_GUARD` words of canary on either
 * side, in one allocation, so a write just outside the array lands in a
 * canary instead of in another buffer and is reported. Each canary word
 * differs by buffer and by position, so a stray thread that copies one
 * buffer's canary into another's (a copy kernel without its bounds test)
 * changes it too.
 *
 * In a safety run (cl_safety, under compute-sanitizer) the allocation has
 * the array's exact size and no canary: a read or write outside the array is
 * then outside every allocation, which the sanitizer reports, where a canary
 * inside the allocation would hide it.
 */
#define CL_GUARD 4096
struct cl_dbuf {
	float *base;       /* the allocation */
	float *d;          /* what the student gets: base + guard */
	size_t n;
	size_t guard;      /* canary words on either side: CL_GUARD, or 0 in a safety run */
	uint64_t serial;   /* which canary values this buffer's are */
	const char *elem;  /* what an element is, for messages: "float" (or "int") */
};

/* Set by the harness in a safety run (--safety): small sizes, exact allocations. */
extern int cl_safety;
/*
 * Set by the harness when the runner is the CPU emulator (--emulated): a
 * suite may test smaller sizes there, where every CUDA thread runs on the CPU.
 */
extern int cl_emulated;

/* Whether a safety run (under compute-sanitizer, which slows with the
 * work) leaves out a call on this many elements. */
static inline bool cl_safety_too_big(long long elements)
{
	return cl_safety && elements > 100000;
}
/* Whether the ledger's wrap fills shared memory with NaN before each of the
 * student's launches (the test harness's runs; not timing or profiling). */
extern int cl_shared_poison;
/* Whether this process's CUDA context can run no more work (a sticky error). */
bool cl_context_lost(void);

/*
 * The judge's line to its runner (remote.cu): how a runner starts, from the
 * grader's file (0, or -1 when it cannot be read); and, at a test's end,
 * cl_device_oom set when the runner's cudaMalloc found the device full.
 */
int cl_remote_configure(const char *path);
void cl_remote_out_of_memory(void);
/* Ends this process's runner, if it has one, and reaps it (before the process ends). */
void cl_remote_end(void);

/*
 * Where a test's time went on the judge's side of the line, in seconds of
 * CLOCK_MONOTONIC, since the test began (the harness zeroes it): starting
 * the submission's program and making its CUDA context (start, with
 * CL_OP_INIT); the launchers' calls, their kernels included (calls); every
 * other request: memory, copies, the ledger (requests). The rest of the
 * test's time is the judge's own: its inputs, its checks.
 */
struct cl_request_times {
	double start, calls, requests;
};
extern struct cl_request_times cl_request_times;

void cl_dbuf_alloc(struct cl_dbuf *b, size_t n);
void cl_dbuf_free(struct cl_dbuf *b);
void cl_dbuf_upload(struct cl_dbuf *b, const float *h);
void cl_dbuf_download(const struct cl_dbuf *b, float *h);
/* The bits of the NaN that cl_dbuf_poison fills arrays with. */
static const uint32_t cl_poison_bits = 0xFFFFFFFFu;
/* Fill the array with NaN, so elements left unwritten show. */
void cl_dbuf_poison(struct cl_dbuf *b);
/*
 * 0 when both canaries are intact; else describes the damage in msg
 * ("out-of-bounds write: 3 floats past the end of C (first at C[n+0])", in elements of
 * b->elem) and returns -1.
 */
int cl_dbuf_check_guards(const struct cl_dbuf *b, const char *name, char *msg, size_t len);
/*
 * Fails the test when a call (what, launched as cfg) damaged a canary of its
 * output out or its input in, naming the damage, the launch and hint.
 */
void cl_assert_guards_out_in(const char *what, const char *cfg, const struct cl_dbuf *out,
			     const struct cl_dbuf *in, const char *hint);

/* ------------------------------------------------------------- utilities */

/* splitmix64: a small, good generator for per-run inputs. */
static inline uint64_t cl_rand_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double cl_rand_unit(uint64_t *s)
{
	return (double)(cl_rand_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * n random floats from seed, each of magnitude in [0.5, 1.5) with a random
 * sign: never zero, so an unwritten or zeroed output shows. malloc'd.
 */
float *cl_random_floats(size_t n, uint64_t seed);

/* A float for a message: NaN as "NaN" (the poison's sign would print "-nan"). */
const char *cl_fmt_float(float v, char *buf, size_t len);

/* Whether parts (the parts this run asked for) includes name. */
int cl_part_wanted(const char *name, const char *const *parts, size_t nparts);

/*
 * The answer to question `name` in answers.txt (in the test's folder, copied
 * there from the submission): the text after "name =" on its line, trimmed.
 * Lines starting with # are comments. Fails the current test, saying so,
 * when the file, the line or the answer is missing.
 */
const char *cl_answer(const char *name);
/* The same, as a whole number (fails the test when it is not one). */
long long cl_answer_int(const char *name);
/* The answer, or NULL where answers.txt, its line or its text is missing: never fails. */
const char *cl_answer_given(const char *name);

/* Who is graded ("student=ID" on standard input; "student" without it), for
 * labs whose questions differ per student. */
extern const char *cl_student;

/* Number of CPU threads worth using for the harness's CPU reference work. */
int cl_cpu_threads(void);

#endif
