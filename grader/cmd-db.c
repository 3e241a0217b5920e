/*
 * cmd-db.c - `cudalab db init|show`: create the gradebook, list its runs,
 * print one run's result document; `cudalab show STUDENT`: one student's
 * history.
 */
#include "cmd.h"
#include "db.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cudalab db init [--db PATH]\n"
		"       cudalab db show [--db PATH] [--student ID] [--lab LAB] [--limit N]\n"
		"       cudalab db show --run N [--db PATH]\n"
		"\n"
		"init creates the gradebook (or brings an older one's schema up to date).\n"
		"show lists the latest runs, newest first; with --run, prints that run's\n"
		"result document (JSON).\n"
		"\n"
		"  --db PATH      the gradebook (default: $CUDALAB_DB, else ./gradebook.db)\n"
		"  --student ID   only this student's runs\n"
		"  --lab LAB      only this lab's runs\n"
		"  --limit N      at most N runs (default 50)\n"
		"  --run N        one run in full\n"
		"  -h, --help     this text\n");
}

static int show(struct db *db, const char *student, const char *lab, long limit, long long run)
{
	struct run_summary *runs;
	size_t n;

	if (run > 0) {
		char *json;
		if (db_run_json(db, run, &json))
			return EXIT_USAGE;
		printf("%s\n", json);
		free(json);
		return 0;
	}
	if (db_list_runs(db, student, lab, (size_t)limit, &runs, &n))
		return EXIT_INTERNAL;
	printf("%-6s %-20s %-16s %-10s %-21s %-14s %-12s %-9s %s\n", "run", "started", "student",
	       "lab", "score", "build", "status", "mode", "gpu");
	for (size_t i = 0; i < n; i++) {
		char score[64];
		snprintf(score, sizeof(score), "%g/%g", runs[i].score - runs[i].bonus_score,
			 runs[i].max_score);
		if (runs[i].bonus_score > 0)
			snprintf(score + strlen(score), sizeof(score) - strlen(score), " +%g",
				 runs[i].bonus_score);
		printf("%-6lld %-20s %-16s %-10s %-21s %-14s %-12s %-9s %s\n", runs[i].id,
		       runs[i].started_at, runs[i].student, runs[i].lab, score, runs[i].build,
		       runs[i].status, runs[i].mode, runs[i].gpu);
	}
	if (!n)
		printf("(no runs)\n");
	db_free_runs(runs, n);
	return 0;
}

static void show_usage(FILE *out)
{
	fprintf(out,
		"usage: cudalab show STUDENT [--lab LAB] [--db PATH]\n"
		"\n"
		"A student's history: every run, oldest first, with the change of score from\n"
		"their run of the same lab before; then the latest score of each lab.\n"
		"\n"
		"  --lab LAB      only this lab\n"
		"  --db PATH      the gradebook (default: $CUDALAB_DB, else ./gradebook.db)\n"
		"  -h, --help     this text\n");
}

/* The run's score after lateness: what the student gets. */
static double final_score(const struct run_summary *r)
{
	return r->score - r->late_penalty;
}

int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, 'd'}, {"lab", required_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},     {NULL, 0, NULL, 0},
	};
	const char *path = default_db_path(), *lab = NULL;
	struct run_summary *runs;
	size_t n;
	int c;

	while ((c = getopt_long(argc, argv, "d:l:h", opts, NULL)) != -1) {
		if (c == 'd') {
			path = optarg;
		} else if (c == 'l') {
			lab = optarg;
		} else if (c == 'h') {
			show_usage(stdout);
			return 0;
		} else {
			show_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		show_usage(stderr);
		return EXIT_USAGE;
	}
	const char *student = argv[optind];
	struct db *db = db_open(path, toolchain()->root);
	if (!db)
		return EXIT_INTERNAL;
	int rc = db_list_runs(db, student, lab, 1000000, &runs, &n);
	db_close(db);
	if (rc)
		return EXIT_INTERNAL;
	if (!n) {
		error("the gradebook '%s' has no run of '%s'%s%s", path, student, lab ? " in lab " : "",
		      lab ? lab : "");
		return EXIT_USAGE;
	}
	printf("%s: %zu run%s\n\n%-10s %-6s %-20s %-13s %-11s %-9s %-14s %s\n", student, n,
	       n == 1 ? "" : "s", "lab", "run", "started", "score", "status", "mode", "build",
	       "change");
	for (size_t i = n; i-- > 0;) {   /* oldest first */
		const struct run_summary *r = &runs[i], *prev = NULL;
		char score[48], change[32] = "";
		for (size_t j = i + 1; j < n && !prev; j++)
			if (!strcmp(runs[j].lab, r->lab))
				prev = &runs[j];
		snprintf(score, sizeof(score), "%g/%g%s", final_score(r), r->max_score,
			 r->late_days ? " late" : "");
		if (prev && final_score(r) != final_score(prev))
			snprintf(change, sizeof(change), "%+g", final_score(r) - final_score(prev));
		printf("%-10s %-6lld %-20s %-13s %-11s %-9s %-14s %s\n", r->lab, r->id, r->started_at,
		       score, r->status, r->mode, r->build, change);
	}
	printf("\nlatest:");
	for (size_t i = 0; i < n; i++) {   /* newest first: the first of each lab */
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(runs[j].lab, runs[i].lab);
		if (!seen)
			printf(" %s %g/%g (run %lld, %s%s)", runs[i].lab, final_score(&runs[i]),
			       runs[i].max_score, runs[i].id, runs[i].status,
			       runs[i].late_days ? ", late" : "");
	}
	printf("\n");
	db_free_runs(runs, n);
	return 0;
}

int cmd_db(int argc, char **argv)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, 'd'},    {"student", required_argument, NULL, 's'},
		{"lab", required_argument, NULL, 'l'},   {"limit", required_argument, NULL, 'n'},
		{"run", required_argument, NULL, 'r'},   {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *path = default_db_path(), *student = NULL, *lab = NULL, *action;
	long limit = 50;
	long long run = 0;
	struct db *db;
	int c, code;

	while ((c = getopt_long(argc, argv, "d:s:l:n:r:h", opts, NULL)) != -1) {
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
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1 || limit <= 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
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
		code = show(db, student, lab, limit, run);
	}
	db_close(db);
	return code;
}
