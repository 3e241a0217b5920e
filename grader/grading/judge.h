/*
 * judge.h - the two programs of a lab's tests (labs/common/remote.h): the
 * judge, which the grader runs outside the sandbox and which writes every
 * verdict, and the runners it starts, in the sandbox, to run the
 * submission's code.
 *
 * Owns: the judge's folder (the grading's private copy of the submission's
 * files the tests read, the logs, the runners' recipes: nothing of it is
 * in the sandbox), the judge's command line, and the recipe that tells it
 * how to start a runner: as the sandbox's user, in bubblewrap with the
 * grading's options and system-call filter, or, unsandboxed, alone.
 *
 * Must not: run submission code itself, or let the runner see the judge's
 * folder, descriptors or memory.
 */
#ifndef JUDGE_H
#define JUDGE_H

#include "util.h"

struct grading;

/*
 * The judge's folder of grading g: made (mode 0700, the grader's), with a
 * copy of the submission's files as intake left them in the work folder.
 * 0, or -1 with the reason said.
 */
int judge_open(struct grading *g);
void judge_close(struct grading *g);

/*
 * The judge's command line, into argv: the lab's judge, --runner with a
 * recipe (named name, in the judge's folder) whose runner is runner_argv
 * (the runner's binary, maybe with compute-sanitizer before it), and
 * --emulated for the CPU emulator. The caller adds the rest. 0 or -1.
 */
int judge_argv(const struct grading *g, const char *name, const char *const *runner_argv,
	       struct strlist *argv);

/*
 * A recipe for a runner (labs/common/spawn.h), named name in the judge's
 * folder, into *path (malloc'd): runner_argv in the grading's sandbox, as
 * its user, in the work folder; or, not sandboxed (the reference's runner
 * of the timer: trusted code), alone, in the judge's folder. 0 or -1.
 */
int judge_recipe(const struct grading *g, const char *name, const char *const *runner_argv,
		 bool sandboxed, char **path);

/* The judge's folder's path for name ("logs"), malloc'd. */
char *judge_path(const struct grading *g, const char *name);

/* The lab's judge program (build/labs/<lab>/judge), malloc'd. */
char *judge_program(const struct grading *g);

#endif
