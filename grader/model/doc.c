/*
 * doc.c - reading a result document back (doc.h). Knows the document's
 * fields, nothing of where it was stored.
 */
#include "doc.h"

#include "result.h"

#include <math.h>
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
	if (strcmp(doc_str(json_object_get(doc, "build"), "status"), "ok"))
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
