/*
 * export.c - the formats grades leave the gradebook in (export.h).
 *
 * Owns: the mapping from the result document (README: "The result
 * document") to CSV, Gradescope's results.json and JUnit XML. Knows nothing
 * of SQLite or of files.
 */
#include "export.h"

#include "doc.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	return xasprintf("%s/%s", doc_str(t, "part"), doc_str(t, "name"));
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
		csv_field(out, doc_str(doc, "student"), false);
		csv_number(out, doc_num(doc, "score"), false);
		csv_number(out, doc_num(doc, "max_score"), false);
		csv_number(out, doc_num(doc, "bonus_score"), false);
		csv_number(out, doc_final_score(doc), false);
		csv_number(out, doc_late(doc, "days"), false);
		csv_number(out, doc_late(doc, "penalty"), false);
		csv_field(out, doc_str(doc, "submitted_at"), false);
		csv_field(out, doc_str(doc, "status"), false);
		csv_field(out, doc_str(doc, "mode"), false);
		csv_field(out, json_is_true(json_object_get(doc, "provisional")) ? "yes" : "no", false);
		csv_field(out, doc_str(json_object_get(doc, "build"), "status"), false);
		csv_field(out, run, false);
		csv_field(out, doc_str(doc, "started_at"), false);
		csv_field(out, doc_str(doc, "lab_version"), !ncol);
		/* by the columns' names: another lab version may list other tests */
		json_array_foreach(columns, i, t) {
			char *key = test_key(t);
			double pts = NAN;
			size_t j;
			json_t *u;
			json_array_foreach(tests, j, u) {
				char *k = test_key(u);
				if (!strcmp(k, key))
					pts = doc_num(u, "points");
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
		const char *status = doc_str(t, "status"), *msg = doc_str(t, "message");
		char *name = xasprintf("%s: %s", doc_str(t, "part"), doc_str(t, "name"));
		char *output = *msg ? xasprintf("%s: %s", status, msg) : xstrdup(status);
		json_array_append_new(tests,
				      json_pack("{s:s, s:s, s:f, s:f, s:s, s:s, s:s}", "name", name,
						"name_format", "text", "score", doc_num(t, "points"),
						"max_score", doc_num(t, "max_points"), "status",
						!strcmp(status, "pass") ? "passed" : "failed", "output",
						output, "visibility", "visible"));
		free(name);
		free(output);
	}
	strbuf_addf(&head, "%s: %s (%s)\n", doc_str(doc, "lab"), doc_str(doc, "status"),
		    doc_str(doc, "mode"));
	if (*doc_str(build, "message"))
		strbuf_addf(&head, "build %s: %s\n", doc_str(build, "status"), doc_str(build, "message"));
	if (*doc_str(doc, "status_reason"))
		strbuf_addf(&head, "%s\n", doc_str(doc, "status_reason"));
	if (doc_late(doc, "days") > 0)
		strbuf_addf(&head, "submitted %s, %g day(s) late: %g points taken off\n",
			    doc_str(doc, "submitted_at"), doc_late(doc, "days"), doc_late(doc, "penalty"));
	json_t *r = json_pack("{s:f, s:f, s:s, s:s, s:s, s:s, s:o}", "score", doc_final_score(doc),
			      "execution_time", doc_num(doc, "seconds"), "output",
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
			const char *st = doc_str(t, "status");
			failures += !strcmp(st, "fail");
			errors += !strcmp(st, "crash") || !strcmp(st, "timeout");
			skipped += !strcmp(st, "not-run");
		}
		fputs("  <testsuite name=\"", out);
		xml_text(out, doc_str(doc, "lab"));
		fputs(".", out);
		xml_text(out, doc_str(doc, "student"));
		fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
			"time=\"%.3f\" timestamp=\"", json_array_size(tests), failures, errors, skipped,
			isfinite(doc_num(doc, "seconds")) ? doc_num(doc, "seconds") : 0.0);
		xml_text(out, doc_str(doc, "started_at"));
		fputs("\">\n", out);
		json_array_foreach(tests, i, t) {
			const char *st = doc_str(t, "status"), *msg = doc_str(t, "message");
			double secs = doc_num(t, "seconds");
			fputs("    <testcase classname=\"", out);
			xml_text(out, doc_str(doc, "lab"));
			fputc('.', out);
			xml_text(out, doc_str(t, "part"));
			fputs("\" name=\"", out);
			xml_text(out, doc_str(t, "name"));
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
			fprintf(out, ": %g of %g points\">", doc_num(t, "points"), doc_num(t, "max_points"));
			xml_text(out, msg);
			fprintf(out, "</%s>\n    </testcase>\n", tag);
		}
		fputs("  </testsuite>\n", out);
	}
	fputs("</testsuites>\n", out);
}
