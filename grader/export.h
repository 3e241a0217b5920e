/*
 * export.h - grades out of the gradebook, from the result documents of the
 * runs (result_json): CSV for an LMS, Gradescope's results.json, JUnit XML.
 * Pure: the caller reads the gradebook and writes the files.
 */
#ifndef EXPORT_H
#define EXPORT_H

#include <jansson.h>
#include <stdio.h>

/*
 * One row per document: student, score, max_score, bonus_score, status,
 * mode, provisional, build, run, started_at, lab_version, then the points of
 * each test ("part/name"), the columns those of the first document.
 */
void export_csv(FILE *out, json_t *const *docs, const long long *runs, size_t n);

/*
 * Gradescope's results.json for one document: score, execution_time, output,
 * visibility, stdout_visibility and one test per test (name, name_format,
 * score, max_score, status passed/failed, output). Allocated text.
 */
char *export_gradescope(json_t *doc);

/*
 * One JUnit XML document: a <testsuite> per document (the student's run),
 * a <testcase> per test, failure for a failed test, error for a crash or
 * timeout, skipped for a test not run.
 */
void export_junit(FILE *out, json_t *const *docs, size_t n);

#endif
