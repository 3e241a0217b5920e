/*
 * doc.c - reading a result document back (doc.h). Knows the document's
 * fields, nothing of where it was stored.
 */
#include "doc.h"

#include "result.h"

#include <math.h>

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
