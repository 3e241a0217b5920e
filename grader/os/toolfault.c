/*
 * toolfault.c - whether a failed compiler or linker run is the machine's
 * failure (toolfault.h).
 *
 * Owns: reading a compiler driver's words for a tool that died by a
 * signal, and the room left on the filesystems a build writes to. Must
 * not: decide a student's verdict (build.c does, from what this says), or
 * run anything.
 */
#include "toolfault.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

/* The signal whose strsignal() text is the n bytes at s; 0 for none. */
static int signal_named(const char *s, size_t n)
{
	for (int sig = 1; sig < NSIG; sig++) {
		const char *name = strsignal(sig);
		if (name && strlen(name) == n && !strncmp(name, s, n))
			return sig;
	}
	return 0;
}

/* The signal a line of a compiler driver says a tool died of; 0 for none. */
static int line_signal(const char *l, size_t n)
{
	char line[512];
	const char *at;
	int sig;

	if (!n || l[0] == ' ' || l[0] == '\t' || n >= sizeof(line))
		return 0;
	memcpy(line, l, n);
	line[n] = '\0';
	/* nvcc error   : 'cicc' died due to signal 11 (Invalid memory reference) */
	if (!strncmp(line, "nvcc error", 10) && (at = strstr(line, " died due to signal ")) &&
	    sscanf(at + 20, "%d", &sig) == 1 && sig > 0 && sig < NSIG)
		return sig;
	/* gcc: internal compiler error: Segmentation fault signal terminated program cc1plus,
	 * the driver's name first (no blank, no parenthesis: not a place in a source) */
	const char *ice = strstr(line, ": internal compiler error: ");
	const char *end = strstr(line, " signal terminated program ");
	if (ice && end && end > ice && !memchr(line, ' ', ice - line) &&
	    !memchr(line, '(', ice - line)) {
		const char *what = ice + strlen(": internal compiler error: ");
		return signal_named(what, end - what);
	}
	return 0;
}

int toolfault_signal(const char *output)
{
	for (const char *l = output; l && *l;) {
		size_t n = strcspn(l, "\n");
		int sig = line_signal(l, n);
		if (sig)
			return sig;
		l += n + (l[n] == '\n');
	}
	return 0;
}

bool toolfault_short_of_room(const char *path, unsigned long long room,
			     unsigned long long *free_bytes)
{
	struct statvfs st;

	if (statvfs(path, &st))
		return false;
	*free_bytes = (unsigned long long)st.f_bavail * st.f_frsize;
	return *free_bytes < room || (st.f_files && !st.f_favail);
}

/* Whether a tool's output says a write failed for want of room (in the C locale's words or this one's). */
static bool said_no_room(const char *output)
{
	const char *words[] = {"No space left on device", "Disk quota exceeded", strerror(ENOSPC),
			       strerror(EDQUOT)};

	for (size_t i = 0; output && i < ARRAY_SIZE(words); i++)
		if (strstr(output, words[i]))
			return true;
	return false;
}

char *toolfault_why(const struct run_spec *spec, const struct run_result *res, const char *workdir)
{
	const char *tmp = getenv("TMPDIR");
	const char *where[] = {workdir, tmp && *tmp ? tmp : "/tmp"};
	struct run_result tool = *res;
	unsigned long long left;

	if (res->signal && !run_ended_by_limit(spec, res))
		return xasprintf("it was killed by signal %d (%s), which no limit of the grader's "
				 "sent", res->signal, strsignal(res->signal));
	tool.signal = toolfault_signal(res->output);
	tool.timed_out = tool.cancelled = false;
	if (tool.signal && !res->timed_out && !res->cancelled && !run_ended_by_limit(spec, &tool))
		return xasprintf("one of its tools died of signal %d (%s), which no limit of the "
				 "grader's sent: the compiler crashed, or was killed",
				 tool.signal, strsignal(tool.signal));
	for (size_t i = 0; i < ARRAY_SIZE(where); i++)
		if (where[i] && (toolfault_short_of_room(where[i], TOOLFAULT_FULL, &left) ||
				 (said_no_room(res->output) &&
				  toolfault_short_of_room(where[i], TOOLFAULT_ROOM, &left))))
			return xasprintf("no room left to write on the filesystem of '%s' (%llu KiB "
					 "free)", where[i], left >> 10);
	return NULL;
}
