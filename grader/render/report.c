/*
 * report.c - renders a run for people, from its result document
 * (docs/result-document.md) as every other medium reads it (doc.h): a run
 * just graded and one read back from the gradebook print the same.
 * Decides nothing.
 *
 * The result quotes the submission (what nvcc and its programs said, the
 * folder's name): the report reaches the terminal only as visible_text
 * (util.h) shows it, so no escape sequence in it is ever obeyed.
 */
#include "report.h"

#include "doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void print_indented(FILE *out, const char *text, const char *indent)
{
	const char *l = text;
	while (l && *l) {
		size_t n = strcspn(l, "\n");
		fprintf(out, "%s%.*s\n", indent, (int)n, l);
		l += n + (l[n] == '\n');
	}
}

static const char *status_label(enum test_status s)
{
	switch (s) {
	case TEST_PASS:
		return "pass";
	case TEST_FAIL:
		return "FAIL";
	case TEST_TIMEOUT:
		return "TIMEOUT";
	case TEST_CRASH:
		return "CRASH";
	default:
		return "not run";
	}
}

/*
 * A test's result column, from its view (doc.h): a test that waits for a
 * GPU, or that the course grades, says so, so that its points read as not
 * counted yet, not lost; a failure in capitals.
 */
static const char *test_label(const struct test_view *v)
{
	return v->later || v->pending ? test_view_verdict(v) : status_label(test_status_of(v->status));
}

/* o's string key, or NULL where it has none or it is empty. */
static const char *opt_str(json_t *o, const char *key)
{
	const char *s = doc_str(o, key);
	return *s ? s : NULL;
}

/*
 * What this copy of the lab cannot grade (tests/hidden/ is the course's):
 * how many points ride on it, in which tests, and when the student sees
 * them. Neither a failure nor a pass.
 */
static void print_held_back(FILE *out, json_t *doc, const struct score_view *v)
{
	int after_due = 0, hidden = 0;
	json_t *t;
	size_t i, n = 0;

	if (!v->nlater)
		return;
	fprintf(out, "\nnot graded here: %g point%s in %d test%s (", v->later,
		v->later == 1 ? "" : "s", v->nlater, v->nlater == 1 ? "" : "s");
	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		if (!json_is_true(json_object_get(t, "held_back")) ||
		    json_is_true(json_object_get(t, "bonus")))
			continue;
		fprintf(out, "%s%s/%s", n++ ? ", " : "", doc_str(t, "part"), doc_str(t, "name"));
		after_due += !strcmp(doc_str(t, "visibility"), "after_due");
		hidden += !strcmp(doc_str(t, "visibility"), "hidden");
	}
	fprintf(out, ")\n  the course's grader runs them: their sources are not in your copy of "
		"the lab;\n  %s\n",
		hidden && after_due ? "some results are shown after the due date, others never"
		: after_due	    ? "their results are shown after the due date"
		: hidden	    ? "their results are not shown to students"
				    : "their results are shown when the course grades");
}

static void print_build(FILE *out, json_t *build)
{
	const char *message = opt_str(build, "message"), *log = opt_str(build, "log");
	bool ok = !strcmp(doc_str(build, "status"), "ok");

	fprintf(out, "build       %s (%.1f s)\n", doc_str(build, "status"), doc_num(build, "seconds"));
	if (message)
		print_indented(out, message, "  ");
	if (log) {
		fprintf(out, ok ? "compiler warnings:\n" : "\ncompiler output:\n");
		print_indented(out, log, "  ");
	}
}

/*
 * Width of a column: the longest part name (names false) or test name
 * (names true; only timed tests' when timed), at least min.
 */
static int column_width(json_t *doc, bool names, bool timed, int min)
{
	int w = min;
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		int n = (int)strlen(doc_str(t, names ? "name" : "part"));
		if ((!timed || !strcmp(doc_str(t, "kind"), "timing")) && n > w)
			w = n;
	}
	return w;
}

/* The ceilings' library: documents before timing.ceiling_name name it in each ceiling. */
static const char *ceiling_name(json_t *timing)
{
	const char *name = opt_str(timing, "ceiling_name");
	return name ? name : opt_str(json_array_get(json_object_get(timing, "ceilings"), 0), "name");
}

