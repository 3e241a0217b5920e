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
#include "gpulock.h"
#include "intake.h"
#include "pidcg.h"
#include "rewrite.h"
#include "profile.h"
#include "run.h"
#include "sandbox.h"
#include "scan.h"
#include "timing.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/*
 * The sandboxes of the grading in progress (one per process): programs that
 * compile the submission may also read the labs (their headers, the
 * emulator's); programs that run it see nothing of the checkout.
 */
static struct sandbox build_sandbox, run_sandbox;
static int test_lanes;   /* --lanes of the test binary (0: a process per test) */

#define PROBE_TIMEOUT 60
#define TOOL_TIMEOUT 60

/* The grader's environment without Check's and cudalab's own variables. */
static char **grade_child_env(void)
{
	struct strlist env = STRLIST_INIT;
	char *gpu = gpulock_gpu_name();

	for (char **e = environ; *e; e++)
		if (strncmp(*e, "CK_", 3) && strncmp(*e, "CUDALAB_", 8) &&
		    strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21))
			strlist_push(&env, *e);
	/* one GPU: the first the grader may use, the one its probe looked at */
	strlist_pushf(&env, "CUDA_VISIBLE_DEVICES=%s", gpu);
	free(gpu);
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

enum probe_answer { PROBE_GPU, PROBE_NO_GPU, PROBE_FAILED };

/*
 * What the probe run pr said: a GPU answered; or no GPU, with the CUDA error
 * it met in *why (NULL when it gave none); or the probe itself failed, with
 * how in *why.
 */
static enum probe_answer probe_answer(const struct run_spec *spec, const struct run_result *pr,
				      char **why)
{
	char *avail = pr->started && !pr->timed_out ? probe_value(pr->output, "available") : NULL;
	enum probe_answer a = !avail ? PROBE_FAILED : strcmp(avail, "1") ? PROBE_NO_GPU : PROBE_GPU;

	*why = NULL;
	if (a == PROBE_FAILED) {
		char *how = run_describe(spec, pr);
		*why = xasprintf("the GPU probe failed: %s", how);
		free(how);
	} else if (a == PROBE_NO_GPU) {
		*why = probe_value(pr->output, "reason");
	}
	free(avail);
	return a;
}

static void read_probe(const struct run_spec *spec, const struct run_result *pr, struct result *r)
{
	r->gpu.runtime = probe_value(pr->output ? pr->output : "", "runtime");
	if (probe_answer(spec, pr, &r->gpu.reason) == PROBE_GPU) {
		r->gpu.available = true;
		r->gpu.name = probe_value(pr->output, "name");
		r->gpu.cc = probe_value(pr->output, "cc");
		r->gpu.driver = driver_version();
		if (!r->gpu.driver)
			r->gpu.driver = probe_value(pr->output, "driver_api");
	}
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

/* workdir/<file>.o for each source file of the lab, in order: what nvcc makes of them. */
static void student_objects(const struct lab_config *cfg, const char *workdir,
			    struct strlist *objs)
{
	for (size_t i = 0; i < cfg->files.n; i++)
		if (is_source(cfg->files.v[i]))
			strlist_pushf(objs, "%s/%s.o", workdir, cfg->files.v[i]);
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

/* workdir/.pp-<file>: where nvcc keeps what it preprocessed of the source file */
static char *keep_dir(const char *workdir, const char *file)
{
	return xasprintf("%s/.pp-%s", workdir, file);
}

/*
 * The source scan of one file, from the two passes nvcc preprocessed it in
 * and kept in dir: <stem>.cpp4.ii for the host compiler, <stem>.cpp1.ii (one
 * per GPU architecture) for the device compiler. Removes dir. -1 when either
 * is missing: the scan never passes for want of its input.
 */
static int scan_file(const struct lab_config *cfg, const char *dir, struct strlist *problems)
{
	struct strlist sources = STRLIST_INIT;
	struct scan_rules rules = {&sources, &cfg->forbid_names, &cfg->forbid_calls,
				   (enum asm_policy)cfg->inline_asm};
	DIR *d = opendir(dir);
	struct dirent *e;
	int host = 0, device = 0, ret = -1;

	for (size_t i = 0; i < cfg->files.n; i++)
		if (is_source(cfg->files.v[i]))
			strlist_push(&sources, cfg->files.v[i]);
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name), len;
		if (n < 3 || strcmp(e->d_name + n - 3, ".ii"))
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name), *text = read_file(path, &len);
		bool host_pass = n > 8 && !strcmp(e->d_name + n - 8, ".cpp4.ii");
		free(path);
		if (!text)
			continue;
		scan_preprocessed(text, len, host_pass, &rules, problems);
		host += host_pass;
		device += !host_pass;
		free(text);
	}
	if (d)
		closedir(d);
	if (host && device)
		ret = 0;
	else
		error("nvcc kept no preprocessed source in '%s' to scan", dir);
	remove_tree(dir);
	strlist_clear(&sources);
	return ret;
}

