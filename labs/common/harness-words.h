/*
 * harness-words.h - words the test harness writes that the grader reads.
 *
 * Owns: the prefixes of the harness's messages that change what a grading
 * means, kept in one place for both sides: the harness (remote.cu) writes
 * them, the grader (grader/grading/probe.c) looks for them.
 *
 * Must not: hold anything but such words; it is plain C, read by nvcc, g++
 * and the grader's cc alike.
 */
#ifndef CL_HARNESS_WORDS_H
#define CL_HARNESS_WORDS_H

/*
 * A test's failure that begins with these words: the GPU refused a runner
 * its CUDA context before any code of the submission's had run in it, so
 * the machine failed, not the submission (written only by the harness's own
 * first request to a new runner; a runner's text that begins so is
 * relabeled as the runner's).
 */
#define CL_NO_CONTEXT "harness: the GPU gave the submission's program no context: "

#endif
