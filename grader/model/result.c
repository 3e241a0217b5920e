/*
 * result.c - scoring and the JSON result document (jansson).
 *
 * Owns: what a result means (score, maximum, exit code) and its serialized
 * form. Does no I/O.
 */
#include "result.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const test_names[] = {"pass", "fail", "timeout", "crash", "not-run"};
static const char *const build_names[] = {"not-attempted", "ok",           "refused",
					  "compile-error", "audit-failed", "link-error"};
static const char *const state_names[] = {"complete", "incomplete", "not-built"};
static const char *const mode_names[] = {"none", "gpu", "emulated", "cpu"};
static const char *const kind_names[] = {"correctness", "timing", "sectors"};

const char *test_kind_name(enum test_kind k)
{
	return kind_names[k];
}

const char *run_mode_name(enum run_mode m)
{
	return mode_names[m];
}

enum run_mode run_mode_of(const char *name)
{
	for (size_t m = 0; m < sizeof(mode_names) / sizeof(mode_names[0]); m++)
		if (name && !strcmp(name, mode_names[m]))
			return (enum run_mode)m;
	return MODE_NONE;
}

const char *test_status_name(enum test_status s)
{
	return test_names[s];
}

enum test_status test_status_of(const char *name)
{
	for (size_t t = 0; t < sizeof(test_names) / sizeof(test_names[0]); t++)
		if (name && !strcmp(name, test_names[t]))
			return (enum test_status)t;
	return TEST_NOT_RUN;
}

const char *build_state_name(enum build_state s)
{
	return build_names[s];
}

const char *run_state_name(enum run_state s)
{
	return state_names[s];
}

/* The next test of r, not run yet (id is taken); its bonus is its part's. */
static struct graded_test *add_test(struct result *r, const struct lab_config *cfg,
				    const char *part, const char *name, char *id,
				    enum test_kind kind, double points)
{
	struct graded_test *t = &r->tests[r->ntests++];

	t->part = xstrdup(part);
	t->name = xstrdup(name);
	t->id = id;
	t->kind = kind;
	t->max_points = points;
	t->bonus = lab_find_part(cfg, part)->bonus;
	t->visibility = lab_find_part(cfg, part)->visibility;
	t->status = TEST_NOT_RUN;
	t->seconds = -1;
	return t;
}

void result_init(struct result *r, const struct lab_config *cfg)
{
	size_t n = 0;

	memset(r, 0, sizeof(*r));
	r->lab = xstrdup(cfg->name);
	r->lab_title = xstrdup(cfg->title ? cfg->title : cfg->name);
	r->lab_version = xstrdup(cfg->version ? cfg->version : "0");
	for (size_t p = 0; p < cfg->nparts; p++)
		n += cfg->parts[p].ntests;
	r->tests = xcalloc(n + cfg->ntimings + cfg->nsectors, sizeof(*r->tests));
	for (size_t p = 0; p < cfg->nparts; p++)
		for (size_t t = 0; t < cfg->parts[p].ntests; t++)
			add_test(r, cfg, cfg->parts[p].name, cfg->parts[p].tests[t].name,
				 xasprintf("test_%s_%s_%s", cfg->name, cfg->parts[p].name,
					   cfg->parts[p].tests[t].name),
				 KIND_CORRECTNESS, cfg->parts[p].tests[t].points)
				->visibility = cfg->parts[p].tests[t].visibility;
	for (size_t i = 0; i < cfg->ntimings; i++) {
		const struct lab_timing *lt = &cfg->timings[i];
		struct graded_test *tr =
			add_test(r, cfg, lt->part, lt->test, xasprintf("time_%s_%s", cfg->name, lt->name),
				 KIND_TIMING, lt->points);
		tr->timing = xcalloc(1, sizeof(*tr->timing));
		tr->timing->kernel = xstrdup(lt->kernel);
		tr->timing->size = lt->size;
	}
	for (size_t i = 0; i < cfg->nsectors; i++) {
		const struct lab_sectors *ls = &cfg->sectors[i];
		struct graded_test *tr =
			add_test(r, cfg, ls->part, ls->name,
				 xasprintf("sectors_%s_%s", cfg->name, ls->name), KIND_SECTORS, ls->points);
		tr->sectors = xcalloc(1, sizeof(*tr->sectors));
		tr->sectors->call = xstrdup(ls->call);
	}
	r->timing.peak_gflops = r->timing.copy_gbs = r->timing.clock_mhz = NAN;
}

