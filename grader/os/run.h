/*
 * run.h - runs programs the grader does not trust (nvcc on student code, test
 * binaries) as children it can always stop.
 */
#ifndef RUN_H
#define RUN_H

#include "util.h"

#include <sched.h>
#include <sys/types.h>

struct sandbox;

struct run_spec {
	const char *const *argv;      /* argv[0] is looked up in PATH */
	const char *const *envp;      /* NULL: the grader's environment */
	const char *cwd;              /* NULL: the grader's */
	const char *input;            /* written to stdin, then closed; NULL: empty */
	double timeout;               /* wall seconds; <= 0: none */
	size_t output_limit;          /* bytes of stdout+stderr kept; 0: 64 KiB */
	/* resource limits; 0 leaves the grader's */
	unsigned long cpu_seconds, max_file_bytes, max_open_files;
	/* bytes of data (RLIMIT_DATA: the heap and private writable mappings) */
	unsigned long max_memory;
	/* processes and threads at once, in a pids cgroup of its own (pidcg.h),
	 * which also finds them all to kill; not enforced where none can be made */
	unsigned long max_processes;
	/* runs the program in this sandbox (sandbox.h) in cwd; NULL: none */
	const struct sandbox *sandbox;
	/* files (that exist) the program writes in its sandbox: its outputs; NULL: none */
	const char *const *writable;
	/* when it becomes nonzero (another thread sets it), the program is
	 * ended as on a timeout, and its result says cancelled; NULL: never */
	const int *cancel;
	/* the CPUs it runs on (sched_setaffinity); NULL: the grader's */
	const cpu_set_t *cpus;
};

struct run_result {
	bool started;                 /* false: the program could not be run */
	int exit_code;                /* when it exited */
	int signal;                   /* when a signal ended it (SIGKILL on timeout) */
	bool timed_out;
	bool cancelled;               /* ended because spec->cancel was set */
	char *output;                 /* stdout and stderr, interleaved, NUL-terminated */
	size_t output_len;
	size_t output_dropped;        /* bytes beyond output_limit, read and dropped */
	double seconds;
	double cpu_seconds;           /* CPU time, its own and its waited-for children's */
};

/*
 * Runs the n programs at once and waits for all of them. Each runs in a new
 * session; when it ends or times out, every process still in that session is
 * killed, so nothing it started outlives it. Returns -1 only for the grader's
 * own failures; a program that cannot be started, crashes or hangs is
 * described in its run_result.
 */
int run_many(const struct run_spec *specs, struct run_result *results, size_t n);
int run_one(const struct run_spec *spec, struct run_result *result);
void run_result_release(struct run_result *r);

/* "exited with 1", "killed by signal 11 (Segmentation fault)", "timed out after 10 s" */
char *run_describe(const struct run_spec *spec, const struct run_result *r);

/*
 * Whether a signal that ended the program (r, or r's signal taken as that
 * of one of its processes) came from a limit spec set: its wall time or a
 * cancel (the kill of its session), its CPU time (SIGXCPU, or SIGKILL at
 * the limit), its file size (SIGXFSZ). Any other signal came from outside
 * the grader's limits: a kill from elsewhere, a crash. A limit added to
 * run_spec that ends a program with a signal is to be told here.
 */
bool run_ended_by_limit(const struct run_spec *spec, const struct run_result *r);

/* Makes this process the reaper of orphans of the children it starts. */
void run_init(void);

/*
 * A stop asked for by signal sig (SIGINT, SIGTERM): from then on every
 * program being run is ended at once, as if cancelled, and run_many
 * returns -1 (the grader's failure: never a verdict). run_stopped() says
 * whether it was asked, and by which signal (0: not).
 */
void run_stop_on(int sig);
int run_stopped(void);

#endif
