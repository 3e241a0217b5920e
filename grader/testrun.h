/*
 * testrun.h - running a grading's correctness tests: the lab's Check suite
 * in the test binary build.h linked, each verdict read from Check's log.
 */
#ifndef TESTRUN_H
#define TESTRUN_H

#include "grading.h"

/*
 * What the test binary reads on standard input for grading r: the seed, the
 * student's name and the token its finished tests write back (at most 256
 * bytes: buf's len).
 */
void testrun_input(const struct result *r, const char *token, char *buf, size_t len);

/*
 * Runs every correctness test of r in binary, in g's lanes; then once more,
 * alone, each test that got no result (the binary ended before it); on the
 * emulator, each failed test again with each block's threads in reverse
 * order and in the AddressSanitizer build, whose findings join its message.
 * -1 only for the grader's own failures.
 */
int testrun_tests(const struct grading *g, const char *binary);

/*
 * Whether a correctness test of r met what another grading on the GPU can
 * cause: it ran out of time (or got no result), or out of GPU memory.
 */
bool testrun_any_owed_to_neighbours(const struct result *r);

/*
 * Runs those tests once more: for a caller that now has the GPU to this
 * grading alone. A test that reports this time gets that verdict.
 */
int testrun_again_alone(const struct grading *g, const char *binary);

#endif
