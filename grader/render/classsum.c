/*
 * classsum.c - the table a class's grading prints at its end (classsum.h).
 *
 * Owns: a row per submission (score, status, build, mode, seconds, run),
 * the totals, the time the gradings spent in each phase, and how long the
 * GPU was in use. Must not: grade, or know how the class was graded (its
 * workers and retries are batch.c's); it reads what each run's document
 * says.
 */
#include "classsum.h"

#include "doc.h"
#include "result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *class_doc_build(json_t *doc)
{
	return doc_str(json_object_get(doc, "build"), "status");
}

static double doc_phase(json_t *doc, const char *name)
{
	double v = doc_num(json_object_get(doc, "phases"), name);
	return isnan(v) ? 0 : v;
}

/* The same, of the tests' own share (phases.in_tests). */
static double doc_in_tests(json_t *doc, const char *name)
{
	double v = doc_num(json_object_get(json_object_get(doc, "phases"), "in_tests"), name);
	return isnan(v) ? 0 : v;
}

/* The seconds the safety stage's checks took (safety.seconds), 0 where none ran. */
static double doc_safety(json_t *doc)
{
	double v = doc_num(json_object_get(doc, "safety"), "seconds");
	return isnan(v) ? 0 : v;
}

static int by_start(const void *a, const void *b)
{
	const double *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Seconds in which some grading had the GPU: the union of their intervals. */
static double gpu_busy(const struct class_row *rows, size_t n)
{
	double (*iv)[2] = xcalloc(n ? n : 1, sizeof(*iv)), busy = 0, from = 0, to = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].state == CLASS_ROW_GRADED) {
			json_t *held = json_object_get(rows[i].doc, "gpu_held");
			if (!json_is_object(held))
				continue;
			iv[k][0] = doc_num(held, "from");
			iv[k++][1] = doc_num(held, "to");
		}
	qsort(iv, k, sizeof(*iv), by_start);
	for (size_t i = 0; i < k; i++) {
		if (i && iv[i][0] <= to) {
			if (iv[i][1] > to)
				to = iv[i][1];
			continue;
		}
		busy += to - from;
		from = iv[i][0];
		to = iv[i][1];
	}
	busy += to - from;
	free(iv);
	return busy;
}

void class_summary_print(const struct class_row *rows, size_t n, const struct class_totals *t)
{
	int sw = 7, cw = 5;
	double phase[5] = {0}, in_tests[5] = {0}, safety = 0;
	size_t graded = 0, not_built = 0, gpu_runs = 0, provisional = 0;
	/* the score column as wide as its widest: a score is written one way everywhere */
	char (*scores)[SCORE_TEXT_MAX] = xcalloc(n ? n : 1, sizeof(*scores));
	/* a student's name is a folder's, theirs to choose: shown as visible_text shows it */
	char **names = xcalloc(n ? n : 1, sizeof(*names));

	for (size_t i = 0; i < n; i++) {
		names[i] = visible_str(rows[i].student, true);
		if ((int)strlen(names[i]) > sw)
			sw = (int)strlen(names[i]);
		if (rows[i].state != CLASS_ROW_GRADED)
			continue;
		struct score_view view = doc_score_view(rows[i].doc);
		if ((int)strlen(score_text(scores[i], &view)) > cw)
			cw = (int)strlen(scores[i]);
	}
	printf("\n%-*s %-*s  %-10s %-13s %-8s %7s  %s\n", sw, "student", cw, "score", "status",
	       "build", "mode", "seconds", "run");
	for (size_t i = 0; i < n; i++) {
		const struct class_row *it = &rows[i];
		if (it->state == CLASS_ROW_SKIPPED) {
			printf("%-*s %-*s  %-10s %-13s %-8s %7s  %s\n", sw, names[i], cw,
			       "-", "skipped", "-", "-", "-", "already in the gradebook");
		} else if (it->state == CLASS_ROW_GRADED) {
			static const char *const phases[] = {"build", "tests", "timing", "profile",
							     "gpu_wait"};
			json_t *doc = it->doc;
			const char *mode = doc_str(doc, "mode");
			printf("%-*s %-*s  %-10s %-13s %-8s %7.1f  %lld\n", sw, names[i],
			       cw, scores[i], doc_str(doc, "status"), class_doc_build(doc), mode,
			       doc_num(doc, "seconds"), it->run);
			graded++;
			not_built += strcmp(class_doc_build(doc), "ok") != 0;
			provisional += json_is_true(json_object_get(doc, "provisional"));
			gpu_runs += !strcmp(mode, "gpu");
			static const char *const shares[] = {"setup", "start", "calls", "requests",
							     "counted"};
			safety += doc_safety(doc);
			for (int p = 0; p < 5; p++) {
				phase[p] += doc_phase(doc, phases[p]);
				in_tests[p] += doc_in_tests(doc, shares[p]);
			}
		} else {
			printf("%-*s %-*s  %-10s %-13s %-8s %7s  %s\n", sw, names[i], cw,
			       "-", "SYSTEM", "-", "-", "-", it->why ? it->why : "not graded");
		}
	}
	free(scores);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	printf("\n%zu graded", graded);
	if (t->skipped)
		printf(", %zu skipped (already in the gradebook)", t->skipped);
	if (t->failed)
		printf(", %zu NOT graded (system errors: not charged to the students; run again "
		       "with --resume)", t->failed);
	printf("; %zu did not build", not_built);
	if (provisional)
		printf("; %zu provisional, not grades", provisional);
	printf("\n%.1f s wall for %zu gradings (%u at once, %s): %.1f graded per minute\n", t->wall,
	       graded + t->failed, t->jobs, t->where, t->wall > 0 ? graded / t->wall * 60 : 0);
	if (graded)
		printf("time of all gradings: build %.1f s, tests %.1f s (the safety stage's "
		       "checks %.1f s of it, %s), timing %.1f s, profile %.1f s, waiting for "
		       "the GPU %.1f s\n",
		       phase[0], phase[1], safety,
		       gpu_runs ? "beside the tests on a GPU" : "after the tests emulated",
		       phase[2], phase[3], phase[4]);
	if (graded && in_tests[4] > 0)
		printf("in the tests: setting up data and expected values %.1f s; over the %.0f "
		       "tests that passed, starting the submission's program %.1f s, its "
		       "launchers' calls %.1f s, other requests to it (any wait for the GPU "
		       "among them) %.1f s\n",
		       in_tests[0], in_tests[4], in_tests[1], in_tests[2], in_tests[3]);
	if (gpu_runs && t->wall > 0) {
		double busy = gpu_busy(rows, n);
		printf("the GPU was in use %.1f s of %.1f s (%.0f %%), idle %.1f s\n", busy, t->wall,
		       100 * busy / t->wall, t->wall - busy);
	}
}
