/*
 * build.h - building a submission and linking it with the lab's programs.
 *
 * Every function here returns -1 only for the grader's own failures; what
 * the student's code did to a build is in the result (or, for the builds
 * the grader links after the tests, in *log with 1 returned).
 */
#ifndef BUILD_H
#define BUILD_H

#include "grading.h"

/*
 * Compiles every .cu of the submission with nvcc, and its rewrite for the
 * CPU emulator with g++ where this machine has the emulator, while beside
 * runs alongside (the sequencer's GPU probe: the GPU is known by the time
 * the build is; its result into *beside_res, which the caller releases,
 * once everything has run); checks that every file the
 * compilers read is one a submission may include; scans what both
 * preprocessed and audits both objects, so that code only one of them
 * compiles (#ifdef CUDAEMU, #ifndef __NVCC__) is judged all the same. A
 * build the student broke sets r->build and its message.
 */
int build_compile(struct grading *g, const struct run_spec *beside, struct run_result *beside_res);

/*
 * Links the test binary for r->mode into *binary: the submission's objects
 * with the lab's harness (GPU, CPU), or the emulator's build of its source.
 * A link the student broke sets r->build; what the emulator cannot build
 * leaves the run without tests (mode none), saying why.
 */
int build_test_binary(struct grading *g, char **binary);

/*
 * Links the submission's unoptimised objects (nvcc with the device code's
 * optimisation off, made by build_compile() beside the others where a GPU
 * may run the safety stage) with the GPU harness into *binary: what
 * memcheck runs, so that a read the optimiser dropped, because nothing
 * uses its value, is still checked. 1 with why not in *log when they were
 * not built or do not link.
 */
int build_unoptimised_binary(const struct grading *g, char **binary, char **log);

/* Frees what the build kept of a grading (g->build); NULL is fine. */
void build_kept_free(struct build_kept *b);

/* workdir/<file>.o for each source file of the lab, in order: what nvcc made of them. */
void build_student_objects(const struct grading *g, struct strlist *objs);

/*
 * The emulator's objects of the submission, appended to objs: for suffix
 * "emu", the plain build build_compile() made and audited; for any other,
 * a checking build (AddressSanitizer, the trace build) compiled with flags
 * from the very text build_compile() preprocessed and scanned, so that no
 * macro of the checking build's (__SANITIZE_ADDRESS__, __SANITIZE_THREAD__,
 * __has_builtin of a sanitizer's builtin) tells it apart, into
 * workdir/<file>.<suffix>.o (reused while unchanged). 1 with the
 * compiler's output in *log when it fails.
 */
int build_emulated_objects(const struct grading *g, const char *flags, const char *suffix,
			   struct strlist *objs, char **log);

/*
 * Links objs with the lab's response file rsp (make wrote it into
 * build/labs/<lab>/) into workdir/<name>, *binary. 1 when the link failed,
 * its output in *log.
 */
int build_link(const struct grading *g, const struct strlist *objs, const char *rsp,
	       const char *name, char **binary, char **log);

#endif
