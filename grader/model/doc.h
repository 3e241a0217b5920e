/*
 * doc.h - reading a result document (docs/result-document.md) back:
 * what every reader of stored runs (exports, regrade, a class's summary)
 * takes from it, the same way.
 */
#ifndef DOC_H
#define DOC_H

#include <jansson.h>

/* o's string key; "" when it has none. */
const char *doc_str(json_t *o, const char *key);
/* o's number key; NAN when it has none. */
double doc_num(json_t *o, const char *key);
/* A number of the late policy's verdict ("days", "penalty"); 0 where it was not applied. */
double doc_late(json_t *doc, const char *key);
/* The student's score (result.h's final_score); documents before deadlines have no late verdict. */
double doc_final_score(json_t *doc);
/* The score as people read it (result.h's score_view), from the document alone. */
struct score_view doc_score_view(json_t *doc);

#endif
