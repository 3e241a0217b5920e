/*
 * cmd-collect.c - `cudalab collect LAB SPOOL`: the result documents the
 * tasks of a Slurm array published (slurm.h) into the gradebook, by one
 * writer, once each; and the submissions that have none, with why. Also
 * home of following an array's progress, which `cudalab slurm` shares.
 */
#include "cmd.h"

#include "db.h"
#include "doc.h"
#include "intake.h"
#include "slurm.h"

#include <getopt.h>   /* optind */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


struct counts {
	size_t done, pending, running, missing;
};

static struct counts count(const struct entry_status *st, size_t n)
{
	struct counts c = {0};

	for (size_t i = 0; i < n; i++) {
		size_t *k[] = {&c.done, &c.pending, &c.running, &c.missing};
		(*k[st[i].state])++;
	}
	return c;
}

static void show(const struct counts *c, size_t n, double start, bool tty, bool final)
{
	double el = now_seconds() - start, rate = c->done && el > 0 ? c->done / el * 60 : 0;
	size_t finished = c->done + c->missing;
	char eta[32];

	progress_eta(eta, sizeof(eta), c->done, finished < n ? n - finished : 0, el);
	if (tty) {
		char bar[PROGRESS_BAR_WIDTH + 1];
		progress_bar(bar, finished, n);
		fprintf(stderr, "\r\033[K[%s] %zu/%zu graded, %zu running, %zu pending, %zu failed, "
				"%.1f/min, ETA %s%s", bar, c->done, n, c->running, c->pending, c->missing,
			rate, eta, final ? "\n" : "");
	} else {
		fprintf(stderr, "slurm: %zu/%zu graded, %zu running, %zu pending, %zu failed, %.1f/min, "
				"ETA %s\n", c->done, n, c->running, c->pending, c->missing, rate, eta);
	}
	fflush(stderr);
}

int collect_follow(const struct spool *sp)
{
	struct entry_status *st = xcalloc(sp->n ? sp->n : 1, sizeof(*st));
	bool tty = isatty(STDERR_FILENO) && !progress_quiet;
	struct counts last = {(size_t)-1, 0, 0, 0};
	double start = now_seconds(), wait = 0;
	int ret = 0;

	for (;;) {
		if (spool_status(sp, st)) {
			ret = -1;
			break;
		}
		struct counts c = count(st, sp->n);
		bool over = !c.pending && !c.running;
		spool_status_free(st, sp->n);
		bool changed = memcmp(&c, &last, sizeof(c));
		if (!progress_quiet && (tty || changed || over))
			show(&c, sp->n, start, tty, over);
		last = c;
		if (over)
			break;
		/* squeue is the cluster's: asked less often while nothing changes */
		wait = slurm_poll_wait(wait, changed);
		struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
		nanosleep(&ts, NULL);
	}
	free(st);
	return ret;
}

/*
 * The document at path, checked to be this entry's; NULL with an error. A
 * document names its student as visible_text shows the name (shown); one
 * of a grader from before, as it is.
 */
static json_t *read_doc(const char *path, const char *lab, const char *student,
			const char *shown, char origin[80])
{
	size_t len;
	char *text = read_file(path, &len), hex[65];
	json_error_t jerr;
	json_t *doc;

	if (!text) {
		error("cannot read '%s'", path);
		return NULL;
	}
	sha256_hex(text, len, hex);
	snprintf(origin, 80, "sha256:%s", hex);
	doc = json_loadb(text, len, 0, &jerr);
	free(text);
	if (!doc) {
		error("'%s' is not a result document: line %d: %s", path, jerr.line, jerr.text);
		return NULL;
	}
	if (strcmp(doc_str(doc, "lab"), lab) ||
	    (strcmp(doc_str(doc, "student"), student) && strcmp(doc_str(doc, "student"), shown))) {
		error("'%s' is the result of %s for lab %s, not of %s for lab %s", path,
		      doc_str(doc, "student"), doc_str(doc, "lab"), shown, lab);
		json_decref(doc);
		return NULL;
	}
	return doc;
}

