/*
 * timing.c - the timing step (docs/DESIGN.md): after the correctness tests, on a
 * GPU, the lab's timer (labs/<lab>/tests/bench_<lab>.cu on the engine in
 * labs/common/bench.cu) times each kernel lab.conf lists against the
 * reference: trusted, outside the sandbox, with the submission's launchers
 * in the runner its tests used (sandboxed) and the reference's in a runner
 * of its own. This file decides what to time, runs the timer through
 * run.c, reads its JSON lines and scores each ratio.
 *
 * The device's ceilings (its copy bandwidth, the lab's library times) come
 * from the node's cache where grade.c allows it (devcache.h), else from a
 * run of the timer with --device-only (no runner started), which is what
 * the cache is written from: never from a timing run, where the
 * submission's code runs beside it.
 *
 * Must not: measure anything itself.
 */
#include "timing.h"

#include "grading.h"
#include "run.h"
#include "../../labs/common/harness-words.h"   /* CL_UNANSWERED: the timer's words */

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


double timing_points(const struct lab_timing *t, double ratio)
{
	if (!(ratio > 0) || ratio >= t->zero_ratio)
		return 0;
	if (ratio <= t->full_ratio)
		return t->points;
	double p = t->points * (t->zero_ratio - ratio) / (t->zero_ratio - t->full_ratio);
	return round(p * 100) / 100;
}

static const struct lab_timing *timing_of(const struct lab_config *cfg,
					  const struct graded_test *t)
{
	for (size_t i = 0; i < cfg->ntimings; i++)
		if (!strcmp(cfg->timings[i].part, t->part) && !strcmp(cfg->timings[i].test, t->name))
			return &cfg->timings[i];
	return NULL;
}

void timing_not_run(struct result *r, const char *why)
{
	for (size_t i = 0; i < r->ntests; i++) {
		struct graded_test *t = &r->tests[i];
		if (t->kind == KIND_TIMING && t->status == TEST_NOT_RUN && !t->message)
			t->message = xasprintf("not run: %s", why);
	}
	if (!r->timing.reason)
		r->timing.reason = xstrdup(why);
}

size_t timing_plan(const struct lab_config *cfg, struct result *r)
{
	size_t left = 0;

	for (size_t i = 0; i < r->ntests; i++) {
		struct graded_test *t = &r->tests[i];
		if (t->kind != KIND_TIMING || t->status != TEST_NOT_RUN)
			continue;
		/* on a GPU, a part times only once it passed every test; without
		 * one, a part that failed a test is as it would be on one: not
		 * timed, and nothing of it pending a GPU run */
		bool gpu = r->mode == MODE_GPU;
		if (gpu ? !result_part_passed(r, t->part) : result_part_failed(r, t->part)) {
			t->points = 0;
			result_set_verdict(t, TEST_FAIL,
				    xasprintf("not timed: part %s must pass all its correctness tests "
					      "first", t->part));
			continue;
		}
		left += gpu;
	}
	if (r->mode == MODE_EMULATED)
		timing_not_run(r, "timing needs a GPU; this run was emulated on the CPU");
	else if (r->mode == MODE_NONE)
		timing_not_run(r, "no GPU");
	(void)cfg;
	return left;
}

/* ---------------------------------------------------- the driver's lines */

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void read_side(json_t *o, double *ms, double *spread, double *gflops, double *gbs)
{
	*ms = num(o, "median_ms");
	*spread = num(o, "spread");
	*gflops = num(o, "gflops");
	*gbs = num(o, "gbs");
}

static char *rate_text(const struct timing_measure *m)
{
	char a[64], b[64];

	timing_rate(a, sizeof(a), m->student_gflops, m->student_gbs);
	timing_rate(b, sizeof(b), m->reference_gflops, m->reference_gbs);
	return xasprintf("%s %s (%.3f ms), %s %s (%.3f ms): ratio %.3f over %d pairs of timed calls",
			 m->subject ? m->subject : "yours", a, m->student_ms,
			 m->baseline ? m->baseline : "the reference's", b, m->reference_ms, m->ratio,
			 m->samples);
}

