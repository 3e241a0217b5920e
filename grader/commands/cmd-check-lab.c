/*
 * cmd-check-lab.c - `cudalab check-lab [LAB...]`: grades a lab's reference,
 * its stub, every fixture and every real-world corpus case, and holds each
 * to the verdict written for it (its expect file; the reference: full
 * marks; the stub: every correctness test failed), so that a lab, a new one
 * above all, is tested without a script of its own.
 *
 * Owns: which cases a lab has and what each is held to. Grading is a
 * class's (batch.h) into a gradebook of its own; what a run must give is
 * expect.h's.
 */
#include "cmd.h"
#include "batch.h"
#include "db.h"
#include "doc.h"
#include "expect.h"
#include "report.h"

#include <errno.h>
#include <getopt.h>   /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct cmd_opt check_lab_opts[] = {
	CMD_OPT('j', "jobs", 'j', "N", "grade N cases at once (default: one per CPU)"),
	CMD_OPT('E', "emulate", 0, NULL, "grade on the CPU emulator even where a GPU is"),
	CMD_OPT('U', "unsandboxed", 0, NULL,
	 "where the sandbox cannot start, grade without it all the same"),
	CMD_OPT('r', "runs", 0, "DIR", "keep the cases' runs: the gradebook DIR/LAB.db\n"
		"(default: a temporary folder, removed)"),
	CMD_OPT('v', "verbose", 'v', NULL, "under a case that differs, its report"),
	CMD_OPT_END,
};
static const struct cmd_spec check_lab_cmd = {
	.synopsis = "usage: cudalab check-lab [LAB...] [-j N] [--emulate] [--runs DIR] [-v]\n"
		    "\n"
		    "Grades each lab (those named, else every one): its reference, its stub, every\n"
		    "fixture (reference/LAB/fixtures/CASE/) and every real-world corpus case\n"
		    "(reference/LAB/corpus/CASE/), as one class, then holds each run to the verdict\n"
		    "written for it: the case's expect file (docs/lab-authoring.md, \"The expect\n"
		    "file\"), full marks for the reference, and every correctness test failed for\n"
		    "the stub. A case with an `open` file (its first line: why the grader does not\n"
		    "give that verdict yet; \"cpu: \" or \"gpu: \" first: only on the CPU, only on\n"
		    "a GPU) is a known difference, which fails nothing until it holds. Prints a line\n"
		    "per case, what differs under it, and a line per lab.\n"
		    "Grades on a GPU where there is one, else emulated. Exits 0 when every case\n"
		    "holds, 1 when one differs or has no expect file, 128 when one could not be\n"
		    "graded (the grader's or the machine's failure).\n"
		    "\n",
	.opts = {check_lab_opts},
};

/* One case of a lab: a folder graded as student, and what it is held to. */
struct lab_case {
	const char *kind;   /* "reference", "stub", "fixture", "corpus" */
	char *name, *dir, *student;
	char *expect;       /* the verdict's lines */
	char *open;         /* why the grader does not give it yet (the case's `open`
			       file's first line), or NULL */
};

/* The implicit verdicts: the reference's full marks, the stub's failures. */
static char *implicit_expect(const struct lab_config *cfg, bool reference)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "exit %d\nbuild ok\n", reference ? 0 : 1);
	for (size_t p = 0; p < cfg->nparts; p++)
		if (cfg->parts[p].ntests)
			strbuf_addf(&sb, "%s * %s\n", cfg->parts[p].name, reference ? "pass" : "fail");
	return strbuf_detach(&sb);
}

static void add_case(struct lab_case **cases, size_t *n, const char *kind, const char *name,
		     char *dir, char *student, char *expect)
{
	*cases = xrealloc(*cases, (*n + 1) * sizeof(**cases));
	(*cases)[(*n)++] = (struct lab_case){kind, xstrdup(name), dir, student, expect, NULL};
}

/*
 * The cases of folder (fixtures or corpus), sorted, each a sub-folder with
 * an expect file; one without is named in *missing. Returns -1 when a
 * folder cannot be read.
 */