static char *join_lines(const struct strlist *l)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < l->n; i++)
		strbuf_addf(&sb, "%s%s", i ? "\n" : "", l->v[i]);
	return strbuf_detach(&sb);
}

/* Where the tests run: the GPU, the CPU emulator, or nowhere. */
static enum run_mode choose_mode(const struct toolchain *tc, const struct lab_config *cfg,
				 const struct grade_opts *o, const struct result *r)
{
	if (!cfg->needs_gpu)   /* its tests call no CUDA: the native binary runs anywhere */
		return MODE_CPU;
	if (o->emulate <= 0 && r->gpu.available)
		return MODE_GPU;
	if (o->emulate != 0 && tc->emu_cxxflags)
		return MODE_EMULATED;
	return MODE_NONE;
}

/*
 * Links objs with the lab's harness (the response file `rsp` that make
 * wrote) into workdir/<name>. Returns 0, or 1 when the link failed (its
 * output in *log), or -1 for the grader's own failure.
 */
static int link_binary(const struct toolchain *tc, const struct lab_config *cfg,
		       const struct strlist *objs, const char *rsp, const char *workdir,
		       const char *name, char **binary, char **log)
{
	struct strlist argv = STRLIST_INIT;
	struct run_result lr;
	int ret = -1;

	*binary = xasprintf("%s/%s", workdir, name);
	strlist_push(&argv, tc->cxx);
	strlist_push(&argv, "-o");
	strlist_push(&argv, *binary);
	for (size_t i = 0; i < objs->n; i++)
		strlist_push(&argv, objs->v[i]);
	strlist_pushf(&argv, "@%s/labs/%s/%s", tc->build, cfg->name, rsp);
	struct run_spec ls = {.argv = (const char *const *)argv.v, .timeout = cfg->build_timeout,
			      .output_limit = cfg->build_output_limit};
	if (run_one(&ls, &lr))
		goto out;
	ret = 0;
	if (!lr.started || lr.timed_out || lr.signal || lr.exit_code) {
		char *why = run_describe(&ls, &lr);
		*log = xasprintf("%s\n%s", why, lr.output ? lr.output : "");
		free(why);
		ret = 1;
	}
	run_result_release(&lr);
out:
	strlist_clear(&argv);
	return ret;
}

/* Compiles each rewritten source workdir/<file>.emu.cpp with flags into
 * workdir/<file>.<suffix>.o; 1 with the compiler's output in *log when it fails. */
static int compile_emulated(const struct toolchain *tc, const struct lab_config *cfg,
			    const char *workdir, const char *flags, const char *suffix,
			    struct strlist *objs, char **log)
{
	for (size_t i = 0; i < cfg->files.n; i++) {
		const char *f = cfg->files.v[i];
		if (!is_source(f))
			continue;
		struct strlist argv = STRLIST_INIT;
		strlist_push(&argv, tc->cxx);
		strlist_split(&argv, flags);
		strlist_pushf(&argv, "-I%s", workdir);
		strlist_pushf(&argv, "-I%s", cfg->dir);
		strlist_push(&argv, "-c");
		strlist_pushf(&argv, "%s/%s.emu.cpp", workdir, f);
		strlist_push(&argv, "-o");
		strlist_pushf(objs, "%s/%s.%s.o", workdir, f, suffix);
		strlist_push(&argv, objs->v[objs->n - 1]);
		struct run_spec spec = {.argv = (const char *const *)argv.v, .cwd = workdir,
					.timeout = cfg->build_timeout, .output_limit = cfg->build_output_limit,
					.sandbox = &build_sandbox};
		struct run_result res;
		int rr = run_one(&spec, &res);
		if (!rr && (!res.started || res.timed_out || res.signal || res.exit_code)) {
			*log = xasprintf("'%s':\n%s", f, res.output ? res.output : "");
			rr = 1;
		}
		run_result_release(&res);
		strlist_clear(&argv);
		if (rr)
			return rr;
	}
	return 0;
}

/*
 * The CPU build of a submission nvcc already compiled: each .cu rewritten
 * (rewrite.c), compiled with g++ on the emulator, linked with the emulated
 * harness. What the emulator cannot build is no fault of the student's: the
 * run then has no tests (mode none) and says why.
 */
