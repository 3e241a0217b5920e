/*
 * safety.h - the safety stage of a grading on a GPU: the lab's safety tests
 * (lab.conf `safety =`) run once more under compute-sanitizer, and what its
 * tools find fails those tests.
 */
#ifndef SAFETY_H
#define SAFETY_H

#include "grading.h"

/* seconds one sanitizer run may take: the reference's safety tests take about
 * 2 s on an H100; a kernel that never ends is not waited for again */
#define SAFETY_TIMEOUT 60
/* seconds after which the stage starts no more runs: those its runs did not
 * finish cost a SAFETY_TIMEOUT each, and no submission more than three */
#define SAFETY_BUDGET (3 * SAFETY_TIMEOUT)
/* the sanitizer tools a GPU's safety runs use, side by side */
#define SAFETY_TOOLS 3

/* One report of a sanitizer tool, in a student's words. */
struct safety_finding {
	char *test;      /* the Check test it was found in */
	char *tool;      /* "memcheck", "racecheck", "synccheck" */
	char *text;      /* "out-of-bounds read of 4 bytes ... at matmul.cu:45 ..." */
	int count;       /* reports of this tool in this test, this one first */
};

struct safety_output {
	struct safety_finding *findings;
	size_t nfindings;
	bool banner;     /* the sanitizer ran (it printed its banner) */
	bool ended;      /* the harness ran every test it was given */
	char *last;      /* the test it was at when it stopped (NULL: none) */
	struct strlist started;   /* the tests whose marker came, in order */
	/* a marker that the run ends came after the last test's ("-end", or
	 * "-lost": the context was lost, the tests after it run in a fresh one) */
	bool closed;
	bool lost;       /* it was "-lost": a kernel failed, in the last test started */
	/* racecheck's reports both of whose accesses are in the CUDA Toolkit's
	 * cooperative groups (safety_toolkit_race): not findings */
	unsigned toolkit_races;
};

/*
 * Reads one run's output: the harness's "@@cudalab-safety:TOKEN TEST" lines
 * (those without the run's token are the runner's, and not markers) and
 * the sanitizer's "=========" reports between them (the emulator's checking
 * runtime writes its reports in the same form). tool NULL: each report's
 * tool is told by its kind. own: the submission's files, whose code is
 * never the toolkit's (NULL: none). Pure: no I/O.
 */
void safety_parse(const char *output, const char *tool, const char *token,
		  const struct strlist *own, struct safety_output *out);
void safety_output_release(struct safety_output *out);

/*
 * What one run over the tests left (in the order it ran them) covered, by
 * its output o and whether it ended cleanly (in its time, by no signal): a
 * test is checked once the next one's marker came, or, the last, once a
 * marker that the run ended came and it ended cleanly. A test in which
 * the context was lost is checked only when the tool reported something in
 * it: a kernel that failed with no report says nothing of why (memcheck,
 * beside many others, has lost its report of a bad access). The tests
 * it did not reach, or reached after a lost context, go to *again (an
 * empty list, filled); so does the test it was in when it did not end
 * cleanly, first, unless it was the run's first already: that test is
 * returned (a pointer into left), its check unable to finish alone. NULL
 * when there is none.
 */
const char *safety_covered(const struct strlist *left, const struct safety_output *o,
			   bool clean, struct strlist *again);

/*
 * Whether a race report's access, " at FUNCTION+0xOFFSET in FILE:LINE", is
 * in the CUDA Toolkit's cooperative groups: a function of that namespace,
 * in one of its headers (racecheck names the file alone, "reduce.h:283",
 * or with a path, which must then run through a "cooperative_groups"
 * folder), not one of own (the submission's files, by name). That is the
 * code of cg::reduce, the scans and the sync of a tile of more than a
 * warp, whose barrier is a word of shared memory that threads poll with
 * atomics, which racecheck does not take for a barrier. A submission
 * cannot give its own lines such a file's name: intake refuses #line.
 */
bool safety_toolkit_race(const char *access, const struct strlist *own);

/* Whether o lost its context in its last test with no report in that test. */
bool safety_lost_unexplained(const struct safety_output *o);

/* compute-sanitizer beside nvcc, or on PATH (malloc'd); NULL when there is none. */
char *safety_find_sanitizer(const char *nvcc);

/*
 * Runs each part's safety tests, in a thread of its own: on a GPU through
 * memcheck, racecheck and synccheck at once; emulated, in the emulator's
 * checking build. all: every safety test (started before the correctness
 * tests, to run beside them), else those that passed or failed. NULL when
 * the lab has none.
 */
struct safety_run *safety_start(const struct grading *g, const char *binary, bool all);

/*
 * The same over the tests that ran again alone (graded_test.owed: they ran
 * out of time or of GPU memory beside other gradings) and passed or failed
 * then. safety_finish of the first run leaves those tests alone: their
 * verdicts are their re-run's, and this run checks those.
 */
struct safety_run *safety_start_owed(const struct grading *g, const char *binary);

/*
 * Waits for s and fails each test a tool found something in, with what it
 * found (only tests that passed or failed: if one of its tests crashed or
 * ran out of time, the runs start again without it); says in the result
 * why the stage did not run, when it did not (emulated, no
 * compute-sanitizer). A safety test the stage could not check to its end
 * never passes as checked: a run that did not finish one (it ran out of
 * time, or died, in it) runs it again alone, first in a fresh process, and
 * the tests after it again too; one that does not finish alone is a
 * timeout, or a crash, saying the check could not finish and why; those the
 * stage had no time left for fail, saying so. abandon: stop the runs and
 * record nothing (the tests could not run). -1 only for the grader's own
 * failures.
 */
int safety_finish(struct safety_run *s, bool abandon);

#endif