void result_set_verdict(struct graded_test *t, enum test_status status, char *message)
{
	t->status = status;
	free(t->message);
	t->message = message;
}

const char *timing_rate(char *buf, size_t len, double gflops, double gbs)
{
	if (isfinite(gflops) && gflops > 0)
		snprintf(buf, len, "%.0f GFLOP/s", gflops);
	else if (isfinite(gbs))
		snprintf(buf, len, "%.0f GB/s", gbs);
	else
		snprintf(buf, len, "-");
	return buf;
}

void result_hold_back(struct graded_test *t)
{
	t->held_back = true;
	result_set_verdict(t, TEST_NOT_RUN,
			   xasprintf("not graded here: this test is not in your copy of the lab "
				     "(its source is the course's, in tests/hidden/); the course's "
				     "grader runs it%s",
				     t->visibility == VIS_AFTER_DUE ? ", and shows its result after "
								      "the due date"
				     : t->visibility == VIS_HIDDEN ? ", and its result is not shown"
								   : ""));
}

void result_mark_not_run(struct result *r, const char *why)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].status == TEST_NOT_RUN && !r->tests[i].message)
			r->tests[i].message = xstrdup(why);
}

struct graded_test *result_find(struct result *r, const char *part, const char *name)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (!strcmp(r->tests[i].part, part) && !strcmp(r->tests[i].name, name))
			return &r->tests[i];
	return NULL;
}

void result_finish(struct result *r)
{
	bool not_run = false;

	r->score = r->max_score = r->bonus_score = 0;
	for (size_t i = 0; i < r->ntests; i++) {
		struct graded_test *t = &r->tests[i];
		/* a timed kernel's points are set by its ratio (timing.c), and may be partial */
		if (t->kind != KIND_TIMING || (t->status != TEST_PASS && t->status != TEST_FAIL))
			t->points = t->status == TEST_PASS ? t->max_points : 0;
		if (t->bonus)
			r->bonus_score += t->points;
		else
			r->max_score += t->max_points;
		r->score += t->points;
		/* one worth nothing (shown, not scored) cannot hold a grade back */
		not_run |= t->status == TEST_NOT_RUN && t->max_points > 0;
	}
	if (r->build != BUILD_OK)
		r->state = RUN_NOT_BUILT;
	else if (not_run || (r->mode != MODE_GPU && r->mode != MODE_CPU) || r->timing.flagged)
		r->state = RUN_INCOMPLETE;
	else
		r->state = RUN_COMPLETE;
}

void result_judge_late(struct result *r, const struct lab_deadline *d)
{
	memset(&r->late, 0, sizeof(r->late));
	r->late.deadline = d->set;
	if (!d->set || !r->submitted_at)
		return;
	r->late.applied = true;
	late_judge(d, r->student, r->submitted_at, r->score, &r->late.v);
}

double final_score(double score, double late_penalty)
{
	return score - late_penalty;
}

double result_final_score(const struct result *r)
{
	return final_score(r->score, r->late.applied ? r->late.v.penalty : 0);
}

bool mode_pending_gpu(enum run_mode mode)
{
	return mode == MODE_EMULATED || mode == MODE_NONE;
}

bool result_part_passed(const struct result *r, const char *part)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].kind == KIND_CORRECTNESS && !strcmp(r->tests[i].part, part) &&
		    r->tests[i].status != TEST_PASS)
			return false;
	return true;
}

bool result_part_failed(const struct result *r, const char *part)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].kind == KIND_CORRECTNESS && !strcmp(r->tests[i].part, part) &&
		    r->tests[i].status != TEST_PASS && r->tests[i].status != TEST_NOT_RUN)
			return true;
	return false;
}

