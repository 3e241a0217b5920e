/*
 * gpulock.c - flock(2) locks that share a GPU among gradings (gpulock.h).
 *
 * A readers-writer lock with a turnstile: a timing phase (the writer) takes
 * the turnstile, then the GPU's lock exclusively; tests (readers) pass
 * through the turnstile before taking the lock shared, so once a timing
 * phase waits, no new tests start ahead of it.
 */
#include "gpulock.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

char *gpulock_gpu_name(void)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	if (!visible)
		return xstrdup("0");
	return xasprintf("%.*s", (int)strcspn(visible, ","), visible);
}

/* $CUDALAB_LOCK_DIR/cudalab-gpu-<gpu>.<what>, opened; -1 when it cannot be. */
static int open_lock(const char *gpu, const char *what)
{
	const char *dir = getenv("CUDALAB_LOCK_DIR");
	char *name = xasprintf("%s/cudalab-gpu-%s.%s", dir && *dir ? dir : "/tmp", gpu, what);
	/* a UUID or MIG name may hold '/': keep the file in the folder */
	for (char *p = name + strlen(name) - strlen(gpu) - strlen(what) - 1; *p; p++)
		if (*p == '/')
			*p = '_';
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
		if (errno != EINTR) {
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

int gpulock_slot(const char *gpu, unsigned slots)
{
	char what[32];
	bool any = false;

	if (!slots)
		slots = 1;
	for (;;) {
		for (unsigned i = 0; i < slots; i++) {
			snprintf(what, sizeof(what), "slot%u", i);
			int fd = open_lock(gpu, what);
			if (fd < 0)
				continue;
			any = true;
			if (!flock(fd, LOCK_EX | LOCK_NB))
				return fd;
			close(fd);
		}
		if (!any)   /* no lock file can be opened: no locking (warned) */
			return -1;
		struct timespec ts = {0, (long)(SLOT_POLL * 1e9)};
		nanosleep(&ts, NULL);
	}
}

int gpulock_tests(const char *gpu, double *waited)
{
	int turn = lock(open_lock(gpu, "turnstile"), LOCK_EX, waited);
	if (turn >= 0)
		close(turn);
	return lock(open_lock(gpu, "lock"), LOCK_SH, waited);
}

int gpulock_timing(const char *gpu, double *waited)
{
	int turn = lock(open_lock(gpu, "turnstile"), LOCK_EX, waited);
	int fd = lock(open_lock(gpu, "lock"), LOCK_EX, waited);
	if (turn >= 0)
		close(turn);
	return fd;
}

void gpulock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