/* How far under the floor (or the reference's time) a time is flagged. */
#define FLAG_MARGIN 0.9

/*
 * Scores test t from its case line o. False, leaving t as it was, when the
 * timer says the machine was too busy to time it ("busy"): the machine's
 * failure, in *busy (NULL: not wanted) unless one was said already.
 */
static bool score_case(const struct lab_config *cfg, struct result *r, struct graded_test *t,
		       json_t *o, char **busy)
{
	const struct lab_timing *lt = timing_of(cfg, t);
	struct timing_measure *m = t->timing;
	const char *status = str(o, "status"), *msg = str(o, "message");
	json_t *clocks = json_object_get(o, "sm_clock_mhz");

	t->seconds = num(o, "seconds");
	if (!(t->seconds >= 0))
		t->seconds = -1;
	m->samples = (int)num(o, "samples");
	m->capped = json_is_true(json_object_get(o, "capped"));
	read_side(json_object_get(o, "student"), &m->student_ms, &m->student_spread,
		  &m->student_gflops, &m->student_gbs);
	read_side(json_object_get(o, "reference"), &m->reference_ms, &m->reference_spread,
		  &m->reference_gflops, &m->reference_gbs);
	free(m->subject);
	free(m->baseline);
	m->subject = str(o, "subject") ? xstrdup(str(o, "subject")) : NULL;
	m->baseline = str(o, "baseline") ? xstrdup(str(o, "baseline")) : NULL;
	m->ratio = num(o, "ratio");
	m->floor_ms = num(o, "floor_ms");
	m->sm_clock_mhz = json_is_array(clocks) && json_is_number(json_array_get(clocks, 1))
				  ? json_number_value(json_array_get(clocks, 1)) : NAN;
	t->points = 0;

	if (status && !strcmp(status, "busy")) {
		if (busy && !*busy)
			*busy = xasprintf("%s at size %d: %s", m->kernel, m->size,
					  msg && *msg ? msg : "the machine was busy");
		return false;
	}
	if (!status || strcmp(status, "ok")) {
		bool wrong = status && !strcmp(status, "wrong");
		bool disturbed = status && !strcmp(status, "disturbed");
		/* disturbed because a request between its calls went unanswered */
		bool unanswered = disturbed && msg &&
				  !strncmp(msg, CL_UNANSWERED, strlen(CL_UNANSWERED));
		bool late = status && !strcmp(status, "timeout");
		bool slow = status && !strcmp(status, "slow");
		result_set_verdict(t, wrong || disturbed || slow ? TEST_FAIL
				      : late ? TEST_TIMEOUT : TEST_CRASH,
			    xasprintf("%s\nhint: %s", msg && *msg ? msg : "the timer failed",
				      late || slow ? "a timed kernel is called some dozens of times at its "
					     "timing size, each call beside one of the reference's: "
					     "a call that takes seconds, or never returns, scores "
					     "nothing"
				      : wrong ? "the output of every timed call is checked: each call "
					      "must compute all of its output from the inputs it "
					      "gets, which change between calls (no results kept "
					      "from an earlier call, no work left running after it "
					      "returns)"
				      : unanswered ? "between timed calls the timer asks your program "
						     "for more (an empty call, or its memory), and it "
						     "must answer: a thread of yours that stops, blocks "
						     "or holds the program after a launcher returns "
						     "ends its timing there"
				      : disturbed ? "a launcher's work must be done when it returns: "
						    "no thread or stream of yours may keep the GPU "
						    "busy between timed calls"
					    : "a launcher that works once must keep working when "
					      "it is called again and again"));
		return true;
	}
	m->measured = m->samples > 0 && isfinite(m->ratio);
	if (!m->measured) {
		result_set_verdict(t, TEST_CRASH, xstrdup("the timer reported no usable times"));
		return true;
	}
	char *rates = rate_text(m);
	/*
	 * Flagged only well under the floor, and well under the reference's
	 * own time where that was under the floor too: a kernel of tens of
	 * microseconds sits beside a round trip ten times as long, and the
	 * reference, measured the same way, shows how far under the truth
	 * that can put a time.
	 */
	double below = FLAG_MARGIN * fmin(m->floor_ms, m->reference_ms);
	if (isfinite(m->floor_ms) && m->student_ms < below) {
		m->flagged = true;
		r->timing.flagged = true;
		result_set_verdict(t, TEST_FAIL,
			    xasprintf("%s\nflagged for review, not scored: %.3f ms is faster than "
				      "this GPU can do it at all (%.3f ms: the work at its peak "
				      "FP32 rate, or the data at 1.25 times its copy bandwidth; "
				      "flagged under %.3f ms)",
				      rates, m->student_ms, m->floor_ms, below));
		if (!r->state_reason)
			r->state_reason = xasprintf("the time of %s at size %d is below what the "
						    "GPU can physically do: flagged for review",
						    m->kernel, m->size);
		free(rates);
		return true;
	}
	t->points = timing_points(lt, m->ratio);
	if (t->points >= t->max_points) {
		result_set_verdict(t, TEST_PASS, rates);
		return true;
	}
	result_set_verdict(t, TEST_FAIL,
		    xasprintf("%s\nfull points up to a ratio of %.2f, none from %.2f on\nhint: "
			      "compare your launch configuration and memory access pattern with "
			      "what the handout asks for: consecutive threads (threadIdx.x) should "
			      "read consecutive addresses", rates, lt->full_ratio, lt->zero_ratio));
	free(rates);
	return true;
}

