/*
 * pidcg.c - pids cgroups for the grader's children (see pidcg.h).
 *
 * Owns: finding where the grader may make cgroups, and their lifecycle. The
 * grader's own cgroup is read from /proc/self/cgroup: in cgroup v1 the
 * hierarchy that has the pids controller, in v2 the unified one, where the
 * pids controller must be on (or switchable on) for the grader's children.
 */
#include "pidcg.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool probed;
static char *base;             /* where the grader's children's cgroups go */
static const char *unavailable = "not probed";
static unsigned long serial;   /* atomic: the safety stage runs beside the tests */

static bool write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	if (fd >= 0)
		close(fd);
	return ok;
}

static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = text; p && (p = strstr(p, word)); p += n)
		if ((p == text || p[-1] == ' ' || p[-1] == ',' || p[-1] == ':') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == ','))
			return true;
	return false;
}

/* A cgroup made and removed at dir's place: the place works. */
static bool can_make_in(const char *dir)
{
	char *probe = xasprintf("%s/cudalab-probe-%d", dir, (int)getpid());
	bool ok = !mkdir(probe, 0755);
	if (ok) {
		char *max = xasprintf("%s/pids.max", probe);
		ok = access(max, W_OK) == 0;
		free(max);
		rmdir(probe);
	}
	free(probe);
	return ok;
}

static void probe(void)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096], *v1 = NULL, *v2 = NULL;

	probed = true;
	while (f && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		line[strcspn(line, "\n")] = '\0';
		*c2 = '\0';
		if (has_word(c1 + 1, "pids"))
			v1 = xasprintf("/sys/fs/cgroup/pids%s", c2 + 1);
		else if (!strcmp(line, "0") && c1[1] == '\0')
			v2 = xstrdup(c2 + 1);
	}
	if (f)
		fclose(f);
	if (v1 && can_make_in(v1)) {
		base = v1;
		v1 = NULL;
	} else if (v2) {
		static const char *const mounts[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
		for (size_t i = 0; i < 2 && !base; i++) {
			char *dir = xasprintf("%s%s", mounts[i], strcmp(v2, "/") ? v2 : "");
			char *ctl = xasprintf("%s/cgroup.subtree_control", dir);
			char *on = access(ctl, R_OK) ? NULL : read_file(ctl, NULL);
			if ((on && has_word(on, "pids")) || write_text(ctl, "+pids"))
				if (can_make_in(dir)) {
					base = dir;
					dir = NULL;
				}
			free(on);
			free(ctl);
			free(dir);
		}
	}
	free(v1);
	free(v2);
	if (base)
		unavailable = NULL;
	else if (geteuid() == 0)
		unavailable = "no pids cgroup: none of the grader's cgroups takes children with a "
			      "pids controller";
	else
		unavailable = "no pids cgroup: the grader does not run as root, and its cgroup "
			      "has no pids controller delegated to it";
}

bool pidcg_available(const char **why)
{
	if (!probed)
		probe();
	if (why)
		*why = unavailable;
	return base != NULL;
}

char *pidcg_create(unsigned long max)
{
	if (!pidcg_available(NULL))
		return NULL;
	char *dir = xasprintf("%s/cudalab-%d-%lu", base, (int)getpid(),
				 __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED));
	char *file = xasprintf("%s/pids.max", dir), num[32];
	snprintf(num, sizeof(num), "%lu", max);
	if (mkdir(dir, 0755) || !write_text(file, num)) {
		warning("cannot make the pids cgroup '%s': %s", dir, strerror(errno));
		rmdir(dir);
		free(dir);
		dir = NULL;
	}
	free(file);
	return dir;
}

int pidcg_enter(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, "0", 1);
	int err = errno;
	close(fd);
	errno = err;
	return n == 1 ? 0 : -1;
}

/* SIGKILLs every task in dir, and reaps those that were the grader's to reap. */
static int kill_tasks(const char *dir, bool reap)
{
	char *path = xasprintf("%s/cgroup.procs", dir), *text = read_file(path, NULL);
	int n = 0;

	for (char *p = text; p && *p;) {
		char *end;
		long pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid > 1 && pid != getpid() && !kill((pid_t)pid, SIGKILL)) {
			n++;
			if (reap)   /* an orphan reparented to the grader, the subreaper */
				waitpid((pid_t)pid, NULL, WNOHANG);
		}
		p = end;
	}
	free(text);
	free(path);
	return n;
}

int pidcg_kill(const char *dir)
{
	return kill_tasks(dir, false);
}

void pidcg_destroy(char *dir)
{
	if (!dir)
		return;
	for (int round = 0; round < 500 && rmdir(dir) && errno == EBUSY; round++) {
		kill_tasks(dir, true);
		usleep(2000);
	}
	free(dir);
}
