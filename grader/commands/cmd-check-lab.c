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
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <getopt.h>   /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct cmd_opt check_lab_opts[] = {
	CMD_OPT('j', "jobs", 'j', "N", "grade N cases at once (default: one per CPU)"),
	CMD_OPT('E', "emulate", 0, NULL, "grade on the CPU emulator only, even where a GPU is"),
	CMD_OPT('G', "no-emulate", 0, NULL, "grade on the GPU only (no GPU: a failure)"),
	CMD_OPT('U', "unsandboxed", 0, NULL,
	 "where the sandbox cannot start, grade without it all the same"),
	CMD_OPT('r', "runs", 0, "DIR", "keep the cases' runs: the gradebooks DIR/LAB.db and,\n"
		"compared with a GPU's, DIR/LAB-emulated.db (default: a\n"
		"temporary folder, removed)"),
	CMD_OPT('v', "verbose", 'v', NULL, "under a case that differs, its report"),
	CMD_OPT_END,
};
static const struct cmd_spec check_lab_cmd = {
	.synopsis = "usage: cudalab check-lab [LAB...] [-j N] [--[no-]emulate] [--runs DIR] [-v]\n"
		    "\n"
		    "Grades each lab (those named, else every one): its reference, its stub, every\n"
		    "fixture (reference/LAB/fixtures/CASE/) and every real-world corpus case\n"
		    "(reference/LAB/corpus/CASE/), as one class, then holds each run to the verdict\n"
		    "written for it: the case's expect file (docs/lab-authoring.md, \"The expect\n"
		    "file\"), full marks for the reference, and every correctness test failed for\n"
		    "the stub. A case with an `open` file (its first line: why the grader does not\n"
		    "give that verdict yet; \"cpu: \" or \"gpu: \" first: only on the CPU, only on\n"
		    "a GPU) is a known difference, which fails nothing until it holds (then it\n"
		    "fails until the file goes; \"sometimes: \" after that: a race whose outcome\n"
		    "varies from run to run, which may hold). Prints a line per case, what differs\n"
		    "under it, and a line per lab.\n"
		    "Where there is a GPU, grades every case twice at once, on the GPU and on the\n"
		    "CPU emulator, holds both runs to the verdict, and compares them: the build\n"
		    "verdict and every correctness test's must be the same (in a case with an open\n"
		    "file, a difference is known). Without a GPU, emulated only.\n"
		    "A lab whose tests need no GPU (needs_gpu = no) is graded once.\n"
		    "Exits 0 when every case holds, 1 when one differs, has no expect file, or\n"
		    "differs between the GPU and the emulator, 128 when one could not be graded\n"
		    "(the grader's or the machine's failure).\n"
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

/* tallies: as expected, differs, skipped, not graded, known */
enum { T_OK, T_DIFFERS, T_SKIPPED, T_NOT_GRADED, T_KNOWN, T_N };

/*
 * Where a case's open file says its difference holds: its reason, or NULL
 * where it does not hold for a run made on_gpu ("cpu: " holds for a run on
 * the CPU, emulated or of a lab that needs no GPU; "gpu: " for one on a GPU).
 */
static const char *open_here(const char *open, bool on_gpu)
{
	if (open && !strncmp(open, "cpu: ", 5))
		return on_gpu ? NULL : open + 5;
	if (open && !strncmp(open, "gpu: ", 5))
		return on_gpu ? open + 5 : NULL;
	return open;
}

/* Prints text's lines, each under a case, with prefix before it. */
static void print_indented(const char *prefix, const char *text)
{
	for (const char *l = text, *e; *l; l = e + (*e == '\n')) {
		e = l + strcspn(l, "\n");
		printf("      %s%.*s\n", prefix, (int)(e - l), l);
	}
}

/* Holds each case's run (docs[i], NULL: none) to its verdict; prints a line per case. */
static void hold_cases(const struct toolchain *tc, const struct lab_case *cases, json_t **docs,
		       size_t n, bool verbose, size_t tally[T_N])
{
	char **secrets = secret_values();

	for (size_t i = 0; i < n; i++) {
		const struct lab_case *c = &cases[i];
		struct strlist findings = STRLIST_INIT;
		json_t *doc = docs[i];
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
		const char *open = doc ? open_here(c->open, !strcmp(doc_str(doc, "mode"), "gpu"))
				       : NULL;
		const char *verdict = "ok";
		int k = T_OK;
		if (!doc)
			verdict = "NOT GRADED", k = T_NOT_GRADED;
		else if (out == EXPECT_SKIPPED)
			verdict = "skipped", k = T_SKIPPED;
		else if (out == EXPECT_DIFFERS && open)
			verdict = "known", k = T_KNOWN;
		else if (out == EXPECT_DIFFERS)
			verdict = "DIFFERS", k = T_DIFFERS;
		else if (open && !strncmp(open, "sometimes: ", 11))
			verdict = "ok", k = T_OK;   /* a race that went right this time */
		else if (open)   /* holds now: the mark must go */
			verdict = "HOLDS NOW", k = T_DIFFERS;
		tally[k]++;
		printf("  %-10s %-9s %s%s%s\n", verdict, c->kind, c->name, doc ? ": " : "",
		       doc ? doc_str(doc, "score_text") : "");
		if (k == T_KNOWN)
			printf("      known: %s\n", open);
		else if (open && k == T_OK)
			printf("      held this time; its open file says it may not: %s\n", open);
		else if (open && k == T_DIFFERS)
			printf("      it has an open file (%s), but gets its verdict: remove the file\n",
			       open);
		for (size_t f = 0; f < findings.n; f++)
			printf("      %s\n", findings.v[f]);
		if (verbose && doc && out == EXPECT_DIFFERS && report)
			print_indented("| ", report);
		strlist_clear(&findings);
		free(report);
	}
	for (char **s = secrets; *s; s++)
		free(*s);
	free(secrets);
}

/* A build verdict as the two halves are compared: "ok (no test ran)" where
 * it built but no test ran (the CPU emulator could not build it). */
static const char *built_as(json_t *doc)
{
	const char *status = doc_str(json_object_get(doc, "build"), "status");
	return !strcmp(status, "ok") && !strcmp(doc_str(doc, "mode"), "none") ? "ok (no test ran)"
									      : status;
}

/* A message's first line that says something, at most 120 bytes, for a finding. */
static char *first_line(const char *msg)
{
	msg += strspn(msg, " \t\n");
	return xasprintf("%.*s", (int)(strcspn(msg, "\n") < 120 ? strcspn(msg, "\n") : 120), msg);
}

/* The correctness test part/name of doc, or NULL; its view in *v. */
static json_t *correctness_test(json_t *doc, const char *part, const char *name,
				struct test_view *v)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		*v = doc_test_view(doc, t);
		if (!strcmp(v->kind, "correctness") && !strcmp(v->part, part) &&
		    !strcmp(v->name, name))
			return t;
	}
	return NULL;
}