static void print_timing(FILE *out, json_t *doc)
{
	int pw = column_width(doc, false, false, 6), tw = column_width(doc, true, true, 4);
	json_t *timing = json_object_get(doc, "timing"), *c;
	const char *gpu = doc_str(json_object_get(doc, "gpu"), "name"), *lib = ceiling_name(timing);
	struct timing_row *rows;
	size_t n = doc_timing_rows(doc, &rows), i;
	double peak = doc_num(timing, "peak_gflops");

	if (!n || !doc_built(doc)) {   /* the build is the story then */
		free(rows);
		return;
	}
	if (!json_is_true(json_object_get(timing, "ran"))) {
		const char *why = opt_str(timing, "reason");
		fprintf(out, "\ntiming      not run: %s\n",
			why ? why : "no kernel passed its correctness tests");
		free(rows);
		return;
	}
	fprintf(out, "\ntiming on %s", *gpu && strcmp(gpu, "none") ? gpu : "the GPU");
	if (isfinite(peak))
		fprintf(out, " (FP32 peak %.1f TFLOP/s)", peak / 1e3);
	fprintf(out, ", against the reference (unless named) in the same run:\n");
	fprintf(out, "%-*s %-*s %13s %13s %7s %9s\n", pw, "part", tw, "test", "yours", "against",
		"ratio", "points");
	for (i = 0; i < n; i++) {
		const struct timing_row *m = &rows[i];
		char pts[32], a[32], b[32];
		test_view_points(pts, sizeof(pts), &m->test);
		if (m->measured)
			fprintf(out, "%-*s %-*s %13s %13s %7.3f %9s%s%s%s\n", pw, m->test.part, tw,
				m->test.name,
				timing_rate(a, sizeof(a), m->student_gflops, m->student_gbs),
				timing_rate(b, sizeof(b), m->reference_gflops, m->reference_gbs),
				m->ratio, pts, *m->baseline ? "  against " : "", m->baseline,
				m->flagged ? "  FLAGGED for review" : "");
		else
			fprintf(out, "%-*s %-*s %13s %13s %7s %9s  %s\n", pw, m->test.part, tw,
				m->test.name, "-", "-", "-", pts, test_label(&m->test));
	}
	free(rows);
	json_array_foreach(json_object_get(timing, "ceilings"), i, c)
		fprintf(out, "%s at N=%d: %.1f TFLOP/s (%.3f ms), for comparison, not graded\n",
			doc_str(c, "name"), (int)doc_num(c, "size"), doc_num(c, "gflops") / 1e3,
			doc_num(c, "ms"));
	if (opt_str(timing, "ceiling_note"))
		fprintf(out, "%s: not measured (%s)\n", lib ? lib : "ceiling",
			doc_str(timing, "ceiling_note"));
	if (!strcmp(doc_str(timing, "ceilings_from"), "cache"))
		fprintf(out, "the GPU's copy bandwidth%s%s: measured at %s, reused from this "
			"node's cache\n", lib ? " and " : "", lib ? lib : "",
			doc_str(timing, "ceilings_measured_at"));
}

/* Sectors per request of the profiled launchers, where they were counted. */
static void print_sectors(FILE *out, json_t *doc)
{
	int pw = column_width(doc, false, false, 6), tw = 4, cw = 4;
	const char *source = NULL;
	struct sectors_row *rows;
	size_t n = doc_sectors_rows(doc, &rows);

	for (size_t i = 0; i < n; i++) {
		if (!rows[i].measured)
			continue;
		source = rows[i].source;
		if ((int)strlen(rows[i].test.name) > tw)
			tw = (int)strlen(rows[i].test.name);
		if ((int)strlen(rows[i].call) > cw)
			cw = (int)strlen(rows[i].call);
	}
	if (!source || !doc_built(doc)) {
		free(rows);
		return;
	}
	fprintf(out, "\nmemory requests, 32-byte sectors per warp-wide request (%s):\n", source);
	fprintf(out, "%-*s %-*s %-*s %7s %7s %9s\n", pw, "part", tw, "test", cw, "call", "loads",
		"stores", "points");
	for (size_t i = 0; i < n; i++) {
		const struct sectors_row *m = &rows[i];
		char ld[16] = "-", st[16] = "-", pts[32];
		if (!m->measured)
			continue;
		if (isfinite(m->load_per_request))
			snprintf(ld, sizeof(ld), "%.2f", m->load_per_request);
		if (isfinite(m->store_per_request))
			snprintf(st, sizeof(st), "%.2f", m->store_per_request);
		fprintf(out, "%-*s %-*s %-*s %7s %7s %9s\n", pw, m->test.part, tw, m->test.name, cw,
			m->call, ld, st, test_view_points(pts, sizeof(pts), &m->test));
	}
	free(rows);
}

