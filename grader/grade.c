/*
 * grade.c - the data path of one grading (DESIGN.md): intake, build (with the
 * GPU probe alongside), audit, link, run, check, score.
 *
 * Owns: the order of the steps and turning each step's outcome into the
 * result. Runs programs only through run.c, reads lab.conf only through
 * config.c, and never touches CUDA: every GPU fault happens in a child.
 */
#include "grade.h"

#include "audit.h"
#include "checklog.h"
#include "intake.h"
#include "run.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

#define PROBE_TIMEOUT 60
#define TOOL_TIMEOUT 60
#define LOG_LIMIT (64 * 1024)

/* The grader's environment without Check's and cudalab's own variables. */
char **grade_child_env(void)
{
	struct strlist env = STRLIST_INIT;

	for (char **e = environ; *e; e++)
		if (strncmp(*e, "CK_", 3) && strncmp(*e, "CUDALAB_", 8))
			strlist_push(&env, *e);
	/* an empty list, not NULL: a NULL envp would mean "inherit everything" */
	return env.v ? env.v : xcalloc(1, sizeof(char *));
}

static void free_env(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

/* ------------------------------------------------------------ GPU probe */

static char *probe_value(const char *out, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, n) && l[n] == '=')
			return xstrndup(l + n + 1, strcspn(l + n + 1, "\n"));
	return NULL;
}

char *parse_driver_version(const char *text)
{
	const char *p = text ? strstr(text, "Kernel Module") : NULL;

	for (; p && *p && *p != '\n'; p += strcspn(p, " \t\n")) {
		p += strspn(p, " \t");
		size_t n = strspn(p, "0123456789.");
		if (n && n == strcspn(p, " \t\n") && memchr(p, '.', n))
			return xstrndup(p, n);
	}
	return NULL;
}

/* The kernel driver's version, from /proc; NULL when there is none. */
static char *driver_version(void)
{
	char *text, *v;
	bool quiet = report_quiet;

	if (access("/proc/driver/nvidia/version", R_OK))
		return NULL;
	report_quiet = true;
	text = read_file("/proc/driver/nvidia/version", NULL);
	report_quiet = quiet;
	v = parse_driver_version(text);
	free(text);
	return v;
}

static void read_probe(const struct run_spec *spec, const struct run_result *pr, struct result *r)
{
	char *avail = pr->started && !pr->timed_out ? probe_value(pr->output, "available") : NULL;

	r->gpu.runtime = probe_value(pr->output ? pr->output : "", "runtime");
	if (avail && !strcmp(avail, "1")) {
		r->gpu.available = true;
		r->gpu.name = probe_value(pr->output, "name");
		r->gpu.cc = probe_value(pr->output, "cc");
		r->gpu.driver = driver_version();
		if (!r->gpu.driver)
			r->gpu.driver = probe_value(pr->output, "driver_api");
	} else if (avail) {
		r->gpu.reason = probe_value(pr->output, "reason");
	} else {
		char *why = run_describe(spec, pr);
		r->gpu.reason = xasprintf("the GPU probe failed: %s", why);
		free(why);
	}
	free(avail);
}

/* ---------------------------------------------------------------- build */

/* nvcc's complaint that -arch=native found no GPU says nothing to a student. */
static char *clean_build_log(const char *log)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *l = log; l && *l;) {
		size_t n = strcspn(l, "\n");
		if (!memmem(l, n, "Cannot find valid GPU for '-arch=native'", 40))
			strbuf_add(&sb, l, n), strbuf_addstr(&sb, "\n");
		l += n + (l[n] == '\n');
	}
	return strbuf_detach(&sb);
}

static bool is_source(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && !strcmp(name + n - 3, ".cu");
}

/* Runs a tool (nm, readelf) whose output the grader reads; NULL on failure. */
static char *tool_output(const char *const *argv)
{
	struct run_spec spec = {.argv = argv, .timeout = TOOL_TIMEOUT, .output_limit = 16 << 20};
	struct run_result res;
	char *out = NULL;

	if (run_one(&spec, &res))
		return NULL;
	if (res.started && !res.timed_out && !res.signal && res.exit_code == 0 &&
	    !res.output_dropped)
		out = xstrdup(res.output);
	else
		error("'%s %s %s' failed: %s", argv[0], argv[1], argv[2],
		      res.output ? res.output : "no output");
	run_result_release(&res);
	return out;
}