static int emulated_build(const struct toolchain *tc, const struct lab_config *cfg,
			  const char *workdir, char **binary, struct result *r)
{
	struct strlist objs = STRLIST_INIT;
	char *problem = NULL, *log = NULL;
	int ret = -1, rc;

	for (size_t i = 0; i < cfg->files.n && !problem; i++) {
		const char *f = cfg->files.v[i];
		if (!is_source(f))
			continue;
		char *src_path = xasprintf("%s/%s", workdir, f), *src = read_file(src_path, NULL);
		char *cpp = xasprintf("%s/%s.emu.cpp", workdir, f), *out;
		free(src_path);
		out = src ? rewrite_cuda(src, f, &problem) : NULL;
		free(src);
		rc = out ? write_file_atomic(cpp, out, strlen(out)) : problem ? 0 : -1;
		free(out);
		free(cpp);
		if (rc)
			goto out;
	}
	if (!problem) {
		rc = compile_emulated(tc, cfg, workdir, tc->emu_cxxflags, "emu", &objs, &log);
		if (rc < 0)
			goto out;
		if (rc)
			problem = xasprintf("the CPU emulator cannot build %s", log);
	}
	if (!problem) {
		rc = link_binary(tc, cfg, &objs, "link-emu.rsp", workdir, "check_emu", binary, &log);
		if (rc < 0)
			goto out;
		if (rc)
			problem = xasprintf("the CPU emulator cannot link the submission: %s", log);
	}
	if (problem) {
		r->mode = MODE_NONE;
		r->state_reason = problem;
	}
	ret = 0;
out:
	free(log);
	strlist_clear(&objs);
	return ret;
}

/*
 * Compiles every .cu of the submission while the probe asks the GPU what it
 * is, audits the objects and links the test binary into workdir/check_<lab>.
 * A build the student broke sets r->build; -1 only for the grader's failures.
 */
