/*
 * htmlreport.h - one run's page, a self-contained HTML file derived from its
 * result document (docs/commands/report.md).
 */
#ifndef HTMLREPORT_H
#define HTMLREPORT_H

#include "db.h"
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
/* A submitted file's text, as the gradebook keeps it (file_contents). */
struct html_source {
	const char *name;    /* as the result document's files[] names it */
	const char *text;
	size_t len;
};

/* What a page made from the gradebook adds to the run's document. */
struct html_extras {
	/* the student's runs of the lab, newest first (db_list_runs), this one
	 * among them: a history table */
	const struct run_summary *hist;
	size_t nhist;
	/* the submitted files: shown with the lines that a message of the run
	 * names (NAME:LINE) marked */
	const struct html_source *sources;
	size_t nsources;
	/* the pseudonym the student is shown under on the lab's leaderboard
	 * (leaderboard.h); NULL: none */
	const char *board_name;
};

/* html_report with x (NULL: nothing more). */
int html_report_page(json_t *doc, long long run_id, const struct html_extras *x, char **page);

/*
 * Runs gnuplot on script, in a fresh folder holding data as the file
 * 'data'; the script writes 'plot.svg' (HTML_PLOT_TERMINAL). Returns 0 with
 * the SVG in *svg (allocated, from "<svg"), or -1 with *why (allocated)
 * saying why it could not be drawn: gnuplot missing or failing is a fact
 * for the page, not an error. Only our own text belongs in script; what
 * comes from a document reaches gnuplot through data, as numbers or
 * safe_name labels.
 */
int gnuplot_svg(const char *script, const char *data, char **svg, char **why);
/* The first lines of every plot's script: an SVG into plot.svg, labels as text. */
#define HTML_PLOT_TERMINAL                                                                         \
	"set terminal svg size 760,380 noenhanced font 'sans,11' background '#ffffff'\n"          \
	"set output 'plot.svg'\n"
/* A figure of gnuplot_svg's plot with caption, or of why it could not be drawn. */
void html_add_plot(struct strbuf *sb, const char *script, const char *data, const char *caption);
/* The pages' style sheet. */
extern const char html_style[];
/*
 * A page's start: its head (the phone's width as the page's, a title of
 * "cudalab: " and the NULL-ended title parts joined by ", ", each escaped;
 * html_style and extra_style), then <body> and the <main> landmark the page
 * writes into. html_close ends both.
 */
void html_open(struct strbuf *sb, const char *extra_style, const char *const *title);
void html_close(struct strbuf *sb);

#endif
