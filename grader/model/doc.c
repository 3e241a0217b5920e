/*
 * doc.c - reading a result document back (doc.h). Knows the document's
 * fields, nothing of where it was stored.
 */
#include "doc.h"

#include "result.h"

#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *doc_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

double doc_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

double doc_late(json_t *doc, const char *key)
{
	json_t *late = json_object_get(doc, "late");
	return json_is_true(json_object_get(late, "applied")) ? doc_num(late, key) : 0;
}

bool doc_built(json_t *doc)
{
	return !strcmp(doc_str(json_object_get(doc, "build"), "status"), "ok");
}

double doc_final_score(json_t *doc)
{
	return final_score(doc_num(doc, "score"), doc_late(doc, "penalty"));
}

struct score_view doc_score_view(json_t *doc)
{
	json_t *t;
	size_t i;
	struct score_view s = {
		.final = doc_final_score(doc),
		.max = doc_num(doc, "max_score"),
		.bonus = doc_num(doc, "bonus_score"),
		.late = doc_late(doc, "days") > 0,
		.late_penalty = doc_late(doc, "penalty"),
		.pending_gpu = mode_pending_gpu(run_mode_of(doc_str(doc, "mode"))),
	};
	/* as result_score_view: nothing pending of a submission that did not build */
	if (!doc_built(doc))
		return s;
	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		if (strcmp(doc_str(t, "status"), "not-run") ||
		    json_is_true(json_object_get(t, "bonus")))
			continue;
		if (json_is_true(json_object_get(t, "held_back"))) {
			s.later += doc_num(t, "max_points");
			s.nlater++;
		} else {
			s.pending += doc_num(t, "max_points");
		}
	}
	return s;
}

struct test_view doc_test_view(json_t *doc, json_t *test)
{
	struct test_view v = {
		.test = test,
		.part = doc_str(test, "part"),
		.name = doc_str(test, "name"),
		.kind = doc_str(test, "kind"),
		.status = doc_str(test, "status"),
		.message = doc_str(test, "message"),
		.points = doc_num(test, "points"),
		.max_points = doc_num(test, "max_points"),
		.bonus = json_is_true(json_object_get(test, "bonus")),
		.later = json_is_true(json_object_get(test, "held_back")),
	};
	v.pending = !v.later && !strcmp(v.status, "not-run") &&
		    doc_built(doc) &&
		    mode_pending_gpu(run_mode_of(doc_str(doc, "mode")));
	return v;
}

const char *test_view_verdict(const struct test_view *v)
{
	return v->later ? "graded later" : v->pending ? "pending (GPU)" : v->status;
}

const char *test_view_points(char *buf, size_t len, const struct test_view *v)
{
	if (v->later || v->pending)
		snprintf(buf, len, "-/%g", v->max_points);
	else
		snprintf(buf, len, "%g/%g", v->points, v->max_points);
	return buf;
}

/* The tests of doc of kind, in its order, into a new array (the caller frees it): how many. */
static size_t tests_of_kind(json_t *doc, const char *kind, json_t ***found)
{
	json_t *t;
	size_t i, n = 0;

	*found = xcalloc(json_array_size(json_object_get(doc, "tests")) + 1, sizeof(**found));
	json_array_foreach(json_object_get(doc, "tests"), i, t)
		if (!strcmp(doc_str(t, "kind"), kind))
			(*found)[n++] = t;
	return n;
}

size_t doc_timing_rows(json_t *doc, struct timing_row **rows)
{
	json_t **tests;
	size_t n = tests_of_kind(doc, "timing", &tests);

	*rows = xcalloc(n + 1, sizeof(**rows));
	for (size_t i = 0; i < n; i++) {
		json_t *m = json_object_get(tests[i], "timing");
		(*rows)[i] = (struct timing_row){
			.test = doc_test_view(doc, tests[i]),
			.measured = json_is_true(json_object_get(m, "measured")),
			.flagged = json_is_true(json_object_get(m, "flagged")),
			.subject = doc_str(m, "subject"),
			.baseline = doc_str(m, "baseline"),
			.student_ms = doc_num(m, "student_ms"),
			.reference_ms = doc_num(m, "reference_ms"),
			.ratio = doc_num(m, "ratio"),
			.student_gflops = doc_num(m, "student_gflops"),
			.reference_gflops = doc_num(m, "reference_gflops"),
			.student_gbs = doc_num(m, "student_gbs"),
			.reference_gbs = doc_num(m, "reference_gbs"),
		};
	}
	free(tests);
	return n;
}

size_t doc_sectors_rows(json_t *doc, struct sectors_row **rows)
{
	json_t **tests;
	size_t n = tests_of_kind(doc, "sectors", &tests);

	*rows = xcalloc(n + 1, sizeof(**rows));
	for (size_t i = 0; i < n; i++) {
		json_t *m = json_object_get(tests[i], "sectors");
		(*rows)[i] = (struct sectors_row){
			.test = doc_test_view(doc, tests[i]),
			.measured = json_is_true(json_object_get(m, "measured")),
			.call = doc_str(m, "call"),
			.source = doc_str(m, "source"),
			.load_per_request = doc_num(m, "load_sectors_per_request"),
			.store_per_request = doc_num(m, "store_sectors_per_request"),
			.load_requests = doc_num(m, "load_requests"),
			.store_requests = doc_num(m, "store_requests"),
		};
	}
	free(tests);
	return n;
}
