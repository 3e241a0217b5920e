/*
 * export.c - the formats grades leave the gradebook in (export.h).
 *
 * Owns: the mapping from the result document (docs/result-document.md) to
 * CSV, Gradescope's results.json and JUnit XML, each saying what the run
 * was (a provisional pre-check, a build that failed, a test not run, bonus
 * points) in what its platform shows. Knows nothing of SQLite or of files.
 */
#include "export.h"

#include "doc.h"
#include "leaderboard.h"
#include "result.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * A CSV text cell. A spreadsheet takes a cell that starts with '=', '+',
 * '-', '@', a tab or a carriage return for a formula, which a student's
 * name could then be (=HYPERLINK(...)): such a cell gets a leading single
 * quote, as OWASP's advice on CSV injection has it. Then quoted when it
 * must be (RFC 4180), and the record ended with CRLF after the last cell.
 */
static void csv_text(FILE *out, const char *s, bool last)
{
	bool guard = *s && strchr("=+-@\t\r", *s), quote = guard;

	/* RFC 4180 leaves unquoted only printable characters (and UTF-8) */
	for (const char *p = s; *p && !quote; p++)
		quote = *p == ',' || *p == '"' || (unsigned char)*p < 0x20 || *p == 0x7f;
	if (quote) {
		fputc('"', out);
		if (guard)
			fputc('\'', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputs(last ? "\r\n" : ",", out);
}

/* A number cell: never a formula, a minus sign and all; empty when there is none. */
static void csv_number(FILE *out, double v, bool last)
{
	if (isfinite(v))
		fprintf(out, "%g", v);
	fputs(last ? "\r\n" : ",", out);
}

/* "part/name" of each test of doc */
static char *test_key(json_t *t)
{
	return xasprintf("%s/%s", doc_str(t, "part"), doc_str(t, "name"));
}

/* The test of tests named key ("part/name"), or NULL. */
static json_t *test_by_key(json_t *tests, const char *key)
{
	json_t *t;
	size_t i;

	json_array_foreach(tests, i, t) {
		char *k = test_key(t);
		bool same = !strcmp(k, key);
		free(k);
		if (same)
			return t;
	}
	return NULL;
}

void export_for_students(json_t *doc, bool due_passed)
{
	json_t *tests = json_object_get(doc, "tests");

	for (size_t i = json_array_size(tests); i-- > 0;) {
		const char *v = doc_str(json_array_get(tests, i), "visibility");
		if (!strcmp(v, "hidden") || (!strcmp(v, "after_due") && !due_passed))
			json_array_remove(tests, i);
	}
}

void export_csv(FILE *out, json_t *const *docs, const long long *runs, size_t n)
{
	static const char *const fixed[] = {
		"student",     "score",	       "max_score",    "bonus_score", "final_score",
		"late_days",   "late_penalty", "submitted_at", "status",      "mode",
		"provisional", "build",	       "run",	       "started_at",  "lab_version"};
	json_t *columns = n ? json_object_get(docs[0], "tests") : NULL, *t;
	size_t ncol = json_array_size(columns), i;

	for (size_t f = 0; f < ARRAY_SIZE(fixed); f++)
		csv_text(out, fixed[f], f + 1 == ARRAY_SIZE(fixed) && !ncol);
	/* each test's points, then each test's maximum: the points' columns
	 * keep the places they had before the maxima were added */
	for (int max = 0; max < 2; max++) {
		json_array_foreach(columns, i, t) {
			char *key = test_key(t), *head = xasprintf("%s%s", key, max ? " max" : "");
			csv_text(out, head, max && i + 1 == ncol);
			free(head);
			free(key);
		}
	}
	for (size_t d = 0; d < n; d++) {
		json_t *doc = docs[d], *tests = json_object_get(doc, "tests");
		bool provisional = json_is_true(json_object_get(doc, "provisional"));
		char run[32];

		snprintf(run, sizeof(run), "%lld", runs[d]);
		csv_text(out, doc_str(doc, "student"), false);
		csv_number(out, doc_num(doc, "score"), false);
		csv_number(out, doc_num(doc, "max_score"), false);
		csv_number(out, doc_num(doc, "bonus_score"), false);
		csv_number(out, doc_final_score(doc), false);
		csv_number(out, doc_late(doc, "days"), false);
		csv_number(out, doc_late(doc, "penalty"), false);
		csv_text(out, doc_str(doc, "submitted_at"), false);
		csv_text(out, doc_str(doc, "status"), false);
		csv_text(out, doc_str(doc, "mode"), false);
		csv_text(out, provisional ? "yes" : "no", false);
		csv_text(out, doc_str(json_object_get(doc, "build"), "status"), false);
		csv_text(out, run, false);
		csv_text(out, doc_str(doc, "started_at"), false);
		csv_text(out, doc_str(doc, "lab_version"), !ncol);
		/* by the columns' names: another lab version may list other tests */
		for (int max = 0; max < 2; max++) {
			json_array_foreach(columns, i, t) {
				char *key = test_key(t);
				json_t *u = test_by_key(tests, key);
				/* a test pending a GPU run, or graded later, has no
				 * points yet: an empty cell, not a 0 (one not run for
				 * want of a build lost them: 0) */
				struct test_view v = u ? doc_test_view(doc, u) : (struct test_view){0};
				bool none = !u || (!max && (v.pending || v.later));
				csv_number(out, none ? NAN : doc_num(u, max ? "max_points" : "points"),
					   max && i + 1 == ncol);
				free(key);
			}
		}
	}
}

/* A number for JSON: a document that lacks one (NAN) gives 0. */
static json_t *gs_num(double v)
{
	return json_real(isfinite(v) ? v : 0);
}

/* A number as text, as short as it goes ("2.5", "50"). */
static char *num_text(double v)
{
	return xasprintf("%g", isfinite(v) ? v : 0);
}

/*
 * Markdown for text of the run (a message, a reason) inside a line of ours:
 * the characters Markdown gives a meaning to are escaped with a backslash,
 * and a line break becomes a space, so a student's `*` or `<b>` shows as it
 * is and never starts a list or a heading.
 */
static void md_inline(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n' || *s == '\r') {
			strbuf_addstr(sb, " ");
			continue;
		}
		if (strchr("\\`*_{}[]<>#|~!", *s))
			strbuf_addstr(sb, "\\");
		strbuf_add(sb, s, 1);
	}
}