static int build(const struct toolchain *tc, const struct lab_config *cfg,
		 const struct grade_opts *o, const char *workdir, struct result *r, char **binary)
{
	struct strlist objs = STRLIST_INIT, problems = STRLIST_INIT;
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
	student_objects(cfg, workdir, &objs);
	for (size_t i = 0, obj = 0; i < cfg->files.n; i++) {
		const char *f = cfg->files.v[i];
		if (!is_source(f))
			continue;
		strlist_push(&argvs[n], tc->nvcc);
		strlist_split(&argvs[n], tc->nvcc_flags);
		strlist_push(&argvs[n], "-arch=native");
		strlist_pushf(&argvs[n], "-I%s", cfg->dir);
		/* its preprocessed passes, for the source scan */
		char *keep = keep_dir(workdir, f);
		if (mkdir(keep, 0700) && errno != EEXIST) {
			error("cannot make '%s': %s", keep, strerror(errno));
			free(keep);
			goto out;
		}
		strlist_push(&argvs[n], "--keep");
		strlist_push(&argvs[n], "--keep-dir");
		strlist_push(&argvs[n], keep);
		free(keep);
		strlist_push(&argvs[n], "-c");
		strlist_push(&argvs[n], f);
		strlist_push(&argvs[n], "-o");
		strlist_push(&argvs[n], objs.v[obj++]);
		specs[n] = (struct run_spec){.cwd = workdir, .timeout = cfg->build_timeout,
					     .output_limit = cfg->build_output_limit, .sandbox = &build_sandbox};
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

	for (size_t i = 0; i < cfg->files.n; i++) {
		if (!is_source(cfg->files.v[i]))
			continue;
		char *keep = keep_dir(workdir, cfg->files.v[i]);
		int rc = scan_file(cfg, keep, &problems);
		free(keep);
		if (rc)
			goto out;
	}
	for (size_t i = 0; i < objs.n; i++)
		if (audit(tc, cfg, objs.v[i], &problems))
			goto out;
	if (problems.n) {
		char *lines = join_lines(&problems);
		r->build = BUILD_AUDIT_FAILED;
		r->build_message = xasprintf("the submission was refused by the audit of its source "
					     "and symbols:\n%s", lines);
		free(lines);
		ret = 0;
		goto out;
	}

	r->mode = choose_mode(tc, cfg, o, r);
	if (r->mode == MODE_GPU || r->mode == MODE_CPU) {
		char *link_log = NULL;
		int rc = link_binary(tc, cfg, &objs, "link.rsp", workdir, "check_gpu", binary,
				     &link_log);
		if (rc < 0)
			goto out;
		if (rc) {
			r->build = BUILD_LINK_ERROR;
			r->build_message = xstrdup("linking with the test harness failed");
			free(r->build_log);
			r->build_log = link_log;
		}
	}
	if (r->mode == MODE_EMULATED && emulated_build(tc, cfg, workdir, binary, r))
		goto out;
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
	strbuf_release(&log);
	return ret;
}

/* ------------------------------------------------------------ run tests */

/* Whether the harness said test id ran to its end (its .done file holds token). */
static bool test_finished(const char *logs, const char *id, const char *token)
{
	char *path = xasprintf("%s/%s.done", logs, id);
	size_t len = 0;
	char *text = read_file(path, &len);
	bool ok = text && len == strlen(token) && !memcmp(text, token, len);
	free(text);
	free(path);
	return ok;
}

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

/*
 * Runs the test binary on the tests of r not yet run (or, with only, on
 * those), logs in workdir/<logs>, extra_env added to its environment, and
 * fills in the results of the tests it ran into out (r's tests by default).
 */
static int run_harness(const struct lab_config *cfg, const char *workdir, const char *binary,
		       struct result *r, const char *logs_name, const char *const *extra_env,
		       const struct strlist *only, struct graded_test *out)
{
	struct strlist argv = STRLIST_INIT;
	char *logs = xasprintf("%s/%s", workdir, logs_name), input[256];
	char **env = grade_child_env();
	struct run_result res;
	char token[33];
	int ret = -1;

	random_token(token);
	if (mkdir(logs, 0700) < 0) {
		error("cannot create '%s': %s", logs, strerror(errno));
		goto out;
	}
	for (size_t n = 0; extra_env && extra_env[n]; n++) {
		size_t len = 0;
		while (env[len])
			len++;
		env = xrealloc(env, (len + 2) * sizeof(*env));
		env[len] = xstrdup(extra_env[n]);
		env[len + 1] = NULL;
	}
	double slow = r->mode == MODE_EMULATED ? cfg->emulation_slowdown : 1;
	strlist_push(&argv, binary);
	strlist_push(&argv, "--xml-dir");
	strlist_push(&argv, logs);
	strlist_push(&argv, "--lanes");
	strlist_pushf(&argv, "%d", test_lanes);
	for (size_t p = 0; p < cfg->nparts; p++) {
		strlist_push(&argv, "--timeout");
		strlist_pushf(&argv, "%s=%g", cfg->parts[p].name, cfg->parts[p].timeout * slow);
	}
	for (size_t i = 0; only && i < only->n; i++) {
		strlist_push(&argv, "--only");
		strlist_push(&argv, only->v[i]);
	}
	/* the student's name has no newline: it is one line of the protocol */
	size_t name_len = strcspn(r->student ? r->student : "", "\n");
	snprintf(input, sizeof(input), "seed=%llu\nstudent=%.*s\ntoken=%s\n", r->seed,
		 (int)(name_len > 200 ? 200 : name_len), r->student ? r->student : "", token);
	struct run_spec spec = {
		.argv = (const char *const *)argv.v,
		.envp = (const char *const *)env,
		.cwd = workdir,
		.input = input,
		.timeout = cfg->run_timeout * slow,
		.sandbox = &run_sandbox,
	};
	lab_run_limits(cfg, slow, &spec);

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
		struct graded_test *t = &out[i];
		struct check_log log;
		const struct lab_part *part = NULL;
		if (t->kind != KIND_CORRECTNESS || (only && !strlist_has(only, r->tests[i].id)))
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
		if (e) {
			set_from_check(t, e, part->timeout * slow);
			if (t->status == TEST_PASS && !test_finished(logs, t->id, token)) {
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

	if (out == r->tests && res.output_dropped) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, res.output);
		strbuf_addf(&sb, "\n[... %zu more bytes of output dropped]\n", res.output_dropped);
		r->output = strbuf_detach(&sb);
	} else if (out == r->tests && res.output_len) {
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

static size_t first_line_len(const char *s)
{
	return s ? strcspn(s, "\n") : 0;
}

/*
 * On the emulator, runs every failed test again with each block's threads
 * in reverse order, on one worker. A verdict that changes means the result
 * depends on the order threads run in (a missing __syncthreads(), a race),
 * which the message then says, with what the reversed run saw.
 */
static int rerun_reversed(const struct lab_config *cfg, const char *workdir, const char *binary,
			  struct result *r)
{
	static const char *const env[] = {"CUDAEMU_REVERSE=1", "CUDAEMU_WORKERS=1", NULL};
	struct strlist failed = STRLIST_INIT;
	struct graded_test *rev;
	int ret;

	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].status == TEST_FAIL)
			strlist_push(&failed, r->tests[i].id);
	if (!failed.n)
		return 0;
	progress("running %zu failed tests again in reverse thread order ...", failed.n);
	rev = xcalloc(r->ntests, sizeof(*rev));
	for (size_t i = 0; i < r->ntests; i++) {
		rev[i] = r->tests[i];
		rev[i].message = NULL;
	}
	ret = run_harness(cfg, workdir, binary, r, "logs-reversed", env, &failed, rev);
	for (size_t i = 0; !ret && i < r->ntests; i++) {
		struct graded_test *t = &r->tests[i];
		if (!strlist_has(&failed, t->id))
			continue;
		size_t a = first_line_len(t->message), b = first_line_len(rev[i].message);
		if (rev[i].status == t->status && a == b && !strncmp(t->message, rev[i].message, a))
			continue;
		char *m = xasprintf("%s\nhint: the result depends on the order in which threads run: "
				    "with each block's threads in reverse order this test %s%s%.*s\n"
				    "hint: look for a missing __syncthreads() between writing shared "
				    "memory and reading it, or threads updating one value without an "
				    "atomic", t->message, rev[i].status == TEST_PASS ? "passes" : "says:",
				    rev[i].status == TEST_PASS ? "" : "\n  ", (int)b,
				    rev[i].message ? rev[i].message : "");
		free(t->message);
		t->message = m;
	}
	for (size_t i = 0; i < r->ntests; i++)
		free(rev[i].message);
	free(rev);
	strlist_clear(&failed);
	return ret;
}

/*
 * On the emulator, runs every test that failed or crashed again in the
 * AddressSanitizer build (byte-exact bounds on device buffers, shared memory
 * as plain globals, blocks one at a time). What it finds, with the CUDA
 * thread that did it, is added to the test's message.
 */
static int rerun_asan(const struct toolchain *tc, const struct lab_config *cfg,
		      const char *workdir, struct result *r)
{
	static const char *const env[] = {
		"ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:handle_abort=1:symbolize=1",
		"CUDAEMU_WORKERS=1", NULL};
	struct strlist failed = STRLIST_INIT, objs = STRLIST_INIT;
	struct graded_test *again = NULL;
	char *binary = NULL, *log = NULL;
	int ret = 0, rc;

	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].status == TEST_FAIL || r->tests[i].status == TEST_CRASH)
			strlist_push(&failed, r->tests[i].id);
	if (!failed.n || !tc->emu_asan_cxxflags)
		goto out;
	progress("running %zu failed tests again with AddressSanitizer ...", failed.n);
	rc = compile_emulated(tc, cfg, workdir, tc->emu_asan_cxxflags, "asan", &objs, &log);
	if (!rc)
		rc = link_binary(tc, cfg, &objs, "link-asan.rsp", workdir, "check_asan", &binary, &log);
	if (rc) {
		/* a diagnostic the grader could not build is no verdict: say so, go on */
		if (rc > 0)
			warning("the AddressSanitizer build failed: %s", log);
		ret = rc < 0 ? -1 : 0;
		goto out;
	}
	again = xcalloc(r->ntests, sizeof(*again));
	for (size_t i = 0; i < r->ntests; i++) {
		again[i] = r->tests[i];
		again[i].message = NULL;
	}
	ret = run_harness(cfg, workdir, binary, r, "logs-asan", env, &failed, again);
	for (size_t i = 0; !ret && i < r->ntests; i++) {
		struct graded_test *t = &r->tests[i];
		if (!strlist_has(&failed, t->id) || !again[i].message ||
		    strncmp(again[i].message, "AddressSanitizer: ", 18))
			continue;
		char *m = xasprintf("%s\nrun again on the CPU with %s", t->message, again[i].message);
		free(t->message);
		t->message = m;
	}
	for (size_t i = 0; again && i < r->ntests; i++)
		free(again[i].message);
