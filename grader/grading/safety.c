/*
 * safety.c - the safety stage (safety.h).
 *
 * Owns: running the test binary under compute-sanitizer (memcheck,
 * racecheck and synccheck side by side, the harness in its safety mode:
 * small sizes, allocations of exact size, one process), reading the tools'
 * reports, and turning each into a failed test. The runs go in a thread of
 * their own, beside the correctness tests, and touch the result only when
 * those are done (safety_finish). A guard zone inside an
 * allocation hides a read just outside an array, and no canary sees a race
 * or a barrier some threads skip: this is where those show on a GPU.
 *
 * Must not: decide points (a finding fails the tests lab.conf names; the
 * score follows from their status), or run anything but the sanitizer.
 */
#include "safety.h"

#include "build.h"
#include "judge.h"
#include "testrun.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const tools[] = {"memcheck", "racecheck", "synccheck"};
#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

/* ------------------------------------------------------------ running */

char *safety_find_sanitizer(const char *nvcc)
{
	const char *slash = strrchr(nvcc, '/');
	char *path;

	if (slash) {
		path = xasprintf("%.*s/compute-sanitizer", (int)(slash - nvcc), nvcc);
		if (!access(path, X_OK))
			return path;
		free(path);
	}
	const char *dirs = getenv("PATH");
	while (dirs && *dirs) {
		size_t n = strcspn(dirs, ":");
		path = xasprintf("%.*s/compute-sanitizer", (int)n, dirs);
		if (n && !access(path, X_OK))
			return path;
		free(path);
		dirs += n + (dirs[n] == ':');
	}
	return NULL;
}

/* Whether test id is one of the safety tests of its part; the part, if so. */
static const struct lab_part *safety_part(const struct lab_config *cfg, const char *lab,
					  const char *id)
{
	for (size_t p = 0; p < cfg->nparts; p++)
		for (size_t k = 0; k < cfg->parts[p].safety.n; k++) {
			char *want = xasprintf("test_%s_%s_%s", lab, cfg->parts[p].name,
					       cfg->parts[p].safety.v[k]);
			bool same = !strcmp(want, id);
			free(want);
			if (same)
				return &cfg->parts[p];
		}
	return NULL;
}

/*
 * Whether f counts in a test that is not one of its part's safety tests: on
 * a GPU such a test runs without the sanitizers; emulated, every test that
 * passed runs in the checking build too, and there keeps only a misaligned
 * access or one to host memory, each of which on a GPU ends the kernel in
 * any test (the others only a sanitizer sees).
 */
static bool counts_outside_safety(const struct result *r, const struct safety_finding *f)
{
	return r->mode == MODE_EMULATED && !strcmp(f->tool, "memcheck") &&
	       (!strncmp(f->text, "misaligned ", 11) || !strncmp(f->text, "host-memory ", 12));
}

/*
 * Fails the test a tool found something in, with what it found. Only that
 * test: the tests of a part may call different kernels (the naive and the
 * tiled transpose), and each safety test runs under every tool, so a kernel
 * two tests call is found in both.
 */
static void apply(struct result *r, const struct safety_finding *f)
{
	for (size_t i = 0; i < r->ntests; i++) {
		struct graded_test *t = &r->tests[i];
		if (strcmp(t->id, f->test))
			continue;
		char more[64] = "";
		if (f->count > 1)
			snprintf(more, sizeof(more), "\n(and %d more report%s)", f->count - 1,
				 f->count > 2 ? "s" : "");
		char *m = xasprintf("%s%s%s %s found, in test %s (small sizes, "
				    "buffers of their exact size): %s%s", t->message ? t->message : "",
				    t->message ? "\n" : "",
				    r->mode == MODE_EMULATED ? "the emulator's" : "compute-sanitizer",
				    f->tool, f->test + strlen("test_") +
				    strlen(r->lab) + 1, f->text, more);
		free(t->message);
		t->message = m;
		if (t->status == TEST_PASS)
			t->status = TEST_FAIL;
	}
}

/* A test a tool could not check to its end, and the verdict that gives it. */
struct unchecked {
	char *test;
	enum test_status status;        /* TEST_TIMEOUT, TEST_CRASH or TEST_FAIL */
	char *why;                      /* for its message */
	bool if_passed;                 /* only a test that passed: a kernel that failed
					   with no report says nothing a failed test's
					   message does not */
};