/*
 * A fenced code block holding text as it is (a compiler's log): its fence is
 * longer than any run of backticks in the text, so no line of it can end
 * the block early.
 */
static void md_code_block(struct strbuf *sb, const char *text)
{
	size_t run = 0, longest = 0, fence;

	for (const char *p = text; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	fence = longest < 3 ? 3 : longest + 1;
	for (size_t i = 0; i < fence; i++)
		strbuf_addstr(sb, "`");
	strbuf_addf(sb, "text\n%s", text);
	if (*text && text[strlen(text) - 1] != '\n')
		strbuf_addstr(sb, "\n");
	for (size_t i = 0; i < fence; i++)
		strbuf_addstr(sb, "`");
	strbuf_addstr(sb, "\n");
}

/*
 * The build as a Gradescope test of its own, worth nothing: passed or
 * failed, with what the compiler said in a code block. Gradescope's own
 * advice is to keep such a check visible whatever the others' visibility.
 */
static json_t *gs_build_test(json_t *doc)
{
	json_t *build = json_object_get(doc, "build");
	const char *st = doc_str(build, "status"), *msg = doc_str(build, "message");
	const char *log = doc_str(build, "log");
	bool ok = !strcmp(st, "ok");
	struct strbuf out = STRBUF_INIT;

	strbuf_addstr(&out, ok ? "Built." : "**Did not build** (");
	if (!ok) {
		md_inline(&out, st);
		strbuf_addstr(&out, ")");
		if (*msg) {
			strbuf_addstr(&out, ": ");
			md_inline(&out, msg);
		}
		strbuf_addstr(&out, ". No test could run, and each scores 0.");
	}
	strbuf_addstr(&out, "\n");
	if (*log) {
		strbuf_addstr(&out, ok ? "\nThe compiler's warnings:\n\n"
				       : "\nThe compiler's output:\n\n");
		md_code_block(&out, log);
	}
	json_t *t = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:[s]}", "name", "build", "number",
			      "0", "status", ok ? "passed" : "failed", "output", out.buf,
			      "output_format", "md", "visibility", "visible", "tags", "build");
	strbuf_release(&out);
	return t;
}

