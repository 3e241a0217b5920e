/*
 * cmd-show.c - `cudalab show STUDENT`: one student's history in the
 * gradebook, and their latest score in each lab.
 */
#include "cmd.h"
#include "db.h"
#include "doc.h"

#include <jansson.h>

#include <getopt.h>   /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cmd_opt show_opts[] = {
	CMD_OPT('l', "lab", 0, "LAB", "only this lab"),
	CMD_OPT('d', "db", 0, "PATH", "the gradebook (default: $CUDALAB_DB, else ./gradebook.db)"),
	CMD_OPT_END,
};
static const struct cmd_spec show_cmd = {
	.synopsis = "usage: cudalab show STUDENT [--lab LAB] [--db PATH]\n"
		    "\n"
		    "A student's history: every run, oldest first, with the change of score from\n"
		    "their run of the same lab before; then the latest score of each lab.\n"
		    "\n",
	.opts = {show_opts},
};

/* The run's score after lateness: what the student gets. */
static double run_final_score(const struct run_summary *r)
{
	return final_score(r->score, r->late_penalty);
}

static const char *run_score(char buf[SCORE_TEXT_MAX], const struct run_summary *r)
{
	struct score_view view = run_score_view(r);
	return score_text(buf, &view);
}

int cmd_show(int argc, char **argv)
{
	const char *path = default_db_path(), *lab = NULL;
	struct run_summary *runs;
	size_t n;
	int c;

	while ((c = cmd_getopt(&show_cmd, argc, argv)) >= 0) {
		if (c == 'd') {
			path = optarg;
		} else if (c == 'l') {
			lab = optarg;
		}
	}
	if (c != CMD_END)
		return cmd_stopped(c);
	if (argc - optind != 1)
		return cmd_bad_usage(&show_cmd);
	const char *student = argv[optind];
	struct db *db = db_open(path, toolchain()->root);
	if (!db)
		return EXIT_INTERNAL;
	int rc = db_list_runs(db, student, lab, 1000000, &runs, &n);
	if (rc) {
		db_close(db);
		return EXIT_INTERNAL;
	}
	if (!n) {
		db_close(db);
		error("the gradebook '%s' has no run of '%s'%s%s", path, student, lab ? " in lab " : "",
		      lab ? lab : "");
		return EXIT_USAGE;
	}
	/* the score column as wide as its widest: a score is written one way everywhere */
	char score[SCORE_TEXT_MAX];
	int sw = 5;
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(run_score(score, &runs[i])) > sw)
			sw = (int)strlen(score);
	char *name = visible_str(student, true);
	printf("%s: %zu run%s\n\n%-10s %-6s %-20s %-*s %-11s %-9s %-14s %s\n", name, n,
	       n == 1 ? "" : "s", "lab", "run", "started", sw, "score", "status", "mode", "build",
	       "change");
	free(name);
	for (size_t i = n; i-- > 0;) {   /* oldest first */
		const struct run_summary *r = &runs[i], *prev = NULL;
		char change[32] = "";
		for (size_t j = i + 1; j < n && !prev; j++)
			if (!strcmp(runs[j].lab, r->lab))
				prev = &runs[j];
		if (prev && run_final_score(r) != run_final_score(prev))
			snprintf(change, sizeof(change), "%+g",
				 run_final_score(r) - run_final_score(prev));
		printf("%-10s %-6lld %-20s %-*s %-11s %-9s %-14s %s\n", r->lab, r->id,
		       r->started_at, sw, run_score(score, r), r->status, r->mode, r->build,
		       change);
		print_provenance(db, r->id);
	}
	db_close(db);
	printf("\nlatest:");
	for (size_t i = 0, k = 0; i < n; i++) {   /* newest first: the first of each lab */
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(runs[j].lab, runs[i].lab);
		if (!seen)   /* a score has blanks of its own: labs apart by ';' */
			printf("%s %s %s (run %lld, %s)", k++ ? ";" : "", runs[i].lab,
			       run_score(score, &runs[i]), runs[i].id, runs[i].status);
	}
	printf("\n");
	db_free_runs(runs, n);
	return 0;
}
