/*
 * cmd-export.c - `cudalab export LAB`: each student's latest run of a lab,
 * out of the gradebook, as CSV, Gradescope results.json or JUnit XML.
 */
#include "cmd.h"

#include "db.h"
#include "export.h"
#include "leaderboard.h"

#include <errno.h>
#include <getopt.h>   /* optind */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const struct cmd_opt export_opts[] = {
	CMD_OPT('f', "format", 0, "F", "csv (default), gradescope or junit"),
	CMD_OPT('o', "out", 0, "PATH", "where to write (see above)"),
	CMD_OPT('s', "student", 0, "ID", "only this student"),
	CMD_OPT('S', "for-students", 0, NULL,
	 "what students may see (csv, junit): tests lab.conf makes hidden\n"
	 "left out, and after_due ones until the lab's due time has\n"
	 "passed (all of them where it has none); the scores stay the\n"
	 "grade, every test counted. Gradescope shows each test as its\n"
	 "visibility says without it"),
	CMD_OPT('d', "db", 0, "PATH", "the gradebook (default: $CUDALAB_DB, else ./gradebook.db)"),
	CMD_OPT_END,
};
static const struct cmd_spec export_cmd = {
	.synopsis = "usage: cudalab export LAB [--format csv|gradescope|junit] [--out PATH] [--student ID]\n"
		    "                          [--for-students] [--db PATH]\n"
		    "\n"
		    "Writes each student's latest run of LAB from the gradebook:\n"
		    "  csv         one row per student (score, status, mode, run, the points and\n"
		    "              the maximum of every test), for an LMS import; CRLF, and no cell\n"
		    "              a spreadsheet formula; to PATH, else standard output\n"
		    "  gradescope  Gradescope's results.json: the final score, a build test, each\n"
		    "              test (bonus as extra credit; one a provisional run could not run\n"
		    "              neither passed nor failed) and what the run was in output and\n"
		    "              extra_data; with --student, to PATH or standard output; else\n"
		    "              one <student>.json per student in the folder PATH\n"
		    "  junit       JUnit XML for a CI's test view: a test suite per student, a build\n"
		    "              test that fails with the compiler's output, points in each test's\n"
		    "              text; the student in each classname without --student; to PATH,\n"
		    "              else standard output\n"
		    "\n",
	.opts = {export_opts},
};

/* Writes text to path atomically, or to standard output when path is NULL. */
static int emit(const char *path, const char *text)
{
	if (!path) {
		fputs(text, stdout);
		return 0;
	}
	return write_file_atomic(path, text, strlen(text)) ? EXIT_INTERNAL : 0;
}

/* What the CSV or JUnit exporter wrote, as text. */
static char *capture(const char *format, json_t **docs, const long long *ids, size_t n,
		     bool with_student)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		die("open_memstream: %s", strerror(errno));
	if (!strcmp(format, "csv"))
		export_csv(f, docs, ids, n);
	else
		export_junit(f, docs, ids, n, with_student);
	fclose(f);
	return buf;
}

/* Whether path names a folder that exists. */
static bool is_dir(const char *path)
{
	struct stat st;
	return path && !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * Gradescope's documents: one student (--student, or the only one without
 * --out) to standard output or the file --out names; else a folder, --out,
 * with one <student>.json each (export_file_stem). An --out that is a
 * folder already is always one, whatever the number of students.
 */
static int export_gradescope_files(const char *out, const char *student, json_t **docs,
				   const long long *ids, size_t n, bool board)
{
	int code = 0;

	if (!is_dir(out) && (student || (!out && n == 1))) {
		char *text = export_gradescope(docs[0], ids[0], board);
		code = emit(out, text);
		free(text);
		return code;
	}
	if (!out) {
		error("gradescope: name a folder with --out for %zu students, or one --student", n);
		return EXIT_USAGE;
	}
	if (mkdir(out, 0755) && errno != EEXIST) {
		error("cannot make the folder '%s': %s", out, strerror(errno));
		return EXIT_INTERNAL;
	}
	if (!is_dir(out)) {
		error("gradescope: '%s' is not a folder: it would get one file per student", out);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < n && !code; i++) {
		const char *name = json_string_value(json_object_get(docs[i], "student"));
		char *stem = export_file_stem(name);
		char *path = xasprintf("%s/%s.json", out, stem);
		char *text = export_gradescope(docs[i], ids[i], board);
		code = emit(path, text);
		free(text);
		free(path);
		free(stem);
	}
	return code;
}

int cmd_export(int argc, char **argv)
{
	bool for_students = false;
	const char *format = "csv", *out = NULL, *student = NULL, *db_path = default_db_path();
	int c, code = 0;

	while ((c = cmd_getopt(&export_cmd, argc, argv)) >= 0) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 's':
			student = optarg;
			break;
		case 'd':
			db_path = optarg;
			break;
		case 'S':
			for_students = true;
			break;
		}
	}
	if (c != CMD_END)
		return cmd_stopped(c);
	if (argc - optind != 1 || (strcmp(format, "csv") && strcmp(format, "gradescope") &&
				   strcmp(format, "junit")))
		return cmd_bad_usage(&export_cmd);
	if (for_students && !strcmp(format, "gradescope")) {
		error("--for-students is for csv and junit: Gradescope shows each test as its "
		      "visibility says, which results.json gives it");
		return EXIT_USAGE;
	}
	const char *lab = argv[optind];
	bool due_passed = false, board = false;
	if (for_students || !strcmp(format, "gradescope")) {
		struct lab_config cfg;
		if (config_load(toolchain()->root, lab, &cfg))
			return EXIT_USAGE;
		due_passed = cfg.deadline.set && time(NULL) >= cfg.deadline.due;
		board = cfg.leaderboard != LEADERBOARD_OFF;   /* Gradescope's leaderboard field */
		config_free(&cfg);
	}
	struct db *db = db_open(db_path, toolchain()->root);
	long long *ids = NULL;
	size_t n = 0;
	if (!db)
		return EXIT_INTERNAL;
	if (db_latest_runs(db, lab, student, &ids, &n)) {
		db_close(db);
		return EXIT_INTERNAL;
	}
	if (!n) {
		error("the gradebook '%s' has no run of lab '%s'%s%s", db_path, lab,
		      student ? " by " : "", student ? student : "");
		free(ids);
		db_close(db);
		return EXIT_USAGE;
	}
	json_t **docs = xcalloc(n, sizeof(*docs));
	for (size_t i = 0; i < n && !code; i++) {
		char *text;
		if (db_run_json(db, ids[i], &text) || !(docs[i] = json_loads(text, 0, NULL)))
			code = error("run %lld has no readable result document", ids[i]);
		else if (for_students)
			export_for_students(docs[i], due_passed);
		free(text);
	}
	db_close(db);

	if (code) {
		code = EXIT_INTERNAL;
	} else if (!strcmp(format, "gradescope")) {
		code = export_gradescope_files(out, student, docs, ids, n, board);
	} else {
		/* a class's export names the student in each test's classname */
		char *text = capture(format, docs, ids, n, !student);
		code = emit(out, text);
		free(text);
	}
	for (size_t i = 0; i < n; i++)
		json_decref(docs[i]);
	free(docs);
	free(ids);
	return code;
}
