/*
 * testrun.c - the correctness tests of a grading (testrun.h).
 *
 * Owns: the test binary's command line and input, reading each test's
 * verdict from Check's XML log (never from the console), and every re-run
 * of tests through one helper (rerun): those that got no result, those that
 * ran out of time beside other gradings, those that failed with shared
 * memory filled with NaN (again without), and the emulator's diagnostic runs
 * (threads in reverse order, AddressSanitizer). Must not: build the
 * submission other than through build.h, or touch the GPU's locks.
 */
#include "testrun.h"

#include "build.h"
#include "checklog.h"
#include "judge.h"
#include "../../labs/common/harness-words.h"   /* CL_SETUP_ENDED_FILE ...: the harness's words */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Whether test id's body returned (its .done file holds the run's token),
 * whether a cudaMalloc found the device full meanwhile (a line "out of
 * memory"), and where its time went (a line CL_TIMES_LINE, added to r).
 */
static bool test_finished(const char *logs, const char *id, const char *token, bool *oom,
			  struct result *r)
{
	char *path = xasprintf("%s/%s.done", logs, id);
	size_t len = 0, n = strlen(token);
	char *text = read_file(path, &len);
	bool ok = text && len >= n && !memcmp(text, token, n) && (len == n || text[n] == '\n');

	*oom = false;
	for (char *line = ok && len > n ? text + n + 1 : NULL; line && *line;) {
		char *end = strchr(line, '\n');
		double t[3];
		if (end)
			*end = '\0';
		if (!strcmp(line, "out of memory")) {
			*oom = true;
		} else if (sscanf(line, CL_TIMES_LINE " %lf %lf %lf", &t[0], &t[1], &t[2]) == 3 &&
			   t[0] >= 0 && t[1] >= 0 && t[2] >= 0) {
			r->in_tests.start += t[0];
			r->in_tests.calls += t[1];
			r->in_tests.requests += t[2];
			r->in_tests.counted++;
		}
		line = end ? end + 1 : NULL;
	}
	free(text);
	free(path);
	return ok;
}

/* The text of file name in the harness's log folder logs (its length in *len),
 * or NULL when there is none. */
static char *read_log(const char *logs, const char *name, size_t *len)
{
	char *path = xasprintf("%s/%s", logs, name);
	char *text = access(path, F_OK) ? NULL : read_file(path, len);

	free(path);
	return text;
}

/* Adds the seconds the lab's setup hook took in this test binary to r. */
static void add_setup_seconds(const char *logs, struct result *r)
{
	char *text = read_log(logs, CL_SETUP_SECONDS_FILE, NULL);
	double s;

	if (text && sscanf(text, "%lf", &s) == 1 && s >= 0)
		r->in_tests.setup += s;
	free(text);
}

char *testrun_student(const char *name)
{
	/* one line of the protocol: no line break in it */
	size_t n = strcspn(name ? name : "", "\r\n");

	if (n > TESTRUN_STUDENT_MAX) {
		n = TESTRUN_STUDENT_MAX;
		while (n && ((unsigned char)name[n] & 0xc0) == 0x80)
			n--;   /* back to the start of the character cut */
	}
	return xstrndup(name ? name : "", n);
}

char *testrun_input(const struct result *r, const char *token)
{
	char *name = testrun_student(r->student), *input;

	input = xasprintf("seed=%llu\ntoken=%s\nstudent=%s\n", r->seed, token, name);
	free(name);
	return input;
}

/*
 * Check reports a forked test that died or hung as an "error". Its log is
 * written in the submission's process: its words are shown as visible_text
 * makes them.
 */
static void set_from_check(const struct result *r, struct graded_test *t,
			   const struct check_entry *e, double timeout)
{
	size_t after = strlen(CL_NOT_RUN_AFTER);
	int code;

	free(t->message);
	t->seconds = e->duration;
	if (!strcmp(e->result, "success")) {
		t->status = TEST_PASS;
		t->message = NULL;
	} else if (!strcmp(e->result, "failure")) {
		t->status = TEST_FAIL;
		t->message = visible_str(e->message, false);
	} else if (!strncmp(e->message, CL_NOT_RUN_AFTER, after)) {
		/* the harness's word; a forged one costs the submission the test */
		const struct graded_test *first = NULL;
		for (size_t i = 0; i < r->ntests && !first; i++)
			if (!strcmp(r->tests[i].id, e->message + after))
				first = &r->tests[i];
		t->status = TEST_TIMEOUT;
		t->seconds = -1;
		char *which = first ? xasprintf("%s %s, a test of the same part,", first->part,
						first->name)
				    : xstrdup("a test of the same part");
		t->message = xasprintf("not run: %s ran out of time first\nhint: once one of a "
				       "part's tests runs out of time, the part's tests left are "
				       "not run (each would cost another full timeout), and get no "
				       "points", which);
		free(which);
	} else if (strstr(e->message, "timeout expired")) {
		t->status = TEST_TIMEOUT;
		t->message = xasprintf("did not finish within %g s\nhint: a kernel or the launcher "
				       "never finishes (an endless loop, or a barrier some threads "
				       "never reach), or it is far too slow", timeout);
	} else if (sscanf(e->message, "Early exit with return value %d", &code) == 1) {
		/* the harness itself never exits inside a test: the submission's exit() did */
		t->status = TEST_CRASH;
		t->message = xasprintf("the submission ended the test process with exit(%d) during "
				       "this test (what it printed is in the output below)\nhint: "
				       "exit() ends the whole test: to report an error, print it and "
				       "return from the launcher", code);
	} else {
		char *said = visible_str(e->message, false);
		t->status = TEST_CRASH;
		t->message = xasprintf("the test process died: %s\nhint: the launcher crashed on the "
				       "host: a device pointer used on the host, a bad host pointer, "
				       "or abort()", said);
		free(said);
	}
}

/*
 * The submission's failed assert() in len bytes of output: the first line
 * that glibc's assert writes ("PROGRAM: FILE:LINE: FUNCTION: Assertion `E'
 * failed."), past the program's name, into a new string; *others: how
 * many different ones follow it. NULL: none.
 */
static char *failed_assertion(const char *output, size_t len, size_t *others)
{
	char *first = NULL;

	*others = 0;
	for (size_t at = 0; output && at < len;) {
		const char *line = output + at, *nl = memchr(line, '\n', len - at);
		size_t n = nl ? (size_t)(nl - line) : len - at;
		at += n + 1;
		char *text = xasprintf("%.*s", (int)n, line);
		const char *a = strstr(text, ": Assertion `"), *from = strstr(text, ": ");
		if (a && strstr(a, "' failed.") && from && from < a) {
			if (!first)
				first = xstrdup(from + 2);
			else if (strcmp(first, from + 2))
				(*others)++;
		}
		free(text);
	}
	return first;
}

/*
 * A test whose process was ended by SIGABRT, where the output holds a
 * failed assert(): the assertion joins its message, since an abort() of
 * the submission's own is what the evidence shows.
 */
static void name_assertions(const struct result *r, struct graded_test *out, const char *output,
			    size_t len)
{
	size_t others;
	char *seen = NULL;

	for (size_t i = 0; i < r->ntests; i++) {
		struct graded_test *t = &out[i];
		if (t->status != TEST_CRASH || !t->message || !strstr(t->message, "(Aborted)"))
			continue;
		if (!seen && !(seen = failed_assertion(output, len, &others)))
			return;
		char *shown = visible_str(seen, true);
		const char *hint = strstr(t->message, "\nhint: ");
		int head = hint ? (int)(hint - t->message) : (int)strlen(t->message);
		/* the generic hint (a bad pointer, abort()) gives way: the evidence names the cause */
		char *m = xasprintf("%.*s\nthe submission's assert() failed: %s%s\nhint: a failed "
				    "assert() ends the whole test process: assert only what the "
				    "lab's contract (its header) promises, and handle the rest",
				    head, t->message, shown,
				    others ? " (and other assertions: see the output below)" : "");
		free(shown);
		free(t->message);
		t->message = m;
	}
	free(seen);
}

/*
 * Whether the lab's setup hook ended the test binary before any test ran
 * (the harness says so in CL_SETUP_ENDED_FILE of its log folder, which no
 * program of the submission's can write): then the lab failed, not the
 * submission, and the grading stops, saying what happened and where.
 */
static bool lab_setup_ended(const char *logs)
{
	size_t len;
	char *said = read_log(logs, CL_SETUP_ENDED_FILE, &len);

	if (!said)
		return false;
	char *shown = visible_text(said, len, true);
	error("the lab's test harness failed, not the submission: %s", shown);
	free(shown);
	free(said);
	return true;
}

/*
 * Runs the test binary on the tests of r not yet run (or, with only, on
 * those), logs in workdir/<logs>, extra_env added to its environment, and
 * fills in the results of the tests it ran into out (r's tests by default).
 */
static int run_harness(const struct grading *g, const char *binary, const char *logs_name,
		       const char *const *extra_env, const struct strlist *only,
		       struct graded_test *out)
{
	const struct lab_config *cfg = g->cfg;
	struct result *r = g->r;
	struct strlist argv = STRLIST_INIT;
	char *logs = judge_path(g, logs_name), *input = NULL;
	char **env = grading_env(g, extra_env);
	struct run_result res;
	char token[33];
	int ret = -1;

	random_token(token);
	if (mkdir(logs, 0700) < 0) {
		error("cannot create '%s': %s", logs, strerror(errno));
		goto out;
	}
	double slow = r->mode == MODE_EMULATED ? cfg->emulation_slowdown : 1;
	const char *const runner[] = {binary, NULL};
	if (judge_argv(g, logs_name, runner, &argv))
		goto out;
	strlist_push(&argv, "--xml-dir");
	strlist_push(&argv, logs);
	strlist_push(&argv, "--lanes");
	strlist_pushf(&argv, "%d", g->lanes);
	if (g->jobs) {
		strlist_push(&argv, "--jobs");
		strlist_pushf(&argv, "%d", g->jobs);
	}
	for (size_t p = 0; p < cfg->nparts; p++) {
		strlist_push(&argv, "--timeout");
		strlist_pushf(&argv, "%s=%g", cfg->parts[p].name, cfg->parts[p].timeout * slow);
	}
	for (size_t i = 0; only && i < only->n; i++) {
		strlist_push(&argv, "--only");
		strlist_push(&argv, only->v[i]);
	}
	input = testrun_input(r, token);
	struct run_spec spec = {
		.argv = (const char *const *)argv.v,
		.envp = (const char *const *)env,
		.cwd = g->judgedir,
		.input = input,
		.timeout = cfg->run_timeout * slow,
	};
	lab_run_limits(cfg, slow, &spec);
	/* AddressSanitizer reserves terabytes of shadow as private writable
	 * memory, which RLIMIT_DATA counts: its reruns keep the other limits */
	for (size_t i = 0; extra_env && extra_env[i]; i++)
		if (!strncmp(extra_env[i], "ASAN_OPTIONS=", 13))
			spec.max_memory = 0;

	if (run_one(&spec, &res))
		goto out;
	if (!res.started) {
		error("cannot run the test binary: %s", res.output);
		run_result_release(&res);
		goto out;
	}

	if (lab_setup_ended(logs))
		goto out_release_res;
	add_setup_seconds(logs, r);
	char *binary_fate = (res.timed_out || res.signal || res.exit_code > 1)
				    ? run_describe(&spec, &res) : NULL;
	for (size_t i = 0; i < r->ntests; i++) {
		struct graded_test *t = &out[i];
		struct check_log log;
		const struct lab_part *part = NULL;
		if (t->kind != KIND_CORRECTNESS || t->held_back ||
		    (only && !strlist_has(only, r->tests[i].id)))
			continue;
		char *path = xasprintf("%s/%s.xml", logs, t->id);
		int rd = checklog_read(path, &log);
		free(path);
		if (rd)
			goto out_release;
		for (size_t p = 0; p < cfg->nparts; p++)
			if (!strcmp(cfg->parts[p].name, t->part))
				part = &cfg->parts[p];
		const struct check_entry *e = checklog_find(&log, t->id);
		t->unreported = !e;
		t->short_of_memory = false;
		if (e) {
			set_from_check(r, t, e, part->timeout * slow);
			if (t->status == TEST_PASS &&
			    !test_finished(logs, t->id, token, &t->short_of_memory, r)) {
				t->status = TEST_CRASH;
				free(t->message);
				t->message = xstrdup("the test process ended before the test did, with "
						     "status 0\nhint: the submission must not end the "
						     "process (exit, or a system call that does)");
			}
		} else {
			/* no result: the test binary died or was stopped before this test */
			t->status = res.timed_out ? TEST_TIMEOUT : TEST_CRASH;
			free(t->message);
			t->message = xasprintf("no result: the test binary %s before this test "
					       "reported", binary_fate ? binary_fate : "ended");
		}
		checklog_release(&log);
	}
	name_assertions(r, out, res.output, res.output_len);

	/* what the submission printed is kept as visible_text shows it */
	if (out == r->tests && res.output_dropped) {
		char *said = visible_text(res.output, res.output_len, false);
		r->output = xasprintf("%s\n[... %zu more bytes of output dropped]\n", said,
				      res.output_dropped);
		free(said);
	} else if (out == r->tests && res.output_len) {
		r->output = visible_text(res.output, res.output_len, false);
	}
	ret = 0;
out_release:
	free(binary_fate);
out_release_res:
	run_result_release(&res);
out:
	grading_free_env(env);
	free(logs);
	free(input);
	strlist_clear(&argv);
	return ret;
}

static size_t first_line_len(const char *s)
{
	return s ? strcspn(s, "\n") : 0;
}

/* What a re-run does with a test's fresh verdict (again) and its first (t). */
typedef void merge_fn(struct graded_test *t, struct graded_test *again);

/*
 * Runs the tests pick chooses once more in a fresh test binary (extra env
 * added, logs in workdir/<logs>), saying "running N <what> ...", and lets
 * merge fold each fresh verdict into the test's.
 */
static int rerun(const struct grading *g, const char *binary, const char *const *env,
		 const char *logs, bool (*pick)(const struct graded_test *), const char *what,
		 merge_fn *merge)
{
	struct result *r = g->r;
	struct strlist left = STRLIST_INIT;
	struct graded_test *again;
	int ret;

	for (size_t i = 0; i < r->ntests; i++)
		if (pick(&r->tests[i]))
			strlist_push(&left, r->tests[i].id);
	if (!left.n)
		return 0;
	progress("running %zu %s ...", left.n, what);
	again = xcalloc(r->ntests, sizeof(*again));
	for (size_t i = 0; i < r->ntests; i++) {
		again[i] = r->tests[i];
		again[i].message = NULL;
	}
	ret = run_harness(g, binary, logs, env, &left, again);
	for (size_t i = 0; i < r->ntests; i++) {
		if (!ret && strlist_has(&left, r->tests[i].id))
			merge(&r->tests[i], &again[i]);
		free(again[i].message);
	}
	free(again);
	strlist_clear(&left);
	return ret;
}

static bool failed(const struct graded_test *t)
{
	return t->status == TEST_FAIL;
}

static bool failed_or_crashed(const struct graded_test *t)
{
	return t->status == TEST_FAIL || t->status == TEST_CRASH;
}

static bool got_no_result(const struct graded_test *t)
{
	return t->unreported && t->status == TEST_CRASH;
}

/* Whether t failed because the harness found the GPU's memory taken. */
static bool failed_short_of_memory(const struct graded_test *t)
{
	return (t->status == TEST_FAIL || t->status == TEST_CRASH) && t->message &&
	       strstr(t->message, "cudaErrorMemoryAllocation");
}

/*
 * What another program on the GPU can cause: running out of time (a kernel
 * that never ends slows every context), or out of the GPU's memory (another
 * submission, or another test of this one, holding it all). A test that
 * passed although a cudaMalloc found the GPU full counts too: code that
 * takes all the memory there is, and leaks it, leaks nothing when there is
 * none to take.
 */
static bool owed_to_neighbours(const struct graded_test *t)
{
	return t->kind == KIND_CORRECTNESS &&
	       (t->status == TEST_TIMEOUT || got_no_result(t) ||
		(t->status == TEST_PASS && t->short_of_memory) || failed_short_of_memory(t));
}

/*
 * A test that reports this time gets that verdict; one that does not keeps
 * its first, unless the first was the GPU's memory taken by others: that one
 * says nothing of the submission, and the test's own end alone (a process
 * that ended before it reported) is its verdict.
 */
static void take_verdict(struct graded_test *t, struct graded_test *again)
{
	if (again->unreported && !failed_short_of_memory(t))
		return;
	free(t->message);
	*t = *again;
	again->message = NULL;
}

/*
 * How a diagnostic re-run of t ended, when its outcome differs from t's (its
 * status, or the first line of its message): "passes", or "says:" and that
 * line; NULL when it is the same.
 */
static char *changed_outcome(const struct graded_test *t, const struct graded_test *again)
{
	size_t a = first_line_len(t->message), b = first_line_len(again->message);

	if (again->status == t->status && a == b && !strncmp(t->message, again->message, a))
		return NULL;
	if (again->status == TEST_PASS)
		return xstrdup("passes");
	return xasprintf("says:\n  %.*s", (int)b, again->message ? again->message : "");
}

/* Appends to t's message what a re-run showed, made by fmt from t's message and how it ended. */
static void add_to_message(struct graded_test *t, const char *fmt, char *outcome)
{
	char *m = xasprintf(fmt, t->message, outcome);
	free(t->message);
	t->message = m;
	free(outcome);
}

/*
 * With each block's threads in reverse order, on one worker: a verdict that
 * changes means the result depends on the order threads run in (a missing
 * __syncthreads(), a race), which the message then says, with what the
 * reversed run saw.
 */
static void hint_thread_order(struct graded_test *t, struct graded_test *rev)
{
	char *outcome = changed_outcome(t, rev);

	if (outcome)
		add_to_message(t, "%s\nhint: the result depends on the order in which threads run: "
			       "with each block's threads in reverse order this test %s\nhint: "
			       "look for a missing __syncthreads() between writing shared memory "
			       "and reading it, or threads updating one value without an atomic",
			       outcome);
}

/* A failure that shows NaN, which uninitialised shared memory now reads as. */
static bool failed_with_nan(const struct graded_test *t)
{
	return t->status == TEST_FAIL && t->message && strstr(t->message, "NaN");
}

/*
 * With shared memory left as it is instead of filled with NaN before each
 * launch: a test that then passes, or fails elsewhere, gets a result that
 * depends on what shared memory held before: it read shared memory no
 * thread of its block had written, which the message then says.
 */
static void hint_uninitialised_shared(struct graded_test *t, struct graded_test *plain)
{
	char *outcome = plain->unreported ? NULL : changed_outcome(t, plain);

	if (outcome)
		add_to_message(t, "%s\nhint: the result depends on uninitialised shared memory: "
			       "with shared memory filled with NaN before each launch this test "
			       "fails as above; left as it was, it %s\nhint: the kernel reads "
			       "shared memory that no thread of its block had written at that point: "
			       "elements no thread writes (a tile's elements past the edge of the "
			       "data must be set, to 0, before they are read), or a read before "
			       "the write of another thread (a missing __syncthreads())", outcome);
}

/* What AddressSanitizer found, with the CUDA thread that did it, joins the message. */
static void add_asan_finding(struct graded_test *t, struct graded_test *again)
{
	if (!again->message || strncmp(again->message, "AddressSanitizer: ", 18))
		return;
	char *m = xasprintf("%s\nrun again on the CPU with %s", t->message, again->message);
	free(t->message);
	t->message = m;
}

/*
 * On the emulator, every test that failed or crashed runs again in the
 * AddressSanitizer build (byte-exact bounds on device buffers, shared
 * memory as plain globals, blocks one at a time).
 */
static int rerun_asan(const struct grading *g)
{
	static const char *const env[] = {
		"ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:handle_abort=1:symbolize=1",
		"CUDAEMU_WORKERS=1", NULL};
	const char *flags = g->tc->emu_asan_cxxflags;
	struct strlist objs = STRLIST_INIT;
	char *binary = NULL, *log = NULL;
	bool any = false;
	int rc;

	for (size_t i = 0; i < g->r->ntests; i++)
		any |= failed_or_crashed(&g->r->tests[i]);
	if (!any || !flags)
		return 0;
	rc = build_emulated_objects(g, flags, "asan", &objs, &log);
	if (!rc)
		rc = build_link(g, &objs, "link-asan.rsp", "runner_asan", &binary, &log);
	if (rc > 0)   /* a diagnostic the grader could not build is no verdict: say so, go on */
		warning("the AddressSanitizer build failed: %s", log);
	if (!rc)
		rc = rerun(g, binary, env, "logs-asan", failed_or_crashed,
			   "failed tests again with AddressSanitizer", add_asan_finding);
	free(binary);
	free(log);
	strlist_clear(&objs);
	return rc < 0 ? -1 : 0;
}

/*
 * A test that is not visible may be one of tests/hidden/, which a student's
 * handout has not: the test binary's own list (--list) says which tests it
 * has, and a test of lab.conf not among them, and not visible, is held
 * back: not run here, neither failed nor passed, its points graded later.
 * A visible test the binary lacks is left to fail as one that gave no
 * result (the lab's mistake shows). Labs whose tests are all visible run
 * no list.
 */
static int hold_back_absent(const struct grading *g)
{
	struct result *r = g->r;
	struct strlist names = STRLIST_INIT;
	struct run_result res;
	bool any = false;
	int ret = -1, nheld = 0;
	double points = 0;

	for (size_t i = 0; i < r->ntests; i++)
		any |= r->tests[i].kind == KIND_CORRECTNESS && r->tests[i].visibility != VIS_VISIBLE;
	if (!any)
		return 0;
	/* the judge knows its tests; no runner starts for a list */
	char *judge = judge_program(g);
	const char *const argv[] = {judge, "--list", NULL};
	char **env = grading_env(g, NULL);
	struct run_spec spec = {
		.argv = argv,
		.envp = (const char *const *)env,
		.cwd = g->judgedir,
		.input = "",
		.timeout = 30,
	};
	lab_run_limits(g->cfg, r->mode == MODE_EMULATED ? g->cfg->emulation_slowdown : 1, &spec);
	if (run_one(&spec, &res))
		goto out;
	if (!res.started || res.timed_out || res.signal || res.exit_code) {
		char *fate = res.started ? run_describe(&spec, &res) : xstrdup("could not start");
		error("the test binary cannot list its tests: %s", fate);
		free(fate);
		goto out_release;
	}
	/* "PART test_<lab>_<part>_<name>" a line */
	for (const char *l = res.output ? res.output : ""; *l;) {
		size_t n = strcspn(l, "\n");
		const char *sp = memchr(l, ' ', n);
		if (sp)
			strlist_pushf(&names, "%.*s", (int)(n - (sp + 1 - l)), sp + 1);
		l += n + (l[n] == '\n');
	}
	for (size_t i = 0; i < r->ntests; i++) {
		struct graded_test *t = &r->tests[i];
		if (t->kind != KIND_CORRECTNESS || t->visibility == VIS_VISIBLE ||
		    strlist_has(&names, t->id))
			continue;
		result_hold_back(t);
		nheld++;
		points += t->bonus ? 0 : t->max_points;
	}
	if (nheld && !r->state_reason)
		r->state_reason = xasprintf("%d test%s (%g point%s) are not in this copy of the lab: "
					    "the course's grader runs them", nheld,
					    nheld == 1 ? "" : "s", points, points == 1 ? "" : "s");
	ret = 0;
out_release:
	run_result_release(&res);
out:
	grading_free_env(env);
	free(judge);
	strlist_clear(&names);
	return ret;
}

int testrun_tests(const struct grading *g, const char *binary)
{
	struct result *r = g->r;
	bool emulated = r->mode == MODE_EMULATED;
	/* the lab's barrier rule, in the run and every rerun: without it, a
	 * barrier in a branch would pass reversed, and the hint would blame
	 * thread order (NULL: none, which ends each list below) */
	const char *barriers = g->cfg->strict_barriers && emulated ? "CUDAEMU_STRICT_BARRIERS=1"
								   : NULL;
	const char *const env[] = {barriers, NULL};
	const char *const unpoisoned[] = {"CUDALAB_SHARED_POISON=0", barriers, NULL};
	const char *const reverse[] = {"CUDAEMU_REVERSE=1", "CUDAEMU_WORKERS=1", barriers, NULL};

	if (hold_back_absent(g))
		return -1;
	size_t nrun = 0;
	for (size_t i = 0; i < r->ntests; i++)
		nrun += !r->tests[i].held_back;
	progress("running %zu tests %s%s ...", nrun,
		 emulated || r->mode == MODE_CPU ? "" : "on the ",
		 emulated		  ? "on the CPU emulator"
		 : r->mode == MODE_CPU ? "on the CPU (this lab needs no GPU)"
				       : r->gpu.name);
	if (run_harness(g, binary, "logs", env, NULL, r->tests) ||
	    rerun(g, binary, env, "logs-again", got_no_result, "tests again that got no result",
		  take_verdict) ||
	    rerun(g, binary, unpoisoned, "logs-unpoisoned", failed_with_nan,
		  "failed tests again without NaN in shared memory", hint_uninitialised_shared))
		return -1;
	if (!emulated)
		return 0;
	if (rerun(g, binary, reverse, "logs-reversed", failed,
		  "failed tests again in reverse thread order", hint_thread_order))
		return -1;
	return rerun_asan(g);
}

size_t testrun_mark_owed(struct result *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ntests; i++)
		n += r->tests[i].owed = owed_to_neighbours(&r->tests[i]);
	return n;
}

static bool marked_owed(const struct graded_test *t)
{
	return t->owed;
}

int testrun_again_alone(const struct grading *g, const char *binary)
{
	/* one test at a time: the tests of one submission are neighbours too */
	struct grading one_lane = *g;

	one_lane.lanes = 1;
	one_lane.jobs = 1;
	return rerun(&one_lane, binary, NULL, "logs-alone", marked_owed,
		     "tests again that ran out of time or of GPU memory, with the GPU to themselves",
		     take_verdict);
}
