/*
 * cmd-similar.c - `cudalab similar LAB [DIR...]`: the pairs of a class's
 * submissions most alike, for a TA to read (similar.c compares, through
 * sim_c; htmlsimilar.c writes the side-by-side page). A finding is for a
 * person to judge, never a grade: nothing is stored.
 */
#include "cmd.h"

#include "batch.h"
#include "db.h"
#include "doc.h"
#include "htmlsimilar.h"
#include "intake.h"
#include "similar.h"

#include <getopt.h>   /* optind */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_TOP 20

static const struct cmd_opt similar_opts[] = {
	CMD_OPT('d', "db", 0, "PATH",
	 "the gradebook, without DIR (default: $CUDALAB_DB, else\n"
	 "./gradebook.db)"),
	CMD_OPT('t', "top", 0, "N",
	 "the N pairs most alike (default " TEXT_OF(DEFAULT_TOP) "; 0: every pair with a run\n"
	 "alike)"),
	CMD_OPT('J', "json", 0, NULL, "one JSON document on stdout instead of the table"),
	CMD_OPT('H', "html", 0, "FILE", "also write a page of those pairs side by side, runs marked"),
	CMD_OPT('r', "min-run", 0, "N", "the shortest run of tokens that counts (default " TEXT_OF(SIMILAR_MIN_RUN) ")"),
	CMD_OPT('A', "archive", 0, "DIR",
	 "also compare with the submissions in DIR (found as DIR... are:\n"
	 "past terms, solutions found online, the reference), named\n"
	 "archive/DIR/NAME, never with each other; again for more"),
	CMD_OPT_END,
};
static const struct cmd_spec similar_cmd = {
	.synopsis = "usage: cudalab similar LAB [DIR...] [--db PATH] [--top N] [--json] [--html FILE]\n"
		    "                           [--min-run N] [--archive DIR]...\n"
		    "\n"
		    "Lists the pairs of LAB's submissions most alike, most alike first: how much of\n"
		    "each is in runs of tokens the other has too, and where those runs are\n"
		    "(file:lines in each). The comparison is sim_c's (Debian: similarity-tester),\n"
		    "on tokens, so renamed variables and moved whitespace or comments hide nothing;\n"
		    "what a submission shares with the starter (student_template/LAB) is left out,\n"
		    "and the reference is no submission. A finding is for a person to read.\n"
		    "\n"
		    "The submissions: the folders DIR..., found as `cudalab grade LAB DIR...` finds\n"
		    "them (a folder of clones, one per student); without DIR, the folder of each\n"
		    "student's latest run of LAB in the gradebook, as graded (a file changed since\n"
		    "is warned of).\n"
		    "\n",
	.opts = {similar_opts},
	.epilog = "\n"
		    "Exit codes: 0 compared (whatever was found), 2 usage (unknown lab, fewer than\n"
		    "two submissions), 128 sim_c missing or failing.\n",
};

/* The last name of path, trailing slashes aside ("." for none). */
static char *last_name(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t start = n;
	while (start && path[start - 1] != '/')
		start--;
	return n > start ? xstrndup(path + start, n - start) : xstrdup(".");
}

/* Whether dir is the folder at root/top/lab (the same folder, links followed). */
static bool is_lab_folder(const char *dir, const char *root, const char *top, const char *lab)
{
	char *p = xasprintf("%s/%s/%s", root, top, lab), a[PATH_MAX], b[PATH_MAX];
	bool same = realpath(p, a) && realpath(dir, b) && !strcmp(a, b);

	free(p);
	return same;
}

/* Whether dir holds one of files, as a regular file. */
static bool holds_files(const char *dir, const struct strlist *files)
{
	for (size_t i = 0; i < files->n; i++) {
		char *p = xasprintf("%s/%s", dir, files->v[i]);
		struct stat st;
		bool is = !stat(p, &st) && S_ISREG(st.st_mode);
		free(p);
		if (is)
			return true;
	}
	return false;
}

