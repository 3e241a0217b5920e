/*
 * report.h - the terminal report of a result, for a student or a TA.
 */
#ifndef REPORT_H
#define REPORT_H

#include "result.h"

#include <jansson.h>
#include <stdio.h>

/* The table of parts and tests, every failure's message, and the total. */
void report_result(FILE *out, const struct result *r);
/* The same, of a result document (a stored run's): what grading it printed. */
void report_document(FILE *out, json_t *doc);

#endif
