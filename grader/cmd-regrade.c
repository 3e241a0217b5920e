/*
 * cmd-regrade.c - `cudalab regrade LAB`: grade every student's latest
 * submission of a lab again (after a fix to its tests, say), as new runs,
 * and show what changed.
 */
#include "cmd.h"

#include "batch.h"
#include "db.h"
#include "doc.h"

#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cudalab regrade LAB [--student ID] [-j N] [--gpus LIST] [--db PATH]\n"
		"\n"
		"Grades again the folder of each student's latest run of LAB (only ID's with\n"
		"--student), as a class is graded (cudalab grade -h), and lists what changed:\n"
		"the score, and each test whose verdict is not what it was. Earlier runs are\n"
		"kept; the new ones are added.\n"
		"\n"
		"  --student ID   only this student\n"
		"  -j, --jobs N   gradings at once (default: one per CPU)\n"
		"  --gpus LIST    the GPUs to use (default: every GPU of the machine; in a Slurm\n"
		"                 job, the job's)\n"
		"  --db PATH      the gradebook (default: $CUDALAB_DB, else ./gradebook.db)\n"
		"  -q, --quiet    no progress lines\n"
		"  -h, --help     this text\n");
}

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
	static const struct option opts[] = {
		{"student", required_argument, NULL, 's'}, {"jobs", required_argument, NULL, 'j'},
		{"gpus", required_argument, NULL, 'G'},    {"db", required_argument, NULL, 'd'},
		{"quiet", no_argument, NULL, 'q'},         {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *student = NULL;
	struct batch_opts bo = {.db_path = default_db_path()};
	struct grade_opts go = GRADE_OPTS_INIT;
	int c, code;

	while ((c = getopt_long(argc, argv, "s:j:d:qh", opts, NULL)) != -1) {
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
			batch_parse_gpus(optarg, &bo.gpus);
			break;
		case 'd':
			bo.db_path = optarg;
			break;
		case 'q':
			progress_quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
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
	/* the folders graded last, where they still are */
	struct batch_sub *subs = xcalloc(n, sizeof(*subs));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *dir = doc_str(before[i], "submission"), *who = doc_str(before[i], "student");
		struct stat st;
		if (!*dir || stat(dir, &st) || !S_ISDIR(st.st_mode)) {
			warning("%s: the folder graded last ('%s') is gone: not graded again", who, dir);
			continue;
		}
		subs[k].dir = xstrdup(dir);
		subs[k].student = xstrdup(who);
		/* submitted when it was before: a regrade is no new submission */
		if (!late_parse_time(doc_str(before[i], "submitted_at"), &subs[k].submitted_at))
			subs[k].submitted_from = doc_str(before[i], "submitted_from");
		k++;
	}
	batch_defaults(&bo);
	code = k ? batch_grade(tc, &cfg, subs, k, &bo, &go) : EXIT_USAGE;
	batch_free(subs, k);
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