/*
 * A safety test the stage could not check to its end: one that passed gets
 * u's verdict, one that failed keeps its own; each says why.
 */
static void apply_unchecked(struct result *r, const struct unchecked *u)
{
	struct graded_test *t = NULL;

	for (size_t i = 0; i < r->ntests && !t; i++)
		if (!strcmp(r->tests[i].id, u->test))
			t = &r->tests[i];
	if (!t || (t->status != TEST_PASS && t->status != TEST_FAIL) ||
	    (u->if_passed && t->status != TEST_PASS))
		return;
	char *m = xasprintf("%s%sthe safety check of this test could not finish: %s; a test the "
			    "safety stage cannot check does not pass%s",
			    t->message ? t->message : "", t->message ? "\n" : "", u->why,
			    u->status == TEST_TIMEOUT
				    ? "\nhint: it finishes when run as a correctness test: look for "
				      "code that runs long, or never ends, once the test is done "
				      "(at exit, in a destructor), or only under the checker"
				    : "");
	result_set_verdict(t, t->status == TEST_PASS ? u->status : t->status, m);
}

static void not_run(struct result *r, char *why)
{
	r->safety = "not-run";
	free(r->safety_why);
	r->safety_why = why;
}

/*
 * The stage's runs, in a thread of their own, beside the correctness tests
 * (the sanitizers take seconds to start, the tests as long): everything it
 * learns is kept here and written into the result only by safety_finish,
 * after the tests have their verdicts.
 */
/* Which tests a run is started over (run_start). */
enum which {
	ALL,        /* every safety test: started beside the correctness tests */
	VERDICTS,   /* those that passed or failed, but for those that run again */
	OWED,       /* those run again alone (graded_test.owed) that passed or failed then */
};

struct safety_run {
	const struct grading *g;
	char *binary, *sanitizer;
	struct strlist tests;           /* the safety tests run, in the lab's order */
	struct safety_output found;     /* what the tools found, in those tests */
	struct unchecked *unchecked;    /* the tests its runs could not check */
	size_t nunchecked;
	char *not_run;                  /* why the stage did not run */
	char *note;                     /* what kept a run from covering its tests */
	char *unopt_note;               /* why memcheck ran the optimised build (said
					   where there is no note) */
	unsigned toolkit_races;         /* racecheck's reports inside cooperative
					   groups, not counted (safety_toolkit_race) */
	int cancel;                     /* set: stop the runs now */
	int failed;                     /* the grader's own failure */
	bool started;
	enum which which;               /* the tests it was started over */
	pthread_t thread;
	double seconds;                 /* how long the runs took (not the wait for them) */
};

/*
 * Replaces each "@pc:0xOFFSET" the emulator's checking runtime wrote (the
 * code address of an access, in its binary) by the source line addr2line
 * gives for it. The text is returned as it was where addr2line fails.
 */