out:
	free(again);
	free(binary);
	free(log);
	strlist_clear(&failed);
	strlist_clear(&objs);
	return ret;
}

static bool got_no_result(const struct graded_test *t)
{
	return t->unreported && t->status == TEST_CRASH;
}

static bool timed_out(const struct graded_test *t)
{
	return t->kind == KIND_CORRECTNESS && (t->status == TEST_TIMEOUT || got_no_result(t));
}

/*
 * Runs once more, in a fresh test binary (logs in workdir/<logs>), the tests
 * pick chooses: those that got no result because the binary ended before
 * them (a test that took the runner down, or left it no room to start the
 * next one), or those that ran out of time beside other gradings. A test
 * that reports this time gets that verdict; one that does not keeps its
 * first.
 */
static int rerun_some(const struct lab_config *cfg, const char *workdir, const char *binary,
		      struct result *r, const char *const *env,
		      bool (*pick)(const struct graded_test *), const char *logs, const char *why)
{
	struct strlist left = STRLIST_INIT;
	struct graded_test *again;
	int ret;

	for (size_t i = 0; i < r->ntests; i++)
		if (pick(&r->tests[i]))
			strlist_push(&left, r->tests[i].id);
	if (!left.n)
		return 0;
	progress("running %zu tests again that %s ...", left.n, why);
	again = xcalloc(r->ntests, sizeof(*again));
	for (size_t i = 0; i < r->ntests; i++) {
		again[i] = r->tests[i];
		again[i].message = NULL;
	}
	ret = run_harness(cfg, workdir, binary, r, logs, env, &left, again);
	for (size_t i = 0; i < r->ntests; i++) {
		struct graded_test *t = &r->tests[i];
		if (!ret && strlist_has(&left, t->id) && !again[i].unreported) {
			free(t->message);
			*t = again[i];
			continue;
		}
		free(again[i].message);
	}
	free(again);
	strlist_clear(&left);
	return ret;
}

static int run_tests(const struct toolchain *tc, const struct lab_config *cfg,
		     const char *workdir, const char *binary, struct result *r)
{
	const char *const *env = cfg->strict_barriers && r->mode == MODE_EMULATED
					 ? (const char *const[]){"CUDAEMU_STRICT_BARRIERS=1", NULL} : NULL;

	progress("running %zu tests %s%s ...", r->ntests,
		 r->mode == MODE_EMULATED || r->mode == MODE_CPU ? "" : "on the ",
		 r->mode == MODE_EMULATED ? "on the CPU emulator"
		 : r->mode == MODE_CPU    ? "on the CPU (this lab needs no GPU)"
					  : r->gpu.name);
	if (run_harness(cfg, workdir, binary, r, "logs", env, NULL, r->tests) ||
	    rerun_some(cfg, workdir, binary, r, env, got_no_result, "logs-again",
		       "got no result"))
		return -1;
	if (r->mode != MODE_EMULATED)
		return 0;
	return rerun_reversed(cfg, workdir, binary, r) || rerun_asan(tc, cfg, workdir, r) ? -1 : 0;
}

