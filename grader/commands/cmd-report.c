/*
 * cmd-report.c - `cudalab report`: one run's HTML page (htmlreport.c), from
 * the gradebook or a result document file; with --class, the class's
 * dashboard (htmldash.c) and each student's page beside it.
 */
#include "cmd.h"
#include "db.h"
#include "doc.h"
#include "htmldash.h"
#include "htmlreport.h"
#include "leaderboard.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

#include <getopt.h>   /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct cmd_opt report_opts[] = {
	CMD_OPT('r', "run", 0, "N", "a run of the gradebook"),
	CMD_OPT_SHOWN_AS('s', "student", 0, "ID",
	 "that student's latest run of LAB",
	 "LAB --student ID"),
	CMD_OPT('D', "doc", 0, "FILE", "a result document (cudalab grade --json, a spool's results/)"),
	CMD_OPT_SHOWN_AS('c', "class", 0, NULL,
	 "the class's dashboard instead: a row per student (their latest\n"
	 "run, linked to its page), the scores' distribution, each test's\n"
	 "pass rate, the commonest failures, the timed kernels' ratios\n"
	 "(default --out: class-LAB.html)",
	 "LAB --class"),
	CMD_OPT('p', "pages", 0, "DIR",
	 "with --class, where the students' pages go (default: the\n"
	 "dashboard's name without .html, beside it)"),
	CMD_OPT('S', "similar", 0, "URL",
	 "with --class, a link on the dashboard to the class's\n"
	 "similarity page (cudalab similar's --out), as a relative URL"),
	CMD_OPT('d', "db", 0, "PATH", "the gradebook (default: $CUDALAB_DB, else ./gradebook.db)"),
	CMD_OPT('o', "out", 0, "FILE", "where to write it (default: report-STUDENT-LAB-RUN.html here)"),
	CMD_OPT_END,
};
static const struct cmd_spec report_cmd = {
	.synopsis = "usage: cudalab report --run N [--db PATH] [--out FILE.html]\n"
		    "       cudalab report LAB --student ID [--db PATH] [--out FILE.html]\n"
		    "       cudalab report --doc FILE.json [--out FILE.html]\n"
		    "       cudalab report LAB --class [--db PATH] [--out FILE.html] [--pages DIR]\n"
		    "                          [--similar URL]\n"
		    "\n"
		    "Writes one run's page, a self-contained HTML file (no network, no script):\n"
		    "the student, lab, mode and score, the submitted files, the build and its\n"
		    "diagnostics, every test, and a plot of the timed kernels against the\n"
		    "reference (drawn by gnuplot). Prints the page's path.\n"
		    "\n",
	.opts = {report_opts},
};

/* the runs a page's history lists at most */
#define HISTORY_MAX 50

/* What load_extras allocated: the history, the files' texts and their array. */
static void free_extras(struct html_extras *x)
{
	db_free_runs((struct run_summary *)x->hist, x->nhist);
	for (size_t i = 0; i < x->nsources; i++)
		free((char *)x->sources[i].text);
	free((struct html_source *)x->sources);
	free((char *)x->board_name);
	memset(x, 0, sizeof(*x));
}

/*
 * The leaderboard of lab, where its lab.conf opts in, into b (off
 * otherwise, and for a lab this checkout does not have); the pseudonyms'
 * salt, kept beside the gradebook db_path, in *salt. -1 with an error when
 * the salt can be neither read nor made.
 */
static int board_of(const char *db_path, const char *lab, struct dash_board *b, char **salt)
{
	char *conf = xasprintf("%s/labs/%s/lab.conf", toolchain()->root, lab);
	struct lab_config cfg;
	int ret = 0;

	*b = (struct dash_board){LEADERBOARD_OFF, NULL};
	*salt = NULL;
	if (!access(conf, R_OK) && !config_load(toolchain()->root, lab, &cfg)) {
		b->mode = cfg.leaderboard;
		config_free(&cfg);
	}
	free(conf);
	if (b->mode == LEADERBOARD_PSEUDONYMS) {
		ret = leaderboard_salt(db_path, salt);
		b->salt = *salt;
	}
	return ret;
}

/*
 * The student's runs of the lab, newest first, the run's files as the
 * gradebook keeps them (a run stored before it kept files has none), and
 * the student's pseudonym on b, the lab's leaderboard.
 */
static int load_extras(struct db *db, json_t *doc, const struct dash_board *b,
		       struct html_extras *x)
{
	json_t *files = json_object_get(doc, "files"), *f;
	struct run_summary *hist = NULL;
	struct html_source *src;
	size_t i;

