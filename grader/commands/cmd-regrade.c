/*
 * cmd-regrade.c - `cudalab regrade LAB`: grade every student's latest
 * submission of a lab again (after a fix to its tests, say), as new runs,
 * and show what changed.
 */
#include "cmd.h"

#include "batch.h"
#include "db.h"
#include "doc.h"
#include "intake.h"

#include <errno.h>
#include <getopt.h>   /* optind */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct cmd_opt regrade_opts[] = {
	CMD_OPT('s', "student", 0, "ID", "only this student"),
	CMD_OPT('j', "jobs", 'j', "N", "gradings at once (default: one per CPU)"),
	CMD_OPT('G', "gpus", 0, "LIST",
	 "the GPUs to use (default: every GPU of the machine; in a Slurm\n"
	 "job, the job's)"),
	CMD_OPT('d', "db", 0, "PATH", "the gradebook (default: $CUDALAB_DB, else ./gradebook.db)"),
	CMD_OPT('q', "quiet", 'q', NULL, "no progress lines"),
	CMD_OPT_END,
};
static const struct cmd_spec regrade_cmd = {
	.synopsis = "usage: cudalab regrade LAB [--student ID] [-j N] [--gpus LIST] [--db PATH]\n"
		    "\n"
		    "Grades again the files of each student's latest run of LAB (only ID's with\n"
		    "--student), as a class is graded (cudalab grade -h), with the time they were\n"
		    "submitted, and lists what changed: the score, and each test whose verdict is\n"
		    "not what it was. The files are the run's own: its folder where it holds them\n"
		    "still, else the gradebook's copy (a folder that changed since is a new\n"
		    "submission, for cudalab grade; it is named). Earlier runs are kept; the new\n"
		    "ones are added.\n"
		    "\n",
	.opts = {regrade_opts},
};

/* Each student's latest result document of lab, by student; NULL entries where unreadable. */
static int latest(const char *db_path, const char *lab, const char *student, json_t ***docs,
		  size_t *n)
{
	struct db *db = db_open(db_path, toolchain()->root);
	long long *ids;
	int ret = -1;

	*docs = NULL;
	*n = 0;
	if (!db)
		return -1;
	if (!db_latest_runs(db, lab, student, &ids, n)) {
		*docs = xcalloc(*n ? *n : 1, sizeof(**docs));
		for (size_t i = 0; i < *n; i++) {
			char *text = NULL;
			if (!db_run_json(db, ids[i], &text))
				(*docs)[i] = json_loads(text, 0, NULL);
			free(text);
		}
		free(ids);
		ret = 0;
	}
	db_close(db);
	return ret;
}

/*
 * Whether dir holds now what doc's run graded: the same files (by sha256),
 * and, for a run intake refused, the same reason. 1 yes, 0 no, -1 when it
 * cannot be read.
 */
static int holds_what_was_graded(const struct lab_config *cfg, json_t *doc, const char *dir)
{
	struct intake in;
	char now[65], then[65];
	int same;

	if (intake_copy(dir, &cfg->files, cfg->max_file_bytes, NULL, &in))
		return -1;
	db_files_hash(in.files, in.nfiles, now);
	db_doc_files_hash(json_object_get(doc, "files"), then);
	json_t *build = json_object_get(doc, "build");
	bool refused = !strcmp(doc_str(build, "status"), "refused");
	same = !strcmp(now, then) && refused == !in.accepted &&
	       (!refused || !strcmp(doc_str(build, "message"), in.refusal ? in.refusal : ""));
	intake_release(&in);
	return same;
}

/* Writes the files doc's run graded, as the gradebook keeps them, into dir: 0, 1 when it
 * keeps some of them not (a run stored before it kept files), -1 on error. */