int collect_spool(const struct spool *sp, const char *db_path)
{
	struct db *db = db_open(db_path, toolchain()->root);
	struct entry_status *st = xcalloc(sp->n ? sp->n : 1, sizeof(*st));
	size_t added = 0, had = 0, bad = 0, missing = 0, built = 0, provisional = 0;
	char **shown = NULL;
	int code = 0;

	if (!db || db_check_writable(db)) {
		db_close(db);
		free(st);
		return gradebook_unready();
	}
	if (spool_status(sp, st)) {
		code = EXIT_INTERNAL;
		goto out;
	}
	/* the students' names as people see them: a folder's name is the student's to choose */
	shown = xcalloc(sp->n ? sp->n : 1, sizeof(*shown));
	int sw = 20;   /* the student column as wide as its widest name */
	for (size_t i = 0; i < sp->n; i++) {
		shown[i] = visible_str(sp->e[i].student, true);
		if ((int)strlen(shown[i]) > sw)
			sw = (int)strlen(shown[i]);
	}
	printf("%-*s %-28s %-12s %s\n", sw, "student", "score", "status", "run");
	for (size_t i = 0; i < sp->n; i++) {
		const struct spool_entry *e = &sp->e[i];
		if (st[i].state != ENTRY_DONE)
			continue;
		char *path = spool_result_path(sp, e), origin[80], score[SCORE_TEXT_MAX];
		json_t *doc = read_doc(path, sp->lab, e->student, shown[i], origin);
		long long run = -1;
		int rc = doc ? db_store_doc(db, doc, origin, &run) : -1;
		free(path);
		if (rc < 0) {
			bad++;
			json_decref(doc);
			continue;
		}
		*(rc ? &had : &added) += 1;
		struct score_view view = doc_score_view(doc);
		printf("%-*s %-28s %-12s %lld%s\n", sw, shown[i], score_text(score, &view),
		       doc_str(doc, "status"), run, rc ? " (collected before)" : "");
		if (doc_built(doc)) {
			built++;
			provisional += json_is_true(json_object_get(doc, "provisional"));
		}
		json_decref(doc);
	}
	for (size_t i = 0; i < sp->n; i++)
		missing += st[i].state != ENTRY_DONE;
	fprintf(stderr, "collected %zu new run%s into %s (%zu collected before)%s\n", added,
		added == 1 ? "" : "s", db_path, had,
		bad ? "; some result documents were refused (above)" : "");
	if (missing) {
		fprintf(stderr, "%zu submission%s without a result (never charged to the student):\n",
			missing, missing == 1 ? "" : "s");
		for (size_t i = 0; i < sp->n; i++) {
			const char *what[] = {"", "still queued", "still grading", ""};
			if (st[i].state == ENTRY_DONE)
				continue;
			char *why = visible_str(st[i].why ? st[i].why : "", false);
			fprintf(stderr, "  %s: %s%s%s\n", shown[i], what[st[i].state],
				st[i].why && st[i].state != ENTRY_MISSING ? ", " : "", why);
			free(why);
		}
		fprintf(stderr, "grade them again with: cudalab slurm %s --spool %s --resume\n", sp->lab,
			sp->path);
	}
	if (bad)
		code = EXIT_INTERNAL;
	else if (missing || (built && provisional == built))
		code = EXIT_INCOMPLETE;
out:
	for (size_t i = 0; shown && i < sp->n; i++)
		free(shown[i]);
	free(shown);
	spool_status_free(st, sp->n);
	free(st);
	db_close(db);
	return code;
}

static const struct cmd_opt collect_opts[] = {
	CMD_OPT('d', "db", 0, "PATH", "the gradebook (default: $CUDALAB_DB, else ./gradebook.db)"),
	CMD_OPT('w', "wait", 0, NULL,
	 "follow the array first (graded, running, pending, failed, rate,\n"
	 "ETA) until no task of it is queued or running"),
	CMD_OPT('q', "quiet", 'q', NULL, "no progress lines"),
	CMD_OPT_END,
};
static const struct cmd_spec collect_cmd = {
	.synopsis = "usage: cudalab collect LAB SPOOL [--db PATH] [--wait]\n"
		    "\n"
		    "Stores the result documents the tasks of `cudalab slurm` wrote into the spool\n"
		    "folder SPOOL in the gradebook, each once: collecting again adds nothing. Lists\n"
		    "the submissions that have no result and why (still queued or grading, the task\n"
		    "was killed, reached its time limit, the grader failed), from the tasks' traces\n"
		    "and logs, and from sacct where the cluster keeps accounting. They are graded\n"
		    "again with `cudalab slurm LAB --spool SPOOL --resume`, never charged to the\n"
		    "student. Run it where the gradebook is, as its one writer (docs/ta-guide.md,\n"
		    "\"Grading on a cluster\").\n"
		    "Exit codes: 0 every submission has its run in the gradebook, 4 some have none\n"
		    "yet (or every run is provisional: emulated), 2 usage, 128 a result document\n"
		    "was refused or the gradebook failed.\n"
		    "\n",
	.opts = {collect_opts},
};

int cmd_collect(int argc, char **argv)
{
	const char *db_path = default_db_path();
	bool wait = false;
	struct spool sp;
	int c, code;

	while ((c = cmd_getopt(&collect_cmd, argc, argv)) >= 0) {
		switch (c) {
		case 'd':
			db_path = optarg;
			break;
		case 'w':
			wait = true;
			break;
		case 'q':
			progress_quiet = true;
			break;
		}
	}
	if (c != CMD_END)
		return cmd_stopped(c);
	if (argc - optind != 2)
		return cmd_bad_usage(&collect_cmd);
	if (!gradebook_ready(db_path))
		return gradebook_unready();
	if (spool_open(argv[optind + 1], argv[optind], &sp))
		return EXIT_USAGE;
	if (wait && collect_follow(&sp))
		code = EXIT_INTERNAL;
	else
		code = collect_spool(&sp, db_path);
	spool_free(&sp);
	return code;
}
