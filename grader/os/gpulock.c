/*
 * gpulock.c - flock(2) locks that share a GPU among gradings (gpulock.h).
 *
 * A readers-writer lock with a turnstile: a timing phase (the writer) takes
 * the turnstile, then the GPU's lock exclusively; tests (readers) pass
 * through the turnstile before taking the lock shared, so once a timing
 * phase waits, no new tests start ahead of it.
 */
#include "gpulock.h"

#include "run.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

char *gpulock_gpu_name(void)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	if (!visible)
		return xstrdup("0");
	return xasprintf("%.*s", (int)strcspn(visible, ","), visible);
}

/* The i-th entry (from 0) of a comma list whose entries may be ranges ("0,2-3"); NULL. */
static char *list_entry(const char *list, size_t i)
{
	for (const char *s = list, *e; s && *s; s = *e ? e + 1 : NULL) {
		size_t n = strcspn(s, ",");
		unsigned long a, b;
		int used = 0;
		e = s + n;
		if (sscanf(s, "%lu-%lu%n", &a, &b, &used) == 2 && (size_t)used == n && a <= b) {
			if (i <= b - a)
				return xasprintf("%lu", a + i);
			i -= b - a + 1;
		} else if (n && !i--) {
			return xstrndup(s, n);
		}
	}
	return NULL;
}

/* Where gpu is in CUDA_VISIBLE_DEVICES's list, from 0; -1 when it is not there. */
static long visible_position(const char *gpu)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	long pos = 0;

	for (const char *s = visible; s && *s; pos++) {
		size_t n = strcspn(s, ",");
		if (n == strlen(gpu) && !strncmp(s, gpu, n))
			return pos;
		s += n + (s[n] == ',');
	}
	return -1;
}

char *gpulock_key(const char *uuid, const char *gpu)
{
	const char *job = getenv("SLURM_JOB_ID");

	if (uuid && *uuid)
		return xstrdup(uuid);
	if (job && *job) {
		/* Slurm's own numbers of the node's GPUs, in the order of the job's
		 * CUDA_VISIBLE_DEVICES (every job's first GPU is its 0) */
		const char *step = getenv("SLURM_STEP_GPUS"), *all = getenv("SLURM_JOB_GPUS");
		const char *list = step && *step ? step : all;
		long pos = visible_position(gpu);
		char *index = list && pos >= 0 ? list_entry(list, (size_t)pos) : NULL;
		if (index) {
			char host[256] = "";
			gethostname(host, sizeof(host) - 1);
			char *key = xasprintf("%s-gpu%s", *host ? host : "localhost", index);
			free(index);
			return key;
		}
	}
	return xstrdup(*gpu ? gpu : "none");
}

const char *gpulock_dir(void)
{
	const char *dir = getenv("CUDALAB_LOCK_DIR");
	return dir && *dir ? dir : "/tmp";
}

char *gpulock_path(const char *key, const char *what)
{
	char *name = xasprintf("%s/cudalab-gpu-%s.%s", gpulock_dir(), key, what);
	/* a MIG name or a host name may hold '/': keep the file in the folder */
	for (char *p = name + strlen(name) - strlen(key) - strlen(what) - 1; *p; p++)
		if (*p == '/')
			*p = '_';
	return name;
}

/* The lock file of key, opened; -1 when it cannot be. */
static int open_lock(const char *key, const char *what)
{
	char *name = gpulock_path(key, what);
	/* read-only is enough for flock, so any user can share a file root made */
	int fd = open(name, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		warning("cannot open the GPU lock '%s' (%s): gradings may share the GPU", name,
			strerror(errno));
	free(name);
	return fd;
}

static int lock(int fd, int how, double *waited)
{
	double t0 = now_seconds();
	while (fd >= 0 && flock(fd, how) < 0) {
		/* a stop (run_stop_on) is not kept waiting for the GPU: nothing runs after it */
		if (errno != EINTR || run_stopped()) {
			close(fd);
			return -1;
		}
	}
	if (waited)
		*waited += now_seconds() - t0;
	return fd;
}

/*
 * The first slot that is free, asked again every SLOT_POLL seconds: waiting
 * on one slot would leave a grading behind a submission that hangs there
 * while the other slots free up.
 */
#define SLOT_POLL 0.05

int gpulock_slot(const char *key, unsigned slots, double *waited)
{
	char what[32];
	bool any = false;
	double t0 = now_seconds();
	int got = -1;

	if (!slots)
		slots = 1;
	for (;;) {
		for (unsigned i = 0; got < 0 && i < slots; i++) {
			snprintf(what, sizeof(what), "slot%u", i);
			int fd = open_lock(key, what);
			if (fd < 0)
				continue;
			any = true;
			if (!flock(fd, LOCK_EX | LOCK_NB))
				got = fd;
			else
				close(fd);
		}
		if (got >= 0 || !any || run_stopped())   /* none can be opened (warned), or a stop */
			break;
		struct timespec ts = {0, (long)(SLOT_POLL * 1e9)};
		nanosleep(&ts, NULL);
	}
	if (waited)
		*waited += now_seconds() - t0;
	return got;
}

int gpulock_tests(const char *key, double *waited)
{
	int turn = lock(open_lock(key, "turnstile"), LOCK_EX, waited);
	if (turn >= 0)
		close(turn);
	return lock(open_lock(key, "lock"), LOCK_SH, waited);
}

int gpulock_timing(const char *key, double *waited)
{
	int turn = lock(open_lock(key, "turnstile"), LOCK_EX, waited);
	int fd = lock(open_lock(key, "lock"), LOCK_EX, waited);
	if (turn >= 0)
		close(turn);
	return fd;
}

void gpulock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}

/*
 * From /proc/locks, whose lines read "1: FLOCK  ADVISORY  WRITE 4242
 * 00:1f:1234 0 EOF", and "1: -> FLOCK ..." for a process blocked on it.
 */
int gpulock_state(const char *key, const char *what, struct gpulock_state *st)
{
	char *path = gpulock_path(key, what), *text = NULL;
	struct stat sb;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	if (stat(path, &sb))   /* no file: never used, free */
		goto out;
	bool quiet = report_quiet;
	report_quiet = true;
	text = access("/proc/locks", R_OK) ? NULL : read_file("/proc/locks", NULL);
	report_quiet = quiet;
	if (!text) {
		ret = -1;
		goto out;
	}
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char mode[16];
		unsigned maj, min;
		unsigned long long ino;
		long pid;
		int n = 0;
		sscanf(l, "%*d: %n", &n);
		const char *p = l + n;
		bool blocked = !strncmp(p, "-> ", 3);
		if (!n || sscanf(p + (blocked ? 3 : 0), "FLOCK %*s %15s %ld %x:%x:%llu", mode, &pid,
				 &maj, &min, &ino) != 5 ||
		    maj != major(sb.st_dev) || min != minor(sb.st_dev) || ino != sb.st_ino)
			continue;
		if (blocked)
			st->waiting++;
		else if (!strcmp(mode, "WRITE"))
			st->exclusive = pid > 0 ? pid : -1;
		else
			st->shared++;
	}
out:
	free(text);
	free(path);
	return ret;
}