static char *symbolize(const char *binary, const char *text)
{
	struct strlist argv = STRLIST_INIT, pcs = STRLIST_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *p = text;

	while ((p = strstr(p, "@pc:0x"))) {
		p += 4;
		char *pc = xstrndup(p, strspn(p + 2, "0123456789abcdef") + 2);
		if (!strlist_has(&pcs, pc))
			strlist_push(&pcs, pc);
		free(pc);
	}
	if (!pcs.n)
		return xstrdup(text);
	strlist_push(&argv, "addr2line");
	strlist_push(&argv, "-e");
	strlist_push(&argv, binary);
	for (size_t i = 0; i < pcs.n; i++)
		strlist_push(&argv, pcs.v[i]);
	struct run_spec spec = {.argv = (const char *const *)argv.v, .timeout = 30,
				.output_limit = 1 << 20};
	struct run_result res;
	char **lines = xcalloc(pcs.n, sizeof(*lines));
	if (!run_one(&spec, &res) && res.started && !res.exit_code && res.output) {
		const char *l = res.output;
		for (size_t i = 0; i < pcs.n && l && *l; i++) {
			size_t len = strcspn(l, "\n");
			lines[i] = xstrndup(l, len);
			/* "/w/matmul.cu:45 (discriminator 2)": the file and line */
			lines[i][strcspn(lines[i], " ")] = 0;
			/* the rewritten file keeps the student's lines (it starts with
			 * #line 1 "matmul.cu"), but addr2line may name it for them */
			char *emu = strstr(lines[i], ".emu.cpp:");
			if (emu)
				memmove(emu, emu + 8, strlen(emu + 8) + 1);
			l += len + (l[len] == '\n');
		}
	}
	run_result_release(&res);
	for (p = text; *p;) {
		const char *at = strstr(p, "@pc:0x");
		if (!at) {
			strbuf_addstr(&out, p);
			break;
		}
		strbuf_add(&out, p, at - p);
		size_t n = 4 + 2 + strspn(at + 6, "0123456789abcdef");
		char *pc = xstrndup(at + 4, n - 4);
		const char *line = NULL;
		for (size_t i = 0; i < pcs.n && !line; i++)
			if (!strcmp(pcs.v[i], pc) && lines[i] && strncmp(lines[i], "??", 2))
				line = lines[i];
		strbuf_addstr(&out, line ? line : "an unknown line");
		free(pc);
		p = at + n;
	}
	for (size_t i = 0; i < pcs.n; i++)
		free(lines[i]);
	free(lines);
	strlist_clear(&pcs);
	strlist_clear(&argv);
	return strbuf_detach(&out);
}

/*
 * The emulator's checking build of the submission, linked with the
 * harness: the trace runtime, which sees every access, checks them when
 * CUDAEMU_CHECKS is set. 0 with *binary; 1 when it cannot be built (said
 * in s->not_run); -1 for the grader's own failure.
 */
static int emulated_checker(struct safety_run *s, char **binary)
{
	struct strlist objs = STRLIST_INIT;
	char *log = NULL;
	int rc = build_emulated_objects(s->g, s->g->tc->emu_trace_cxxflags, "trace", &objs, &log);

	if (!rc)
		rc = build_link(s->g, &objs, "link-safety.rsp", "runner_safety", binary, &log);
	if (rc > 0)
		s->not_run = xasprintf("the emulator's checking build failed: %.300s", log);
	free(log);
	strlist_clear(&objs);
	return rc;
}

/*
 * Notes that test could not be checked, and why; its verdict is status. A
 * test that is none of its part's safety tests (emulated, every test that
 * passed runs in the checking build too) keeps its own: on a GPU no
 * sanitizer runs it at all. if_passed: only a test that passed is told.
 */
static void add_unchecked(struct safety_run *s, const char *test, enum test_status status,
			  bool if_passed, char *why)
{
	if (!safety_part(s->g->cfg, s->g->r->lab, test)) {
		free(why);
		return;
	}
	s->unchecked = xrealloc(s->unchecked, (s->nunchecked + 1) * sizeof(*s->unchecked));
	s->unchecked[s->nunchecked++] = (struct unchecked){xstrdup(test), status, why, if_passed};
	if (!s->note)
		s->note = xasprintf("%s could not be checked: %s", test + strlen("test_"), why);
}

/*
 * safety_covered for a tool's run (spec, res): *left becomes what runs
 * again. Its exit status is not asked: a sanitizer may give its own, and
 * an exit() of the submission's before the harness's end marker has no
 * end marker after it anyway. A run that ended in its time, by no signal,
 * but printed more than is kept (a submission's printf) lost the markers
 * after the cut, not its tests: the tests after the last marker kept run
 * again, and the note says reports may have been lost.
 */
static void covered(struct safety_run *s, const char *tool, const struct run_spec *spec,
		    const struct run_result *res, const struct safety_output *o,
		    struct strlist *left)
{
	struct strlist again;
	bool clean = !res->timed_out && !res->signal;
	struct safety_output seen = *o;

	if (clean && res->output_dropped) {
		seen.closed = true;
		if (!s->note)
			s->note = xasprintf("a run under %s printed more than the %zu bytes kept (the "
					    "submission's output): reports after that were lost",
					    tool, spec->output_limit);
	}
	const char *first = safety_covered(left, &seen, clean, &again);