/*
 * Gradescope's visibility of a test, from lab.conf's (the document's; a
 * document from before visibility existed has none: visible). after_due
 * becomes after_due_date; Gradescope's after_published has no lab.conf
 * word yet.
 */
static const char *gs_visibility(json_t *t)
{
	const char *v = doc_str(t, "visibility");

	return !strcmp(v, "after_due") ? "after_due_date" : !strcmp(v, "hidden") ? "hidden"
											: "visible";
}

/*
 * One test of the run. Gradescope takes a test below its max_score for a
 * failure unless status says otherwise, and adds the max_scores up to what
 * the student could get; so a bonus test is worth 0 there (its points go
 * above the maximum, as extra credit) and says so in its name and tags, and a
 * test that waits for a GPU run, or that the course's grader runs later (held
 * back), has no score and no status at all: it was neither passed nor failed,
 * and its points are not counted yet (doc_test_view). Any other test not run
 * lost its points (the submission did not build, or the part it times
 * failed): failed. In a provisional run (a pre-check, whose score
 * Gradescope records as 0: export_gradescope) no test has a score: each
 * passes or fails and says what it is worth in the course's grading.
 */
static json_t *gs_test(json_t *doc, json_t *t, const char *number)
{
	bool provisional = json_is_true(json_object_get(doc, "provisional"));
	/* pending a GPU run, or graded later by the course: as every medium says (doc.h) */
	struct test_view v = doc_test_view(doc, t);
	const char *status = v.status, *msg = v.message, *kind = v.kind;
	bool bonus = v.bonus, not_run = !strcmp(status, "not-run"), pending = v.pending || v.later;
	double points = v.points, max = v.max_points;
	char *name = xasprintf("%s: %s%s", v.part, v.name, bonus ? " (bonus)" : "");
	char *maxs = num_text(max);
	struct strbuf out = STRBUF_INIT;

	/* not-run messages say "not run: why" already */
	if (not_run)
		strbuf_addstr(&out, *msg ? msg : "not run");
	else if (*msg)
		strbuf_addf(&out, "%s: %s", status, msg);
	else
		strbuf_addstr(&out, status);
	if (v.later)
		strbuf_addf(&out, "\nworth %s%s points: graded later, by the course's grader",
			    maxs, bonus ? " bonus" : "");
	else if (pending)
		strbuf_addf(&out, "\nworth %s%s points: not counted in this provisional score",
			    maxs, bonus ? " bonus" : "");
	else if (provisional)
		strbuf_addf(&out, "\nworth %s%s points in the course's grading (%g of them in this "
			    "pre-check)", maxs, bonus ? " bonus" : "", isfinite(points) ? points : 0);
	else if (bonus)
		strbuf_addf(&out, "\nbonus: %s points above the maximum at most", maxs);

	json_t *o = json_pack("{s:s, s:s}", "name", name, "number", number);
	if (!pending) {
		/* a pre-check's points are no one's: its tests pass or fail, and
		 * say what they are worth in the course's grading */
		if (!provisional) {
			json_object_set_new(o, "score", gs_num(points));
			json_object_set_new(o, "max_score", gs_num(bonus ? 0 : max));
		}
		json_object_set_new(o, "status", json_string(!strcmp(status, "pass") ? "passed"
										   : "failed"));
	}
	json_object_set_new(o, "output", json_string(out.buf));
	json_object_set_new(o, "output_format", json_string("text"));
	json_object_set_new(o, "visibility", json_string(gs_visibility(t)));
	json_t *tags = json_pack("[s, s]", v.part, *kind ? kind : "correctness");
	if (bonus)
		json_array_append_new(tags, json_string("bonus"));
	if (pending)
		json_array_append_new(tags, json_string("not-run"));
	json_object_set_new(o, "tags", tags);
	json_object_set_new(o, "extra_data",
			    json_pack("{s:s, s:o, s:o, s:b}", "status", status, "points",
				      gs_num(points), "max_points", gs_num(max), "bonus", bonus));
	free(name);
	free(maxs);
	strbuf_release(&out);
	return o;
}