struct score_view result_score_view(const struct result *r)
{
	struct score_view s = {
		.final = result_final_score(r),
		.max = r->max_score,
		.bonus = r->bonus_score,
		.late = r->late.applied && r->late.v.days > 0,
		.late_penalty = r->late.applied ? r->late.v.penalty : 0,
		.pending_gpu = mode_pending_gpu(r->mode),
	};
	/* a submission that did not build has nothing pending: it lost it all */
	for (size_t i = 0; i < r->ntests && r->build == BUILD_OK; i++) {
		const struct graded_test *t = &r->tests[i];
		if (t->status != TEST_NOT_RUN || t->bonus)
			continue;
		if (t->held_back) {
			s.later += t->max_points;
			s.nlater++;
		} else {
			s.pending += t->max_points;
		}
	}
	return s;
}

const char *score_text(char buf[SCORE_TEXT_MAX], const struct score_view *s)
{
	struct strbuf sb = STRBUF_INIT;
	const char *sep = " (";

	strbuf_addf(&sb, "%g / %g", s->final, s->max);
	if (s->bonus > 0) {
		strbuf_addf(&sb, "%s%g of it bonus", sep, s->bonus);
		sep = "; ";
	}
	if (s->late) {
		strbuf_addf(&sb, "%slate: -%g", sep, s->late_penalty);
		sep = "; ";
	}
	if (*sep == ';')
		strbuf_addstr(&sb, ")");
	/* a GPU run scores them; elsewhere (no profiler, say) the run is incomplete */
	if (s->pending > 0)
		strbuf_addf(&sb, ", %g more %s", s->pending,
			    s->pending_gpu ? "pending a GPU run" : "not run");
	/* held back: in the course's repository only; neither lost nor won here */
	if (s->later > 0)
		strbuf_addf(&sb, ", %g more graded later", s->later);
	snprintf(buf, SCORE_TEXT_MAX, "%s", sb.buf);
	strbuf_release(&sb);
	return buf;
}

int result_exit_code(const struct result *r)
{
	switch (r->state) {
	case RUN_NOT_BUILT:
		return EXIT_NOT_BUILT;
	case RUN_INCOMPLETE:
		return EXIT_INCOMPLETE;
	case RUN_COMPLETE:
		break;
	}
	return r->score - r->bonus_score < r->max_score ? EXIT_POINTS_LOST : EXIT_FULL_MARKS;
}

static json_t *time_json(time_t t)
{
	char buf[32];
	late_format_time(t, buf, sizeof(buf));
	return json_string(buf);
}

/* The late policy's verdict: null where the lab has no deadline. */
static json_t *late_json(const struct result *r)
{
	if (!r->late.deadline)
		return json_null();
	if (!r->late.applied)
		return json_pack("{s:b, s:s}", "applied", 0, "reason",
				 "no submission time given (--submitted-at, --times)");
	return json_pack("{s:b, s:o, s:b, s:i, s:f, s:b}", "applied", 1, "due",
			 time_json(r->late.v.due), "extended", r->late.v.extended, "days",
			 r->late.v.days, "penalty", r->late.v.penalty, "beyond_limit",
			 r->late.v.beyond);
}

/*
 * s as a JSON string, or null: as visible_text shows it (invalid UTF-8
 * replaced, control characters written out), so that every reader of the
 * document (jq -r, the gradebook's columns) is safe; one_line for a name
 * or a path.
 */
static json_t *text_or_null(const char *s, bool one_line)
{
	if (!s)
		return json_null();
	char *shown = visible_str(s, one_line);
	json_t *j = json_string(shown);
	free(shown);
	return j;
}

