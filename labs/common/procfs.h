/*
 * procfs.h - what the kernel says of the processes that run a submission:
 * a small file of /proc, the processes under one (the harness's test
 * clock, harness.cu, and the timer's check for a busy machine, bench.cu,
 * read their schedstat), and the CPUs a process may run on (the harness's tests at once, the
 * emulator's workers). The grader's own count is util.c's usable_cpus.
 */
#ifndef CL_PROCFS_H
#define CL_PROCFS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The file at path into buf, NUL-terminated; false when it cannot be read. */
static inline bool cl_read_proc(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, len - 1)) < 0 && errno == EINTR)
		;
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* The threads of process pid into out, at most max: how many (0: it has ended). */
static inline int cl_threads(pid_t pid, pid_t *out, int max)
{
	char path[64];
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	while (d && n < max && (e = readdir(d))) {
		int tid = atoi(e->d_name);
		if (tid > 0)
			out[n++] = (pid_t)tid;
	}
	if (d)
		closedir(d);
	return n;
}

/* The file `name` of thread tid of process pid (its schedstat, its children) into buf. */
static inline bool cl_read_thread(pid_t pid, pid_t tid, const char *name, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid, (int)tid, name);
	return cl_read_proc(path, buf, len);
}

/* A thread's schedstat: seconds on a CPU, and waiting on a run queue, and its time slices. */
struct cl_schedstat {
	double ran, waited;
	unsigned long long slices;
};

/* Thread tid of process pid's schedstat into *s: false where it has ended, or has none. */
static inline bool cl_read_schedstat(pid_t pid, pid_t tid, struct cl_schedstat *s)
{
	char buf[128];
	unsigned long long ran, waited;

	if (!cl_read_thread(pid, tid, "schedstat", buf, sizeof(buf)) ||
	    sscanf(buf, "%llu %llu %llu", &ran, &waited, &s->slices) != 3)
		return false;
	s->ran = ran * 1e-9;
	s->waited = waited * 1e-9;
	return true;
}

/* Enough for the emulator's workers (at most 256) and a process's own. */
#define CL_THREADS_MAX 512

/*
 * pid and the processes under it (a test's own, a runner with bubblewrap
 * or the sanitizer around it, where the work is), into out, at most max:
 * how many.
 */
static inline int cl_process_tree(pid_t pid, pid_t *out, int max)
{
	int n = 0;

	out[n++] = pid;
	for (int i = 0; i < n; i++) {
		pid_t tids[CL_THREADS_MAX];
		int nt = cl_threads(out[i], tids, CL_THREADS_MAX);
		for (int t = 0; t < nt; t++) {
			char buf[1024];
			if (!cl_read_thread(out[i], tids[t], "children", buf, sizeof(buf)))
				continue;
			for (char *p = buf, *end; n < max; p = end) {
				long child = strtol(p, &end, 10);
				if (end == p)
					break;
				out[n++] = (pid_t)child;
			}
		}
	}
	return n;
}

/* The CPUs this process may run on (its affinity: a cgroup's or taskset's), at least 1. */
static inline long cl_usable_cpus(void)
{
	cpu_set_t set;
	long n = sched_getaffinity(0, sizeof(set), &set) ? 0 : CPU_COUNT(&set);

	if (n < 1)
		n = sysconf(_SC_NPROCESSORS_ONLN);   /* else all */
	return n < 1 ? 1 : n;
}

#endif
