/*
 * export.c - the formats grades leave the gradebook in (export.h).
 *
 * Owns: the mapping from the result document (README: "The result
 * document") to CSV, Gradescope's results.json and JUnit XML. Knows nothing
 * of SQLite or of files.
 */
#include "export.h"

#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A CSV field, quoted when it must be (RFC 4180). */
static void csv_field(FILE *out, const char *s, bool last)
{
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputc(last ? '\n' : ',', out);
}

static void csv_number(FILE *out, double v, bool last)
{
	char buf[64] = "";
	if (isfinite(v))
		snprintf(buf, sizeof(buf), "%g", v);
	csv_field(out, buf, last);
}

/* "part/name" of each test of doc */
static char *test_key(json_t *t)
{
	return xasprintf("%s/%s", str(t, "part"), str(t, "name"));
}

/* The student's score: the tests' less lateness (documents before deadlines: the tests'). */
static double final_score(json_t *doc)
{
	json_t *v = json_object_get(doc, "final_score");
	return v ? json_number_value(v) : num(doc, "score");
}

/* A number of the late policy's verdict; 0 where it was not applied. */
static double late_num(json_t *doc, const char *key)
{
	json_t *late = json_object_get(doc, "late");
	return json_is_true(json_object_get(late, "applied")) ? num(late, key) : 0;
}

void export_csv(FILE *out, json_t *const *docs, const long long *runs, size_t n)
{
	static const char *const fixed[] = {"student", "score", "max_score", "bonus_score",
					    "final_score", "late_days", "late_penalty",
					    "submitted_at", "status", "mode", "provisional", "build", "run",
					    "started_at", "lab_version"};
	json_t *columns = n ? json_object_get(docs[0], "tests") : NULL;
	size_t ncol = json_array_size(columns), i;
	json_t *t;

	for (size_t f = 0; f < sizeof(fixed) / sizeof(fixed[0]); f++)
		csv_field(out, fixed[f], false);
	json_array_foreach(columns, i, t) {
		char *key = test_key(t);
		csv_field(out, key, i + 1 == ncol);
		free(key);
	}
	if (!ncol)
		fputc('\n', out);
	for (size_t d = 0; d < n; d++) {
		json_t *doc = docs[d], *tests = json_object_get(doc, "tests");
		char run[32];
		snprintf(run, sizeof(run), "%lld", runs[d]);
		csv_field(out, str(doc, "student"), false);
		csv_number(out, num(doc, "score"), false);
		csv_number(out, num(doc, "max_score"), false);
		csv_number(out, num(doc, "bonus_score"), false);
		csv_number(out, final_score(doc), false);
		csv_number(out, late_num(doc, "days"), false);
		csv_number(out, late_num(doc, "penalty"), false);
		csv_field(out, str(doc, "submitted_at"), false);
		csv_field(out, str(doc, "status"), false);
		csv_field(out, str(doc, "mode"), false);
		csv_field(out, json_is_true(json_object_get(doc, "provisional")) ? "yes" : "no", false);
		csv_field(out, str(json_object_get(doc, "build"), "status"), false);
		csv_field(out, run, false);
		csv_field(out, str(doc, "started_at"), false);
		csv_field(out, str(doc, "lab_version"), !ncol);
		/* by the columns' names: another lab version may list other tests */
		json_array_foreach(columns, i, t) {
			char *key = test_key(t);
			double pts = NAN;
			size_t j;
			json_t *u;
			json_array_foreach(tests, j, u) {
				char *k = test_key(u);
				if (!strcmp(k, key))
					pts = num(u, "points");
				free(k);
			}
			csv_number(out, pts, i + 1 == ncol);
			free(key);
		}
	}
}