static int write_stored_files(struct db *db, json_t *doc, const char *dir)
{
	json_t *f;
	size_t i;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return error("cannot create '%s': %s", dir, strerror(errno));
	json_array_foreach(json_object_get(doc, "files"), i, f) {
		const char *name = doc_str(f, "name");
		char *data, *path;
		size_t len;
		int rc = db_file_content(db, doc_str(f, "sha256"), &data, &len);
		if (rc)
			return rc;
		if (!*name || strchr(name, '/') || !strcmp(name, "..")) {
			free(data);
			return error("run of %s: a file name the grader does not write: '%s'",
				     doc_str(doc, "student"), name);
		}
		path = xasprintf("%s/%s", dir, name);
		rc = write_file_atomic(path, data, len);
		free(path);
		free(data);
		if (rc)
			return -1;
	}
	return 0;
}

/*
 * What each student's latest run graded, into subs (*k of them): the
 * folder itself where it holds those files still, else the gradebook's copy
 * of them, written under tmp, graded under the folder's name. A folder
 * that changed is said so: its files are a new submission, for `cudalab
 * grade`. -1 on an error of the grader's.
 */
static int what_to_regrade(const char *db_path, const struct lab_config *cfg, json_t **before,
			   size_t n, const char *tmp, struct batch_sub *subs, size_t *k)
{
	struct db *db = db_open(db_path, toolchain()->root);
	size_t changed = 0;

	*k = 0;
	if (!db)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!before[i])
			continue;
		const char *dir = doc_str(before[i], "submission"), *who = doc_str(before[i], "student");
		char *name = visible_str(who, true), *copy = xasprintf("%s/%zu", tmp, i);
		struct stat st;
		bool there = *dir && !stat(dir, &st) && S_ISDIR(st.st_mode);
		int same = there ? holds_what_was_graded(cfg, before[i], dir) : 0;
		const char *now = same < 0 ? "cannot be read" : there ? "holds other files now"
								      : "is gone";
		int stored = same == 1 ? 0 : write_stored_files(db, before[i], copy);
		if (stored < 0) {
			free(name), free(copy);
			db_close(db);
			return -1;
		}
		if (same != 1 && stored) {
			warning("%s: the folder graded last ('%s') %s, and the gradebook keeps no copy "
				"of its files (stored before it kept them): not graded again", name,
				dir, now);
			free(name), free(copy);
			continue;
		}
		if (same != 1) {
			warning("%s: the folder graded last ('%s') %s: its run's files are graded "
				"again, from the gradebook's copy", name, dir, now);
			changed += same == 0 && there;
		}
		subs[*k].dir = same == 1 ? xstrdup(dir) : xstrdup(copy);
		subs[*k].recorded_as = same == 1 ? NULL : xstrdup(dir);
		subs[*k].student = xstrdup(who);
		/* submitted when it was before: a regrade is no new submission */
		if (!late_parse_time(doc_str(before[i], "submitted_at"), &subs[*k].submitted_at))
			subs[*k].submitted_from = doc_str(before[i], "submitted_from");
		(*k)++;
		free(name), free(copy);
	}
	db_close(db);
	if (changed)
		warning("%zu folder%s changed since %s graded: each is a new submission, which "
			"`cudalab grade %s FOLDER` grades (with its own time, late or not)", changed,
			changed == 1 ? "" : "s", changed == 1 ? "it was" : "they were", cfg->name);
	return 0;
}

/* "score 40 -> 43; picture/exact fail -> pass" or NULL when nothing changed. */
static char *changes(json_t *before, json_t *after)
{
	struct strbuf sb = STRBUF_INIT;
	double a = json_number_value(json_object_get(before, "score"));
	double b = json_number_value(json_object_get(after, "score"));
	json_t *t, *u;
	size_t i, j;

	if (fabs(a - b) > 1e-9)
		strbuf_addf(&sb, "score %g -> %g", a, b);
	/* after lateness: an extension granted since, say */
	double final_a = doc_final_score(before), final_b = doc_final_score(after);
	if (fabs((final_a - a) - (final_b - b)) > 1e-9)
		strbuf_addf(&sb, "%sfinal %g -> %g", sb.len ? "; " : "", final_a, final_b);
	json_array_foreach(json_object_get(after, "tests"), i, u) {
		const char *was = "(new)";
		json_array_foreach(json_object_get(before, "tests"), j, t)
			if (!strcmp(doc_str(t, "part"), doc_str(u, "part")) &&
			    !strcmp(doc_str(t, "name"), doc_str(u, "name")))
				was = doc_str(t, "status");
		if (strcmp(was, doc_str(u, "status")))
			strbuf_addf(&sb, "%s%s/%s %s -> %s", sb.len ? "; " : "", doc_str(u, "part"),
				    doc_str(u, "name"), was, doc_str(u, "status"));
	}
	return strbuf_detach(&sb);
}