/* --------------------------------------------------------------- timing */

/* On a GPU: the GPU to this grading alone, for timing or profiling (gpulock.h). */
static int gpu_to_itself(struct result *r)
{
	if (r->mode != MODE_GPU)
		return -1;
	char *name = gpulock_gpu_name();
	int fd = gpulock_timing(name, &r->gpu_wait_seconds);
	free(name);
	return fd;
}

/*
 * On a GPU, once the correctness tests ran: links the submission's objects
 * with the lab's timing driver and times every kernel whose part passed.
 */

static int time_kernels(const struct toolchain *tc, const struct lab_config *cfg,
			const char *workdir, struct result *r)
{
	struct strlist objs = STRLIST_INIT;
	char *rsp = xasprintf("%s/labs/%s/link-bench.rsp", tc->build, cfg->name);
	char *binary = NULL, *log = NULL, **env = NULL;
	int ret = 0;

	if (!timing_plan(cfg, r))
		goto out;
	if (access(rsp, R_OK)) {
		timing_not_run(r, "this lab has no timing driver built (tests/bench_<lab>.cu)");
		goto out;
	}
	student_objects(cfg, workdir, &objs);
	ret = link_binary(tc, cfg, &objs, "link-bench.rsp", workdir, "bench_gpu", &binary, &log);
	if (ret > 0) {
		/* the same objects linked with the tests: what clashes is the submission's */
		for (size_t i = 0; i < r->ntests; i++)
			if (r->tests[i].kind == KIND_TIMING && r->tests[i].status == TEST_NOT_RUN) {
				r->tests[i].status = TEST_CRASH;
				r->tests[i].message = xasprintf("the timing driver could not be linked "
								"with the submission:\n%s", log);
			}
		ret = 0;
		goto out;
	}
	if (ret)
		goto out;
	env = grade_child_env();
	int held = gpu_to_itself(r);
	ret = timing_run(cfg, workdir, binary, (const char *const *)env, &run_sandbox, r);
	gpulock_release(held);
out:
	free_env(env);
	free(binary);
	free(log);
	free(rsp);
	strlist_clear(&objs);
	return ret;
}

/* ------------------------------------------------------------- profile */

/* Nsight Compute: the toolchain's, else one on PATH; NULL when there is none. */
static char *find_ncu(const struct toolchain *tc)
{
	if (tc->ncu && !access(tc->ncu, X_OK))
		return xstrdup(tc->ncu);
	return path_lookup("ncu");
}

/*
 * Once the tests and the timing ran: links the submission with the lab's
 * profile driver (on a GPU) or compiles it again for the emulator's trace
 * runtime, and counts the memory requests of every profiled launcher whose
 * part passed.
 */
static int profile_kernels(const struct toolchain *tc, const struct lab_config *cfg,
			   const char *workdir, struct result *r)
{
	struct strlist objs = STRLIST_INIT;
	char *binary = NULL, *log = NULL, **env = NULL, *ncu = NULL, *why = NULL;
	bool gpu = r->mode == MODE_GPU;
	int ret = 0;

	if (!profile_plan(cfg, r))
		goto out;
	char *rsp = xasprintf("%s/labs/%s/%s", tc->build, cfg->name,
			      gpu ? "link-profile.rsp" : "link-trace.rsp");
	bool built = !access(rsp, R_OK);
	free(rsp);
	if (!built) {
		profile_without_counters(cfg, r, "this lab has no profile driver built here");
		goto out;
	}
	if (gpu) {
		ncu = find_ncu(tc);
		if (!ncu) {
			profile_without_counters(cfg, r, "Nsight Compute (ncu) is not installed");
			goto out;
		}
		student_objects(cfg, workdir, &objs);
	} else {
		if (!tc->emu_trace_cxxflags) {
			profile_without_counters(cfg, r, "no trace build of the emulator here");
			goto out;
		}
		ret = compile_emulated(tc, cfg, workdir, tc->emu_trace_cxxflags, "trace", &objs,
				       &log);
		if (ret < 0)
			goto out;
		if (ret) {
			why = xasprintf("the emulator's trace build failed: %s", log);
			profile_without_counters(cfg, r, why);
			ret = 0;
			goto out;
		}
	}
	ret = link_binary(tc, cfg, &objs, gpu ? "link-profile.rsp" : "link-trace.rsp", workdir,
			  gpu ? "profile_gpu" : "profile_trace", &binary, &log);
	if (ret > 0) {
		why = xasprintf("the profile driver could not be linked with the submission: %s",
				log);
		profile_without_counters(cfg, r, why);
		ret = 0;
		goto out;
	}
	if (ret)
		goto out;
	env = grade_child_env();
	int held = gpu_to_itself(r);
	ret = profile_run(cfg, workdir, binary, ncu, (const char *const *)env, &run_sandbox, r);
	gpulock_release(held);
out:
	free_env(env);
	free(binary);
	free(log);
	free(ncu);
	free(why);
	strlist_clear(&objs);
	return ret;
}