/* When it was submitted, against the deadline, and what lateness cost. */
static void print_late(FILE *out, json_t *doc)
{
	json_t *late = json_object_get(doc, "late");
	const char *from = opt_str(doc, "submitted_from");
	int days = (int)doc_late(doc, "days");

	if (!json_is_object(late))
		return;
	if (!json_is_true(json_object_get(late, "applied"))) {
		fprintf(out, "late        policy not applied: no submission time given "
			"(--submitted-at, --times)\n");
		return;
	}
	fprintf(out, "submitted   %s (%s); due %s%s: ", doc_str(doc, "submitted_at"),
		from ? from : "?", doc_str(late, "due"),
		json_is_true(json_object_get(late, "extended")) ? " (extended)" : "");
	if (!days)
		fprintf(out, "on time\n");
	else   /* the score line above is after the penalty */
		fprintf(out, "%d day%s late%s, -%g points\n", days, days == 1 ? "" : "s",
			json_is_true(json_object_get(late, "beyond_limit")) ? ", past the last day taken"
									    : "",
			doc_late(doc, "penalty"));
}

static bool any_held_back(json_t *doc)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(doc, "tests"), i, t)
		if (json_is_true(json_object_get(t, "held_back")))
			return true;
	return false;
}

/* Where it ran: the GPU, the sandbox and its limits, the safety stage, the mode. */
static void print_setting(FILE *out, json_t *doc)
{
	json_t *gpu = json_object_get(doc, "gpu"), *sb = json_object_get(doc, "sandbox");
	json_t *safety = json_object_get(doc, "safety"), *procs = json_object_get(sb, "processes");
	const char *user = opt_str(sb, "user"), *kind = doc_str(sb, "kind");
	enum run_mode mode = run_mode_of(doc_str(doc, "mode"));

	if (json_is_true(json_object_get(gpu, "available")))
		fprintf(out, "gpu         %s (sm_%s, driver %s, CUDA runtime %s)\n",
			doc_str(gpu, "name"), doc_str(gpu, "compute_capability"),
			doc_str(gpu, "driver"), doc_str(gpu, "cuda_runtime"));
	else if (opt_str(gpu, "reason"))
		fprintf(out, "gpu         none: %s\n", doc_str(gpu, "reason"));
	if (*kind && strcmp(kind, "none"))
		fprintf(out, "sandbox     %s: no network, no files but its own and the system's%s%s\n",
			kind, user ? "; as " : "", user ? user : "");
	else if (opt_str(sb, "reason"))
		fprintf(out, "sandbox     NONE, unsandboxed: %s%s%s\n", doc_str(sb, "reason"),
			user ? "; as " : "", user ? user : "");
	if (doc_num(procs, "limit") > 0)
		fprintf(out, "processes   at most %.0f at once per program (pids cgroup)\n",
			doc_num(procs, "limit"));
	else if (opt_str(procs, "reason"))
		fprintf(out, "processes   NOT limited: %s\n", doc_str(procs, "reason"));
	if (!strcmp(doc_str(safety, "status"), "ran")) {
		int findings = (int)doc_num(safety, "findings");
		const char *why = opt_str(safety, "reason");
		fprintf(out, "safety      %s: %d finding%s (%.1f s)%s%s\n",
			mode == MODE_EMULATED ? "the emulator's checks (bounds, alignment, races)"
					      : "compute-sanitizer memcheck, racecheck, synccheck",
			findings, findings == 1 ? "" : "s", doc_num(safety, "seconds"),
			why ? "; " : "", why ? why : "");
	} else if (json_is_object(safety)) {
		const char *why = opt_str(safety, "reason");
		fprintf(out, "safety      NOT RUN: %s\n", why ? why : "?");
	}
	if (mode == MODE_EMULATED)
		fprintf(out, "mode        EMULATED on the CPU: results are a pre-check, not a grade\n");
	else if (mode == MODE_CPU)   /* a grade, unless tests were held back: INCOMPLETE says so */
		fprintf(out, "mode        on the CPU: this lab's tests need no GPU%s\n",
			any_held_back(doc) ? "" : "; a grade");
}

