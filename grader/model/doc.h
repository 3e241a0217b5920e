/*
 * doc.h - reading a result document (docs/result-document.md) back:
 * what every reader of stored runs (exports, regrade, a class's summary)
 * takes from it, the same way.
 */
#ifndef DOC_H
#define DOC_H

#include <jansson.h>

#include <stdbool.h>
#include <stddef.h>

/* o's string key; "" when it has none. */
const char *doc_str(json_t *o, const char *key);
/* o's number key; NAN when it has none. */
double doc_num(json_t *o, const char *key);
/* A number of the late policy's verdict ("days", "penalty"); 0 where it was not applied. */
double doc_late(json_t *doc, const char *key);
/* Whether the run's submission built (build.status "ok"). */
bool doc_built(json_t *doc);
/* The student's score (result.h's final_score); documents before deadlines have no late verdict. */
double doc_final_score(json_t *doc);
/* The score as people read it (result.h's score_view), from the document alone. */
struct score_view doc_score_view(json_t *doc);

/*
 * One test as people read it, the same in every medium (the terminal
 * report, the run's page, the exports): a test of the course's that this
 * copy cannot run is "graded later", one that waits for a GPU run is
 * "pending (GPU)" (built, not run, only for want of a GPU), and neither has
 * lost its points.
 */
struct test_view {
	json_t *test;            /* its object in the document */
	const char *part, *name, *kind, *status, *message;
	double points, max_points;
	bool bonus;
	bool later;              /* held back: graded by the course */
	bool pending;            /* not run, waiting for a GPU run */
};
struct test_view doc_test_view(json_t *doc, json_t *test);
/* Its verdict: "graded later", "pending (GPU)", else its status. */
const char *test_view_verdict(const struct test_view *v);
/* Its points as "1.5/2.5", or "-/2.5" where they are not counted yet; into buf. */
const char *test_view_points(char *buf, size_t len, const struct test_view *v);

/* A timed test: what the timer measured (docs/timing.md). */
struct timing_row {
	struct test_view test;
	bool measured, flagged;
	const char *subject, *baseline;   /* "" where the part itself, against the reference */
	double student_ms, reference_ms, ratio;
	double student_gflops, reference_gflops, student_gbs, reference_gbs;   /* NAN: none */
};
/* The timed tests of doc, in its order, into a new array (the caller frees it): how many. */
size_t doc_timing_rows(json_t *doc, struct timing_row **rows);

/* A test of memory requests: the 32-byte sectors per warp-wide request counted. */
struct sectors_row {
	struct test_view test;
	bool measured;
	const char *call, *source;
	double load_per_request, store_per_request;   /* NAN: no request of the kind */
	double load_requests, store_requests;
};
size_t doc_sectors_rows(json_t *doc, struct sectors_row **rows);

#endif
