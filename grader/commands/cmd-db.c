/*
 * cmd-db.c - `cudalab db init|show`: create the gradebook, list its runs,
 * print one run's result document.
 */
#include "cmd.h"
#include "db.h"
#include "report.h"

#include <getopt.h>   /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cmd_opt db_opts[] = {
	CMD_OPT('d', "db", 0, "PATH", "the gradebook (default: $CUDALAB_DB, else ./gradebook.db)"),
	CMD_OPT('s', "student", 0, "ID", "only this student's runs"),
	CMD_OPT('l', "lab", 0, "LAB", "only this lab's runs"),
	CMD_OPT('n', "limit", 0, "N", "at most N runs (default 50)"),
	CMD_OPT('r', "run", 0, "N", "one run in full"),
	CMD_OPT('R', "report", 0, NULL, "with --run: the run's report, as grading printed it"),
	CMD_OPT_END,
};
static const struct cmd_spec db_cmd = {
	.synopsis = "usage: cudalab db init [--db PATH]\n"
		    "       cudalab db show [--db PATH] [--student ID] [--lab LAB] [--limit N]\n"
		    "       cudalab db show --run N [--report] [--db PATH]\n"
		    "\n"
		    "init creates the gradebook (or brings an older one's schema up to date).\n"
		    "show lists the latest runs, newest first (by the time each began, then by run\n"
		    "id), each with the folder and the files it graded (the first 12 digits of each\n"
		    "file's sha256) under it; with --run, prints that run's result document (JSON),\n"
		    "or with --report the report its grading printed, read back from that document.\n"
		    "\n",
	.opts = {db_opts},
};

/* One run: its result document, or the report made from it. */
static int show_run(struct db *db, long long run, bool report)
{
	char *json;
	json_t *doc;

	if (db_run_json(db, run, &json))
		return EXIT_USAGE;
	if (!report) {
		printf("%s\n", json);
		free(json);
		return 0;
	}
	doc = json_loads(json, 0, NULL);
	free(json);
	if (!json_is_object(doc)) {
		json_decref(doc);
		return error("run %lld: its result document is not JSON", run), EXIT_INTERNAL;
	}
	report_document(stdout, doc);
	json_decref(doc);
	return 0;
}

static int show(struct db *db, const char *student, const char *lab, long limit, long long run,
		bool report)
{
	struct run_summary *runs;
	size_t n;

	if (run > 0)
		return show_run(db, run, report);
	if (db_list_runs(db, student, lab, (size_t)limit, &runs, &n))
		return EXIT_INTERNAL;
	/* the score column as wide as its widest: a score is written one way everywhere */
	char (*scores)[SCORE_TEXT_MAX] = xcalloc(n ? n : 1, sizeof(*scores));
	int sw = 5;
	for (size_t i = 0; i < n; i++) {
		struct score_view view = run_score_view(&runs[i]);
		if ((int)strlen(score_text(scores[i], &view)) > sw)
			sw = (int)strlen(scores[i]);
	}
	printf("%-6s %-20s %-16s %-10s %-*s %-14s %-12s %-9s %s\n", "run", "started", "student",
	       "lab", sw, "score", "build", "status", "mode", "gpu");
	for (size_t i = 0; i < n; i++) {
		/* a gradebook of a grader from before may hold a name as it was given */
		char *name = visible_str(runs[i].student, true);
		printf("%-6lld %-20s %-16s %-10s %-*s %-14s %-12s %-9s %s\n", runs[i].id,
		       runs[i].started_at, name, runs[i].lab, sw, scores[i], runs[i].build,
		       runs[i].status, runs[i].mode, runs[i].gpu);
		print_provenance(db, runs[i].id);
		free(name);
	}
	free(scores);
	if (!n)
		printf("(no runs)\n");
	db_free_runs(runs, n);
	return 0;
}

int cmd_db(int argc, char **argv)
{
	const char *path = default_db_path(), *student = NULL, *lab = NULL, *action;
	long limit = 50;
	long long run = 0;
	bool report = false;
	struct db *db;
	int c, code;

	while ((c = cmd_getopt(&db_cmd, argc, argv)) >= 0) {
		switch (c) {
		case 'd':
			path = optarg;
			break;
		case 's':
			student = optarg;
			break;
		case 'l':
			lab = optarg;
			break;
		case 'n':
			limit = strtol(optarg, NULL, 10);
			break;
		case 'r':
			run = strtoll(optarg, NULL, 10);
			break;
		case 'R':
			report = true;
			break;
		}
	}
	if (c != CMD_END)
		return cmd_stopped(c);
	if (argc - optind != 1 || limit <= 0 || (report && run <= 0))
		return cmd_bad_usage(&db_cmd);
	action = argv[optind];
	if (strcmp(action, "init") && strcmp(action, "show")) {
		error("no db action '%s' (init or show)", action);
		return EXIT_USAGE;
	}
	db = db_open(path, toolchain()->root);
	if (!db)
		return EXIT_INTERNAL;
	if (!strcmp(action, "init")) {
		printf("gradebook %s: schema version %d\n", path, db_schema_version(db));
		code = 0;
	} else {
		code = show(db, student, lab, limit, run, report);
	}
	db_close(db);
	return code;
}