/*
 * The differences between a case's run on the GPU (g) and emulated (e):
 * the build verdict, then, where both built and ran, each correctness
 * test's verdict (timed tests are the GPU's alone). Into out; how many
 * verdicts were compared.
 */
static size_t compare_runs(json_t *g, json_t *e, struct strlist *out)
{
	const char *gb = built_as(g), *eb = built_as(e);
	size_t compared = 1, i;
	json_t *t;

	if (strcmp(gb, eb)) {
		strlist_pushf(out, "build: %s on the GPU, %s emulated", gb, eb);
		return compared;
	}
	if (strcmp(gb, "ok"))
		return compared;
	json_array_foreach(json_object_get(g, "tests"), i, t) {
		struct test_view v = doc_test_view(g, t), w;
		if (strcmp(v.kind, "correctness"))
			continue;
		compared++;
		if (!correctness_test(e, v.part, v.name, &w))
			strlist_pushf(out, "%s/%s: %s on the GPU, absent emulated", v.part, v.name,
				      v.status);
		else if (strcmp(v.status, w.status)) {
			char *gm = first_line(v.message), *em = first_line(w.message);
			strlist_pushf(out, "%s/%s: %s on the GPU, %s emulated%s%s%s%s", v.part, v.name,
				      v.status, w.status, *gm ? "\n  GPU: " : "", gm,
				      *em ? "\n  emulated: " : "", em);
			free(gm);
			free(em);
		}
	}
	json_array_foreach(json_object_get(e, "tests"), i, t) {
		struct test_view w = doc_test_view(e, t), v;
		if (!strcmp(w.kind, "correctness") && !correctness_test(g, w.part, w.name, &v)) {
			compared++;
			strlist_pushf(out, "%s/%s: absent on the GPU, %s emulated", w.part, w.name,
				      w.status);
		}
	}
	return compared;
}

/*
 * Compares each case's two runs; prints a line per case that differs.
 * A difference in a case with an open file is known. Counts into agree (cases), differ, known
 * and not_compared (a case without both runs); returns the verdicts compared.
 */
static size_t compare_halves(const struct lab_case *cases, json_t **gpu, json_t **emu, size_t n,
			     size_t *agree, size_t *differ, size_t *known, size_t *not_compared)
{
	size_t verdicts = 0;

	for (size_t i = 0; i < n; i++) {
		struct strlist diffs = STRLIST_INIT;
		if (!gpu[i] || !emu[i]) {
			++*not_compared;
			continue;
		}
		verdicts += compare_runs(gpu[i], emu[i], &diffs);
		/* a case the grader does not give its verdict yet, on one side or both,
		 * may well get two verdicts */
		const char *open = cases[i].open;
		if (!diffs.n)
			++*agree;
		else {
			++*(open ? known : differ);
			printf("  %-10s %-9s %s\n", open ? "known" : "DIFFERS", cases[i].kind,
			       cases[i].name);
			if (open)
				printf("      known: %s\n", open);
			for (size_t d = 0; d < diffs.n; d++)
				print_indented("", diffs.v[d]);
		}
		strlist_clear(&diffs);
	}
	return verdicts;
}

