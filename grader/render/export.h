/*
 * export.h - grades out of the gradebook, from the result documents of the
 * runs (result_json): CSV for an LMS, Gradescope's results.json, JUnit XML.
 * Pure: the caller reads the gradebook and writes the files.
 */
#ifndef EXPORT_H
#define EXPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * A header, then one row per document: student, score, max_score,
 * bonus_score, final_score, late_days, late_penalty, submitted_at, status,
 * mode, provisional, build, run, started_at, lab_version, the points of each
 * test ("part/name"), then each test's maximum ("part/name max"), the
 * columns those of the first document. RFC 4180: CRLF line ends, quotes
 * where needed; a text cell a spreadsheet would take for a formula gets a
 * leading single quote.
 */
void export_csv(FILE *out, json_t *const *docs, const long long *runs, size_t n);

/*
 * Gradescope's results.json for one document, run `run` of the gradebook
 * (docs/commands/export.md): the final score, a Markdown output that says what the
 * run was (a provisional pre-check, a build that failed, with the compiler's
 * output), extra_data (run, mode, provisional, seed, the files' sha256), a
 * "build" test, then each test with number, status, tags and visibility; a
 * bonus test is worth 0 (extra credit), and a test a provisional run could
 * not run has no score and no status. With leaderboard (the lab opts in:
 * leaderboard.h), Gradescope's leaderboard field too: the speed against the
 * reference first, then each timed kernel's rate, on a run that is ranked
 * (none on one that is not). Allocated text.
 */
char *export_gradescope(json_t *doc, long long run, bool leaderboard);

/*
 * Makes doc the students' view of the run: its hidden tests left out, and
 * its after_due tests unless due_passed (lab.conf's visibility, in each
 * test's "visibility"; a document without it is all visible). The scores
 * stay the run's: the grade counts every test. For a CSV or JUnit export
 * that students see (`cudalab export --for-students`); Gradescope applies
 * the visibility itself.
 */
void export_for_students(json_t *doc, bool due_passed);

/*
 * The name of a student's file in an export folder, without its extension:
 * the student's name with '/', '%', control characters and a leading '.'
 * written %XX, so it is one file in the folder, never hidden, and no two
 * students share one. Allocated.
 */
char *export_file_stem(const char *student);

/*
 * One JUnit XML document for the CI's test view (GitLab, Jenkins): a
 * <testsuite> per document (run runs[i]), a "build" test case that fails
 * with the compiler's output when the submission did not build and carries
 * the run's summary, then a test case per test: failure for a failed test,
 * error for a crash or timeout, skipped for a test not run, the points in
 * each and in <system-out>. with_student puts the student in every
 * classname (a class's export: GitLab keys tests by classname and name).
 */
void export_junit(FILE *out, json_t *const *docs, const long long *runs, size_t n,
		  bool with_student);

#endif
