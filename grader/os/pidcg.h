/*
 * pidcg.h - a pids cgroup for each program the grader runs with a process
 * limit: a cap on the processes and threads it has at once that binds root
 * too (RLIMIT_NPROC does not), and a list of all of them to kill, wherever
 * they went (setsid, a new process group).
 */
#ifndef PIDCG_H
#define PIDCG_H

#include <stdbool.h>

/*
 * Whether this grader can make pids cgroups (its own cgroup in the pids
 * hierarchy, v1 or v2, writable); the first call probes. When it cannot,
 * *why says why (static text) and process limits are not enforced.
 */
bool pidcg_available(const char **why);

/* A new cgroup allowing max tasks; NULL when none can be made (say why). */
char *pidcg_create(unsigned long max);

/* In a child before exec: moves the calling process into dir. -1 with errno. */
int pidcg_enter(const char *dir);

/* SIGKILLs every task in dir; how many it found. */
int pidcg_kill(const char *dir);

/* Kills every task in dir, removes it and frees dir. */
void pidcg_destroy(char *dir);

#endif