	/*
	 * Out of time inside a test: that is its verdict now, not after a second
	 * run of it alone, which would cost another full timeout of the GPU (a
	 * kernel that never ends hangs there too, and the GPU is held alone
	 * while it does); a crash is cheap to try again, alone.
	 */
	bool alone = first != NULL;
	if (!first && res->timed_out && again.n && seen.started.n &&
	    !strcmp(again.v[0], seen.started.v[seen.started.n - 1])) {
		first = seen.started.v[seen.started.n - 1];
		strlist_remove(&again, first);
	}
	if (first && clean && !res->output_dropped && safety_lost_unexplained(o)) {
		add_unchecked(s, first, TEST_CRASH, true,
			      xasprintf("its run under %s, alone in a fresh process, lost the GPU's "
					"context in this test (a kernel failed), and %s reported "
					"nothing that says why", tool, tool));
	} else if (first) {
		char *fate = run_describe(spec, res);
		add_unchecked(s, first, res->timed_out ? TEST_TIMEOUT : TEST_CRASH, false,
			      xasprintf("its run under %s%s %s%s", tool,
					alone ? ", alone in a fresh process," : " (in this test)",
					fate, res->timed_out || res->signal
						      ? "" : " before the test was done"));
		free(fate);
	}
	strlist_clear(left);
	*left = again;
}

/*
 * Runs each tool over s->tests (on the emulator, its checking build, which
 * checks everything at once); a run that lost its context, or did not
 * finish a test, leaves the tests after it for the next round, until
 * SAFETY_BUDGET: what is left then could not be checked.
 */