/* Warns of each file of doc's run that is not in dir as it was graded. */
static void check_files(json_t *doc, const char *dir, const char *student)
{
	json_t *files = json_object_get(doc, "files"), *f;
	size_t i;

	json_array_foreach(files, i, f) {
		char *path = xasprintf("%s/%s", dir, doc_str(f, "name")), hex[65];
		size_t len;
		report_quiet = true;
		char *text = read_file(path, &len);
		report_quiet = false;
		if (!text)
			warning("%s: '%s' is gone since it was graded: compared without it", student,
				path);
		else if (sha256_hex(text, len, hex), strcmp(hex, doc_str(f, "sha256")))
			warning("%s: '%s' changed since it was graded: compared as it is now",
				student, path);
		free(text);
		free(path);
	}
}

/* The folders of the latest run of each student of lab in the gradebook. */
static int from_gradebook(const char *db_path, const char *lab, struct batch_sub **subs,
			  size_t *n)
{
	struct stat st;
	struct db *db;
	long long *ids = NULL;
	size_t nids = 0;

	*subs = NULL;
	*n = 0;
	if (stat(db_path, &st))
		return error("no gradebook '%s': name the class's folders (cudalab similar %s "
			     "DIR...), or the gradebook with --db", db_path, lab);
	if (!(db = db_open(db_path, toolchain()->root)))
		return -1;
	if (db_latest_runs(db, lab, NULL, &ids, &nids)) {
		db_close(db);
		return -1;
	}
	*subs = xcalloc(nids ? nids : 1, sizeof(**subs));
	for (size_t i = 0; i < nids; i++) {
		char *text = NULL;
		json_t *doc = NULL;
		if (!db_run_json(db, ids[i], &text))
			doc = json_loads(text, 0, NULL);
		free(text);
		const char *dir = doc_str(doc, "submission"), *who = doc_str(doc, "student");
		if (!doc || !*dir || stat(dir, &st) || !S_ISDIR(st.st_mode)) {
			warning("%s: the folder of run %lld ('%s') is gone: left out", *who ? who : "?",
				ids[i], dir);
		} else {
			check_files(doc, dir, who);
			(*subs)[*n].dir = xstrdup(dir);
			(*subs)[*n].student = xstrdup(who);
			(*n)++;
		}
		json_decref(doc);
	}
	free(ids);
	db_close(db);
	return 0;
}

/* "matmul.cu:12-40" of one side of a region */
static char *side(const struct sim_class *c, size_t file, size_t first, size_t last)
{
	return first == last ? xasprintf("%s:%zu", c->files[file].name, first)
			     : xasprintf("%s:%zu-%zu", c->files[file].name, first, last);
}

static void print_table(const struct sim_class *c, const char *lab, size_t top,
			const char *starter)
{
	size_t w = 7;

	for (size_t s = 0; s < c->nsubs; s++)
		if (strlen(c->students[s]) > w)
			w = strlen(c->students[s]);
	printf("%zu submission%s of %s", c->nsubs - c->narchived,
	       c->nsubs - c->narchived == 1 ? "" : "s", lab);
	if (c->narchived)
		printf(" and %zu of the archive", c->narchived);
	printf(" compared by sim_c (runs of %u tokens or more); ",
	       c->min_run ? c->min_run : SIMILAR_MIN_RUN);
	if (starter)
		printf("the starter's code left out (%zu lines alike in %s)\n",
		       c->starter_lines_removed, starter);
	else
		printf("no starter to leave out\n");
	if (!c->npairs) {
		printf("no two submissions share a run of tokens\n");
		return;
	}
	printf("%4s  %6s  %-*s  %-*s  %5s  %5s  %s\n", "rank", "score", (int)w, "student", (int)w,
	       "student", "of 1", "of 2", "runs alike (file:lines in each, longest first)");
	for (size_t i = 0; i < c->npairs && (!top || i < top); i++) {
		const struct sim_pair *p = &c->pairs[i];
		printf("%4zu  %5.1f%%  %-*s  %-*s  %4.0f%%  %4.0f%%  ", i + 1, 100 * p->score, (int)w,
		       c->students[p->a], (int)w, c->students[p->b], 100 * p->of_a,
		       100 * p->of_b);
		for (size_t r = 0; r < p->nregions && r < 3; r++) {
			const struct sim_region *g = &p->regions[r];
			char *a = side(c, g->file_a, g->a_first, g->a_last);
			char *b = side(c, g->file_b, g->b_first, g->b_last);
			printf("%s%s~%s", r ? ", " : "", a, b);
			free(a);
			free(b);
		}
		if (p->nregions > 3)
			printf(" (+%zu)", p->nregions - 3);
		printf("\n");
	}
	if (top && c->npairs > top)
		printf("(%zu more pairs with a run alike: --top 0 lists them all)\n", c->npairs - top);
}