/* The table of every test, then each failure's message. */
static void print_tests(FILE *out, json_t *doc)
{
	json_t *tests = json_object_get(doc, "tests"), *t;
	int pw = column_width(doc, false, false, 6), nw = column_width(doc, true, false, 10), sw = 8;
	size_t i, nfail = 0;

	json_array_foreach(tests, i, t) {
		struct test_view v = doc_test_view(doc, t);
		if ((int)strlen(test_label(&v)) > sw)
			sw = (int)strlen(test_label(&v));
	}
	fprintf(out, "\n%-*s %-*s %-*s %9s %8s\n", pw, "part", nw, "test", sw, "result", "points",
		"time");
	json_array_foreach(tests, i, t) {
		struct test_view v = doc_test_view(doc, t);
		double seconds = doc_num(t, "seconds");
		char pts[32], secs[16] = "";
		if (seconds >= 0)
			snprintf(secs, sizeof(secs), "%.2f s", seconds);
		fprintf(out, "%-*s %-*s %-*s %9s %8s%s\n", pw, v.part, nw, v.name, sw, test_label(&v),
			test_view_points(pts, sizeof(pts), &v), secs, v.bonus ? "  (bonus)" : "");
		nfail += strcmp(v.status, "pass") && strcmp(v.status, "not-run");
	}

	print_timing(out, doc);
	print_sectors(out, doc);

	const char *first = opt_str(json_array_get(tests, 0), "message");
	if (nfail) {
		fprintf(out, "\nfailures:\n");
		json_array_foreach(tests, i, t) {
			const char *status = doc_str(t, "status"), *message = opt_str(t, "message");
			if (!strcmp(status, "pass") || !strcmp(status, "not-run"))
				continue;
			fprintf(out, "  %s %s (%s):\n", doc_str(t, "part"), doc_str(t, "name"),
				status_label(test_status_of(status)));
			print_indented(out, message ? message : "(no message)", "    ");
		}
	} else if (strcmp(doc_str(doc, "status"), "complete") && first) {
		fprintf(out, "\n%s\n", first);
	}
}

/* The score, and the run's standing on a line of its own under it, where it is not missed. */
static void print_score(FILE *out, json_t *doc)
{
	struct score_view view = doc_score_view(doc);
	const char *state = doc_str(doc, "status"), *why = opt_str(doc, "status_reason");
	char score[SCORE_TEXT_MAX];

	print_held_back(out, doc, &view);
	fprintf(out, "\nscore       %s\n", score_text(score, &view));
	if (!strcmp(state, "incomplete")) {
		if (run_mode_of(doc_str(doc, "mode")) == MODE_EMULATED)
			fprintf(out, "            PROVISIONAL: emulated on the CPU, not a grade\n");
		else
			fprintf(out, "            INCOMPLETE: %s; not a grade until every test "
				"has run\n",
				why ? why : "some tests did not run");
	} else if (!strcmp(state, "not-built")) {
		fprintf(out, "            NOT BUILT: fix the build first\n");
	}
}

static void render(FILE *out, json_t *doc)
{
	json_t *f;
	size_t i;

	fprintf(out, "\n%s: %s\n", doc_str(doc, "lab"), doc_str(doc, "lab_title"));
	fprintf(out, "submission  %s (", opt_str(doc, "submission") ? doc_str(doc, "submission") : "?");
	json_array_foreach(json_object_get(doc, "files"), i, f)
		fprintf(out, "%s%s, %.0f bytes", i ? "; " : "", doc_str(f, "name"), doc_num(f, "bytes"));
	fprintf(out, ")\n");
	print_build(out, json_object_get(doc, "build"));
	print_setting(out, doc);
	print_tests(out, doc);
	print_score(out, doc);
	print_late(out, doc);
}

void report_document(FILE *out, json_t *doc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem) {
		fputs("(no report: out of memory)\n", out);
		return;
	}
	render(mem, doc);
	fclose(mem);
	char *shown = visible_text(text, len, false);
	fputs(shown, out);
	free(shown);
	free(text);
}

void report_result(FILE *out, const struct result *r)
{
	json_t *doc = result_document(r);

	if (!doc) {
		fputs("(no report: out of memory)\n", out);
		return;
	}
	report_document(out, doc);
	json_decref(doc);
}
