/*
 * htmlreport.h - one run's page, a self-contained HTML file derived from its
 * result document (README: "Reports (HTML)").
 */
#ifndef HTMLREPORT_H
#define HTMLREPORT_H

#include "util.h"

#include <jansson.h>

/*
 * Appends s to sb as HTML text, safe in element content and in quoted
 * attribute values: & < > " ' become entities. Every string of a document
 * goes through it: student ids, kernel names and compiler messages come
 * from submissions.
 */
void strbuf_add_html(struct strbuf *sb, const char *s);
/* The same, allocated. */
char *html_escape(const char *s);

/*
 * s with every character outside [A-Za-z0-9._-] made '_' (allocated): a
 * student's id in a file name, a kernel's name in a plot's data.
 */
char *safe_name(const char *s);

/*
 * The page of one run (run_id its id in the gradebook, 0 when it has none)
 * from its result document, allocated in *page. Timed kernels get a bar
 * plot drawn by gnuplot; where gnuplot is missing or fails, the page says
 * so in its place. -1 with an error only for the grader's own failures.
 */
int html_report(json_t *doc, long long run_id, char **page);

#endif