static json_t *lines_json(size_t first, size_t last)
{
	return json_pack("[I, I]", (json_int_t)first, (json_int_t)last);
}

static json_t *class_json(const struct sim_class *c, const char *lab, size_t top,
			  const char *starter)
{
	json_t *subs = json_array(), *pairs = json_array();

	for (size_t s = 0; s < c->nsubs; s++)
		json_array_append_new(subs, json_pack("{s:s, s:s, s:I, s:b}", "student",
						      c->students[s], "dir", c->dirs[s], "tokens",
						      (json_int_t)c->sub_tokens[s], "archived",
						      s >= c->nsubs - c->narchived));
	for (size_t i = 0; i < c->npairs && (!top || i < top); i++) {
		const struct sim_pair *p = &c->pairs[i];
		json_t *regions = json_array();
		for (size_t r = 0; r < p->nregions; r++) {
			const struct sim_region *g = &p->regions[r];
			json_array_append_new(
				regions, json_pack("{s:s, s:o, s:s, s:o, s:I}", "file_a",
						   c->files[g->file_a].name, "lines_a",
						   lines_json(g->a_first, g->a_last), "file_b",
						   c->files[g->file_b].name, "lines_b",
						   lines_json(g->b_first, g->b_last), "tokens",
						   (json_int_t)g->tokens));
		}
		json_array_append_new(
			pairs, json_pack("{s:I, s:s, s:s, s:f, s:f, s:f, s:I, s:o}", "rank",
					 (json_int_t)(i + 1), "a", c->students[p->a], "b",
					 c->students[p->b], "score", 100 * p->score, "of_a",
					 100 * p->of_a, "of_b", 100 * p->of_b, "shared_tokens",
					 (json_int_t)p->shared, "regions", regions));
	}
	return json_pack("{s:s, s:s, s:I, s:s?, s:I, s:o, s:I, s:o}", "lab", lab, "tool", "sim_c",
			 "min_run", (json_int_t)(c->min_run ? c->min_run : SIMILAR_MIN_RUN),
			 "starter", starter, "starter_lines_left_out",
			 (json_int_t)c->starter_lines_removed, "submissions", subs, "pairs_alike",
			 (json_int_t)c->npairs, "pairs", pairs);
}