static int audit(const struct toolchain *tc, const struct lab_config *cfg, const char *obj,
		 struct strlist *problems)
{
	struct audit_rules rules = {&cfg->symbols, &cfg->allow_undefined, &cfg->deny_defined};
	const char *nm_argv[] = {tc->nm, "-P", obj, NULL};
	const char *readelf_argv[] = {tc->readelf, "-S", "-W", obj, NULL};
	char *symbols = tool_output(nm_argv);
	char *sections = symbols ? tool_output(readelf_argv) : NULL;

	if (!sections) {
		free(symbols);
		return -1;
	}
	audit_symbols(symbols, &rules, problems);
	audit_sections(sections, problems);
	free(symbols);
	free(sections);
	return 0;
}

static char *join_lines(const struct strlist *l)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < l->n; i++)
		strbuf_addf(&sb, "%s%s", i ? "\n" : "", l->v[i]);
	return strbuf_detach(&sb);
}

/*
 * Compiles every .cu of the submission while the probe asks the GPU what it
 * is, audits the objects and links the test binary into workdir/check_<lab>.
 * A build the student broke sets r->build; -1 only for the grader's failures.
 */
static int build(const struct toolchain *tc, const struct lab_config *cfg, const char *workdir,
		 struct result *r, char **binary)
{
	struct strlist objs = STRLIST_INIT, problems = STRLIST_INIT, link = STRLIST_INIT;
	struct strlist *argvs = xcalloc(cfg->files.n + 1, sizeof(*argvs));
	struct run_spec *specs = xcalloc(cfg->files.n + 1, sizeof(*specs));
	struct run_result *res = xcalloc(cfg->files.n + 1, sizeof(*res));
	struct strbuf log = STRBUF_INIT;
	size_t n = 0;
	double t0 = now_seconds();
	int ret = -1;

	strlist_push(&argvs[n], tc->probe);
	specs[n] = (struct run_spec){.timeout = PROBE_TIMEOUT, .output_limit = 4096};
	n++;
	for (size_t i = 0; i < cfg->files.n; i++) {
		const char *f = cfg->files.v[i];
		if (!is_source(f))
			continue;
		strlist_pushf(&objs, "%s/%s.o", workdir, f);
		strlist_push(&argvs[n], tc->nvcc);
		strlist_split(&argvs[n], tc->nvcc_flags);
		strlist_push(&argvs[n], "-arch=native");
		strlist_pushf(&argvs[n], "-I%s", cfg->dir);
		strlist_push(&argvs[n], "-c");
		strlist_push(&argvs[n], f);
		strlist_push(&argvs[n], "-o");
		strlist_push(&argvs[n], objs.v[objs.n - 1]);
		specs[n] = (struct run_spec){.cwd = workdir, .timeout = cfg->build_timeout,
					     .output_limit = LOG_LIMIT};
		n++;
	}
	for (size_t i = 0; i < n; i++)
		specs[i].argv = (const char *const *)argvs[i].v;

	progress("building %s ...", cfg->files.v[0]);
	if (run_many(specs, res, n))
		goto out;
	read_probe(&specs[0], &res[0], r);

	r->build = BUILD_OK;
	for (size_t i = 1; i < n; i++) {
		char *clean = clean_build_log(res[i].output);
		strbuf_addstr(&log, clean);
		free(clean);
		if (!res[i].started) {
			error("cannot run nvcc '%s': %s", tc->nvcc, res[i].output);
			goto out;
		}
		if (r->build == BUILD_OK &&
		    (res[i].timed_out || res[i].signal || res[i].exit_code)) {
			char *why = run_describe(&specs[i], &res[i]);
			r->build = BUILD_COMPILE_ERROR;
			r->build_message = xasprintf("nvcc failed on '%s' (%s)", argvs[i].v[argvs[i].n - 3],
						     why);
			free(why);
		}
	}
	r->build_log = strbuf_detach(&log);
	if (r->build != BUILD_OK) {
		ret = 0;
		goto out;
	}

