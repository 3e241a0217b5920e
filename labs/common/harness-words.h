/*
 * harness-words.h - words the test harness writes that the grader reads.
 *
 * Owns: the prefixes of the harness's and the timer's messages that change
 * what a grading means, kept in one place for both sides: the harness
 * (harness.cu, remote.cu) and the timer (bench.cu) write them, the grader
 * (grader/grading/probe.c, testrun.c, timing.c) looks for them.
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

/*
 * The file, in the judge's log folder, that says the lab's setup hook
 * (struct cl_lab's setup) ended the test binary before any test ran: a
 * failed ck_assert there (Check has no test to fail outside one, and exits
 * with 2), or an exit. No code of the submission's has run by then, so it
 * is the lab's fault; the grader says so and charges nothing to the
 * student (grader/grading/testrun.c).
 */
#define CL_SETUP_ENDED_FILE "setup-ended"

/*
 * The file, in the judge's log folder, with the seconds the lab's setup
 * hook took (its data sets and their expected values), and the word that
 * starts the line of a test's .done file saying where its time went:
 * "times START CALLS REQUESTS", seconds of starting the submission's
 * program and its context, of the launchers' calls, and of every other
 * request to it (cudalab.h, struct cl_request_times).
 */
#define CL_SETUP_SECONDS_FILE "setup-seconds"
#define CL_TIMES_LINE "times"

/*
 * A test's Check log whose message begins with these words, then the
 * name of another test of its part: that test ran out of time first, and
 * the harness ran no more of the part (harness.cu, lanes); the grader
 * says so, and the test gets no points.
 */
#define CL_NOT_RUN_AFTER "Test not run after a timeout: "

/*
 * A timed case's message that begins with these words: the submission's
 * program left a request between its timed calls unanswered (an empty
 * call, which runs none of its code, or mapping the timer's memory), so
 * something of its own held the program after a launcher returned; the
 * case is "disturbed", and the grader's hint says that, not that the GPU
 * was kept busy (bench.cu, grader/grading/timing.c).
 */
#define CL_UNANSWERED "the submission's program did not answer "

#endif