static struct graded_test *pending_test(struct result *r, const struct strlist *pending,
					const char *kernel, int size)
{
	for (size_t i = 0; i < r->ntests; i++) {
		struct graded_test *t = &r->tests[i];
		if (t->kind == KIND_TIMING && !strcmp(t->timing->kernel, kernel) &&
		    t->timing->size == size && strlist_has(pending, t->id))
			return t;
	}
	return NULL;
}

static void read_device(struct result *r, json_t *o, bool *device_ok)
{
	const char *status = str(o, "status");

	if (!status || strcmp(status, "ok")) {
		free(r->timing.reason);
		r->timing.reason = xstrdup(str(o, "message") ? str(o, "message")
							     : "the timer found no GPU");
		return;
	}
	*device_ok = true;
	r->timing.peak_gflops = num(o, "peak_gflops");
	r->timing.copy_gbs = num(o, "copy_gbs");
	r->timing.clock_mhz = num(o, "clock_mhz");
	r->timing.copy_given = str(o, "copy_gbs_from") && !strcmp(str(o, "copy_gbs_from"), "given");
}

/* A "ceiling" line, into the library's name, its times and why it has none. */
static void read_ceiling_into(json_t *o, char **name, struct ceiling **list, size_t *n,
			      char **note)
{
	const char *lib = str(o, "name"), *status = str(o, "status");

	if (lib && !*name)
		*name = xstrdup(lib);
	if (!status || strcmp(status, "ok")) {
		free(*note);
		*note = xstrdup(str(o, "message") ? str(o, "message") : "failed");
		return;
	}
	json_t *tm = json_object_get(o, "timing");
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	struct ceiling *c = &(*list)[(*n)++];
	c->size = (int)num(o, "size");
	c->ms = num(tm, "median_ms");
	c->gflops = num(tm, "gflops");
}

static void read_ceiling(struct result *r, json_t *o)
{
	read_ceiling_into(o, &r->timing.ceiling_name, &r->timing.ceilings, &r->timing.nceilings,
			  &r->timing.ceiling_note);
}

