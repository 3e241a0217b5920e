/*
 * spawn.h - how a trusted program (the judge, the timer) starts a runner
 * (remote.h): the grader's recipe for it, and the start itself.
 *
 * Owns: reading a recipe (--runner FILE: NUL-separated words, "user" UID
 * GID | "cwd" PATH | "fd" N PATH | "argv" WORD... to the end), and making
 * the runner's process: its end of a socket pair as descriptor
 * CL_RUNNER_FD, /dev/null as its input, the recipe's files at their numbers,
 * every other descriptor of the caller's closed, the recipe's user, and a
 * SIGKILL when the caller dies.
 *
 * Must not: hand the runner anything the recipe does not name.
 */
#ifndef CL_SPAWN_H
#define CL_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#define CL_RECIPE_WORDS 64
#define CL_RECIPE_FDS 4

struct cl_recipe {
	char *text;                  /* the file, NUL-separated words */
	const char *argv[CL_RECIPE_WORDS + 1];
	const char *cwd;
	bool drop;                   /* become uid, gid first (a root grader's runner) */
	uid_t uid;
	gid_t gid;
	int nfds;
	int fd[CL_RECIPE_FDS];
	const char *fd_path[CL_RECIPE_FDS];
};

/* Reads the recipe at path into r: 0, or -1 (no such file, or not a recipe). */
int cl_recipe_read(const char *path, struct cl_recipe *r);

/*
 * Starts r's runner: its pid, and the caller's end of the socket in *fd
 * (close-on-exec); -1 with errno when no process could be made.
 */
pid_t cl_spawn(const struct cl_recipe *r, int *fd);

/* Whether the runner on fd answers a first request (it has started). */
bool cl_hello(int fd);
/* cl_hello in two halves, so that the wait can come later: the request
 * sent, and its answer read. */
bool cl_hello_send(int fd);
bool cl_hello_answered(int fd);

#endif