static int add_folder(const char *folder, const char *kind, const char *prefix,
		      struct lab_case **cases, size_t *n, struct strlist *missing)
{
	struct strlist names = STRLIST_INIT;

	if (list_folders(folder, &names))
		return errno == ENOENT ? 0 : error("cannot read '%s': %s", folder, strerror(errno));
	for (size_t i = 0; i < names.n; i++) {
		char *dir = xasprintf("%s/%s", folder, names.v[i]);
		char *path = xasprintf("%s/expect", dir);
		size_t len;
		char *expect = access(path, F_OK) ? NULL : read_file(path, &len);
		free(path);
		if (!expect) {
			strlist_pushf(missing, "%s %s", kind, names.v[i]);
			free(dir);
			continue;
		}
		add_case(cases, n, kind, names.v[i], dir, xasprintf("%s%s", prefix, names.v[i]),
			 expect);
		/* a known difference, as the red-team corpus marks one (t2004) */
		char *open = xasprintf("%s/open", dir), *why = NULL;
		if (!access(open, F_OK) && (why = read_file(open, &len)))
			why[strcspn(why, "\n")] = '\0';
		(*cases)[*n - 1].open = why;
		free(open);
	}
	strlist_clear(&names);
	return 0;
}

static void free_cases(struct lab_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(cases[i].name);
		free(cases[i].dir);
		free(cases[i].student);
		free(cases[i].expect);
		free(cases[i].open);
	}
	free(cases);
}

/* Every case of lab; -1 when one cannot be read or two would share a student. */
static int lab_cases(const char *root, const struct lab_config *cfg, struct lab_case **cases,
		     size_t *n, struct strlist *missing)
{
	char *ref = xasprintf("%s/reference/%s", root, cfg->name);
	char *fixtures = xasprintf("%s/fixtures", ref), *corpus = xasprintf("%s/corpus", ref);
	int rc = 0;

	*cases = NULL;
	*n = 0;
	/* the reference's answers (a lab of questions) are the student fixture-<lab>'s */
	add_case(cases, n, "reference", cfg->name, xstrdup(ref),
		 xasprintf("fixture-%s", cfg->name), implicit_expect(cfg, true));
	add_case(cases, n, "stub", cfg->name, xasprintf("%s/student_template/%s", root, cfg->name),
		 xstrdup("fixture-stub"), implicit_expect(cfg, false));
	if (add_folder(fixtures, "fixture", "fixture-", cases, n, missing) ||
	    add_folder(corpus, "corpus", "", cases, n, missing))
		rc = -1;
	for (size_t i = 0; !rc && i < *n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp((*cases)[i].student, (*cases)[j].student)) {
				rc = error("%s %s and %s %s would both be graded as '%s': rename one",
					   (*cases)[j].kind, (*cases)[j].name, (*cases)[i].kind,
					   (*cases)[i].name, (*cases)[i].student);
				break;
			}
	free(ref);
	free(fixtures);
	free(corpus);
	return rc;
}

/* The document of student's latest run of lab in db, or NULL. */
static json_t *latest_doc(struct db *db, const char *lab, const char *student)
{
	long long *ids;
	size_t n;
	json_t *doc = NULL;
	char *json = NULL;

	if (!db_latest_runs(db, lab, student, &ids, &n) && n && !db_run_json(db, ids[0], &json))
		doc = json_loads(json, 0, NULL);
	free(json);
	free(ids);
	return doc;
}

/*
 * The values of the grader's environment a run must not show ("conceals
 * secrets"): those of variables named like a secret (a token, a key, a
 * password), eight characters or more; a new NULL-ended array.
 */
static char **secret_values(void)
{
	extern char **environ;
	static const char *const marks[] = {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "_KEY"};
	size_t n = 0;
	char **v = NULL;

	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || strlen(eq + 1) < 8)
			continue;
		for (size_t m = 0; m < sizeof(marks) / sizeof(*marks); m++)
			if (memmem(*e, (size_t)(eq - *e), marks[m], strlen(marks[m]))) {
				v = xrealloc(v, (n + 1) * sizeof(*v));
				v[n++] = xstrdup(eq + 1);
				break;
			}
	}
	v = xrealloc(v, (n + 1) * sizeof(*v));
	v[n] = NULL;
	return v;
}