/*
 * Makes every string in v visible_text: a driver's line is written in the
 * submission's process, and its messages reach the result.
 */
static void make_visible(json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_string(v)) {
		char *s = visible_text(json_string_value(v), json_string_length(v), false);
		json_string_set(v, s);
		free(s);
	} else if (json_is_object(v)) {
		json_object_foreach(v, key, item)
			make_visible(item);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			make_visible(item);
	}
}

json_t *driver_next_line(const char **line, const char *token, const char **type)
{
	for (const char *l = *line; l && *l;) {
		size_t n = strcspn(l, "\n");
		json_t *o = json_loadb(l, n, JSON_REJECT_DUPLICATES, NULL);
		const char *ty = json_is_object(o) ? str(o, "type") : NULL;
		const char *tok = json_is_object(o) ? str(o, "token") : NULL;
		l += n + (l[n] == '\n');
		if (ty && tok && !strcmp(tok, token)) {
			make_visible(o);
			*line = l;
			*type = str(o, "type");
			return o;
		}
		json_decref(o);
	}
	*line = NULL;
	return NULL;
}

void timing_read(const char *text, const char *token, const struct lab_config *cfg,
		 struct result *r, struct strlist *pending, bool *device_ok, bool *ended,
		 char **busy)
{
	const char *type;
	json_t *o;

	*ended = false;
	while ((o = driver_next_line(&text, token, &type))) {
		if (!strcmp(type, "device")) {
			read_device(r, o, device_ok);
		} else if (!strcmp(type, "ceiling")) {
			read_ceiling(r, o);
		} else if (!strcmp(type, "end")) {
			*ended = true;
		} else if (!strcmp(type, "case") && str(o, "kernel")) {
			struct graded_test *t = pending_test(r, pending, str(o, "kernel"),
							     (int)num(o, "size"));
			if (t && score_case(cfg, r, t, o, busy))
				strlist_remove(pending, t->id);
		}
		json_decref(o);
	}
}

/* The last line of the driver's output that says something, for a message (visible_text). */
static char *last_words(const char *out)
{
	const char *best = NULL;
	size_t best_n = 0;

	for (const char *l = out; l && *l;) {
		size_t n = strcspn(l, "\n");
		if (n)
			best = l, best_n = n > 300 ? 300 : n;
		l += n + (l[n] == '\n');
	}
	if (!best)
		return xstrdup("");
	char *said = visible_text(best, best_n, true), *words = xasprintf(": %s", said);
	free(said);
	return words;
}

/* ------------------------------------------------- the device's ceilings */

/*
 * Runs the trusted driver (--device-only) on every size the lab times, and
 * reads the device's ceilings it measured into c: 0, or -1 with why. What
 * it says of its GPU must be key's: the GPU the grading's probe saw.
 */
