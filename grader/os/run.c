/*
 * run.c - starts and watches untrusted children.
 *
 * Owns: fork/exec, the child's session, rlimits, stdin, capped capture of
 * stdout and stderr, the wall-clock timeout, and killing every process of a
 * child's session. Knows nothing about labs, builds or Check.
 *
 * A child runs in its own session (setsid), so its descendants can be found
 * even when they change process group, as Check's forked tests do. The grader
 * is a child subreaper, so orphans of a child are reparented to it and can be
 * reaped after they are killed.
 */
#include "run.h"

#include "pidcg.h"
#include "sandbox.h"
#include "sysfilter.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_OUTPUT_LIMIT (64 * 1024)
/*
 * Seconds to keep reading output after a child and its session are gone: a
 * process that left the session (setsid) can hold the pipe open forever.
 */
#define OUTPUT_GRACE 1.0

struct child {
	pid_t pid;
	int out_fd;          /* read end of stdout+stderr, -1 once at EOF */
	int pid_fd;          /* pidfd, readable when the child exits; -1 when unsupported */
	bool exited;
	double deadline;     /* 0: none */
	double drain_deadline; /* when to stop waiting for the output once it exited */
	double start;
	struct strbuf out;
	size_t limit;
	char *cgroup;        /* its pids cgroup (pidcg.h); NULL: none */
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

void run_stop_on(int sig)
{
	struct sigaction sa = {.sa_handler = on_stop};   /* no SA_RESTART: poll wakes */
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

int run_stopped(void)
{
	return stop_signal;
}

void run_init(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	signal(SIGPIPE, SIG_IGN);
}

static int pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* Session id of a process, from /proc/PID/stat; -1 when it is gone. */
static pid_t session_of(pid_t pid)
{
	char path[64], buf[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* the command name may hold spaces and parentheses: skip past the last ')' */
	char *p = strrchr(buf, ')');
	int ppid, pgrp, session;
	char state;
	if (!p || sscanf(p + 1, " %c %d %d %d", &state, &ppid, &pgrp, &session) != 4)
		return -1;
	return session;
}

/*
 * Kills every process in session sid (but not the grader), and reaps those
 * that were reparented to it. Returns how many were signalled.
 */
static int kill_session(pid_t sid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 1 || pid == getpid() || session_of(pid) != sid)
			continue;
		kill(pid, SIGKILL);
		n++;
	}
	closedir(d);
	return n;
}

/* Reaps orphans the subreaper inherited from sid (they are not in children[]). */
static void reap_session(pid_t sid)
{
	for (int round = 0; round < 50 && kill_session(sid) > 0; round++) {
		DIR *d = opendir("/proc");
		struct dirent *e;
		while (d && (e = readdir(d))) {
			pid_t pid = (pid_t)atoi(e->d_name);
			if (pid > 1 && session_of(pid) == sid)
				waitpid(pid, NULL, WNOHANG);
		}
		if (d)
			closedir(d);
		usleep(2000);
	}
}

static void set_limit(int resource, unsigned long value)
{
	struct rlimit rl = {value, value};
	if (value)
		setrlimit(resource, &rl);
}

/* What a sandboxed program's child does besides exec: see start_child. */
struct exec_extra {
	int keep[2];             /* descriptors bubblewrap reads (-1: none) */
	const struct sandbox *as; /* become its user first, when it says so */
};

/* In the child: becomes the sandbox's unprivileged user. 0 or -1 (errno set). */
static int drop_privileges(const struct sandbox *sb)
{
	if (setgroups(0, NULL) < 0 || setresgid(sb->gid, sb->gid, sb->gid) < 0 ||
	    setresuid(sb->uid, sb->uid, sb->uid) < 0)
		return -1;
	/* a uid that could become root again is no drop at all */
	if (setuid(0) == 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* In the child, after fork: never returns. */
static _Noreturn void exec_child(const struct run_spec *s, const struct exec_extra *x,
				 const char *cgroup, int in_fd, int out_fd, int err_pipe)
{
	if (cgroup && pidcg_enter(cgroup))
		goto fail;
	for (int i = 0; i < 2; i++)
		if (x->keep[i] >= 0 && fcntl(x->keep[i], F_SETFD, 0) < 0)
			goto fail;
	if (x->as && x->as->drop && drop_privileges(x->as))
		goto fail;
	setsid();
	dup2(in_fd, STDIN_FILENO);
	dup2(out_fd, STDOUT_FILENO);
	dup2(out_fd, STDERR_FILENO);
	signal(SIGPIPE, SIG_DFL);
	struct rlimit no_core = {0, 0};
	setrlimit(RLIMIT_CORE, &no_core);
	set_limit(RLIMIT_CPU, s->cpu_seconds);
	set_limit(RLIMIT_FSIZE, s->max_file_bytes);
	set_limit(RLIMIT_NOFILE, s->max_open_files);
	/* not the address space (RLIMIT_AS): CUDA reserves far more than it uses */
	set_limit(RLIMIT_DATA, s->max_memory);
	if (s->cwd && chdir(s->cwd) < 0)
		goto fail;
	/* any of the cgroup's CPUs, which takes no privilege */
	if (s->cpus && sched_setaffinity(0, sizeof(*s->cpus), s->cpus) < 0)
		goto fail;
	if (s->envp)
		execvpe(s->argv[0], (char *const *)s->argv, (char *const *)s->envp);
	else
		execvp(s->argv[0], (char *const *)s->argv);
fail:;
	int err = errno;
	if (write(err_pipe, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

static int start_exec(const struct run_spec *s, const struct exec_extra *x, struct child *c,
		      struct run_result *r)
{
	int out[2], in[2], errp[2], err = 0;
	ssize_t n;

	if (pipe2(out, O_CLOEXEC) < 0)
		return error("pipe: %s", strerror(errno));
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		return error("pipe: %s", strerror(errno));
	}
	if (s->max_processes)
		c->cgroup = pidcg_create(s->max_processes);
	c->start = now_seconds();
	c->pid = fork();
	if (c->pid < 0) {
		error("fork: %s", strerror(errno));
		pidcg_destroy(c->cgroup);
		c->cgroup = NULL;
		close(out[0]), close(out[1]), close(in[0]), close(in[1]), close(errp[0]), close(errp[1]);
		return -1;
	}
	if (c->pid == 0) {
		close(out[0]);
		close(in[1]);
		close(errp[0]);
		exec_child(s, x, c->cgroup, in[0], out[1], errp[1]);
	}
	close(out[1]);
	close(in[0]);
	close(errp[1]);

	/* exec failed: the child wrote errno before exiting */
	n = read(errp[0], &err, sizeof(err));
	close(errp[0]);
	if (n == sizeof(err)) {
		waitpid(c->pid, NULL, 0);
		close(out[0]);
		close(in[1]);
		r->started = false;
		r->output = xasprintf("cannot run '%s': %s", s->argv[0], strerror(err));
		r->output_len = strlen(r->output);
		c->pid = 0;
		pidcg_destroy(c->cgroup);
		c->cgroup = NULL;
		return 0;
	}
	r->started = true;

	/* Inputs are a few lines: they fit the pipe buffer, so this never blocks. */
	if (s->input && write(in[1], s->input, strlen(s->input)) < 0 && errno != EPIPE)
		warning("cannot write the input of '%s': %s", s->argv[0], strerror(errno));
	close(in[1]);

	c->out_fd = out[0];
	fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
	c->pid_fd = pidfd_open_compat(c->pid);
	if (c->pid_fd >= 0)
		fcntl(c->pid_fd, F_SETFD, FD_CLOEXEC);
	c->deadline = s->timeout > 0 ? c->start + s->timeout : 0;
	c->limit = s->output_limit ? s->output_limit : DEFAULT_OUTPUT_LIMIT;
	return 0;
}

/* A new descriptor (close-on-exec, at 3 or above) holding bubblewrap's arguments. */
static int args_fd(const struct strlist *args)
{
	int fd = memfd_create("cudalab-bwrap-args", MFD_CLOEXEC);
	struct strbuf sb = STRBUF_INIT;

	if (fd < 0)
		return error("memfd_create: %s", strerror(errno));
	for (size_t i = 0; i < args->n; i++)
		strbuf_add(&sb, args->v[i], strlen(args->v[i]) + 1);
	if (write(fd, sb.buf, sb.len) != (ssize_t)sb.len || lseek(fd, 0, SEEK_SET) < 0) {
		error("cannot write bubblewrap's arguments: %s", strerror(errno));
		close(fd);
		fd = -1;
	}
	strbuf_release(&sb);
	return fd;
}

/*
 * Starts s's program, in its sandbox when it has one that works: bubblewrap
 * gets its options on a descriptor ("--args FD"), so its command line, the
 * sandbox's /proc/1/cmdline that the program can read, names none of the
 * folders it binds; the system-call filter comes on another.
 */
static int start_child(const struct run_spec *s, struct child *c, struct run_result *r)
{
	struct exec_extra x = {{-1, -1}, NULL};
	struct strlist args = STRLIST_INIT, argv = STRLIST_INIT;
	struct run_spec in_sandbox;
	char fdnum[16];
	int ret = -1;

	/* unsandboxed: still never root, where the grader is */
	if (!s->sandbox || !s->sandbox->bwrap || !s->cwd) {
		x.as = s->sandbox;
		return start_exec(s, &x, c, r);
	}
	x.keep[0] = seccomp_filter_fd();
	if (x.keep[0] < 0)
		goto out;
	sandbox_args(s->sandbox, s->cwd, s->writable, x.keep[0], &args);
	x.keep[1] = args_fd(&args);
	if (x.keep[1] < 0)
		goto out;
	x.as = s->sandbox;
	snprintf(fdnum, sizeof(fdnum), "%d", x.keep[1]);
	strlist_push(&argv, s->sandbox->bwrap);
	strlist_push(&argv, "--args");
	strlist_push(&argv, fdnum);
	strlist_push(&argv, "--");
	for (const char *const *a = s->argv; *a; a++)
		strlist_push(&argv, *a);
	in_sandbox = *s;
	in_sandbox.argv = (const char *const *)argv.v;
	ret = start_exec(&in_sandbox, &x, c, r);
out:
	for (int i = 0; i < 2; i++)
		if (x.keep[i] >= 0)
			close(x.keep[i]);
	strlist_clear(&args);
	strlist_clear(&argv);
	return ret;
}

static void drain(struct child *c, struct run_result *r)
{
	char buf[16384];
	ssize_t n;

	while ((n = read(c->out_fd, buf, sizeof(buf))) > 0) {
		size_t keep = c->out.len < c->limit ? c->limit - c->out.len : 0;
		if (keep > (size_t)n)
			keep = n;
		strbuf_add(&c->out, buf, keep);
		r->output_dropped += n - keep;
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close(c->out_fd);
		c->out_fd = -1;
	}
}

static void check_exit(struct child *c, struct run_result *r)
{
	struct rusage ru;
	int st;
	pid_t p = wait4(c->pid, &st, WNOHANG, &ru);

	if (p != c->pid)
		return;
	c->exited = true;
	r->seconds = now_seconds() - c->start;
	r->cpu_seconds = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
			 ru.ru_stime.tv_usec / 1e6;
	if (WIFEXITED(st))
		r->exit_code = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		r->signal = WTERMSIG(st);
	/* nothing it started may outlive it, nor hold its output pipe open */
	reap_session(c->pid);
	pidcg_destroy(c->cgroup);
	c->cgroup = NULL;
	c->drain_deadline = now_seconds() + OUTPUT_GRACE;
}

int run_many(const struct run_spec *specs, struct run_result *results, size_t n)
{
	struct child *c = xcalloc(n, sizeof(*c));
	struct pollfd *pfd = xcalloc(2 * n, sizeof(*pfd));
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		memset(&results[i], 0, sizeof(results[i]));
		c[i].out_fd = c[i].pid_fd = -1;
		if (start_child(&specs[i], &c[i], &results[i]) < 0) {
			ret = -1;
			c[i].pid = 0;
		}
		if (!c[i].pid)
			c[i].exited = true;
	}

	for (;;) {
		double now = now_seconds(), wait = -1;
		size_t np = 0;
		bool busy = false;

		for (size_t i = 0; i < n; i++) {
			bool cancel = stop_signal || (specs[i].cancel &&
				      __atomic_load_n(specs[i].cancel, __ATOMIC_RELAXED));
			if (!c[i].exited && cancel && !results[i].timed_out)
				results[i].cancelled = true;
			if (!c[i].exited && (results[i].cancelled ||
					     (c[i].deadline && now >= c[i].deadline))) {
				results[i].timed_out |= !results[i].cancelled;
				kill_session(c[i].pid);
				if (c[i].cgroup)
					pidcg_kill(c[i].cgroup);
			}
			if (c[i].exited && c[i].out_fd >= 0 && now >= c[i].drain_deadline) {
				close(c[i].out_fd);
				c[i].out_fd = -1;
				strbuf_addstr(&c[i].out, "\n[output closed: a process that left the "
					      "child's session still held it open]\n");
			}
			if (c[i].exited && c[i].out_fd < 0)
				continue;
			busy = true;
			if (c[i].out_fd >= 0)
				pfd[np++] = (struct pollfd){c[i].out_fd, POLLIN, 0};
			if (!c[i].exited && c[i].pid_fd >= 0)
				pfd[np++] = (struct pollfd){c[i].pid_fd, POLLIN, 0};
			double left = c[i].deadline ? c[i].deadline - now : -1;
			/* without a pidfd, or when the output closed first, look again soon */
			if (!c[i].exited && (c[i].pid_fd < 0 || c[i].out_fd < 0))
				left = left < 0 || left > 0.01 ? 0.01 : left;
			/* a program that may be cancelled: look at the flag now and then */
			if (!c[i].exited && specs[i].cancel)
				left = left < 0 || left > 0.05 ? 0.05 : left;
			if (c[i].exited)
				left = c[i].drain_deadline - now;
			if (left >= 0 && (wait < 0 || left < wait))
				wait = left;
		}
		if (!busy)
			break;
		if (poll(pfd, np, wait < 0 ? -1 : (int)(wait * 1000) + 1) < 0 && errno != EINTR) {
			ret = error("poll: %s", strerror(errno));
			break;
		}
		for (size_t i = 0; i < n; i++) {
			if (c[i].out_fd >= 0)
				drain(&c[i], &results[i]);
			if (!c[i].exited)
				check_exit(&c[i], &results[i]);
			/* a grandchild that kept the pipe open is gone now: read what is left */
			if (c[i].exited && c[i].out_fd >= 0)
				drain(&c[i], &results[i]);
		}
	}

	if (stop_signal && !ret)
		ret = error("stopped by signal %d (%s): what was running is ended, and nothing of "
			    "it counts", (int)stop_signal, strsignal(stop_signal));
	for (size_t i = 0; i < n; i++) {
		if (c[i].pid_fd >= 0)
			close(c[i].pid_fd);
		if (c[i].out_fd >= 0)
			close(c[i].out_fd);
		if (results[i].started) {
			results[i].output_len = c[i].out.len;
			results[i].output = strbuf_detach(&c[i].out);
		}
	}
	free(c);
	free(pfd);
	return ret;
}

int run_one(const struct run_spec *spec, struct run_result *result)
{
	return run_many(spec, result, 1);
}

void run_result_release(struct run_result *r)
{
	free(r->output);
	memset(r, 0, sizeof(*r));
}

char *run_describe(const struct run_spec *spec, const struct run_result *r)
{
	if (!r->started)
		return xstrdup(r->output ? r->output : "could not be started");
	if (r->timed_out)
		return xasprintf("timed out after %g s", spec->timeout);
	if (r->signal)
		return xasprintf("killed by signal %d (%s)", r->signal, strsignal(r->signal));
	return xasprintf("exited with %d", r->exit_code);
}

bool run_ended_by_limit(const struct run_spec *spec, const struct run_result *r)
{
	if (r->timed_out || r->cancelled)
		return true;
	switch (r->signal) {
	case SIGXCPU:
		return spec->cpu_seconds > 0;
	case SIGKILL:   /* at a CPU limit whose soft and hard values are one */
		return spec->cpu_seconds > 0 && r->cpu_seconds + 1 >= spec->cpu_seconds;
	case SIGXFSZ:
		return spec->max_file_bytes > 0;
	}
	return false;
}
