/*
 * report.c - renders a result for people. Derives everything from the
 * result; decides nothing.
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

/*
 * What this copy of the lab cannot grade (tests/hidden/ is the course's):
 * how many points ride on it, in which tests, and when the student sees
 * them. Neither a failure nor a pass.
 */
static void print_held_back(FILE *out, const struct result *r, const struct score_view *v)
{
	int after_due = 0, hidden = 0;

	if (!v->nlater)
		return;
	fprintf(out, "\nnot graded here: %g point%s in %d test%s (", v->later,
		v->later == 1 ? "" : "s", v->nlater, v->nlater == 1 ? "" : "s");
	for (size_t i = 0, n = 0; i < r->ntests; i++) {
		const struct graded_test *t = &r->tests[i];
		if (!t->held_back || t->bonus)
			continue;
		fprintf(out, "%s%s/%s", n++ ? ", " : "", t->part, t->name);
		after_due += t->visibility == VIS_AFTER_DUE;
		hidden += t->visibility == VIS_HIDDEN;
	}
	fprintf(out, ")\n  the course's grader runs them: their sources are not in your copy of "
		"the lab;\n  %s\n",
		hidden && after_due ? "some results are shown after the due date, others never"
		: after_due	    ? "their results are shown after the due date"
		: hidden	    ? "their results are not shown to students"
				    : "their results are shown when the course grades");
}

static void print_build(FILE *out, const struct result *r)
{
	fprintf(out, "build       %s (%.1f s)\n", build_state_name(r->build), r->build_seconds);
	if (r->build_message)
		print_indented(out, r->build_message, "  ");
	if (r->build != BUILD_OK && r->build_log && *r->build_log) {
		fprintf(out, "\ncompiler output:\n");
		print_indented(out, r->build_log, "  ");
	} else if (r->build_log && *r->build_log) {
		fprintf(out, "compiler warnings:\n");
		print_indented(out, r->build_log, "  ");
	}
}

/*
 * Width of a column: the longest part name (names false) or test name
 * (names true; only timed tests' when timed), at least min.
 */
static int column_width(const struct result *r, bool names, bool timed, int min)
{
	int w = min;
	for (size_t i = 0; i < r->ntests; i++) {
		const struct graded_test *t = &r->tests[i];
		int n = (int)strlen(names ? t->name : t->part);
		if ((!timed || t->kind == KIND_TIMING) && n > w)
			w = n;
	}
	return w;
}