/* ------------------------------------------------------------- sandbox */

/*
 * The grading's two sandboxes, each checked with what it will run (nvcc, a
 * shell); when either does not work here, neither is used, and the result
 * says why.
 */
static void open_sandboxes(const struct toolchain *tc, const struct lab_config *cfg,
			   const char *workdir, struct result *r)
{
	sandbox_init(&run_sandbox, workdir);
	memset(&build_sandbox, 0, sizeof(build_sandbox));
	if (run_sandbox.bwrap) {
		build_sandbox.bwrap = xstrdup(run_sandbox.bwrap);
		sandbox_allow_read(&build_sandbox, cfg->dir);
		char *common = xasprintf("%s/labs/common", tc->root);
		sandbox_allow_read(&build_sandbox, common);
		free(common);
		/* nvcc and g++ run there, and see the lab's folder and the emulator's includes */
		struct strlist probe = STRLIST_INIT, flags = STRLIST_INIT;
		strlist_push(&probe, "/bin/sh");
		strlist_push(&probe, "-c");
		strlist_push(&probe, "\"$0\" --version >/dev/null && \"$1\" --version >/dev/null && "
				     "shift 2 && for d; do test -d \"$d\" || { echo \"cannot see $d\"; "
				     "exit 1; }; done");
		strlist_push(&probe, tc->nvcc);
		strlist_push(&probe, tc->cxx);
		strlist_push(&probe, cfg->dir);
		strlist_split(&flags, tc->emu_cxxflags ? tc->emu_cxxflags : "");
		for (size_t i = 0; i < flags.n; i++)
			if (!strncmp(flags.v[i], "-I", 2) && flags.v[i][2])
				strlist_push(&probe, flags.v[i] + 2);
		int bad = sandbox_try(&build_sandbox, workdir, "the compilers",
				      (const char *const *)probe.v);
		strlist_clear(&probe);
		strlist_clear(&flags);
		if (bad) {
			free(run_sandbox.bwrap);
			run_sandbox.bwrap = NULL;
			run_sandbox.why = xstrdup(build_sandbox.why);
		}
	}
	r->sandbox = run_sandbox.bwrap ? xstrdup("bubblewrap") : NULL;
	r->sandbox_why = run_sandbox.why ? xstrdup(run_sandbox.why) : NULL;
	const char *why = "the lab sets no limit (processes = 0)";
	if (cfg->processes && pidcg_available(&why))
		r->processes = cfg->processes;
	else
		r->processes_why = xstrdup(why);
}

/* -------------------------------------------------------------- grading */

/*
 * Whether the GPU answered a grading's probe and still answers: a test that
 * crashed, hung or met a CUDA error may have met the GPU failing (an Xid, a
 * device off the bus), not the submission's fault. Only the grader's own
 * probe is trusted to say so; nothing the submission prints is. Returns 0
 * when it answers (or nothing suggests otherwise), -1 with an error when
 * the GPU is lost: a failure of the system, not charged to the student.
 */
static int gpu_still_there(const struct toolchain *tc, const struct result *r)
{
	bool suspect = false;

	if (r->mode != MODE_GPU)
		return 0;
	for (size_t i = 0; i < r->ntests; i++) {
		const struct graded_test *t = &r->tests[i];
		suspect |= t->status == TEST_CRASH || t->status == TEST_TIMEOUT ||
			   (t->message && strstr(t->message, "cudaError"));
	}
	if (!suspect)
		return 0;
	const char *const argv[] = {tc->probe, NULL};
	struct run_spec spec = {.argv = argv, .timeout = PROBE_TIMEOUT, .output_limit = 4096};
	struct run_result pr;
	if (run_one(&spec, &pr))
		return -1;
	/* the errors of a device that is gone or broken; not "out of memory",
	 * which another grading's memory on the GPU can cause */
	static const char *const gone[] = {
		"cudaErrorNoDevice",		"cudaErrorInsufficientDriver",
		"cudaErrorDevicesUnavailable",	"cudaErrorSystemNotReady",
		"cudaErrorSystemDriverMismatch", "cudaErrorInitializationError",
		"cudaErrorECCUncorrectable",	"cudaErrorUnknown",
	};
	char *why;
	enum probe_answer a = probe_answer(&spec, &pr, &why);
	bool lost = a == PROBE_FAILED;
	for (size_t i = 0; a == PROBE_NO_GPU && !lost && why && i < ARRAY_SIZE(gone); i++) {
		size_t n = strlen(gone[i]);
		lost = !strncmp(why, gone[i], n) && !isalnum((unsigned char)why[n]);
	}
	int ret = 0;
	if (lost)
		ret = error("the GPU (%s) stopped answering during the grading: %s; a fault of the "
			    "machine, not of the submission, which is not graded", r->gpu.name,
			    why ? why : "no reason given");
	free(why);
	run_result_release(&pr);
	return ret;
}