/* Holds each case's run to its verdict; prints a line per case. Counts into the tallies. */
static void hold_cases(struct db *db, const struct toolchain *tc, const char *lab,
		       const struct lab_case *cases, size_t n, bool verbose, size_t tally[5])
{
	char **secrets = secret_values();

	for (size_t i = 0; i < n; i++) {
		const struct lab_case *c = &cases[i];
		struct strlist findings = STRLIST_INIT;
		json_t *doc = latest_doc(db, lab, c->student);
		char *report = NULL;
		size_t len = 0;
		enum expect_outcome out = EXPECT_DIFFERS;

		if (doc) {
			FILE *mem = open_memstream(&report, &len);
			if (mem) {
				report_document(mem, doc);
				fclose(mem);
			}
			struct expect_context cx = {.root = tc->root,
						    .secrets = (const char *const *)secrets,
						    .report = report};
			out = expect_check(doc, c->expect, &cx, &findings);
		}
		/* an open file's "cpu: " or "gpu: " says where it holds: a run on the CPU
		 * (emulated, or a lab that needs no GPU), or one on a GPU */
		const char *open = c->open;
		bool on_gpu = doc && !strcmp(doc_str(doc, "mode"), "gpu");
		if (open && !strncmp(open, "cpu: ", 5))
			open = doc && !on_gpu ? open + 5 : NULL;
		else if (open && !strncmp(open, "gpu: ", 5))
			open = on_gpu ? open + 5 : NULL;
		/* tally: 0 as expected, 1 differs, 2 skipped, 3 not graded, 4 known */
		const char *verdict = "ok";
		int k = 0;
		if (!doc)
			verdict = "NOT GRADED", k = 3;
		else if (out == EXPECT_SKIPPED)
			verdict = "skipped", k = 2;
		else if (out == EXPECT_DIFFERS && open)
			verdict = "known", k = 4;
		else if (out == EXPECT_DIFFERS)
			verdict = "DIFFERS", k = 1;
		else if (open)   /* holds now: the mark must go */
			verdict = "HOLDS NOW", k = 1;
		tally[k]++;
		printf("  %-10s %-9s %s%s%s\n", verdict, c->kind, c->name, doc ? ": " : "",
		       doc ? doc_str(doc, "score_text") : "");
		if (k == 4)
			printf("      known: %s\n", open);
		else if (open && k == 1)
			printf("      it has an open file (%s), but gets its verdict: remove the file\n",
			       open);
		for (size_t f = 0; f < findings.n; f++)
			printf("      %s\n", findings.v[f]);
		if (verbose && doc && out == EXPECT_DIFFERS && report)
			for (char *l = report, *e; *l; l = e + (*e == '\n')) {
				e = l + strcspn(l, "\n");
				printf("      | %.*s\n", (int)(e - l), l);
			}
		strlist_clear(&findings);
		free(report);
		json_decref(doc);
	}
	for (char **s = secrets; *s; s++)
		free(*s);
	free(secrets);
}

