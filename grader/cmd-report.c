/*
 * cmd-report.c - `cudalab report`: one run's HTML page (htmlreport.c), from
 * the gradebook or a result document file.
 */
#include "cmd.h"
#include "db.h"
#include "htmlreport.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cudalab report --run N [--db PATH] [--out FILE.html]\n"
		"       cudalab report LAB --student ID [--db PATH] [--out FILE.html]\n"
		"       cudalab report --doc FILE.json [--out FILE.html]\n"
		"\n"
		"Writes one run's page, a self-contained HTML file (no network, no script):\n"
		"the student, lab, mode and score, the submitted files, the build and its\n"
		"diagnostics, every test, and a plot of the timed kernels against the\n"
		"reference (drawn by gnuplot). Prints the page's path.\n"
		"\n"
		"  --run N        a run of the gradebook\n"
		"  LAB --student ID  that student's latest run of LAB\n"
		"  --doc FILE     a result document (cudalab grade --json, a spool's results/)\n"
		"  --db PATH      the gradebook (default: $CUDALAB_DB, else ./gradebook.db)\n"
		"  --out FILE     where to write it (default: report-STUDENT-LAB-RUN.html here)\n"
		"  -h, --help     this text\n");
}

/* The stored document of run (or of student's latest run of lab when run is 0). */
static json_t *load_run(const char *db_path, const char *lab, const char *student,
			long long *run)
{
	json_t *doc = NULL;
	json_error_t jerr;
	long long *ids = NULL;
	char *json = NULL;
	size_t n = 0;
	struct db *db = db_open(db_path, toolchain()->root);

	if (!db)
		return NULL;
	if (!*run) {
		if (db_latest_runs(db, lab, student, &ids, &n))
			goto out;
		if (!n) {
			error("no run of '%s' for lab '%s' in '%s'", student, lab, db_path);
			goto out;
		}
		*run = ids[0];
	}
	if (db_run_json(db, *run, &json))
		goto out;
	doc = json_loads(json, 0, &jerr);
	if (!doc)
		error("run %lld: its result document does not parse: %s", *run, jerr.text);
out:
	free(json);
	free(ids);
	db_close(db);
	return doc;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{"run", required_argument, NULL, 'r'},     {"db", required_argument, NULL, 'd'},
		{"out", required_argument, NULL, 'o'},     {"student", required_argument, NULL, 's'},
		{"doc", required_argument, NULL, 'D'},     {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *db_path = default_db_path(), *out = NULL, *student = NULL, *doc_path = NULL;
	const char *lab = NULL;
	long long run = 0;
	char *page = NULL, *path = NULL, *end;
	json_t *doc;
	json_error_t jerr;
	int c, code = EXIT_INTERNAL;

	while ((c = getopt_long(argc, argv, "r:d:o:s:D:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			run = strtoll(optarg, &end, 10);
			if (*end || run <= 0) {
				error("--run takes a run's id, a positive whole number: not '%s'",
				      optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd':
			db_path = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 's':
			student = optarg;
			break;
		case 'D':
			doc_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		lab = argv[optind++];
	/* exactly one of: --run, LAB --student, --doc */
	if (optind < argc || (!!run + !!lab + !!doc_path) != 1 || !!lab != !!student) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (doc_path) {
		doc = json_load_file(doc_path, 0, &jerr);
		if (!doc) {
			error("cannot read the result document '%s': %s", doc_path, jerr.text);
			return EXIT_USAGE;
		}
	} else {
		doc = load_run(db_path, lab, student, &run);
		if (!doc)
			return EXIT_USAGE;
	}
	if (html_report(doc, run, &page))
		goto out;
	if (out) {
		path = xstrdup(out);
	} else {
		char *s = safe_name(json_string_value(json_object_get(doc, "student")));
		char *l = safe_name(json_string_value(json_object_get(doc, "lab")));
		path = run ? xasprintf("report-%s-%s-%lld.html", s, l, run)
			   : xasprintf("report-%s-%s.html", s, l);
		free(s);
		free(l);
	}
	if (write_file_atomic(path, page, strlen(page)))
		goto out;
	printf("%s\n", path);
	code = 0;
out:
	free(path);
	free(page);
	json_decref(doc);
	return code;
}
