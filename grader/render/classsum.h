/*
 * classsum.h - the summary table of a graded class, as `cudalab grade`
 * prints it on stdout.
 */
#ifndef CLASSSUM_H
#define CLASSSUM_H

#include <jansson.h>

#include <stddef.h>

/* One submission of a class, as its grading ended. */
enum class_row_state { CLASS_ROW_GRADED, CLASS_ROW_SKIPPED, CLASS_ROW_FAILED };
struct class_row {
	const char *student;
	enum class_row_state state;
	json_t *doc;      /* graded: its result document, as the gradebook holds it */
	long long run;    /* graded: its run's id */
	const char *why;  /* not graded: why (NULL: "not graded") */
};

/* The class as a whole. */
struct class_totals {
	size_t skipped, failed;  /* submissions already in the gradebook; not graded */
	double wall;             /* seconds, start to end */
	unsigned jobs;           /* gradings at once */
	const char *where;       /* where the tests ran ("on GPU 0") */
};

/* A run's build status ("ok", "compile-error", ...), from its document. */
const char *class_doc_build(json_t *doc);
/* The table of rows, then the totals, on stdout. */
void class_summary_print(const struct class_row *rows, size_t n, const struct class_totals *t);

#endif