/* A half of a lab's check: where its cases are graded, and into which gradebook. */
struct half {
	const char *title;        /* "on the GPU", "emulated"; "" where there is one half */
	struct grade_opts go;
	struct batch_opts bo;
	char *db_path;
	json_t **docs;            /* per case, the document of its run, or NULL */
};

/* Grades a half's cases; its batch's exit code. */
static int grade_half(const struct toolchain *tc, const struct lab_config *cfg,
		      const struct lab_case *cases, size_t n, struct half *h)
{
	if (!class_gradebook_ready(h->db_path))
		return gradebook_unready();
	struct batch_sub *subs = xcalloc(n, sizeof(*subs));
	size_t nclass = 0, nalone = 0;
	/* the class first, then those graded alone, at the end of the array */
	for (size_t i = 0; i < n; i++)
		subs[expect_says(cases[i].expect, "processes-limited") ? n - ++nalone : nclass++] =
			(struct batch_sub){
			.dir = xstrdup(cases[i].dir), .student = xstrdup(cases[i].student)};
	int code = nclass ? batch_grade(tc, cfg, subs, nclass, &h->bo, &h->go) : 0;
	/* a fork bomb (processes-limited) alone, after the class, one at a time and
	 * each as a grading of its own (its tests in as many lanes as that takes):
	 * in a class on a busy machine the test after its timeout could start
	 * before the processes it left were gone, and be charged a crash */
	if (nalone && !run_stopped()) {
		struct batch_opts bo = h->bo;
		bo.jobs = 1;
		bo.own_gradings = true;
		int alone = batch_grade(tc, cfg, subs + nclass, nalone, &bo, &h->go);
		code = code == EXIT_INTERNAL || alone == EXIT_INTERNAL ? EXIT_INTERNAL
									: code ? code : alone;
	}
	batch_free(subs, n);
	return code;
}

/*
 * Grades both halves at once, the emulated one in a child process of its
 * own, quietly, each with half the jobs.
 */
static void grade_both(const struct toolchain *tc, const struct lab_config *cfg,
		       const struct lab_case *cases, size_t n, struct half *gpu, struct half *emu)
{
	unsigned jobs = gpu->bo.jobs ? gpu->bo.jobs : 1;
	emu->bo.jobs = jobs / 2 ? jobs / 2 : 1;
	gpu->bo.jobs = jobs - jobs / 2 ? jobs - jobs / 2 : 1;
	emu->bo.quiet = true;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		_exit(grade_half(tc, cfg, cases, n, emu) == EXIT_INTERNAL ? 1 : 0);
	}
	if (pid < 0)   /* one after the other, then */
		error("cannot start the emulated half beside the GPU's (%s): grading it after",
		      strerror(errno));
	grade_half(tc, cfg, cases, n, gpu);
	if (pid < 0)
		grade_half(tc, cfg, cases, n, emu);
	else
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

/*
 * Grades one lab's cases into gradebooks under dir (on the GPU and emulated
 * where both is set and the lab needs a GPU, compared) and holds them; its
 * exit code. no_gpu_note: say that a lab that needs a GPU was graded
 * emulated only for want of one.
 */