	for (size_t i = 0; i < objs.n; i++)
		if (audit(tc, cfg, objs.v[i], &problems))
			goto out;
	if (problems.n) {
		char *lines = join_lines(&problems);
		r->build = BUILD_AUDIT_FAILED;
		r->build_message = xasprintf("the submission was refused by the symbol audit:\n%s", lines);
		free(lines);
		ret = 0;
		goto out;
	}

	*binary = xasprintf("%s/check_%s", workdir, cfg->name);
	strlist_push(&link, tc->cxx);
	strlist_push(&link, "-o");
	strlist_push(&link, *binary);
	for (size_t i = 0; i < objs.n; i++)
		strlist_push(&link, objs.v[i]);
	strlist_pushf(&link, "@%s/labs/%s/link.rsp", tc->build, cfg->name);
	struct run_spec ls = {.argv = (const char *const *)link.v, .timeout = cfg->build_timeout,
			      .output_limit = LOG_LIMIT};
	struct run_result lr;
	if (run_one(&ls, &lr))
		goto out;
	if (!lr.started || lr.timed_out || lr.signal || lr.exit_code) {
		char *why = run_describe(&ls, &lr);
		r->build = BUILD_LINK_ERROR;
		r->build_message = xasprintf("linking with the test harness failed (%s)", why);
		free(r->build_log);
		r->build_log = xstrdup(lr.output ? lr.output : "");
		free(why);
	}
	run_result_release(&lr);
	ret = 0;
out:
	r->build_seconds = now_seconds() - t0;
	for (size_t i = 0; i < n; i++) {
		run_result_release(&res[i]);
		strlist_clear(&argvs[i]);
	}
	free(argvs);
	free(specs);
	free(res);
	strlist_clear(&objs);
	strlist_clear(&problems);
	strlist_clear(&link);
	strbuf_release(&log);
	return ret;
}

/* ------------------------------------------------------------ run tests */

/* Check reports a forked test that died or hung as an "error". */
static void set_from_check(struct graded_test *t, const struct check_entry *e, double timeout)
{
	free(t->message);
	t->seconds = e->duration;
	if (!strcmp(e->result, "success")) {
		t->status = TEST_PASS;
		t->message = NULL;
	} else if (!strcmp(e->result, "failure")) {
		t->status = TEST_FAIL;
		t->message = xstrdup(e->message);
	} else if (strstr(e->message, "timeout expired")) {
		t->status = TEST_TIMEOUT;
		t->message = xasprintf("did not finish within %g s\nhint: a kernel or the launcher "
				       "never finishes (an endless loop, or a barrier some threads "
				       "never reach), or it is far too slow", timeout);
	} else {
		t->status = TEST_CRASH;
		t->message = xasprintf("the test process died: %s\nhint: the launcher crashed on the "
				       "host: a device pointer used on the host, a bad host pointer, "
				       "abort() or exit()", e->message);
	}
}