	memset(x, 0, sizeof(*x));
	if (db_list_runs(db, doc_str(doc, "student"), doc_str(doc, "lab"), HISTORY_MAX, &hist,
			 &x->nhist))
		return -1;
	x->hist = hist;
	if (b->mode == LEADERBOARD_PSEUDONYMS)
		x->board_name = leaderboard_pseudonym(b->salt, doc_str(doc, "lab"),
						      doc_str(doc, "student"));
	x->sources = src = xcalloc(json_array_size(files) + 1, sizeof(*src));
	json_array_foreach(files, i, f) {
		char *data = NULL;
		size_t len = 0;
		int rc = db_file_content(db, doc_str(f, "sha256"), &data, &len);
		if (rc < 0) {
			free_extras(x);
			return -1;
		}
		if (!rc)   /* else not kept */
			src[x->nsources++] = (struct html_source){doc_str(f, "name"), data, len};
	}
	return 0;
}

/* The stored document of run (or of student's latest run of lab when run is 0),
 * and what its page adds from the gradebook. */
static json_t *load_run(const char *db_path, const char *lab, const char *student,
			long long *run, struct html_extras *extras)
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
	struct dash_board board;
	char *salt = NULL;
	if (!doc)
		error("run %lld: its result document does not parse: %s", *run, jerr.text);
	else if (board_of(db_path, doc_str(doc, "lab"), &board, &salt) ||
		 load_extras(db, doc, &board, extras)) {
		json_decref(doc);
		doc = NULL;
	}
	free(salt);
out:
	free(json);
	free(ids);
	db_close(db);
	return doc;
}

/* A folder, made when missing (make_parent_dirs makes those above it). */
static int make_dir(const char *path)
{
	if (mkdir(path, 0777) && errno != EEXIST)
		return error("cannot make the folder '%s': %s", path, strerror(errno));
	return 0;
}

/* path's absolute form, path itself made absolute when realpath fails. */
static char *absolute(const char *path)
{
	char buf[PATH_MAX];
	return xstrdup(realpath(path, buf) ? buf : path);
}

/*
 * The URL of the folder pages as seen from the folder the dashboard out is
 * in: relative, so the dashboard and its pages can be moved together, and
 * percent-encoded, since DIR is the user's.
 */
static char *pages_url(const char *out, const char *pages)
{
	char *slash = strrchr(out, '/');
	char *outdir = slash ? xstrndup(out, slash - out + (slash == out)) : xstrdup(".");
	char *from = absolute(outdir), *to = absolute(pages);
	struct strbuf rel = STRBUF_INIT, url = STRBUF_INIT;
	size_t common = 0, i;

	/* the longest leading run of whole components the two share */
	for (i = 0; from[i] && from[i] == to[i]; i++)
		if (from[i] == '/')
			common = i;
	if (!from[i] && (to[i] == '/' || !to[i]))
		common = i;
	else if (!to[i] && from[i] == '/')
		common = i;
	for (const char *p = from + common; *p; p++)
		if (*p == '/')
			strbuf_addstr(&rel, "../");
	strbuf_addstr(&rel, to[common] == '/' ? to + common + 1 : to + common);
	while (rel.len && rel.buf[rel.len - 1] == '/')
		rel.buf[--rel.len] = '\0';
	if (!rel.len)
		strbuf_addstr(&rel, ".");
	for (const char *p = rel.buf; *p; p++) {
		unsigned char c = *p;
		if (ident_char(c) || strchr("./-~", c))
			strbuf_add(&url, p, 1);
		else
			strbuf_addf(&url, "%%%02X", c);
	}
	strbuf_release(&rel);
	free(outdir);
	free(from);
	free(to);
	return strbuf_detach(&url);
}

/*
 * The dashboard of lab's class into out, and each student's page into
 * pages (NULL: the dashboard's name less ".html"). Prints the dashboard's path.
 * Returns the command's exit code: 2 for a gradebook that cannot be read or
 * holds no run of lab, 128 when a page cannot be made or written.
 */