static void *run_tools(void *arg)
{
	struct safety_run *s = arg;
	const struct grading *g = s->g;
	const struct lab_config *cfg = g->cfg;
	bool emulated = g->r->mode == MODE_EMULATED;
	size_t ntools = emulated ? 1 : NTOOLS;
	struct strlist left[NTOOLS];
	char *input = NULL, *checker = NULL, *unopt = NULL;
	int rounds = 0;
	double t0 = now_seconds();

	if (emulated && (s->failed = emulated_checker(s, &checker)) != 0) {
		s->failed = s->failed < 0 ? -1 : 0;
		free(checker);
		s->seconds += now_seconds() - t0;
		return NULL;
	}
	/*
	 * memcheck runs the build without device optimisation: a read whose
	 * value nothing uses (a prefetch past the end) is dropped by the
	 * optimiser, and only the source's code shows it. Where that build is
	 * missing, memcheck runs the optimised one, and the note says so.
	 */
	if (!emulated) {
		char *log = NULL;
		int rc = build_unoptimised_binary(g, &unopt, &log);
		if (rc < 0) {
			s->failed = -1;
			free(unopt);
			s->seconds += now_seconds() - t0;
			return NULL;
		}
		if (rc) {
			free(unopt);
			unopt = NULL;
			s->unopt_note = xasprintf("memcheck ran the optimised build, which may not "
						  "read what the source reads: the build without "
						  "device optimisation could not be used: %s", log);
		}
		free(log);
	}
	/* a safety run writes back nothing; the token marks the harness's lines */
	char token[33];
	random_token(token);
	input = testrun_input(g->r, token);
	for (size_t k = 0; k < ntools; k++) {
		left[k] = (struct strlist)STRLIST_INIT;
		for (size_t i = 0; i < s->tests.n; i++)
			strlist_push(&left[k], s->tests.v[i]);
	}
	char **env = grading_env(g, emulated ? (const char *const[]){"CUDALAB_SHARED_POISON=0",
								    "CUDAEMU_CHECKS=1",
								    "CUDAEMU_WORKERS=1", NULL}
					     : (const char *const[]){"CUDALAB_SHARED_POISON=0", NULL});
	while (!__atomic_load_n(&s->cancel, __ATOMIC_RELAXED)) {
		struct strlist argvs[NTOOLS];
		struct run_spec specs[NTOOLS];
		struct run_result res[NTOOLS];
		size_t which[NTOOLS], n = 0;
		bool more = false;
		for (size_t k = 0; k < ntools; k++)
			more |= left[k].n > 0;
		if (!more)
			break;
		if (rounds++ >= 32 || now_seconds() - t0 > SAFETY_BUDGET) {
			/* what is left could not be checked: never passed as checked */
			for (size_t k = 0; k < ntools; k++)
				for (size_t i = 0; i < left[k].n; i++)
					add_unchecked(s, left[k].v[i], TEST_FAIL, false,
						      xasprintf("the safety stage ran out of its %d s "
								"before %s reached it (its runs of the "
								"submission did not finish)",
								SAFETY_BUDGET,
								emulated ? "the emulator's checks"
									 : tools[k]));
			break;
		}
		for (size_t k = 0; k < ntools; k++) {
			if (!left[k].n)
				continue;
			struct strlist *a = &argvs[n], runner = STRLIST_INIT;
			*a = (struct strlist)STRLIST_INIT;
			/* the sanitizer goes around the runner, in the sandbox; the judge
			 * says which test each of its reports is about */
			if (emulated) {
				strlist_push(&runner, checker);
			} else {
				strlist_push(&runner, s->sanitizer);
				strlist_pushf(&runner, "--tool=%s", tools[k]);
				strlist_push(&runner, "--print-limit=10");
				strlist_push(&runner, "--show-backtrace=no");
				strlist_push(&runner, "--target-processes=application-only");
				strlist_push(&runner, unopt && !strcmp(tools[k], "memcheck")
							      ? unopt : s->binary);
			}
			char *name = xasprintf("safety-%s-%d", emulated ? "emu" : tools[k], rounds);
			int jr = judge_argv(g, name, (const char *const *)runner.v, a);
			free(name);
			strlist_clear(&runner);
			if (jr) {
				strlist_clear(a);
				s->failed = -1;
				break;
			}
			strlist_push(a, "--safety");
			for (size_t i = 0; i < left[k].n; i++) {
				strlist_push(a, "--only");
				strlist_push(a, left[k].v[i]);
			}
			specs[n] = (struct run_spec){.argv = (const char *const *)a->v,
						     .envp = (const char *const *)env,
						     .cwd = g->judgedir, .input = input,
						     .timeout = SAFETY_TIMEOUT,
						     .output_limit = 256 * 1024,
						     .cancel = &s->cancel};
			lab_run_limits(cfg, 1, &specs[n]);
			which[n++] = k;
		}
		if (s->failed < 0) {
			for (size_t i = 0; i < n; i++)
				strlist_clear(&argvs[i]);
			break;
		}
		if (run_many(specs, res, n)) {
			for (size_t i = 0; i < n; i++)
				strlist_clear(&argvs[i]);
			s->failed = -1;
			break;
		}
		for (size_t i = 0; i < n; i++) {
			size_t k = which[i];
			const char *tool = emulated ? "the emulator's checks" : tools[k];
			struct safety_output o;
			/* the run's output quotes the submission: read, and kept, visible */
			char *seen = visible_text(res[i].output ? res[i].output : "",
						  res[i].output_len, false);
			char *text = emulated ? symbolize(checker, seen) : xstrdup(seen);
			if (g->o->keep_workdir) {
				/* what the tool said, for whoever kept the folders (--keep);
				 * a restart's runs (safety_finish) write over the first's */
				char *kept = xasprintf("%s/safety-%s-%d.out", g->judgedir,
						       emulated ? "emu" : tools[k], rounds);
				char *said = xasprintf("# %s, %s\n%s",
						       g->o->student ? g->o->student : "?",
						       emulated ? "emulated" : tools[k], text);
				write_file_atomic(kept, said, strlen(said));
				free(said);
				free(kept);
			}
			safety_parse(text, emulated ? NULL : tools[k], token, &cfg->files, &o);
			free(text);
			if (!o.banner && !s->not_run && !res[i].cancelled) {
				char *why = run_describe(&specs[i], &res[i]);
				s->not_run = xasprintf("%s%s did not run (%s): %.200s",
						       emulated ? "" : "compute-sanitizer ", tool, why,
						       seen);
				free(why);
			}
			free(seen);
			if (res[i].cancelled || !o.banner) {
				strlist_clear(&left[k]);   /* cancelled: nothing to learn; no banner: not run */
			} else if (!o.started.n && !(res[i].timed_out || res[i].signal ||
						     res[i].exit_code)) {
				strlist_clear(&left[k]);   /* nothing asked of it (cannot be) */
			} else if (!o.started.n) {
				/* it never reached a test: the checker's, not a test's */
				char *why = run_describe(&specs[i], &res[i]);
				if (!s->not_run)
					s->not_run = xasprintf("%s%s %s before its first test",
							       emulated ? "" : "compute-sanitizer ",
							       tool, why);
				free(why);
				strlist_clear(&left[k]);
			} else {
				covered(s, tool, &specs[i], &res[i], &o, &left[k]);
			}
			/* kept once what they covered was told, which asks of them too */
			for (size_t f = 0; f < o.nfindings; f++) {
				if (!safety_part(cfg, g->r->lab, o.findings[f].test) &&
				    !counts_outside_safety(g->r, &o.findings[f]))
					continue;
				struct safety_output *kept = &s->found;
				kept->findings = xrealloc(kept->findings, (kept->nfindings + 1) *
								  sizeof(*kept->findings));
				kept->findings[kept->nfindings++] = o.findings[f];
				o.findings[f] = (struct safety_finding){0};
			}
			s->toolkit_races += o.toolkit_races;
			safety_output_release(&o);
			run_result_release(&res[i]);
			strlist_clear(&argvs[i]);
		}
	}
	grading_free_env(env);
	free(input);
	for (size_t k = 0; k < ntools; k++)
		strlist_clear(&left[k]);
	free(checker);
	free(unopt);
	s->seconds += now_seconds() - t0;
	return NULL;
}