static void print_timing(FILE *out, const struct result *r, json_t *doc)
{
	int pw = column_width(r, false, false, 6), tw = column_width(r, true, true, 4);
	struct timing_row *rows;
	size_t n = doc_timing_rows(doc, &rows);

	if (!n || r->build != BUILD_OK) {   /* the build is the story then */
		free(rows);
		return;
	}
	if (!r->timing.ran) {
		fprintf(out, "\ntiming      not run: %s\n",
			r->timing.reason ? r->timing.reason
					 : "no kernel passed its correctness tests");
		free(rows);
		return;
	}
	fprintf(out, "\ntiming on %s", r->gpu.name ? r->gpu.name : "the GPU");
	if (isfinite(r->timing.peak_gflops))
		fprintf(out, " (FP32 peak %.1f TFLOP/s)", r->timing.peak_gflops / 1e3);
	fprintf(out, ", against the reference (unless named) in the same run:\n");
	fprintf(out, "%-*s %-*s %13s %13s %7s %9s\n", pw, "part", tw, "test", "yours", "against",
		"ratio", "points");
	for (size_t i = 0; i < n; i++) {
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
	for (size_t i = 0; i < r->timing.nceilings; i++)
		fprintf(out, "%s at N=%d: %.1f TFLOP/s (%.3f ms), for comparison, not graded\n",
			r->timing.ceiling_name, r->timing.ceilings[i].size,
			r->timing.ceilings[i].gflops / 1e3, r->timing.ceilings[i].ms);
	if (r->timing.ceiling_note)
		fprintf(out, "%s: not measured (%s)\n",
			r->timing.ceiling_name ? r->timing.ceiling_name : "ceiling",
			r->timing.ceiling_note);
	if (r->timing.ceilings_from && !strcmp(r->timing.ceilings_from, "cache")) {
		char when[32];
		late_format_time(r->timing.ceilings_measured_at, when, sizeof(when));
		fprintf(out, "the GPU's copy bandwidth%s%s: measured at %s, reused from this "
			"node's cache\n", r->timing.ceiling_name ? " and " : "",
			r->timing.ceiling_name ? r->timing.ceiling_name : "", when);
	}
}

/* Sectors per request of the profiled launchers, where they were counted. */
static void print_sectors(FILE *out, const struct result *r, json_t *doc)
{
	int pw = column_width(r, false, false, 6), tw = 4, cw = 4;
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
	if (!source || r->build != BUILD_OK) {
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
static void print_late(FILE *out, const struct result *r)
{
	char at[32], due[32];

	if (!r->late.deadline)
		return;
	if (!r->late.applied) {
		fprintf(out, "late        policy not applied: no submission time given "
			"(--submitted-at, --times)\n");
		return;
	}
	const struct late_verdict *v = &r->late.v;
	late_format_time(r->submitted_at, at, sizeof(at));
	late_format_time(v->due, due, sizeof(due));
	fprintf(out, "submitted   %s (%s); due %s%s: ", at, r->submitted_from ? r->submitted_from : "?",
		due, v->extended ? " (extended)" : "");
	if (!v->days)
		fprintf(out, "on time\n");
	else   /* the score line above is after the penalty */
		fprintf(out, "%d day%s late%s, -%g points\n", v->days, v->days == 1 ? "" : "s",
			v->beyond ? ", past the last day taken" : "", v->penalty);
}

static void render(FILE *out, const struct result *r)
{
	size_t nfail = 0;
	char *folder = visible_str(r->submission ? r->submission : "?", true);

	fprintf(out, "\n%s: %s\n", r->lab, r->lab_title);
	fprintf(out, "submission  %s (", folder);
	free(folder);
	for (size_t i = 0; i < r->nfiles; i++)
		fprintf(out, "%s%s, %zu bytes", i ? "; " : "", r->files[i].name, r->files[i].size);
	fprintf(out, ")\n");
	print_build(out, r);
	if (r->gpu.available)
		fprintf(out, "gpu         %s (sm_%s, driver %s, CUDA runtime %s)\n", r->gpu.name,
			r->gpu.cc ? r->gpu.cc : "?", r->gpu.driver ? r->gpu.driver : "?",
			r->gpu.runtime ? r->gpu.runtime : "?");
	else if (r->gpu.reason)
		fprintf(out, "gpu         none: %s\n", r->gpu.reason);
	if (r->sandbox)
		fprintf(out, "sandbox     %s: no network, no files but its own and the system's%s%s\n",
			r->sandbox, r->sandbox_user ? "; as " : "",
			r->sandbox_user ? r->sandbox_user : "");
	else if (r->sandbox_why)
		fprintf(out, "sandbox     NONE, unsandboxed: %s%s%s\n", r->sandbox_why,
			r->sandbox_user ? "; as " : "", r->sandbox_user ? r->sandbox_user : "");
	if (r->processes)
		fprintf(out, "processes   at most %lu at once per program (pids cgroup)\n", r->processes);
	else if (r->processes_why)
		fprintf(out, "processes   NOT limited: %s\n", r->processes_why);
	if (r->safety && !strcmp(r->safety, "ran"))
		fprintf(out, "safety      %s: %d finding%s (%.1f s)%s%s\n",
			r->mode == MODE_EMULATED
				? "the emulator's checks (bounds, alignment, races)"
				: "compute-sanitizer memcheck, racecheck, synccheck",
			r->safety_findings,
			r->safety_findings == 1 ? "" : "s", r->safety_seconds,
			r->safety_why ? "; " : "", r->safety_why ? r->safety_why : "");
	else if (r->safety)
		fprintf(out, "safety      NOT RUN: %s\n", r->safety_why ? r->safety_why : "?");
	if (r->mode == MODE_EMULATED)
		fprintf(out, "mode        EMULATED on the CPU: results are a pre-check, not a grade\n");
	else if (r->mode == MODE_CPU) {
		/* a grade, unless tests were held back: the INCOMPLETE line below says so */
		bool held = false;
		for (size_t i = 0; i < r->ntests; i++)
			held |= r->tests[i].held_back;
		fprintf(out, "mode        on the CPU: this lab's tests need no GPU%s\n",
			held ? "" : "; a grade");
	}

	/* every table below reads the run as every other medium does (doc.h) */
	json_t *doc = result_document(r), *tests = json_object_get(doc, "tests");
	int pw = column_width(r, false, false, 6), nw = column_width(r, true, false, 10), sw = 8;
	for (size_t i = 0; i < json_array_size(tests); i++) {
		struct test_view v = doc_test_view(doc, json_array_get(tests, i));
		if ((int)strlen(test_label(&v)) > sw)
			sw = (int)strlen(test_label(&v));
	}
	fprintf(out, "\n%-*s %-*s %-*s %9s %8s\n", pw, "part", nw, "test", sw, "result", "points",
		"time");
	for (size_t i = 0; i < json_array_size(tests); i++) {
		struct test_view v = doc_test_view(doc, json_array_get(tests, i));
		double seconds = doc_num(v.test, "seconds");
		char pts[32], secs[16] = "";
		if (seconds >= 0)
			snprintf(secs, sizeof(secs), "%.2f s", seconds);
		fprintf(out, "%-*s %-*s %-*s %9s %8s%s\n", pw, v.part, nw, v.name, sw, test_label(&v),
			test_view_points(pts, sizeof(pts), &v), secs, v.bonus ? "  (bonus)" : "");
	}
	for (size_t i = 0; i < r->ntests; i++)
		nfail += r->tests[i].status != TEST_PASS && r->tests[i].status != TEST_NOT_RUN;

	print_timing(out, r, doc);
	print_sectors(out, r, doc);
	json_decref(doc);

	if (nfail) {
		fprintf(out, "\nfailures:\n");
		for (size_t i = 0; i < r->ntests; i++) {
			const struct graded_test *t = &r->tests[i];
			if (t->status == TEST_PASS || t->status == TEST_NOT_RUN)
				continue;
			fprintf(out, "  %s %s (%s):\n", t->part, t->name, status_label(t->status));
			print_indented(out, t->message ? t->message : "(no message)", "    ");
		}
	} else if (r->state != RUN_COMPLETE && r->ntests && r->tests[0].message) {
		fprintf(out, "\n%s\n", r->tests[0].message);
	}

	struct score_view view = result_score_view(r);
	print_held_back(out, r, &view);
	char score[SCORE_TEXT_MAX];
	/* the run's standing on a line of its own under the score, where it is not missed */
	fprintf(out, "\nscore       %s\n", score_text(score, &view));
	switch (r->state) {
	case RUN_COMPLETE:
		break;
	case RUN_INCOMPLETE:
		if (r->mode == MODE_EMULATED)
			fprintf(out, "            PROVISIONAL: emulated on the CPU, not a grade\n");
		else
			fprintf(out, "            INCOMPLETE: %s; not a grade until every test "
				"has run\n",
				r->state_reason ? r->state_reason : "some tests did not run");
		break;
	case RUN_NOT_BUILT:
		fprintf(out, "            NOT BUILT: fix the build first\n");
		break;
	}
	print_late(out, r);
}

void report_result(FILE *out, const struct result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem) {
		fputs("(no report: out of memory)\n", out);
		return;
	}
	render(mem, r);
	fclose(mem);
	char *shown = visible_text(text, len, false);
	fputs(shown, out);
	free(shown);
	free(text);
}
