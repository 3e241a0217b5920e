/*
 * timing.h - the timing step: which kernels are timed, running the lab's
 * timing driver, reading what it measured, and the points of a ratio.
 */
#ifndef TIMING_H
#define TIMING_H

#include "config.h"
#include "devcache.h"
#include "result.h"

#include <jansson.h>
#include <sched.h>

struct sandbox;

/*
 * Points of a kernel that took ratio times the reference's time: all of
 * t->points up to t->full_ratio, none from t->zero_ratio on, a straight line
 * between (rounded to hundredths).
 */
double timing_points(const struct lab_timing *t, double ratio);

/*
 * Marks the timed kernels that cannot run, and says why: their part failed
 * a correctness test (0 points, a final verdict), or the run is not on a GPU
 * (not run). Returns how many are left to time.
 */
size_t timing_plan(const struct lab_config *cfg, struct result *r);

/*
 * Reads the driver's JSON lines (text), keeping only lines with the token,
 * and scores what they report into r. Sets *device_ok when the driver found
 * its GPU and *ended when it reported the end of its run. Lines of kernels
 * not in pending are ignored; kernels it reports are removed from pending
 * (their test ids), but one the driver could not time for a machine too
 * busy ("busy"): it stays pending and unscored, and the first such says why
 * in *busy (NULL: not wanted), for the caller to fail as the machine's.
 */
/*
 * The drivers' line protocol (the timing driver's, and the profile driver's
 * too): the next line from *line on that is a JSON object with the run's
 * token and a string "type", which goes to *type (valid while the object
 * is). Other lines (the submission's own output, a forged line without the
 * token) are skipped. *line moves past it; NULL at the end. Its strings are
 * made visible_text (util.h): the driver runs the submission's code. The
 * caller json_decref()s the object.
 */
json_t *driver_next_line(const char **line, const char *token, const char **type);

void timing_read(const char *text, const char *token, const struct lab_config *cfg,
		 struct result *r, struct strlist *pending, bool *device_ok, bool *ended,
		 char **busy);

/*
 * The device's ceilings for this timing phase (devcache.h), into c: the
 * entry of the node's cache file (cache) that matches key; else measured by
 * the trusted driver (measure: build/labs/<lab>/timer with --device-only, which
 * starts no runner; NULL when not built) with env, and cached.
 * Sets r->timing's ceilings_from, ceilings_measured_at, ceilings_cache and
 * ceilings_cache_note. Returns 0, or -1 when there are none (cache NULL:
 * not to be cached, no_cache says why; or the trusted driver failed): the
 * timing driver then measures them itself.
 */
int timing_ceilings(const struct lab_config *cfg, const char *measure, const char *const *env,
		    const char *cache, const char *no_cache, const struct devcache_key *key,
		    struct result *r, struct device_ceilings *c);

/* What times a grading's kernels (labs/common/bench.h). */
struct timing_programs {
	const char *timer;       /* the lab's timer: trusted, run outside the sandbox */
	const char *runner;      /* the recipe of the submission's runner (sandboxed) */
	const char *reference;   /* the recipe of the reference's runner */
	const char *folder;      /* the timer's: the judge's folder, out of the sandbox's reach */
	const cpu_set_t *cpus;   /* the timer's and its runners' CPUs (cpus.h); NULL: the grader's */
};

/*
 * Runs the timer on every kernel timing_plan left, in p->folder, with env,
 * filling r. A timer whose submission's runner dies or hangs costs only the
 * kernel it was timing, which is charged to the submission; the rest are
 * timed by a new timer. given (NULL: none) are the device's ceilings from
 * timing_ceilings, for the GPU r->gpu.uuid: the timer takes their copy
 * bandwidth and times no library, and r gets them; without, the timer
 * measures both (ceilings_from "measured"). -1 only for the grader's own
 * failures.
 */
int timing_run(const struct lab_config *cfg, const struct timing_programs *p,
	       const char *const *env, const struct device_ceilings *given, struct result *r);

/* Marks every timed kernel not yet timed as not run, with why (also r->timing.reason). */
void timing_not_run(struct result *r, const char *why);

#endif