static int check_one(const struct toolchain *tc, const char *lab, const char *dir,
		     const struct grade_opts *go, const struct batch_opts *given, bool both,
		     bool no_gpu_note, bool verbose)
{
	struct lab_config cfg;
	struct lab_case *cases = NULL;
	struct strlist missing = STRLIST_INIT;
	struct half halves[2];
	size_t n = 0, nhalves = 0, tally[T_N] = {0};
	int code = EXIT_INTERNAL;

	if (config_load(tc->root, lab, &cfg))
		return EXIT_INTERNAL;
	both = both && cfg.needs_gpu;
	if (lab_cases(tc->root, &cfg, &cases, &n, &missing))
		goto out;
	for (int h = 0; h < (both ? 2 : 1); h++) {
		struct half *hf = &halves[nhalves++];
		*hf = (struct half){.title = !both ? "" : h ? "emulated" : "on the GPU",
				    .go = *go, .bo = *given};
		if (both)
			hf->go.emulate = h;
		hf->db_path = xasprintf("%s/%s%s.db", dir, lab, both && h ? "-emulated" : "");
		hf->bo.db_path = hf->db_path;
		hf->bo.no_summary = true;
		hf->docs = xcalloc(n, sizeof(*hf->docs));
	}
	if (no_gpu_note && cfg.needs_gpu)
		printf("%s: no GPU here (%s): graded emulated only, so nothing is compared with a "
		       "GPU\n", lab, given->no_gpu_why);
	double t0 = now_seconds();
	fprintf(stderr, "check-lab %s: grading %zu cases%s ...\n", lab, n,
		both ? " on the GPU and, at the same time, emulated" : "");
	if (both)
		grade_both(tc, &cfg, cases, n, &halves[0], &halves[1]);
	else
		grade_half(tc, &cfg, cases, n, &halves[0]);
	/* a half that failed the grader's way left a case not graded: counted there */
	for (size_t h = 0; h < nhalves; h++) {
		struct db *db = db_open(halves[h].db_path, tc->root);
		for (size_t i = 0; db && i < n; i++)
			halves[h].docs[i] = latest_doc(db, lab, cases[i].student);
		db_close(db);
	}
	printf("%s: %zu cases, graded in %.0f s%s\n", lab, n, now_seconds() - t0,
	       both ? " on the GPU and emulated, at once" : "");
	for (size_t h = 0; h < nhalves; h++) {
		if (*halves[h].title)
			printf(" %s:\n", halves[h].title);
		hold_cases(tc, cases, halves[h].docs, n, verbose, tally);
	}
	for (size_t i = 0; i < missing.n; i++)
		printf("  %-10s %s (no expect file: write the verdict a TA gives)\n", "no verdict",
		       missing.v[i]);
	printf("%s: %zu as expected, %zu differ, %zu skipped, %zu not graded, %zu without a "
	       "verdict, %zu known differences\n", lab, tally[T_OK], tally[T_DIFFERS],
	       tally[T_SKIPPED], tally[T_NOT_GRADED], missing.n, tally[T_KNOWN]);
	size_t differ = 0;
	if (both) {
		size_t agree = 0, known = 0, not_compared = 0;
		printf(" the GPU and the emulator:\n");
		size_t verdicts = compare_halves(cases, halves[0].docs, halves[1].docs, n, &agree,
						 &differ, &known, &not_compared);
		printf("%s: the GPU and the emulator agree on %zu of %zu cases (%zu verdicts "
		       "compared), %zu differ, %zu known differences, %zu not compared\n", lab,
		       agree, n, verdicts, differ, known, not_compared);
	}
	code = tally[T_NOT_GRADED] ? EXIT_INTERNAL : tally[T_DIFFERS] || missing.n || differ ? 1 : 0;
out:
	for (size_t h = 0; h < nhalves; h++) {
		for (size_t i = 0; i < n; i++)
			json_decref(halves[h].docs[i]);
		free(halves[h].docs);
		free(halves[h].db_path);
	}
	free_cases(cases, n);
	strlist_clear(&missing);
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
		case 'G':
			go.emulate = 0;
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
	/* on a GPU and emulated, compared, where there is a GPU and nothing else was asked */
	bool both = go.emulate == -1 && bo.gpus_known;
	bool no_gpu_said = go.emulate == -1 && !bo.gpus_known;
	if (no_gpu_said)
		go.emulate = 1;
	for (size_t i = 0; i < labs.n && !run_stopped(); i++) {
		struct lab_config cfg;
		if (config_load(tc->root, labs.v[i], &cfg)) {
			code = EXIT_INTERNAL;
			continue;
		}
		/* the sandbox, before any case of the lab is graded */
		bool ready = true;
		if (go.emulate == 0 && !bo.gpus_known && cfg.needs_gpu)
			ready = !error("%s: --no-emulate, but no GPU to grade on here: %s", labs.v[i],
				       bo.no_gpu_why);
		ready = ready && grading_sandbox_ready(tc, &cfg, &go);
		config_free(&cfg);
		code = worse(code, ready ? check_one(tc, labs.v[i], dir, &go, &bo, both, no_gpu_said, verbose)
					 : EXIT_INTERNAL);
	}
	if (keep) {
		/* each lab's gradebooks by name: the ones there are */
		for (size_t i = 0; i < labs.n; i++) {
			char *db = xasprintf("%s/%s.db", keep, labs.v[i]);
			char *emu = xasprintf("%s/%s-emulated.db", keep, labs.v[i]);
			bool has_emu = !access(emu, F_OK);
			if (!access(db, F_OK))
				fprintf(stderr, "%s: the cases' runs: %s%s%s (cudalab db show --db ...)\n",
					labs.v[i], db, has_emu ? ", emulated: " : "", has_emu ? emu : "");
			free(db);
			free(emu);
		}
	} else
		remove_tree(dir);
	free(dir);
	strlist_clear(&bo.gpus);
	strlist_clear(&labs);
	return run_stopped() ? 128 + run_stopped() : code;
}