static json_t *str_or_null(const char *s)
{
	return text_or_null(s, false);
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *timing_json(const struct timing_measure *m)
{
	json_t *o = json_pack("{s:o, s:i, s:b}", "kernel", str_or_null(m->kernel ? m->kernel : ""), "size",
			      m->size, "measured", m->measured);
	if (!m->measured)
		return o;
	const struct {
		const char *key;
		double v;
	} nums[] = {
		{"student_ms", m->student_ms},         {"reference_ms", m->reference_ms},
		{"student_spread", m->student_spread}, {"reference_spread", m->reference_spread},
		{"ratio", m->ratio},                   {"student_gflops", m->student_gflops},
		{"reference_gflops", m->reference_gflops}, {"student_gbs", m->student_gbs},
		{"reference_gbs", m->reference_gbs},   {"floor_ms", m->floor_ms},
		{"sm_clock_mhz", m->sm_clock_mhz},
	};
	json_object_set_new(o, "samples", json_integer(m->samples));
	json_object_set_new(o, "capped", json_boolean(m->capped));
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		json_object_set_new(o, nums[i].key, num_or_null(nums[i].v));
	json_object_set_new(o, "subject", str_or_null(m->subject));
	json_object_set_new(o, "baseline", str_or_null(m->baseline));
	json_object_set_new(o, "flagged", json_boolean(m->flagged));
	return o;
}

static json_t *sectors_json(const struct sectors_measure *m)
{
	json_t *o = json_pack("{s:s, s:b}", "call", m->call, "measured", m->measured);
	if (!m->measured)
		return o;
	json_object_set_new(o, "source", json_string(m->source));
	json_object_set_new(o, "load_requests", json_integer((json_int_t)m->load_requests));
	json_object_set_new(o, "load_sectors", json_integer((json_int_t)m->load_sectors));
	json_object_set_new(o, "store_requests", json_integer((json_int_t)m->store_requests));
	json_object_set_new(o, "store_sectors", json_integer((json_int_t)m->store_sectors));
	json_object_set_new(o, "load_sectors_per_request",
			    m->load_requests ? json_real((double)m->load_sectors / m->load_requests)
					     : json_null());
	json_object_set_new(o, "store_sectors_per_request",
			    m->store_requests ? json_real((double)m->store_sectors / m->store_requests)
					      : json_null());
	return o;
}

static json_t *timing_summary_json(const struct result *r)
{
	json_t *o = json_object(), *ceil = json_array();

	json_object_set_new(o, "ran", json_boolean(r->timing.ran));
	json_object_set_new(o, "reason", str_or_null(r->timing.reason));
	json_object_set_new(o, "peak_gflops", num_or_null(r->timing.peak_gflops));
	json_object_set_new(o, "copy_gbs", num_or_null(r->timing.copy_gbs));
	json_object_set_new(o, "clock_mhz", num_or_null(r->timing.clock_mhz));
	for (size_t i = 0; i < r->timing.nceilings; i++)
		json_array_append_new(ceil, json_pack("{s:s, s:i, s:o, s:o}", "name",
						      r->timing.ceiling_name, "size",
						      r->timing.ceilings[i].size, "ms",
						      num_or_null(r->timing.ceilings[i].ms), "gflops",
						      num_or_null(r->timing.ceilings[i].gflops)));
	json_object_set_new(o, "ceilings", ceil);
	json_object_set_new(o, "ceiling_name", str_or_null(r->timing.ceiling_name));
	json_object_set_new(o, "ceiling_note", str_or_null(r->timing.ceiling_note));
	json_object_set_new(o, "ceilings_from", str_or_null(r->timing.ceilings_from));
	time_t at = r->timing.ceilings_measured_at;
	json_object_set_new(o, "ceilings_measured_at", at ? time_json(at) : json_null());
	json_object_set_new(o, "ceilings_cache", str_or_null(r->timing.ceilings_cache));
	json_object_set_new(o, "ceilings_cache_note", str_or_null(r->timing.ceilings_cache_note));
	json_object_set_new(o, "seconds", json_real(r->timing.seconds));
	json_object_set_new(o, "flagged", json_boolean(r->timing.flagged));
	return o;
}

json_t *result_document(const struct result *r)
{
	json_t *doc = json_object(), *files = json_array(), *tests = json_array(), *gpu;

	json_object_set_new(doc, "schema", json_string(RESULT_SCHEMA));
	json_object_set_new(doc, "lab", json_string(r->lab));
	json_object_set_new(doc, "lab_title", json_string(r->lab_title));
	json_object_set_new(doc, "lab_version", json_string(r->lab_version));
	json_object_set_new(doc, "student", text_or_null(r->student, true));
	json_object_set_new(doc, "submission", text_or_null(r->submission, true));
	json_object_set_new(doc, "started_at", str_or_null(r->started_at));
	json_object_set_new(doc, "seconds", json_real(r->seconds));
	json_object_set_new(doc, "phases",
			    json_pack("{s:f, s:f, s:f, s:f, s:f, s:{s:f, s:f, s:f, s:f, s:i}}", "build",
				      r->build_seconds, "tests", r->tests_seconds, "timing",
				      r->timing.seconds, "profile", r->profile_seconds, "gpu_wait",
				      r->gpu_wait_seconds, "in_tests", "setup", r->in_tests.setup,
				      "start", r->in_tests.start, "calls", r->in_tests.calls,
				      "requests", r->in_tests.requests, "counted",
				      r->in_tests.counted));
	/* when it held the GPU, in seconds since the epoch: a class's GPU use is their union */
	json_object_set_new(doc, "gpu_held",
			    r->gpu_to > r->gpu_from && r->gpu_from > 0
				    ? json_pack("{s:f, s:f}", "from", r->gpu_from, "to", r->gpu_to)
				    : json_null());
	json_object_set_new(doc, "safety",
			    r->safety ? json_pack("{s:s, s:o, s:f, s:i}", "status", r->safety,
						  "reason", str_or_null(r->safety_why), "seconds",
						  r->safety_seconds, "findings", r->safety_findings)
				      : json_null());
	json_object_set_new(doc, "host", str_or_null(r->host));
	if (r->sandbox || r->sandbox_why)
		json_object_set_new(doc, "sandbox",
				    json_pack("{s:s, s:o, s:o, s:I, s:{s:I, s:o}}", "kind",
					      r->sandbox ? r->sandbox : "none", "reason",
					      str_or_null(r->sandbox_why), "user",
					      str_or_null(r->sandbox_user), "memory_limit",
					      (json_int_t)r->memory_limit, "processes", "limit",
					      (json_int_t)r->processes, "reason",
					      str_or_null(r->processes_why)));
	json_object_set_new(doc, "seed", json_integer((json_int_t)r->seed));

	/* what the probe did not tell is "none" in each, never null: the schema's string */
	gpu = json_object();
	json_object_set_new(gpu, "available", json_boolean(r->gpu.available));
	json_object_set_new(gpu, "name", str_or_null(r->gpu.name ? r->gpu.name : "none"));
	json_object_set_new(gpu, "compute_capability", str_or_null(r->gpu.cc ? r->gpu.cc : "none"));
	json_object_set_new(gpu, "driver", json_string(r->gpu.driver ? r->gpu.driver : "none"));
	json_object_set_new(gpu, "cuda_runtime", json_string(r->gpu.runtime ? r->gpu.runtime : "none"));
	/* a later field, and a key (locks, the ceilings' cache): null, never a word, when unknown */
	json_object_set_new(gpu, "uuid", str_or_null(r->gpu.uuid));
	if (r->gpu.reason)
		json_object_set_new(gpu, "reason", str_or_null(r->gpu.reason));
	json_object_set_new(doc, "gpu", gpu);

	for (size_t i = 0; i < r->nfiles; i++)
		json_array_append_new(files, json_pack("{s:s, s:s, s:I}", "name", r->files[i].name,
						       "sha256", r->files[i].sha256, "bytes",
						       (json_int_t)r->files[i].size));
	json_object_set_new(doc, "files", files);

	json_object_set_new(doc, "build",
			    json_pack("{s:s, s:o, s:o, s:f}", "status", build_state_name(r->build),
				      "message", str_or_null(r->build_message), "log",
				      str_or_null(r->build_log), "seconds", r->build_seconds));

	for (size_t i = 0; i < r->ntests; i++) {
		const struct graded_test *t = &r->tests[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:b, s:o}", "part", t->part,
				      "name", t->name, "id", t->id, "status",
				      test_status_name(t->status), "points", t->points, "max_points",
				      t->max_points, "bonus", t->bonus, "message",
				      str_or_null(t->message));
		json_object_set_new(o, "seconds", t->seconds >= 0 ? json_real(t->seconds) : json_null());
		json_object_set_new(o, "kind", json_string(test_kind_name(t->kind)));
		json_object_set_new(o, "visibility", json_string(test_visibility_name(t->visibility)));
		json_object_set_new(o, "held_back", json_boolean(t->held_back));
		if (t->timing)
			json_object_set_new(o, "timing", timing_json(t->timing));
		if (t->sectors)
			json_object_set_new(o, "sectors", sectors_json(t->sectors));
		json_array_append_new(tests, o);
	}
	json_object_set_new(doc, "tests", tests);
	json_object_set_new(doc, "timing", timing_summary_json(r));
	json_object_set_new(doc, "score", json_real(r->score));
	json_object_set_new(doc, "max_score", json_real(r->max_score));
	json_object_set_new(doc, "bonus_score", json_real(r->bonus_score));
	json_object_set_new(doc, "submitted_at", r->submitted_at ? time_json(r->submitted_at)
								  : json_null());
	json_object_set_new(doc, "submitted_from", str_or_null(r->submitted_from));
	json_object_set_new(doc, "late", late_json(r));
	json_object_set_new(doc, "final_score", json_real(result_final_score(r)));
	struct score_view view = result_score_view(r);
	char text[SCORE_TEXT_MAX];
	json_object_set_new(doc, "score_text", json_string(score_text(text, &view)));
	json_object_set_new(doc, "mode", json_string(run_mode_name(r->mode)));
	json_object_set_new(doc, "status", json_string(run_state_name(r->state)));
	json_object_set_new(doc, "provisional", json_boolean(r->state == RUN_INCOMPLETE));
	json_object_set_new(doc, "status_reason", str_or_null(r->state_reason));
	json_object_set_new(doc, "exit_code", json_integer(result_exit_code(r)));
	json_object_set_new(doc, "output", str_or_null(r->output));
	return doc;
}

