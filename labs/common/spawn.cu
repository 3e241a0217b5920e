/*
 * spawn.cu - the start of a runner (spawn.h). Host code only: built into
 * the judge (g++, no CUDA runtime) and into the timer (nvcc).
 */
#include "spawn.h"
#include "remote.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

int cl_recipe_read(const char *path, struct cl_recipe *r)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0, len = 0;
	char *text = NULL;
	int argc = 0;

	memset(r, 0, sizeof(*r));
	if (!f)
		return -1;
	for (;;) {
		if (len + 4096 > cap && !(text = (char *)realloc(text, cap += 65536)))
			abort();
		size_t n = fread(text + len, 1, cap - len - 1, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	text[len] = '\0';
	r->text = text;
	for (size_t at = 0; at < len;) {
		const char *w = text + at;
		at += strlen(w) + 1;
		if (argc) {
			if (argc == CL_RECIPE_WORDS)
				return -1;
			r->argv[argc++ - 1] = w;
		} else if (!strcmp(w, "argv")) {
			argc = 1;
		} else if (!strcmp(w, "user") && at < len) {
			r->uid = (uid_t)strtoul(text + at, NULL, 10);
			at += strlen(text + at) + 1;
			if (at >= len)
				return -1;
			r->gid = (gid_t)strtoul(text + at, NULL, 10);
			at += strlen(text + at) + 1;
			r->drop = true;
		} else if (!strcmp(w, "cwd") && at < len) {
			r->cwd = text + at;
			at += strlen(text + at) + 1;
		} else if (!strcmp(w, "fd") && at < len && r->nfds < CL_RECIPE_FDS) {
			r->fd[r->nfds] = atoi(text + at);
			at += strlen(text + at) + 1;
			if (at >= len || r->fd[r->nfds] <= CL_RUNNER_FD)
				return -1;
			r->fd_path[r->nfds++] = text + at;
			at += strlen(text + at) + 1;
		} else {
			return -1;
		}
	}
	return argc > 1 ? 0 : -1;
}

/* In the child: becomes the runner; never returns. */
static void exec_runner(const struct cl_recipe *r, int sock)
{
	int null = open("/dev/null", O_RDONLY);

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0)
		_exit(127);
	/* the socket at CL_RUNNER_FD, then the recipe's files at their numbers
	 * (all above CL_RUNNER_FD): nothing else */
	if (sock != CL_RUNNER_FD) {
		if (dup2(sock, CL_RUNNER_FD) < 0)
			_exit(127);
	} else if (fcntl(sock, F_SETFD, 0) < 0) {
		_exit(127);
	}
	/* nothing else of the caller's: not its logs, not its input */
	if (close_range(CL_RUNNER_FD + 1, ~0U, 0) < 0)
		for (int fd = CL_RUNNER_FD + 1; fd < 65536; fd++)
			close(fd);
	for (int i = 0; i < r->nfds; i++) {
		int fd = open(r->fd_path[i], O_RDONLY);
		if (fd < 0 || (fd != r->fd[i] && dup2(fd, r->fd[i]) < 0))
			_exit(127);
		if (fd != r->fd[i])
			close(fd);
	}
	if (r->drop && (setgroups(0, NULL) < 0 || setresgid(r->gid, r->gid, r->gid) < 0 ||
			setresuid(r->uid, r->uid, r->uid) < 0 || !setuid(0)))
		_exit(127);
	if (r->cwd && chdir(r->cwd) < 0)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	execvp(r->argv[0], (char *const *)r->argv);
	fprintf(stderr, "cannot run '%s': %s\n", r->argv[0], strerror(errno));
	_exit(127);
}

pid_t cl_spawn(const struct cl_recipe *r, int *fd)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		exec_runner(r, sv[1]);
	}
	close(sv[1]);
	*fd = sv[0];
	return pid;
}

bool cl_hello_send(int fd)
{
	struct cl_header h = {CL_OP_HELLO, 0, 0};

	return cl_io_all(fd, &h, sizeof(h), true);
}

bool cl_hello_answered(int fd)
{
	struct cl_header h;

	return cl_io_all(fd, &h, sizeof(h), false) && h.len == 0;
}

bool cl_hello(int fd)
{
	return cl_hello_send(fd) && cl_hello_answered(fd);
}