/* A number of the document in a Markdown table's cell, "-" where not measured. */
static void md_num(struct strbuf *sb, double v, const char *fmt)
{
	strbuf_addstr(sb, " | ");
	if (isnan(v))
		strbuf_addstr(sb, "-");
	else
		strbuf_addf(sb, fmt, v);
}

/*
 * What the run's HTML page shows beside the tests, in the tables Gradescope
 * renders from Markdown: each measured kernel's times against the reference
 * (or the baseline it names) with its rates, and each sectors test's counts.
 */
static void gs_measurements(struct strbuf *sb, json_t *doc)
{
	struct timing_row *timed;
	struct sectors_row *counted;
	size_t nt = doc_timing_rows(doc, &timed), ns = doc_sectors_rows(doc, &counted);
	bool head = false;

	for (size_t i = 0; i < nt; i++) {
		const struct timing_row *m = &timed[i];
		if (!m->measured)
			continue;
		if (!head)
			strbuf_addstr(sb, "\n**Timed kernels** (median ms; the ratio is yours over the "
					  "reference's, lower is faster)\n\n"
					  "| test | yours ms | against ms | ratio | yours GFLOP/s | "
					  "yours GB/s |\n|---|---:|---:|---:|---:|---:|\n");
		head = true;
		strbuf_addstr(sb, "| ");
		md_inline(sb, m->test.part);
		strbuf_addstr(sb, "/");
		md_inline(sb, m->test.name);
		if (*m->baseline) {
			strbuf_addstr(sb, " (against ");
			md_inline(sb, m->baseline);
			strbuf_addstr(sb, ")");
		}
		md_num(sb, m->student_ms, "%.4g");
		md_num(sb, m->reference_ms, "%.4g");
		md_num(sb, m->ratio, "%.3f");
		md_num(sb, m->student_gflops, "%.0f");
		md_num(sb, m->student_gbs, "%.0f");
		strbuf_addstr(sb, " |\n");
	}
	head = false;
	for (size_t i = 0; i < ns; i++) {
		const struct sectors_row *m = &counted[i];
		if (!m->measured)
			continue;
		if (!head)
			strbuf_addstr(sb, "\n**Sectors per request** (32-byte sectors a warp's request "
					  "touched: 4 for 32 consecutive floats)\n\n"
					  "| test | kernel | loads | stores |\n|---|---|---:|---:|\n");
		head = true;
		strbuf_addstr(sb, "| ");
		md_inline(sb, m->test.part);
		strbuf_addstr(sb, "/");
		md_inline(sb, m->test.name);
		strbuf_addstr(sb, " | ");
		md_inline(sb, m->call);
		md_num(sb, m->load_per_request, "%.2f");
		md_num(sb, m->store_per_request, "%.2f");
		strbuf_addstr(sb, " |\n");
	}
	free(timed);
	free(counted);
}

/*
 * The text above the tests (Markdown): the score and where it comes from;
 * for a provisional run, that it is a pre-check and why; a build that
 * failed, with the compiler's output; lateness.
 */
static char *gs_output(json_t *doc)
{
	json_t *build = json_object_get(doc, "build");
	struct strbuf sb = STRBUF_INIT;
	bool provisional = json_is_true(json_object_get(doc, "provisional"));
	struct score_view view = doc_score_view(doc);
	char score[SCORE_TEXT_MAX];

	strbuf_addstr(&sb, "**");
	md_inline(&sb, doc_str(doc, "lab"));
	strbuf_addstr(&sb, "**: ");
	md_inline(&sb, score_text(score, &view));
	strbuf_addstr(&sb, provisional ? ", **provisional**\n" : "\n");
	if (provisional) {
		strbuf_addstr(&sb, "\n**A pre-check, not a grade.** ");
		if (!strcmp(doc_str(doc, "mode"), "emulated")) {
			strbuf_addstr(&sb, "There is no GPU here: the tests ran on cudalab's CPU "
					   "emulator, and what needs a GPU (timing) did not run. ");
		} else if (*doc_str(doc, "status_reason")) {
			strbuf_addstr(&sb, "Why: ");
			md_inline(&sb, doc_str(doc, "status_reason"));
			strbuf_addstr(&sb, ". ");
		}
		strbuf_addstr(&sb, "The course grades this submission again on a GPU, and that "
				   "grade is the one that counts: the score Gradescope records for "
				   "this run is 0, and the points above are the pre-check's.\n");
	}
	if (strcmp(doc_str(build, "status"), "ok")) {
		strbuf_addstr(&sb, "\n**Did not build** (");
		md_inline(&sb, doc_str(build, "status"));
		strbuf_addstr(&sb, ")");
		if (*doc_str(build, "message")) {
			strbuf_addstr(&sb, ": ");
			md_inline(&sb, doc_str(build, "message"));
		}
		strbuf_addstr(&sb, "\n");
		if (*doc_str(build, "log")) {
			strbuf_addstr(&sb, "\n");
			md_code_block(&sb, doc_str(build, "log"));
		}
	}
	if (doc_late(doc, "days") > 0) {
		strbuf_addstr(&sb, "\nSubmitted ");
		md_inline(&sb, doc_str(doc, "submitted_at"));
		strbuf_addf(&sb, ", %g day(s) late: %g points taken off the tests' %g.\n",
			    doc_late(doc, "days"), doc_late(doc, "penalty"), doc_num(doc, "score"));
	}
	gs_measurements(&sb, doc);
	return strbuf_detach(&sb);
}