static void run_free(struct safety_run *s)
{
	for (size_t i = 0; i < s->nunchecked; i++) {
		free(s->unchecked[i].test);
		free(s->unchecked[i].why);
	}
	free(s->unchecked);
	safety_output_release(&s->found);
	free(s->not_run);
	free(s->note);
	free(s->unopt_note);
	free(s->binary);
	free(s->sanitizer);
	strlist_clear(&s->tests);
	free(s);
}

/* Stops s's runs (at once, when cancel) and forgets them. */
static void run_end(struct safety_run *s, bool cancel)
{
	if (cancel)
		__atomic_store_n(&s->cancel, 1, __ATOMIC_RELAXED);
	if (s->started)
		pthread_join(s->thread, NULL);
	s->started = false;
}

/*
 * Starts the runs over `tests` (every safety test, or only those with a
 * verdict worth checking). NULL when the lab has no safety tests; a run
 * that is not started says why in s->why.
 */
static struct safety_run *run_start(const struct grading *g, const char *binary, enum which which)
{
	const struct result *r = g->r;
	struct safety_run *s = xcalloc(1, sizeof(*s));
	bool any = false;

	s->g = g;
	s->which = which;
	s->tests = (struct strlist)STRLIST_INIT;
	for (size_t i = 0; i < r->ntests; i++) {
		const struct graded_test *t = &r->tests[i];
		if (t->kind != KIND_CORRECTNESS)
			continue;
		if (!safety_part(g->cfg, r->lab, t->id)) {
			/* emulated, a test that passed is checked for what would end
			 * it on a GPU (counts_outside_safety) */
			if (r->mode == MODE_EMULATED && t->status == TEST_PASS)
				strlist_push(&s->tests, t->id);
			continue;
		}
		any = true;
		/* one that crashed or ran out of time has its verdict, and would
		 * only do it again, slower */
		if (which == ALL || ((t->status == TEST_PASS || t->status == TEST_FAIL) &&
				     (which == OWED) == t->owed))
			strlist_push(&s->tests, t->id);
	}
	if (!any) {
		run_free(s);
		return NULL;   /* the lab has no safety tests */
	}
	if (r->mode == MODE_EMULATED && !g->tc->emu_trace_cxxflags)
		s->not_run = xstrdup("emulated: the emulator's checking runtime was not built");
	else if (r->mode != MODE_GPU && r->mode != MODE_EMULATED)
		s->not_run = xstrdup("no GPU");
	else if (getenv("CUDALAB_SAFETY") && !strcmp(getenv("CUDALAB_SAFETY"), "0"))
		s->not_run = xstrdup("turned off (CUDALAB_SAFETY=0)");
	else if (r->mode == MODE_GPU && !(s->sanitizer = safety_find_sanitizer(g->tc->nvcc)))
		s->not_run = xstrdup("compute-sanitizer was not found beside nvcc or on PATH");
	if (s->not_run || !s->tests.n)
		return s;
	s->binary = xstrdup(binary);
	progress("running %zu %s ...", s->tests.n,
		 r->mode == MODE_GPU ? "safety tests under compute-sanitizer"
				     : "tests in the emulator's checking build");
	if (pthread_create(&s->thread, NULL, run_tools, s)) {
		s->not_run = xstrdup("the grader could not start a thread for it");
		return s;
	}
	s->started = true;
	return s;
}

