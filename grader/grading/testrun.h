/*
 * testrun.h - running a grading's correctness tests: the lab's Check suite
 * in the test binary build.h linked, each verdict read from Check's log.
 */
#ifndef TESTRUN_H
#define TESTRUN_H

#include "grading.h"

/*
 * The most bytes of a student's name a lab's programs are given: the
 * harness's own limit (CL_STUDENT_MAX, labs/common/harness.cu). A name is
 * one line of their input, and is no longer than a line they keep.
 */
#define TESTRUN_STUDENT_MAX 200

/*
 * A student's name as a lab's programs get it (the test binary, and the
 * question sheet and key of `cudalab questions`, so that each derives the
 * same questions from it): up to its first line break, cut to at most
 * TESTRUN_STUDENT_MAX bytes, never inside a UTF-8 character. Allocated.
 */
char *testrun_student(const char *name);

/*
 * What the test binary reads on standard input for grading r: the seed, the
 * token its finished tests write back, and the student's name as
 * testrun_student gives it. Allocated: no name cuts the token short.
 */
char *testrun_input(const struct result *r, const char *token);

/*
 * Runs every correctness test of r in binary, in g's lanes; then once more,
 * alone, each test that got no result (the binary ended before it); on the
 * emulator, each failed test again with each block's threads in reverse
 * order and in the AddressSanitizer build, whose findings join its message.
 * -1 only for the grader's own failures.
 */
int testrun_tests(const struct grading *g, const char *binary);

/*
 * Marks (graded_test.owed) each correctness test of r that met what another
 * grading on the GPU can cause: it ran out of time (or got no result), or
 * out of GPU memory. How many it marked.
 */
size_t testrun_mark_owed(struct result *r);

/*
 * Runs the marked tests once more: for a caller that now has the GPU to
 * this grading alone. A test that reports this time gets that verdict.
 */
int testrun_again_alone(const struct grading *g, const char *binary);

#endif