/* What Gradescope stores beside the result, for the course's own scripts. */
static json_t *gs_extra_data(json_t *doc, long long run)
{
	json_t *files = json_array(), *f, *seed = json_object_get(doc, "seed");
	size_t i;

	json_array_foreach(json_object_get(doc, "files"), i, f)
		json_array_append_new(files, json_pack("{s:s, s:s}", "name", doc_str(f, "name"),
						       "sha256", doc_str(f, "sha256")));
	json_t *x = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:b, s:o}", "run", (json_int_t)run,
			      "lab", doc_str(doc, "lab"), "lab_version",
			      doc_str(doc, "lab_version"), "student", doc_str(doc, "student"),
			      "mode", doc_str(doc, "mode"),
			      "status", doc_str(doc, "status"), "provisional",
			      json_is_true(json_object_get(doc, "provisional")), "exit_code",
			      json_is_integer(json_object_get(doc, "exit_code"))
				      ? json_incref(json_object_get(doc, "exit_code"))
				      : json_null());
	/* as text, the unsigned number --seed takes (the document keeps its
	 * bits in a signed integer): a 64-bit seed does not survive a reader
	 * that keeps numbers in doubles */
	json_object_set_new(x, "seed", json_is_integer(seed)
					       ? json_sprintf("%llu", (unsigned long long)
								      json_integer_value(seed))
					       : json_null());
	json_object_set_new(x, "files", files);
	json_object_set_new(x, "score", gs_num(doc_num(doc, "score")));
	json_object_set_new(x, "max_score", gs_num(doc_num(doc, "max_score")));
	json_object_set_new(x, "bonus_score", gs_num(doc_num(doc, "bonus_score")));
	json_object_set_new(x, "final_score", gs_num(doc_final_score(doc)));
	json_object_set_new(x, "late_days", gs_num(doc_late(doc, "days")));
	json_object_set_new(x, "late_penalty", gs_num(doc_late(doc, "penalty")));
	json_object_set_new(x, "submitted_at", json_string(doc_str(doc, "submitted_at")));
	json_object_set_new(x, "started_at", json_string(doc_str(doc, "started_at")));
	json_object_set_new(x, "gpu", json_string(doc_str(json_object_get(doc, "gpu"), "name")));
	return x;
}

/*
 * Gradescope's leaderboard entries of a ranked run: its speed against the
 * reference (the board's order), then each timed kernel's rate; NULL for a
 * run that is not ranked. Gradescope shows each student under a name they
 * choose.
 */
static json_t *gs_leaderboard(json_t *doc)
{
	double speed;
	struct timing_row *rows;
	size_t n = doc_timing_rows(doc, &rows);

	if (!leaderboard_rows_speed(rows, n, json_is_true(json_object_get(doc, "provisional")),
				    &speed)) {
		free(rows);
		return NULL;
	}
	json_t *board = json_array();
	json_array_append_new(board, json_pack("{s:s, s:f, s:s}", "name",
					       "speed against the reference (geometric mean)",
					       "value", round(speed * 1000) / 1000, "order", "desc"));
	for (size_t i = 0; i < n; i++) {
		const struct timing_row *r = &rows[i];
		bool flops = isfinite(r->student_gflops);
		if (!leaderboard_against_reference(r) || (!flops && !isfinite(r->student_gbs)))
			continue;
		char *name = xasprintf("%s %s (%s)", r->test.part, r->test.name,
				       flops ? "GFLOP/s" : "GB/s");
		double v = flops ? r->student_gflops : r->student_gbs;
		json_array_append_new(board, json_pack("{s:s, s:f, s:s}", "name", name, "value",
						       round(v * 10) / 10, "order", "desc"));
		free(name);
	}
	free(rows);
	return board;
}