char *export_gradescope(json_t *doc)
{
	json_t *tests = json_array(), *t, *build = json_object_get(doc, "build");
	size_t i;
	struct strbuf head = STRBUF_INIT;

	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		const char *status = str(t, "status"), *msg = str(t, "message");
		char *name = xasprintf("%s: %s", str(t, "part"), str(t, "name"));
		char *output = *msg ? xasprintf("%s: %s", status, msg) : xstrdup(status);
		json_array_append_new(tests,
				      json_pack("{s:s, s:s, s:f, s:f, s:s, s:s, s:s}", "name", name,
						"name_format", "text", "score", num(t, "points"),
						"max_score", num(t, "max_points"), "status",
						!strcmp(status, "pass") ? "passed" : "failed", "output",
						output, "visibility", "visible"));
		free(name);
		free(output);
	}
	strbuf_addf(&head, "%s: %s (%s)\n", str(doc, "lab"), str(doc, "status"), str(doc, "mode"));
	if (*str(build, "message"))
		strbuf_addf(&head, "build %s: %s\n", str(build, "status"), str(build, "message"));
	if (*str(doc, "status_reason"))
		strbuf_addf(&head, "%s\n", str(doc, "status_reason"));
	if (late_num(doc, "days") > 0)
		strbuf_addf(&head, "submitted %s, %g day(s) late: %g points taken off\n",
			    str(doc, "submitted_at"), late_num(doc, "days"), late_num(doc, "penalty"));
	json_t *r = json_pack("{s:f, s:f, s:s, s:s, s:s, s:s, s:o}", "score", final_score(doc),
			      "execution_time", num(doc, "seconds"), "output",
			      head.buf ? head.buf : "", "output_format", "text", "visibility",
			      "visible", "stdout_visibility", "hidden", "tests", tests);
	char *s = json_dumps(r, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(r);
	strbuf_release(&head);
	return s;
}

/* Text for XML: the five special characters escaped, and any control
 * character XML 1.0 cannot hold dropped. */
static void xml_text(FILE *out, const char *s)
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
		else if (c >= 0x20 || c == '\n' || c == '\t' || c == '\r')
			fputc(c, out);
	}
}

void export_junit(FILE *out, json_t *const *docs, size_t n)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n", out);
	for (size_t d = 0; d < n; d++) {
		json_t *doc = docs[d], *tests = json_object_get(doc, "tests"), *t;
		size_t i, failures = 0, errors = 0, skipped = 0;
		json_array_foreach(tests, i, t) {
			const char *st = str(t, "status");
			failures += !strcmp(st, "fail");
			errors += !strcmp(st, "crash") || !strcmp(st, "timeout");
			skipped += !strcmp(st, "not-run");
		}
		fputs("  <testsuite name=\"", out);
		xml_text(out, str(doc, "lab"));
		fputs(".", out);
		xml_text(out, str(doc, "student"));
		fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
			"time=\"%.3f\" timestamp=\"", json_array_size(tests), failures, errors, skipped,
			isfinite(num(doc, "seconds")) ? num(doc, "seconds") : 0.0);
		xml_text(out, str(doc, "started_at"));
		fputs("\">\n", out);
		json_array_foreach(tests, i, t) {
			const char *st = str(t, "status"), *msg = str(t, "message");
			double secs = num(t, "seconds");
			fputs("    <testcase classname=\"", out);
			xml_text(out, str(doc, "lab"));
			fputc('.', out);
			xml_text(out, str(t, "part"));
			fputs("\" name=\"", out);
			xml_text(out, str(t, "name"));
			fprintf(out, "\" time=\"%.3f\"", isfinite(secs) ? secs : 0.0);
			const char *tag = !strcmp(st, "fail") ? "failure"
					  : !strcmp(st, "crash") || !strcmp(st, "timeout") ? "error"
					  : !strcmp(st, "not-run") ? "skipped" : NULL;
			if (!tag) {
				fputs("/>\n", out);
				continue;
			}
			fprintf(out, ">\n      <%s message=\"", tag);
			xml_text(out, st);
			fprintf(out, ": %g of %g points\">", num(t, "points"), num(t, "max_points"));
			xml_text(out, msg);
			fprintf(out, "</%s>\n    </testcase>\n", tag);
		}
		fputs("  </testsuite>\n", out);
	}
	fputs("</testsuites>\n", out);
}
