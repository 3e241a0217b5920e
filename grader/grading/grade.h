/*
 * grade.h - grading one submission end to end: intake, build, audit, link,
 * run, check, score.
 */
#ifndef GRADE_H
#define GRADE_H

#include "config.h"
#include "grading.h"
#include "result.h"
#include "toolchain.h"

/*
 * Grades the submission in o->subdir against lab cfg, filling r. A student's
 * failure of any kind is recorded in r and returns 0; -1 is the grader's own
 * failure (r is then incomplete and must not be stored).
 */
int grade_submission(const struct toolchain *tc, const struct lab_config *cfg,
		     const struct grade_opts *o, struct result *r);

#endif