char *result_to_json(const struct result *r, bool indent)
{
	json_t *doc = result_document(r);
	char *s = json_dumps(doc, (indent ? JSON_INDENT(2) : JSON_COMPACT) | JSON_PRESERVE_ORDER);

	json_decref(doc);
	if (!s)
		die("cannot serialize the result document");
	return s;
}

void result_release(struct result *r)
{
	free(r->lab);
	free(r->lab_title);
	free(r->lab_version);
	free(r->student);
	free(r->submission);
	free(r->started_at);
	free(r->submitted_from);
	free(r->host);
	free(r->sandbox);
	free(r->sandbox_why);
	free(r->sandbox_user);
	free(r->safety_why);
	free(r->processes_why);
	free(r->gpu.name);
	free(r->gpu.cc);
	free(r->gpu.runtime);
	free(r->gpu.driver);
	free(r->gpu.reason);
	free(r->gpu.uuid);
	for (size_t i = 0; i < r->nfiles; i++) {
		free(r->files[i].name);
		free(r->files[i].data);
	}
	free(r->files);
	free(r->build_message);
	free(r->build_log);
	for (size_t i = 0; i < r->ntests; i++) {
		free(r->tests[i].part);
		free(r->tests[i].name);
		free(r->tests[i].id);
		free(r->tests[i].message);
		if (r->tests[i].sectors)
			free(r->tests[i].sectors->call);
		free(r->tests[i].sectors);
		if (r->tests[i].timing) {
			free(r->tests[i].timing->kernel);
			free(r->tests[i].timing->subject);
			free(r->tests[i].timing->baseline);
		}
		free(r->tests[i].timing);
	}
	free(r->timing.reason);
	free(r->timing.ceiling_name);
	free(r->timing.ceilings);
	free(r->timing.ceiling_note);
	free(r->timing.ceilings_cache);
	free(r->timing.ceilings_cache_note);
	free(r->tests);
	free(r->state_reason);
	free(r->output);
	memset(r, 0, sizeof(*r));
}
