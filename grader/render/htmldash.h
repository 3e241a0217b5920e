/*
 * htmldash.h - a class's dashboard, a self-contained HTML page derived from
 * the result documents of each student's latest run of one lab (docs/commands/report.md,
 * "Reports (HTML)").
 */
#ifndef HTMLDASH_H
#define HTMLDASH_H

#include <jansson.h>
#include <stddef.h>

/* One student's run on the dashboard. */
struct dash_run {
	json_t *doc;           /* its result document */
	long long id;          /* its run in the gradebook */
	const char *link;      /* a relative URL of its own page, NULL for none */
};

/* The leaderboard of a lab that opts in (leaderboard.h). */
struct dash_board {
	int mode;             /* enum leaderboard_mode; LEADERBOARD_OFF: none */
	const char *salt;     /* the pseudonyms' (leaderboard_salt) */
};

/*
 * The dashboard of lab over runs (one per student, in the order to show
 * them), allocated in *page: a row per student, the distribution of the
 * scores, each test's pass rate, the commonest failure messages and each
 * timed kernel's ratios over the class, and where similar is not NULL, a
 * link to it (the class's similarity page, cudalab similar's), and where
 * board is not NULL and on, the leaderboard. Plots as
 * html_report's; where gnuplot cannot draw them the page says so and keeps
 * the tables. -1 with
 * an error only for the grader's own failures.
 */
int html_dashboard(const char *lab, const struct dash_run *runs, size_t n, const char *similar,
		   const struct dash_board *board, char **page);

/* s with each run of digits made one '#': failure messages that differ only in numbers, alike. */
char *collapse_numbers(const char *s);

#endif