char *export_gradescope(json_t *doc, long long run, bool leaderboard)
{
	json_t *tests = json_array(), *t, *parts = json_object();
	size_t i;

	json_array_append_new(tests, gs_build_test(doc));
	/* "part.test", parts numbered in the order they first appear, so a
	 * part's timed kernel sorts beside its correctness tests */
	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		const char *part = doc_str(t, "part");
		json_t *count = json_object_get(parts, part);
		if (!count) {
			count = json_pack("[I, I]", (json_int_t)json_object_size(parts) + 1, 0);
			json_object_set_new(parts, part, count);
		}
		json_int_t n = json_integer_value(json_array_get(count, 1)) + 1;
		json_array_set_new(count, 1, json_integer(n));
		char *number = xasprintf("%" JSON_INTEGER_FORMAT ".%" JSON_INTEGER_FORMAT,
					 json_integer_value(json_array_get(count, 0)), n);
		json_array_append_new(tests, gs_test(doc, t, number));
		free(number);
	}
	json_decref(parts);

	char *output = gs_output(doc);
	/* a pre-check is never a grade: what Gradescope records (and an LMS it
	 * publishes to) is 0; its points are in the output and extra_data */
	bool provisional = json_is_true(json_object_get(doc, "provisional"));
	json_t *r = json_pack("{s:o, s:o, s:s, s:s, s:s, s:s, s:o, s:o}", "score",
			      gs_num(provisional ? 0 : doc_final_score(doc)), "execution_time",
			      gs_num(doc_num(doc, "seconds")), "output", output, "output_format",
			      "md", "visibility", "visible", "stdout_visibility", "hidden",
			      "extra_data", gs_extra_data(doc, run), "tests", tests);
	json_t *board = leaderboard ? gs_leaderboard(doc) : NULL;
	if (board)
		json_object_set_new(r, "leaderboard", board);
	char *s = json_dumps(r, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(r);
	free(output);
	return s;
}

char *export_file_stem(const char *student)
{
	struct strbuf sb = STRBUF_INIT;

	if (!student || !*student)
		return xstrdup("%");
	for (const char *p = student; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '/' || c == '%' || c < 0x20 || c == 0x7f || (p == student && c == '.'))
			strbuf_addf(&sb, "%%%02X", c);
		else
			strbuf_add(&sb, p, 1);
	}
	return strbuf_detach(&sb);
}

/*
 * Text for XML: the five special characters escaped, and any control
 * character XML 1.0 cannot hold dropped. In an attribute, line breaks and
 * tabs are written as references, which a parser keeps (it turns the
 * characters themselves into spaces).
 */
static void xml_text(FILE *out, const char *s, bool attr)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '&')
			fputs("&amp;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c == '\'')
			fputs("&apos;", out);
		else if (attr && (c == '\n' || c == '\r' || c == '\t'))
			fprintf(out, "&#%d;", c);
		else if (c >= 0x20 || c == '\n' || c == '\t' || c == '\r')
			fputc(c, out);
	}
}

/* <name>text</name> on a line of its own, indented for a test case. */
static void xml_element(FILE *out, const char *name, const char *text)
{
	fprintf(out, "      <%s>", name);
	xml_text(out, text, false);
	fprintf(out, "</%s>\n", name);
}

/*
 * What a run came to, in plain text, for the build test case (GitLab shows
 * a test case's output, never a suite's): the final score, why it is
 * provisional, lateness, the build.
 */