static int measure_device(const struct lab_config *cfg, const char *measure,
			  const char *const *env, const struct devcache_key *key,
			  unsigned long long seed, struct device_ceilings *c, char **why)
{
	struct strlist argv = STRLIST_INIT;
	struct run_result res;
	char token[33];
	bool device_ok = false, ended = false;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->copy_gbs = NAN;
	*why = NULL;
	random_token(token);
	strlist_push(&argv, measure);
	strlist_push(&argv, "--out");
	strlist_push(&argv, "-");
	strlist_push(&argv, "--device-only");
	for (size_t i = 0; i < cfg->ntimings; i++) {
		strlist_push(&argv, "--case");
		strlist_pushf(&argv, "%s:%d", cfg->timings[i].kernel, cfg->timings[i].size);
	}
	char *input = xasprintf("seed=%llu\ntoken=%s\n", seed, token);
	/* trusted: no sandbox and no limits but the time, its output on a pipe (no file
	 * in the work folder, where the submission's programs have written) */
	struct run_spec spec = {.argv = (const char *const *)argv.v, .envp = env, .input = input,
				.timeout = (cfg->ntimings + 1) * cfg->timing_timeout};
	if (run_one(&spec, &res)) {
		*why = xstrdup("the trusted driver could not be run");
		goto out;
	}
	const char *text = res.output ? res.output : "", *type;
	json_t *o;
	while ((o = driver_next_line(&text, token, &type))) {
		const char *status = str(o, "status"), *uuid = str(o, "uuid");
		double clock = num(o, "clock_mhz");
		if (!strcmp(type, "device") && status && !strcmp(status, "ok")) {
			device_ok = true;
			c->copy_gbs = num(o, "copy_gbs");
			if (!*why && (!uuid || strcmp(uuid, key->uuid) ||
				      !(fabs(clock - key->clock_mhz) < 0.5)))
				*why = xasprintf("the trusted driver measured another GPU (%s, %g "
						 "MHz) than the probe saw (%s, %g MHz)",
						 uuid ? uuid : "no UUID", clock, key->uuid,
						 key->clock_mhz);
		} else if (!strcmp(type, "ceiling")) {
			read_ceiling_into(o, &c->ceiling_name, &c->ceilings, &c->nceilings,
					  &c->ceiling_note);
		} else if (!strcmp(type, "end")) {
			ended = true;
		}
		json_decref(o);
	}
	if (!*why && (!device_ok || !ended || !(c->copy_gbs > 0))) {
		char *fate = run_describe(&spec, &res), *words = last_words(res.output);
		*why = xasprintf("the trusted driver %s%s%s", fate,
				 device_ok ? " before it was done" : " before it measured the GPU",
				 words);
		free(fate);
		free(words);
	}
	run_result_release(&res);
	c->measured_at = time(NULL);
	ret = *why ? -1 : 0;
out:
	if (ret)
		device_ceilings_release(c);
	free(input);
	strlist_clear(&argv);
	return ret;
}

int timing_ceilings(const struct lab_config *cfg, const char *measure, const char *const *env,
		    const char *cache, const char *no_cache, const struct devcache_key *key,
		    struct result *r, struct device_ceilings *c)
{
	char *why = NULL, *fail = NULL;

	memset(c, 0, sizeof(*c));
	free(r->timing.ceilings_cache);
	free(r->timing.ceilings_cache_note);
	r->timing.ceilings_cache = NULL;
	r->timing.ceilings_cache_note = NULL;
	if (!cache) {
		r->timing.ceilings_cache_note = xstrdup(no_cache ? no_cache : "no cache here");
		return -1;
	}
	if (!devcache_read(cache, key, time(NULL), c, &why)) {
		r->timing.ceilings_cache = xstrdup(cache);
		r->timing.ceilings_from = "cache";
		r->timing.ceilings_measured_at = c->measured_at;
		return 0;
	}
	if (!measure) {
		r->timing.ceilings_cache_note = xasprintf("%s, and no trusted driver to measure "
							  "them is built (make)", why);
		free(why);
		return -1;
	}
	progress("measuring the GPU's ceilings for the node's cache (%s) ...", why);
	if (measure_device(cfg, measure, env, key, r->seed, c, &fail)) {
		r->timing.ceilings_cache_note = xasprintf("%s, and %s", why, fail);
		free(why);
		free(fail);
		return -1;
	}
	r->timing.ceilings_cache = xstrdup(cache);
	r->timing.ceilings_from = "measured";
	r->timing.ceilings_measured_at = c->measured_at;
	if (devcache_write(cache, key, c, &fail)) {
		r->timing.ceilings_cache_note = xasprintf("%s; measured, and not cached: %s", why,
							  fail);
		free(why);
		free(fail);
	} else {
		r->timing.ceilings_cache_note = why;   /* measured and cached */
	}
	return 0;
}

