/*
 * record.h - what becomes of a graded run: the report on the terminal, the
 * result document in a file, the run in the gradebook. One path for
 * `cudalab test`, `grade`, and each grading of a class or a regrade.
 */
#ifndef RECORD_H
#define RECORD_H

#include "result.h"

struct record_opts {
	bool report;               /* print the report on stdout */
	const char *json_path;     /* NULL: do not write the document */
	const char *db_path;       /* NULL: do not store */
	const char *html_path;     /* NULL: do not write the run's page (htmlreport.h) */
};

/*
 * Reports r, writes its document, stores it in the gradebook (its schema
 * under root/db) and writes its HTML page, as ro says; *run_id gets the stored run's id (-1 when not
 * stored). Returns the exit code (docs/exit-codes.md): r's own, or
 * EXIT_INTERNAL when the document or the run could not be written.
 */
int record_run(const struct result *r, const char *root, const struct record_opts *ro,
	       long long *run_id);

#endif