static char *junit_summary(json_t *doc)
{
	json_t *build = json_object_get(doc, "build");
	struct strbuf sb = STRBUF_INIT;
	struct score_view view = doc_score_view(doc);
	char score[SCORE_TEXT_MAX];

	strbuf_addf(&sb, "%s, %s: %s; %s, mode %s\n", doc_str(doc, "lab"), doc_str(doc, "student"),
		    score_text(score, &view), doc_str(doc, "status"), doc_str(doc, "mode"));
	if (json_is_true(json_object_get(doc, "provisional")))
		strbuf_addf(&sb, "provisional: %s\n", *doc_str(doc, "status_reason")
								? doc_str(doc, "status_reason")
								: "a pre-check, not a grade");
	if (doc_late(doc, "days") > 0)
		strbuf_addf(&sb,
			    "submitted %s, %g day(s) late: %g points taken off the tests' %g\n",
			    doc_str(doc, "submitted_at"), doc_late(doc, "days"),
			    doc_late(doc, "penalty"), doc_num(doc, "score"));
	strbuf_addf(&sb, "build %s", doc_str(build, "status"));
	if (*doc_str(build, "message"))
		strbuf_addf(&sb, ": %s", doc_str(build, "message"));
	strbuf_addstr(&sb, "\n");
	return strbuf_detach(&sb);
}

/* classname of a test case: the lab, then the student in a class's export
 * (GitLab keys a test by classname and name, and shows only classname, as
 * the suite), then the part */
static void junit_classname(FILE *out, json_t *doc, const char *part, bool with_student)
{
	xml_text(out, doc_str(doc, "lab"), true);
	if (with_student) {
		fputc('.', out);
		xml_text(out, doc_str(doc, "student"), true);
	}
	if (part) {
		fputc('.', out);
		xml_text(out, part, true);
	}
}

/* The build as a test case: failed, with nvcc's message and the compiler's
 * output, when the submission did not build; the run's summary as its output. */
static void junit_build_case(FILE *out, json_t *doc, bool with_student)
{
	json_t *build = json_object_get(doc, "build");
	const char *st = doc_str(build, "status"), *msg = doc_str(build, "message");
	double secs = doc_num(build, "seconds");
	char *summary = junit_summary(doc);

	fputs("    <testcase classname=\"", out);
	junit_classname(out, doc, NULL, with_student);
	fprintf(out, "\" name=\"build\" time=\"%.3f\">\n", isfinite(secs) ? secs : 0.0);
	if (strcmp(st, "ok")) {
		fputs("      <failure message=\"", out);
		xml_text(out, st, true);
		if (*msg) {
			fputs(": ", out);
			xml_text(out, msg, true);
		}
		fputs("\" type=\"", out);
		xml_text(out, st, true);
		fputs("\">", out);
		xml_text(out, *msg ? msg : st, false);
		fputs("\n\n", out);
		xml_text(out, doc_str(build, "log"), false);
		fputs("</failure>\n", out);
	}
	xml_element(out, "system-out", summary);
	fputs("    </testcase>\n", out);
	free(summary);
}

/*
 * One test as a test case. GitLab shows only the text of <failure>, <error>
 * and <skipped>, and Jenkins their message attribute, text and <system-out>:
 * the points go in each, the message in the element that marks the verdict
 * (in <system-out> for a pass).
 */
static void junit_test_case(FILE *out, json_t *doc, json_t *t, bool with_student)
{
	struct test_view v = doc_test_view(doc, t);
	const char *st = v.status, *msg = v.message;
	double secs = doc_num(t, "seconds");
	bool bonus = v.bonus, pending = v.pending || v.later;
	const char *tag = !strcmp(st, "fail")					 ? "failure"
			  : !strcmp(st, "crash") || !strcmp(st, "timeout") ? "error"
			  : !strcmp(st, "not-run")				 ? "skipped"
										 : NULL;
	char *points = pending ? xasprintf("worth %g%s points, %s", v.max_points,
					   bonus ? " bonus" : "",
					   v.later ? "graded later, by the course's grader"
						   : "not counted in this provisional score")
			       : xasprintf("%g of %g%s points", v.points, v.max_points,
					   bonus ? " bonus" : "");
	char *line = xasprintf("%s: %s", st, points);

	fputs("    <testcase classname=\"", out);
	junit_classname(out, doc, v.part, with_student);
	fputs("\" name=\"", out);
	xml_text(out, v.name, true);
	fprintf(out, "\" time=\"%.3f\">\n", isfinite(secs) ? secs : 0.0);
	if (tag && !strcmp(tag, "skipped")) {
		/* not-run messages say "not run: why" */
		fputs("      <skipped message=\"", out);
		xml_text(out, *msg ? msg : "not run", true);
		fputs("\">", out);
		xml_text(out, *msg ? msg : "not run", false);
		fputs(" (", out);
		xml_text(out, points, false);
		fputs(")</skipped>\n", out);
	} else if (tag) {
		fprintf(out, "      <%s message=\"", tag);
		xml_text(out, line, true);
		fputs("\" type=\"", out);
		xml_text(out, st, true);
		fputs("\">", out);
		xml_text(out, line, false);
		if (*msg) {
			fputc('\n', out);
			xml_text(out, msg, false);
		}
		fprintf(out, "</%s>\n", tag);
	}
	if (!tag && *msg) {
		char *text = xasprintf("%s\n%s", line, msg);
		xml_element(out, "system-out", text);
		free(text);
	} else {
		xml_element(out, "system-out", line);
	}
	fputs("    </testcase>\n", out);
	free(line);
	free(points);
}

