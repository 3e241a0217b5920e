/*
 * sandbox.h - bubblewrap around the programs of a grading that run student
 * code (nvcc and g++ on the submission, the test binaries, the timing and
 * profile drivers).
 *
 * Owns: what such a program may see and who it is. It sees the system's
 * programs and libraries read-only, the grading's work folder writable, a
 * private /tmp, /proc of its own PID namespace, the GPU's device nodes, no
 * network; not the checkout (reference/, db/, the gradebook), $HOME or
 * anything else of the machine's files. It is an unprivileged user: the
 * grader's own user in a user namespace of its own, or, when the grader is
 * root, a user without privileges (CUDALAB_SANDBOX_USER, else
 * cudalab-sandbox, else nobody) that the grader becomes before bubblewrap
 * starts (and even where bubblewrap cannot run, the programs are never
 * root: they run unsandboxed as that user); every capability dropped, no new privileges, no further user
 * namespaces, the system-call filter of sysfilter.h, a terminal session of
 * its own. bubblewrap reads its options from a descriptor, so the sandbox's
 * /proc/1/cmdline names no folder of the grader's. A program in the sandbox
 * dies with the grader.
 *
 * Must not: decide verdicts, or decide whether grading may go on without a
 * sandbox (grading.c does).
 */
#ifndef SANDBOX_H
#define SANDBOX_H

#include "util.h"

#include <stdbool.h>
#include <sys/types.h>

struct sandbox {
	char *bwrap;           /* bubblewrap's path; NULL: programs run unsandboxed */
	char *why;             /* why not, when bwrap is NULL */
	bool off;              /* turned off on purpose (CUDALAB_NO_SANDBOX) */
	struct strlist ro;     /* more folders the programs may read */
	size_t tmp_bytes;      /* the size of its private /tmp (a tmpfs); 0: the kernel's default */
	/* nonzero: the work folder is a tmpfs of this size, with the folder's
	 * entries bound read-only in it (what the submission's programs write
	 * there is held to it, and goes when they end); 0: the folder itself,
	 * writable (the compilers') */
	size_t work_bytes;
	/* when the grader is root: the user its sandboxed programs run as (they
	 * run as it unsandboxed too) */
	bool drop;
	uid_t uid;
	gid_t gid;
	char *user;            /* its name, or the grader's own when not root */
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
 * bubblewrap's options that run a program in the sandbox with workdir as
 * its working folder (writable, or a tmpfs of sb->work_bytes with the
 * folder's entries read-only in it), the files of writable (a NULL-ended
 * list, or NULL: files that exist, the program's outputs) writable in any
 * case, and the system-call filter read from seccomp_fd: not bwrap itself,
 * nor the program (run.c hands the options over on a descriptor, and puts
 * the program after them). Appends to out.
 */
void sandbox_args(const struct sandbox *sb, const char *workdir, const char *const *writable,
		  int seccomp_fd, struct strlist *out);

/*
 * Gives path (a folder of the work folder a sandboxed program writes in) to
 * the sandbox's user, when the grader is root; 0 or -1 with an error.
 */
int sandbox_own(const struct sandbox *sb, const char *path);

/* "the user nobody (65534), unprivileged" and the like, for the result */
char *sandbox_describe_user(const struct sandbox *sb);

#endif