struct safety_run *safety_start(const struct grading *g, const char *binary, bool all)
{
	return run_start(g, binary, all ? ALL : VERDICTS);
}

struct safety_run *safety_start_owed(const struct grading *g, const char *binary)
{
	return run_start(g, binary, OWED);
}

static const struct graded_test *find_test(const struct result *r, const char *id)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (!strcmp(r->tests[i].id, id))
			return &r->tests[i];
	return NULL;
}

/*
 * Whether what s learnt of test t joins t's verdict: a test that runs again
 * alone is decided by the run that checks it after that (safety_start_owed).
 */
static bool decides(const struct safety_run *s, const struct graded_test *t)
{
	return t && (s->which == OWED || !t->owed);
}

/* Whether a test s covers has a verdict other than pass or fail. */
static bool covers_a_crash(const struct safety_run *s)
{
	for (size_t i = 0; i < s->tests.n; i++) {
		const struct graded_test *t = find_test(s->g->r, s->tests.v[i]);
		if (t && t->status != TEST_PASS && t->status != TEST_FAIL)
			return true;
	}
	return false;
}

int safety_finish(struct safety_run *s, bool abandon)
{
	if (!s)
		return 0;
	const struct grading *g = s->g;
	struct result *r = g->r;
	int ret;

	if (abandon) {
		run_end(s, true);
		run_free(s);
		return 0;
	}
	/*
	 * The runs started before the tests had verdicts. A test that crashed
	 * or ran out of time has its verdict and may hang the runs too: they
	 * start again over the tests that passed or failed.
	 */
	if (s->started && covers_a_crash(s)) {
		char *binary = xstrdup(s->binary);
		run_end(s, true);
		double spent = s->seconds;
		run_free(s);
		s = run_start(g, binary, VERDICTS);
		free(binary);
		s->seconds = spent;
	}
	run_end(s, false);
	if (s->not_run)
		not_run(r, xstrdup(s->not_run));
	else if (!r->safety)   /* a second run (safety_start_owed) keeps the first's word */
		r->safety = "ran";
	if ((s->note || s->unopt_note || s->toolkit_races) && !r->safety_why) {
		const char *why = s->note ? s->note : s->unopt_note;
		if (s->toolkit_races)
			r->safety_why = xasprintf("%s%sracecheck's %u report%s of a race inside the "
						  "CUDA Toolkit's cooperative groups (a tile of more "
						  "than a warp syncs through a word of shared memory, "
						  "which racecheck does not take for a barrier) %s not "
						  "counted", why ? why : "", why ? "; " : "",
						  s->toolkit_races, s->toolkit_races == 1 ? "" : "s",
						  s->toolkit_races == 1 ? "is" : "are");
		else
			r->safety_why = xstrdup(why);
	}
	for (size_t i = 0; i < s->found.nfindings; i++) {
		const struct graded_test *t = find_test(r, s->found.findings[i].test);
		if (decides(s, t) && (t->status == TEST_PASS || t->status == TEST_FAIL)) {
			apply(r, &s->found.findings[i]);
			r->safety_findings++;
		}
	}
	for (size_t i = 0; i < s->nunchecked; i++)
		if (decides(s, find_test(r, s->unchecked[i].test)))
			apply_unchecked(r, &s->unchecked[i]);
	r->safety_seconds += s->seconds;
	ret = s->failed;
	run_free(s);
	return ret;
}
