/*
 * sandbox.h - bubblewrap around the programs of a grading that run student
 * code (nvcc and g++ on the submission, the test binaries, the timing and
 * profile drivers).
 *
 * Owns: what such a program may see: the system's programs and libraries
 * read-only, the grading's work folder writable, a private /tmp, /proc of its
 * own PID namespace, the GPU's device nodes, no network; and not the
 * checkout (reference/, db/, the gradebook), $HOME or anything else of the
 * machine's files. A program in the sandbox dies with the grader.
 *
 * Must not: decide verdicts. Where bubblewrap is missing or cannot run here,
 * programs run unsandboxed, with the limits and timeouts of run.c only, and
 * the result says so.
 */
#ifndef SANDBOX_H
#define SANDBOX_H

#include "util.h"

struct sandbox {
	char *bwrap;           /* bubblewrap's path; NULL: programs run unsandboxed */
	char *why;             /* why not, when bwrap is NULL */
	struct strlist ro;     /* more folders the programs may read (the labs, for builds) */
};

/*
 * Finds bubblewrap: sb->bwrap, or NULL with sb->why. Whether it works here
 * (a container may forbid the namespaces it needs) is for its user to try
 * with what it will run, and sandbox_disable() when it does not.
 */
void sandbox_init(struct sandbox *sb);
void sandbox_release(struct sandbox *sb);
/* No sandbox after all: programs run unsandboxed, for why (which sb takes). */
void sandbox_disable(struct sandbox *sb, char *why);

/* Lets the sandbox's programs read path too (a folder or a file). */
void sandbox_allow_read(struct sandbox *sb, const char *path);

/*
 * The command line that runs argv in the sandbox with workdir writable and
 * as its working folder: bwrap's options, then argv. Appends to out.
 */
void sandbox_wrap(const struct sandbox *sb, const char *workdir, const char *const *argv,
		  struct strlist *out);

#endif