/*
 * Tests, timing and profile. On a GPU, in one of its slots, the tests beside
 * other gradings' tests; timing and profile take the GPU to themselves.
 */
static int gpu_phases(const struct toolchain *tc, const struct lab_config *cfg,
		      const struct grade_opts *o, const char *workdir, const char *binary,
		      struct result *r)
{
	bool gpu = r->mode == MODE_GPU;
	char *name = gpu ? gpulock_gpu_name() : NULL;
	int slot = gpu ? gpulock_slot(name, o->gpu_slots ? o->gpu_slots : 4) : -1;
	int held = gpu ? gpulock_tests(name, &r->gpu_wait_seconds) : -1, ret;
	double t0 = now_seconds();

	if (gpu)
		r->gpu_from = t0;
	ret = run_tests(tc, cfg, workdir, binary, r);
	gpulock_release(held);
	/*
	 * A test that ran out of time beside other gradings may have been
	 * slowed by them (a kernel that never ends holds the GPU for all):
	 * its verdict is the one it gets with the GPU to itself.
	 */
	bool slow = false;
	for (size_t i = 0; i < r->ntests; i++)
		slow |= timed_out(&r->tests[i]);
	if (!ret && gpu && slow) {
		held = gpulock_timing(name, &r->gpu_wait_seconds);
		ret = rerun_some(cfg, workdir, binary, r, NULL, timed_out, "logs-alone",
				 "ran out of time, with the GPU to themselves");
		gpulock_release(held);
	}
	r->tests_seconds = now_seconds() - t0;
	if (!ret)
		ret = time_kernels(tc, cfg, workdir, r);
	t0 = now_seconds();
	if (!ret)
		ret = profile_kernels(tc, cfg, workdir, r);
	r->profile_seconds = now_seconds() - t0;
	if (gpu)
		r->gpu_to = now_seconds();
	if (!ret)
		ret = gpu_still_there(tc, r);
	gpulock_release(slot);
	free(name);
	return ret;
}

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
	r->submitted_at = o->submitted_at;
	r->submitted_from = o->submitted_at ? xstrdup(o->submitted_from ? o->submitted_from : "given")
					    : NULL;

	if (!mkdtemp(workdir)) {
		error("cannot create a work folder '%s': %s", workdir, strerror(errno));
		goto out;
	}
	open_sandboxes(tc, cfg, workdir, r);
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

	if (build(tc, cfg, o, workdir, r, &binary))
		goto out_workdir;
	/*
	 * Lanes by default: on a GPU one, since contexts made side by side each
	 * take longer (a matmul grading's tests: 1.2 s in one lane, 1.7 s in
	 * five, 3.9 s in a process each, on an H100); on the CPU one per part.
	 */
	test_lanes = o->lanes > 0	   ? o->lanes
		     : o->lanes < 0	   ? 0
		     : r->mode == MODE_GPU ? 1
					   : (int)cfg->nparts;
	if (o->require_gpu && cfg->needs_gpu && r->build == BUILD_OK && r->mode != MODE_GPU) {
		error("no GPU answered (%s) on a machine that has one: a fault of the machine, not "
		      "of the submission, which is not graded", r->gpu.reason ? r->gpu.reason : "?");
		goto out_workdir;
	}
	if (r->build != BUILD_OK) {
		timing_not_run(r, "the submission was not built");
		result_mark_not_run(r, "not run: the submission was not built");
	} else if (r->mode == MODE_NONE) {
		if (!r->state_reason)
			r->state_reason = xasprintf("no CUDA device (%s), and %s", r->gpu.reason,
						    o->emulate < 0 ? "no CPU emulator on this machine"
								   : "emulation is off");
		timing_not_run(r, r->state_reason);
		char *why = xasprintf("not run: %s", r->state_reason);
		result_mark_not_run(r, why);
		free(why);
	} else {
		if (r->mode == MODE_EMULATED)
			r->state_reason = xstrdup("emulated on the CPU: a pre-check of correctness, "
						  "not a grade; run on a GPU for the grade");
		if (gpu_phases(tc, cfg, o, workdir, binary, r))
			goto out_workdir;
	}
	ret = 0;
out_finish:
	result_finish(r);
	result_judge_late(r, &cfg->deadline);
out_workdir:
	if (o->keep_workdir)
		progress("work folder kept: %s", workdir);
	else
		remove_tree(workdir);
out:
	sandbox_release(&run_sandbox);
	sandbox_release(&build_sandbox);
	r->seconds = now_seconds() - t0;
	free(binary);
	free(workdir);
	return ret;
}
