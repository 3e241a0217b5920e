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
 * Compiles every .cu of the submission with nvcc while the probe asks the
 * GPU what it is (into r->gpu), scans the preprocessed source and audits
 * the objects. A build the student broke sets r->build and its message.
 */
int build_compile(struct grading *g);

/*
 * Links the test binary for r->mode into *binary: the submission's objects
 * with the lab's harness (GPU, CPU), or the emulator's build of its source.
 * A link the student broke sets r->build; what the emulator cannot build
 * leaves the run without tests (mode none), saying why.
 */
int build_test_binary(struct grading *g, char **binary);

/* workdir/<file>.o for each source file of the lab, in order: what nvcc made of them. */
void build_student_objects(const struct grading *g, struct strlist *objs);

/*
 * Compiles each rewritten source workdir/<file>.emu.cpp with flags into
 * workdir/<file>.<suffix>.o, appended to objs, unless that object is there
 * already (a suffix names one set of flags); 1 with the compiler's output
 * in *log when it fails.
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