/* The given ceilings into r, at the sizes of the kernels that were to be timed. */
static void use_given(const struct device_ceilings *given, const struct strlist *asked,
		      struct result *r)
{
	r->timing.copy_gbs = given->copy_gbs;
	free(r->timing.ceiling_name);
	free(r->timing.ceiling_note);
	free(r->timing.ceilings);
	r->timing.ceiling_name = given->ceiling_name ? xstrdup(given->ceiling_name) : NULL;
	r->timing.ceiling_note = given->ceiling_note ? xstrdup(given->ceiling_note) : NULL;
	r->timing.ceilings = xcalloc(given->nceilings + 1, sizeof(*r->timing.ceilings));
	r->timing.nceilings = 0;
	for (size_t k = 0; k < given->nceilings; k++) {
		bool timed = false;
		for (size_t i = 0; i < r->ntests && !timed; i++) {
			const struct graded_test *t = &r->tests[i];
			timed = t->kind == KIND_TIMING && strlist_has(asked, t->id) &&
				t->timing->size == given->ceilings[k].size;
		}
		if (timed)
			r->timing.ceilings[r->timing.nceilings++] = given->ceilings[k];
	}
}

/* ------------------------------------------------------------- running */

/* The ratio from which no timed kernel of the lab scores a point. */
static double max_zero_ratio(const struct lab_config *cfg)
{
	double z = 0;

	for (size_t i = 0; i < cfg->ntimings; i++)
		z = fmax(z, cfg->timings[i].zero_ratio);
	return z;
}