int cmd_regrade(int argc, char **argv)
{
	const char *student = NULL;
	struct batch_opts bo = {.db_path = default_db_path()};
	struct grade_opts go = GRADE_OPTS_INIT;
	int c, code;

	while ((c = cmd_getopt(&regrade_cmd, argc, argv)) >= 0) {
		switch (c) {
		case 's':
			student = optarg;
			break;
		case 'j':
			bo.jobs = positive_option(optarg);
			if (!bo.jobs) {
				error("--jobs wants a positive number, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'G':
			gpus_parse(optarg, &bo.gpus);
			break;
		case 'd':
			bo.db_path = optarg;
			break;
		case 'q':
			progress_quiet = true;
			break;
		}
	}
	if (c != CMD_END)
		return cmd_stopped(c);
	if (argc - optind != 1)
		return cmd_bad_usage(&regrade_cmd);
	const struct toolchain *tc = toolchain();
	const char *lab = argv[optind];
	struct lab_config cfg;
	json_t **before, **after;
	size_t n, m;

	/* its gradings run side by side, as a class's */
	if (!class_gradebook_ready(bo.db_path))
		return gradebook_unready();
	if (latest(bo.db_path, lab, student, &before, &n))
		return EXIT_INTERNAL;
	if (!n) {
		free(before);
		error("the gradebook '%s' has no run of lab '%s'%s%s", bo.db_path, lab,
		      student ? " by " : "", student ? student : "");
		return EXIT_USAGE;
	}
	if (config_load(tc->root, lab, &cfg)) {
		code = EXIT_INTERNAL;
		goto out_before;
	}
	/* what was graded last: the folder, where it holds that still, else the
	 * gradebook's copy of its files */
	struct batch_sub *subs = xcalloc(n, sizeof(*subs));
	size_t k = 0;
	const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *tmp = xasprintf("%s/cudalab-regrade.XXXXXX", tmpdir);
	if (!mkdtemp(tmp)) {
		code = error("cannot create a folder in '%s': %s", tmpdir, strerror(errno));
		free(subs);
		free(tmp);
		config_free(&cfg);
		goto out_before;
	}
	if (what_to_regrade(bo.db_path, &cfg, before, n, tmp, subs, &k)) {
		code = EXIT_INTERNAL;
	} else {
		batch_defaults(&bo);
		code = k ? batch_grade(tc, &cfg, subs, k, &bo, &go) : EXIT_USAGE;
	}
	batch_free(subs, k);
	remove_tree(tmp);
	free(tmp);
	config_free(&cfg);

	if (k && !latest(bo.db_path, lab, student, &after, &m)) {
		printf("\nwhat changed:\n");
		size_t changed = 0;
		for (size_t i = 0; i < m; i++) {
			json_t *was = NULL;
			for (size_t j = 0; j < n && !was; j++)
				if (before[j] && !strcmp(doc_str(before[j], "student"), doc_str(after[i], "student")))
					was = before[j];
			char *what = was && after[i] ? changes(was, after[i]) : NULL;
			if (what && *what) {
				/* a document of a grader from before may hold the name as given */
				char *name = visible_str(doc_str(after[i], "student"), true);
				printf("  %s: %s\n", name, what);
				free(name);
				changed++;
			}
			free(what);
			json_decref(after[i]);
		}
		if (!changed)
			printf("  nothing: every score and verdict is what it was\n");
		free(after);
	}
out_before:
	for (size_t i = 0; i < n; i++)
		json_decref(before[i]);
	free(before);
	strlist_clear(&bo.gpus);
	return code;
}