static int run_tests(const struct lab_config *cfg, const char *workdir, const char *binary,
		     unsigned long long seed, struct result *r)
{
	struct strlist argv = STRLIST_INIT;
	char *logs = xasprintf("%s/logs", workdir), input[64];
	char **env = grade_child_env();
	struct run_result res;
	int ret = -1;

	if (mkdir(logs, 0700) < 0) {
		error("cannot create '%s': %s", logs, strerror(errno));
		goto out;
	}
	strlist_push(&argv, binary);
	strlist_push(&argv, "--xml-dir");
	strlist_push(&argv, logs);
	for (size_t p = 0; p < cfg->nparts; p++) {
		strlist_push(&argv, "--timeout");
		strlist_pushf(&argv, "%s=%g", cfg->parts[p].name, cfg->parts[p].timeout);
	}
	snprintf(input, sizeof(input), "seed=%llu\n", seed);
	struct run_spec spec = {
		.argv = (const char *const *)argv.v,
		.envp = (const char *const *)env,
		.cwd = workdir,
		.input = input,
		.timeout = cfg->run_timeout,
		.output_limit = cfg->output_limit,
		.cpu_seconds = (unsigned long)(cfg->run_timeout * 2),
		.max_file_bytes = 256ul << 20,
		.max_open_files = 1024,
	};

	progress("running %zu tests on %s ...", r->ntests, r->gpu.name);
	if (run_one(&spec, &res))
		goto out;
	if (!res.started) {
		error("cannot run the test binary: %s", res.output);
		run_result_release(&res);
		goto out;
	}

	char *binary_fate = (res.timed_out || res.signal || res.exit_code > 1)
				    ? run_describe(&spec, &res) : NULL;
	for (size_t i = 0; i < r->ntests; i++) {
		struct graded_test *t = &r->tests[i];
		struct check_log log;
		const struct lab_part *part = NULL;
		char *path = xasprintf("%s/%s.xml", logs, t->id);
		int rd = checklog_read(path, &log);
		free(path);
		if (rd)
			goto out_release;
		for (size_t p = 0; p < cfg->nparts; p++)
			if (!strcmp(cfg->parts[p].name, t->part))
				part = &cfg->parts[p];
		const struct check_entry *e = checklog_find(&log, t->id);
		if (e) {
			set_from_check(t, e, part->timeout);
		} else {
			/* no result: the test binary died or was stopped before this test */
			t->status = res.timed_out ? TEST_TIMEOUT : TEST_CRASH;
			free(t->message);
			t->message = xasprintf("no result: the test binary %s before this test "
					       "reported", binary_fate ? binary_fate : "ended");
		}
		checklog_release(&log);
	}
	if (res.output_dropped) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, res.output);
		strbuf_addf(&sb, "\n[... %zu more bytes of output dropped]\n", res.output_dropped);
		r->output = strbuf_detach(&sb);
	} else if (res.output_len) {
		r->output = xstrdup(res.output);
	}
	ret = 0;
out_release:
	free(binary_fate);
	run_result_release(&res);
out:
	free_env(env);
	free(logs);
	strlist_clear(&argv);
	return ret;
}

/* -------------------------------------------------------------- grading */

static unsigned long long fresh_seed(void)
{
	unsigned long long s = 0;
	while (!s)
		if (getrandom(&s, sizeof(s), 0) != sizeof(s))
			s = (unsigned long long)(now_seconds() * 1e9) ^ (unsigned long long)getpid();
	return s;
}

int grade_submission(const struct toolchain *tc, const struct lab_config *cfg,
		     const struct grade_opts *o, struct result *r)
{
	char host[256] = "", when[32], real[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	char *workdir = xasprintf("%s/cudalab-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", cfg->name);
	char *binary = NULL;
	struct intake in;
	double t0 = now_seconds();
	int ret = -1;

	result_init(r, cfg);
	r->student = xstrdup(o->student);
	r->submission = xstrdup(realpath(o->subdir, real) ? real : o->subdir);
	r->started_at = xstrdup(iso_time(when, sizeof(when)));
	gethostname(host, sizeof(host) - 1);
	r->host = xstrdup(host);
	r->seed = o->seed ? o->seed : fresh_seed();

	if (!mkdtemp(workdir)) {
		error("cannot create a work folder '%s': %s", workdir, strerror(errno));
		goto out;
	}
	if (intake_copy(o->subdir, &cfg->files, cfg->max_file_bytes, workdir, &in))
		goto out_workdir;
	r->files = in.files;
	r->nfiles = in.nfiles;
	in.files = NULL;
	in.nfiles = 0;
	if (!in.accepted) {
		r->build = BUILD_REFUSED;
		r->build_message = xstrdup(in.refusal);
		result_mark_not_run(r, "not run: the submission was not built");
		intake_release(&in);
		ret = 0;
		goto out_finish;
	}
	intake_release(&in);

	if (build(tc, cfg, workdir, r, &binary))
		goto out_workdir;
	if (r->build != BUILD_OK) {
		result_mark_not_run(r, "not run: the submission was not built");
	} else if (!r->gpu.available) {
		r->state_reason = xasprintf("no CUDA device: %s", r->gpu.reason);
		char *why = xasprintf("not run: %s", r->state_reason);
		result_mark_not_run(r, why);
		free(why);
	} else if (run_tests(cfg, workdir, binary, r->seed, r)) {
		goto out_workdir;
	}
	ret = 0;
out_finish:
	result_finish(r);
out_workdir:
	if (o->keep_workdir)
		progress("work folder kept: %s", workdir);
	else
		remove_tree(workdir);
out:
	r->seconds = now_seconds() - t0;
	free(binary);
	free(workdir);
	return ret;
}