int cmd_similar(int argc, char **argv)
{
	const char *db_path = default_db_path(), *html = NULL;
	size_t top = DEFAULT_TOP;
	unsigned min_run = 0;
	bool json = false;
	int c, code = EXIT_USAGE;
	struct strlist archives = STRLIST_INIT;

	while ((c = cmd_getopt(&similar_cmd, argc, argv)) >= 0) {
		switch (c) {
		case 'd':
			db_path = optarg;
			break;
		case 't':
			if (strcmp(optarg, "0") && !positive_option(optarg)) {
				error("--top wants a number, 0 for every pair, not '%s'", optarg);
				return EXIT_USAGE;
			}
			top = positive_option(optarg);
			break;
		case 'r':
			if (!(min_run = positive_option(optarg)) || min_run < 4 || min_run > 10000) {
				error("--min-run wants a number of tokens from 4 to 10000, not '%s'",
				      optarg);
				return EXIT_USAGE;
			}
			break;
		case 'J':
			json = true;
			break;
		case 'H':
			html = optarg;
			break;
		case 'A':
			strlist_push(&archives, optarg);
			break;
		}
	}
	if (c != CMD_END || argc - optind < 1) {
		strlist_clear(&archives);
		return c != CMD_END ? cmd_stopped(c) : cmd_bad_usage(&similar_cmd);
	}
	const struct toolchain *tc = toolchain();
	const char *lab = argv[optind];
	struct lab_config cfg;
	struct batch_sub *subs = NULL, *old = NULL;
	size_t n = 0, nold = 0, kept = 0;
	char **old_names = NULL;

	if (!lab_exists(tc->root, lab)) {
		strlist_clear(&archives);
		return EXIT_USAGE;
	}
	if (config_load(tc->root, lab, &cfg)) {
		strlist_clear(&archives);
		return EXIT_INTERNAL;
	}
	if (argc - optind > 1 ? batch_collect(lab, &cfg.files, argv + optind + 1,
					      argc - optind - 1, &subs, &n)
			      : from_gradebook(db_path, lab, &subs, &n))
		goto out;
	/* each archive's on its own: two terms may both have an ada */
	for (size_t a = 0; a < archives.n; a++) {
		struct batch_sub *more = NULL;
		size_t nmore = 0;
		if (batch_collect(lab, &cfg.files, archives.v + a, 1, &more, &nmore))
			goto out;
		char *base = last_name(archives.v[a]);
		old = xrealloc(old, (nold + nmore + 1) * sizeof(*old));
		old_names = xrealloc(old_names, (nold + nmore + 1) * sizeof(*old_names));
		for (size_t i = 0; i < nmore; i++) {
			old[nold] = more[i];
			old_names[nold++] = xasprintf("archive/%s/%s", base, more[i].student);
		}
		free(base);
		free(more);   /* its entries now old's */
	}

	struct sim_class sc = {.names = &cfg.files, .min_run = min_run};
	char *starter_dir = xasprintf("%s/student_template/%s", tc->root, lab);
	struct stat st;
	const char *starter = NULL;
	if (!stat(starter_dir, &st) && S_ISDIR(st.st_mode)) {
		sc.starter_dir = starter_dir;
		starter = xasprintf("student_template/%s", lab);
	}
	sc.students = xcalloc(n + nold ? n + nold : 1, sizeof(char *));
	sc.dirs = xcalloc(n + nold ? n + nold : 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		if (is_lab_folder(subs[i].dir, tc->root, "reference", lab) ||
		    is_lab_folder(subs[i].dir, tc->root, "student_template", lab)) {
			warning("'%s' is the lab's %s, not a submission: left out", subs[i].dir,
				is_lab_folder(subs[i].dir, tc->root, "reference", lab) ? "reference"
										 : "starter");
			continue;
		}
		if (!holds_files(subs[i].dir, &cfg.files)) {
			warning("%s: '%s' holds none of the lab's files (%s): left out",
				subs[i].student, subs[i].dir, cfg.files.v[0]);
			continue;
		}
		sc.students[kept] = subs[i].student;
		sc.dirs[kept++] = subs[i].dir;
	}
	size_t current = kept;
	/* the archive's, after the class's: the reference may be one of them */
	for (size_t i = 0; i < nold; i++) {
		if (!holds_files(old[i].dir, &cfg.files)) {
			warning("archive: '%s' holds none of the lab's files (%s): left out",
				old[i].dir, cfg.files.v[0]);
			continue;
		}
		sc.students[kept] = old_names[i];
		sc.dirs[kept++] = old[i].dir;
		sc.narchived++;
	}
	sc.nsubs = kept;
	if (current && sc.narchived) {
		/* one of the class's against the archive is a comparison */
	} else if (kept < 2 || !current) {
		if (!current && argc - optind > 1)
			error("no submissions of %s to compare in the folders given", lab);
		else if (!current)
			error("no submissions of %s to compare in the gradebook '%s' (grade the "
			      "class, or name its folders: cudalab similar %s DIR...)", lab, db_path,
			      lab);
		else
			error("one submission of %s ('%s'): nothing to compare it with", lab,
			      sc.students[0]);
		goto out_class;
	}
	double t0 = wall_seconds();
	if (similar_run(&sc)) {
		code = EXIT_INTERNAL;
		goto out_class;
	}
	if (json) {
		json_t *doc = class_json(&sc, lab, top, starter);
		json_object_set_new(doc, "seconds", json_real(wall_seconds() - t0));
		json_dumpf(doc, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(doc);
	} else {
		print_table(&sc, lab, top, starter);
	}
	code = 0;
	if (html) {
		char *page = html_similar(&sc, lab, cfg.title, starter, top);
		if (write_file_atomic(html, page, strlen(page)))
			code = EXIT_INTERNAL;
		else if (!json)
			printf("page: %s\n", html);
		free(page);
	}
out_class:
	similar_release(&sc);
	free(sc.students);
	free(sc.dirs);
	free(starter_dir);
	free((char *)starter);
out:
	for (size_t i = 0; old_names && i < nold; i++)
		free(old_names[i]);
	free(old_names);
	batch_free(old, nold);
	batch_free(subs, n);
	config_free(&cfg);
	strlist_clear(&archives);
	return code;
}