int timing_run(const struct lab_config *cfg, const struct timing_programs *p,
	       const char *const *env, const struct device_ceilings *given, struct result *r)
{
	struct strlist pending = STRLIST_INIT, asked = STRLIST_INIT;
	double t0 = now_seconds();
	bool all_given = true;
	int ret = 0;

	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].kind == KIND_TIMING && r->tests[i].status == TEST_NOT_RUN) {
			strlist_push(&pending, r->tests[i].id);
			strlist_push(&asked, r->tests[i].id);
		}
	/* a copy bandwidth is given only for the GPU the probe saw, by its UUID */
	if (given && !r->gpu.uuid)
		given = NULL;

	/* each round either times every kernel left, or ends one of them */
	for (int round = 0; pending.n; round++) {
		struct strlist argv = STRLIST_INIT;
		struct run_result res;
		char token[33], *out = xasprintf("%s/timing-%d.jsonl", p->folder, round);
		bool device_ok = false, ended = false;

		random_token(token);
		strlist_push(&argv, p->timer);
		strlist_push(&argv, "--out");
		strlist_push(&argv, out);
		strlist_push(&argv, "--runner");
		strlist_push(&argv, p->runner);
		strlist_push(&argv, "--reference");
		strlist_push(&argv, p->reference);
		strlist_push(&argv, "--cap");
		strlist_pushf(&argv, "%g", cfg->timing_cap);
		/* each kernel's budget, kept by the timer itself: a submission's
		 * call that never returns costs its kernel, not the round */
		strlist_push(&argv, "--case-limit");
		strlist_pushf(&argv, "%g", cfg->timing_timeout);
		/* and a call ten times past the ratio where the points end is ended */
		strlist_push(&argv, "--give-up");
		strlist_pushf(&argv, "%g", 10 * max_zero_ratio(cfg));
		if (given) {
			strlist_push(&argv, "--copy-gbs");
			strlist_pushf(&argv, "%.17g", given->copy_gbs);
			strlist_push(&argv, "--uuid");
			strlist_push(&argv, r->gpu.uuid);
			strlist_push(&argv, "--no-ceiling");
		}
		for (size_t i = 0; i < r->ntests; i++) {
			struct graded_test *t = &r->tests[i];
			if (t->kind == KIND_TIMING && strlist_has(&pending, t->id)) {
				strlist_push(&argv, "--case");
				strlist_pushf(&argv, "%s:%d", t->timing->kernel, t->timing->size);
			}
		}
		char *input = xasprintf("seed=%llu\ntoken=%s\n", r->seed + (unsigned long long)round,
					token);
		struct run_spec spec = {
			.argv = (const char *const *)argv.v,
			.envp = env,
			.cwd = p->folder,
			.input = input,
			/* timing_timeout per kernel, and as much again to start */
			.timeout = (pending.n + 1) * cfg->timing_timeout,
			.cpus = p->cpus,
		};
		lab_run_limits(cfg, 1, &spec);
		progress("timing %zu kernel%s against the reference ...", pending.n,
			 pending.n == 1 ? "" : "s");
		ret = run_one(&spec, &res);
		if (!ret && !res.started)
			ret = error("cannot run the timer: %s", res.output);
		char *text = !ret && !access(out, R_OK) ? read_file(out, NULL) : NULL;
		if (!ret) {
			size_t before = pending.n;
			r->timing.copy_given = false;
			char *busy = NULL;
			timing_read(text ? text : "", token, cfg, r, &pending, &device_ok, &ended,
				    &busy);
			all_given &= !device_ok || r->timing.copy_given;
			if (busy) {
				/* the machine's failure, never the submission's: nothing is
				 * stored, and a class grades the submission again */
				ret = error("timing could not be fair on this machine: %s", busy);
				free(busy);
			} else if (!device_ok) {
				/* no GPU for the driver: the grader's problem, not the student's */
				char *fate = run_describe(&spec, &res), *words = last_words(res.output);
				char *why = r->timing.reason
						    ? xasprintf("the timer could not start: %s",
								r->timing.reason)
						    : xasprintf("the timer %s before it started%s",
								fate, words);
				free(r->timing.reason);
				r->timing.reason = NULL;
				timing_not_run(r, why);
				free(why);
				free(fate);
				free(words);
				strlist_clear(&pending);
			} else if (pending.n && pending.n < before && res.exit_code == 4 &&
				   !res.timed_out && !res.signal) {
				/* it ended after a kernel that failed (bench.cu: the
				 * submission's runner is of no use after that): the
				 * kernels after it go to a fresh timer */
			} else if (pending.n) {
				/* it stopped inside the first kernel it had not reported */
				struct graded_test *t = NULL;
				for (size_t i = 0; i < r->ntests && !t; i++)
					if (strlist_has(&pending, r->tests[i].id))
						t = &r->tests[i];
				char *fate = run_describe(&spec, &res), *words = last_words(res.output);
				result_set_verdict(t, res.timed_out ? TEST_TIMEOUT : TEST_CRASH,
					    xasprintf("the timer %s while timing this kernel%s%s",
						      fate, words, ended ? " (and said it was done)" : ""));
				t->points = 0;
				strlist_remove(&pending, t->id);
				free(fate);
				free(words);
			}
			r->timing.ran |= device_ok;   /* an earlier round may have run */
		}
		free(text);
		free(input);
		free(out);
		if (!ret)
			run_result_release(&res);
		strlist_clear(&argv);
		if (ret)
			break;
	}
	if (!ret && r->timing.ran && given && all_given) {
		use_given(given, &asked, r);
	} else if (!ret && r->timing.ran) {
		/* the driver measured them itself, beside the submission: never cached */
		r->timing.ceilings_from = "measured";
		r->timing.ceilings_measured_at = (time_t)(wall_seconds() - (now_seconds() - t0));
		if (given) {
			free(r->timing.ceilings_cache_note);
			r->timing.ceilings_cache_note = xasprintf(
				"the timer's GPU was not %s, whose ceilings it was given: "
				"it measured the copy bandwidth itself (and no library ceiling)",
				r->gpu.uuid);
		}
	} else if (!r->timing.ran) {
		r->timing.ceilings_from = NULL;
		r->timing.ceilings_measured_at = 0;
	}
	r->timing.seconds = now_seconds() - t0;
	strlist_clear(&pending);
	strlist_clear(&asked);
	return ret;
}