/* A property of a test suite (Jenkins keeps them; GitLab reads none). */
static void junit_property(FILE *out, const char *name, const char *value)
{
	fprintf(out, "      <property name=\"%s\" value=\"", name);
	xml_text(out, value, true);
	fputs("\"/>\n", out);
}

struct junit_counts {
	size_t tests, failures, errors, skipped;
	double seconds;
};

static void junit_count(json_t *doc, struct junit_counts *c)
{
	json_t *t;
	size_t i;

	c->tests += 1 + json_array_size(json_object_get(doc, "tests"));
	c->failures += !doc_built(doc);
	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		const char *st = doc_str(t, "status");
		c->failures += !strcmp(st, "fail");
		c->errors += !strcmp(st, "crash") || !strcmp(st, "timeout");
		c->skipped += !strcmp(st, "not-run");
	}
	if (isfinite(doc_num(doc, "seconds")))
		c->seconds += doc_num(doc, "seconds");
}

void export_junit(FILE *out, json_t *const *docs, const long long *runs, size_t n,
		  bool with_student)
{
	struct junit_counts all = {0};

	for (size_t d = 0; d < n; d++)
		junit_count(docs[d], &all);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cudalab ", out);
	xml_text(out, n ? doc_str(docs[0], "lab") : "", true);
	fprintf(out,
		"\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
		all.tests, all.failures, all.errors, all.skipped, all.seconds);
	for (size_t d = 0; d < n; d++) {
		json_t *doc = docs[d], *t;
		struct junit_counts c = {0};
		size_t i;
		char buf[64];

		junit_count(doc, &c);
		fputs("  <testsuite name=\"", out);
		xml_text(out, doc_str(doc, "lab"), true);
		fputs(".", out);
		xml_text(out, doc_str(doc, "student"), true);
		fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
			"time=\"%.3f\" timestamp=\"", c.tests, c.failures, c.errors, c.skipped,
			c.seconds);
		xml_text(out, doc_str(doc, "started_at"), true);
		fputs("\">\n    <properties>\n", out);
		junit_property(out, "student", doc_str(doc, "student"));
		snprintf(buf, sizeof(buf), "%lld", runs[d]);
		junit_property(out, "run", buf);
		junit_property(out, "mode", doc_str(doc, "mode"));
		junit_property(out, "status", doc_str(doc, "status"));
		bool provisional = json_is_true(json_object_get(doc, "provisional"));
		junit_property(out, "provisional", provisional ? "true" : "false");
		snprintf(buf, sizeof(buf), "%g", doc_final_score(doc));
		junit_property(out, "final_score", buf);
		snprintf(buf, sizeof(buf), "%g", doc_num(doc, "max_score"));
		junit_property(out, "max_score", buf);
		snprintf(buf, sizeof(buf), "%g", doc_num(doc, "bonus_score"));
		junit_property(out, "bonus_score", buf);
		fputs("    </properties>\n", out);
		junit_build_case(out, doc, with_student);
		json_array_foreach(json_object_get(doc, "tests"), i, t)
			junit_test_case(out, doc, t, with_student);
		fputs("  </testsuite>\n", out);
	}
	fputs("</testsuites>\n", out);
}