static int report_class(const char *db_path, const char *lab, const char *out,
			const char *pages, const char *similar)
{
	struct db *db = db_open(db_path, toolchain()->root);
	struct dash_run *runs = NULL;
	long long *ids = NULL;
	char *path = out ? xstrdup(out) : NULL, *dir = NULL, *url = NULL, *page = NULL;
	char *salt = NULL;
	struct dash_board board;
	size_t n = 0, i;
	int ret = EXIT_USAGE;

	if (!db)
		return EXIT_USAGE;
	if (db_latest_runs(db, lab, NULL, &ids, &n))
		goto out;
	if (!n) {
		error("no run of lab '%s' in '%s'", lab, db_path);
		goto out;
	}
	ret = EXIT_INTERNAL;   /* from here on, a failure is the grader's */
	if (!path) {
		char *l = safe_name(lab);
		path = xasprintf("class-%s.html", l);
		free(l);
	}
	if (pages) {
		dir = xstrdup(pages);
	} else {
		size_t len = strlen(path);
		dir = len > 5 && !strcmp(path + len - 5, ".html") ? xstrndup(path, len - 5)
								  : xasprintf("%s-pages", path);
	}
	if (make_parent_dirs(path) || make_parent_dirs(dir) || make_dir(dir))
		goto out;
	url = pages_url(path, dir);
	if (board_of(db_path, lab, &board, &salt))
		goto out;
	runs = xcalloc(n, sizeof(*runs));
	for (i = 0; i < n; i++) {
		json_error_t jerr;
		char *json = NULL, *name, *file;

		runs[i].id = ids[i];
		if (db_run_json(db, ids[i], &json))
			goto out;
		runs[i].doc = json_loads(json, 0, &jerr);
		free(json);
		if (!runs[i].doc) {
			error("run %lld: its result document does not parse: %s", ids[i], jerr.text);
			goto out;
		}
		/* the run's id too: two ids may be alike once made safe ("<a>", "_a_") */
		name = safe_name(doc_str(runs[i].doc, "student"));
		file = xasprintf("%s/%s-%lld.html", dir, name, ids[i]);
		runs[i].link = xasprintf("%s/%s-%lld.html", url, name, ids[i]);
		free(name);
		struct html_extras extras;
		if (load_extras(db, runs[i].doc, &board, &extras)) {
			free(file);
			goto out;
		}
		if (html_report_page(runs[i].doc, ids[i], &extras, &page) ||
		    write_file_atomic(file, page, strlen(page))) {
			free_extras(&extras);
			free(file);
			goto out;
		}
		free_extras(&extras);
		free(file);
		free(page);
		page = NULL;
	}
	if (html_dashboard(lab, runs, n, similar, &board, &page) || write_file_atomic(path, page, strlen(page)))
		goto out;
	printf("%s\n", path);
	ret = 0;
out:
	for (i = 0; runs && i < n; i++) {
		json_decref(runs[i].doc);
		free((char *)runs[i].link);
	}
	free(runs);
	free(ids);
	free(page);
	free(url);
	free(dir);
	free(path);
	free(salt);
	db_close(db);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	const char *db_path = default_db_path(), *out = NULL, *student = NULL, *doc_path = NULL;
	const char *lab = NULL, *pages = NULL, *similar = NULL;
	bool class = false;
	long long run = 0;
	char *page = NULL, *path = NULL, *end;
	json_t *doc;
	json_error_t jerr;
	struct html_extras extras = {0};
	int c, code = EXIT_INTERNAL;

	while ((c = cmd_getopt(&report_cmd, argc, argv)) >= 0) {
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
		case 'c':
			class = true;
			break;
		case 'p':
			pages = optarg;
			break;
		case 'S':
			similar = optarg;
			break;
		}
	}
	if (c != CMD_END)
		return cmd_stopped(c);
	if (optind < argc)
		lab = argv[optind++];
	if (class) {
		if (optind < argc || !lab || run || student || doc_path)
			return cmd_bad_usage(&report_cmd);
		return report_class(db_path, lab, out, pages, similar);
	}
	/* exactly one of: --run, LAB --student, --doc */
	if (optind < argc || (!!run + !!lab + !!doc_path) != 1 || !!lab != !!student || pages ||
	    similar)
		return cmd_bad_usage(&report_cmd);
	if (doc_path) {
		doc = json_load_file(doc_path, 0, &jerr);
		if (!doc) {
			error("cannot read the result document '%s': %s", doc_path, jerr.text);
			return EXIT_USAGE;
		}
	} else {
		doc = load_run(db_path, lab, student, &run, &extras);
		if (!doc)
			return EXIT_USAGE;
	}
	if (html_report_page(doc, run, doc_path ? NULL : &extras, &page))
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
	if (make_parent_dirs(path) || write_file_atomic(path, page, strlen(page)))
		goto out;
	printf("%s\n", path);
	code = 0;
out:
	free(path);
	free(page);
	json_decref(doc);
	free_extras(&extras);
	return code;
}