/* Grades one lab's cases into a gradebook under dir and holds them; its exit code. */
static int check_one(const struct toolchain *tc, const char *lab, const char *dir,
		     const struct grade_opts *go, const struct batch_opts *given, bool verbose)
{
	struct lab_config cfg;
	struct lab_case *cases = NULL;
	struct strlist missing = STRLIST_INIT;
	size_t n = 0, tally[5] = {0};
	int code = EXIT_INTERNAL;

	if (config_load(tc->root, lab, &cfg))
		return EXIT_INTERNAL;
	char *db_path = xasprintf("%s/%s.db", dir, lab);
	if (lab_cases(tc->root, &cfg, &cases, &n, &missing))
		goto out;
	struct batch_sub *subs = xcalloc(n, sizeof(*subs));
	for (size_t i = 0; i < n; i++)
		subs[i] = (struct batch_sub){.dir = xstrdup(cases[i].dir),
					     .student = xstrdup(cases[i].student)};
	struct batch_opts bo = *given;
	bo.db_path = db_path;
	bo.no_summary = true;
	double t0 = now_seconds();
	fprintf(stderr, "check-lab %s: grading %zu cases ...\n", lab, n);
	int graded = class_gradebook_ready(db_path) ? batch_grade(tc, &cfg, subs, n, &bo, go)
						    : gradebook_unready();
	batch_free(subs, n);
	struct db *db = db_open(db_path, tc->root);
	if (!db)
		goto out;
	printf("%s: %zu cases, graded in %.0f s\n", lab, n, now_seconds() - t0);
	hold_cases(db, tc, lab, cases, n, verbose, tally);
	db_close(db);
	for (size_t i = 0; i < missing.n; i++)
		printf("  %-10s %s (no expect file: write the verdict a TA gives)\n", "no verdict",
		       missing.v[i]);
	printf("%s: %zu as expected, %zu differ, %zu skipped, %zu not graded, %zu without a "
	       "verdict, %zu known differences\n", lab, tally[0], tally[1], tally[2], tally[3],
	       missing.n, tally[4]);
	/* a class that failed the grader's way left a case not graded: counted there */
	(void)graded;
	code = tally[3] ? EXIT_INTERNAL : tally[1] || missing.n ? 1 : 0;
out:
	free_cases(cases, n);
	strlist_clear(&missing);
	free(db_path);
	config_free(&cfg);
	return code;
}

/* The worse of two exit codes: 128 (not graded) over 1 (a case differs) over 0. */
static int worse(int a, int b)
{
	return a == EXIT_INTERNAL || b == EXIT_INTERNAL ? EXIT_INTERNAL : a ? a : b;
}

int cmd_check_lab(int argc, char **argv)
{
	struct grade_opts go = GRADE_OPTS_INIT;
	struct batch_opts bo = {0};
	struct strlist labs = STRLIST_INIT;
	const char *keep = NULL;
	bool verbose = false;
	int c, code = 0;

	while ((c = cmd_getopt(&check_lab_cmd, argc, argv)) >= 0) {
		switch (c) {
		case 'j':
			if (!(bo.jobs = positive_option(optarg))) {
				error("--jobs wants a positive number, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'E':
			go.emulate = 1;
			break;
		case 'U':
			go.unsandboxed = true;
			break;
		case 'r':
			keep = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		}
	}
	if (c != CMD_END)
		return cmd_stopped(c);
	const struct toolchain *tc = toolchain();
	for (int i = optind; i < argc; i++) {
		if (!lab_exists(tc->root, argv[i])) {   /* it says which there are */
			strlist_clear(&labs);
			return EXIT_USAGE;
		}
		strlist_push(&labs, argv[i]);
	}
	if (!labs.n && config_list_labs(tc->root, &labs))
		return EXIT_INTERNAL;

	char *dir = NULL;
	if (keep) {
		if (mkdir(keep, 0777) && errno != EEXIST) {
			error("cannot make '%s': %s", keep, strerror(errno));
			strlist_clear(&labs);
			return EXIT_USAGE;
		}
		dir = xstrdup(keep);
	} else {
		const char *tmp = getenv("TMPDIR");
		dir = xasprintf("%s/cudalab-check-lab-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			error("cannot make a folder for the cases' gradebook: %s", strerror(errno));
			free(dir);
			strlist_clear(&labs);
			return EXIT_INTERNAL;
		}
	}
	batch_defaults(&bo);
	for (size_t i = 0; i < labs.n && !run_stopped(); i++) {
		struct lab_config cfg;
		if (config_load(tc->root, labs.v[i], &cfg)) {
			code = EXIT_INTERNAL;
			continue;
		}
		/* the sandbox, before any case of the lab is graded */
		bool ready = grading_sandbox_ready(tc, &cfg, &go);
		config_free(&cfg);
		code = worse(code, ready ? check_one(tc, labs.v[i], dir, &go, &bo, verbose)
					 : EXIT_INTERNAL);
	}
	if (keep)
		fprintf(stderr, "the cases' runs: %s/LAB.db (cudalab db show --db ...)\n", keep);
	else
		remove_tree(dir);
	free(dir);
	strlist_clear(&bo.gpus);
	strlist_clear(&labs);
	return run_stopped() ? 128 + run_stopped() : code;
}
