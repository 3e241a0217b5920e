/*
 * cpus.c - the CPUs a timing phase keeps to itself (cpus.h).
 */
#include "cpus.h"
#include "gpus.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cpus_split(const cpu_set_t *usable, unsigned ngpus, unsigned gpu, cpu_set_t *timing,
		cpu_set_t *others)
{
	unsigned n = (unsigned)CPU_COUNT(usable), reserved = ngpus * CPUS_PER_TIMING, seen = 0;

	CPU_ZERO(timing);
	CPU_ZERO(others);
	if (!ngpus || gpu >= ngpus || reserved > n / 2)
		return false;
	/* from the last CPU down: GPU 0's three, then GPU 1's, ... */
	for (int c = CPU_SETSIZE - 1; c >= 0; c--) {
		if (!CPU_ISSET(c, usable))
			continue;
		if (seen >= reserved)
			CPU_SET(c, others);
		else if (seen / CPUS_PER_TIMING == gpu)
			CPU_SET(c, timing);
		seen++;
	}
	return true;
}

bool cpus_place(const struct strlist *gpus, const char *gpu, unsigned host_gpus, bool slurm,
		unsigned *n, unsigned *index)
{
	bool listed = false;

	for (size_t i = 0; i < gpus->n && !listed; i++)
		if (!strcmp(gpus->v[i], gpu)) {
			listed = true;
			*n = (unsigned)gpus->n;
			*index = (unsigned)i;
		}
	if (!listed)
		return false;
	char *end;
	unsigned long k = strtoul(gpu, &end, 10);
	if (!slurm && *gpu >= '0' && *gpu <= '9' && !*end && k < host_gpus) {
		*n = host_gpus;
		*index = (unsigned)k;
	}
	return true;
}

bool cpus_for_grading(const char *gpu, cpu_set_t *timing, cpu_set_t *others)
{
	static cpu_set_t usable;
	static int known = -1;   /* -1: not read yet */
	struct strlist gpus = STRLIST_INIT;
	const char *job = getenv("SLURM_JOB_ID");
	char why[128];
	unsigned n, index;
	bool split = false;

	if (known < 0)
		known = !sched_getaffinity(0, sizeof(usable), &usable) && CPU_COUNT(&usable) > 0;
	if (known && gpu && gpus_discover(&gpus, why, sizeof(why)) &&
	    cpus_place(&gpus, gpu, gpus_on_host(), job && *job, &n, &index))
		split = cpus_split(&usable, n, index, timing, others);
	strlist_clear(&gpus);
	return split;
}

void cpus_text(const cpu_set_t *set, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && at < len; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int last = c;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		at += (size_t)snprintf(buf + at, len - at, last == c ? "%s%d" : "%s%d-%d",
				       at ? "," : "", c, last);
		c = last;
	}
}
