/*
 * expect.h - holding a graded run to an expect file: the verdict a TA
 * wrote for a fixture, a corpus case or a red-team case before it was
 * graded (docs/lab-authoring.md, "The expect file").
 *
 * Owns: the expect file's lines and what each asks of a result document.
 * Must not: grade, or read anything but the document and what the caller
 * hands it.
 */
#ifndef EXPECT_H
#define EXPECT_H

#include "util.h"

#include <jansson.h>

enum expect_outcome {
	EXPECT_HOLDS,     /* every line holds */
	EXPECT_DIFFERS,   /* a line does not: findings say which, one a line */
	EXPECT_SKIPPED,   /* the case cannot be held to it here (a "sandboxed" case
			     graded unsandboxed): findings say why */
};

struct expect_context {
	const char *root;             /* the grader's checkout: "conceals root" */
	const char *const *secrets;   /* values no text of the run may hold ("conceals
					 secrets"), NULL-ended; NULL: none to look for */
	const char *report;           /* the run's report as printed: "no-control";
					 NULL: that line cannot be checked */
};

/*
 * Holds doc (a result document) to expect (the file's text). An emulated
 * run reads as the expect file means it: an exit of 0 or 1 as 4 (a run that
 * built is never a grade there), and a timed test of a part that passed as
 * not-run ("timing needs a GPU"), unless the line's text starts with "not
 * timed".
 */
/* Whether a line of expect is word alone ("sandboxed", "processes-limited"). */
bool expect_says(const char *expect, const char *word);

enum expect_outcome expect_check(json_t *doc, const char *expect,
				 const struct expect_context *cx, struct strlist *findings);

#endif
