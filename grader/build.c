/*
 * build.c - building a submission (build.h): nvcc on each source file, with
 * the GPU probe alongside; the source scan of what nvcc preprocessed; the
 * symbol audit of its objects (nm, readelf); linking with a lab's harness
 * or driver; and the CPU emulator's builds (rewrite.c, then g++).
 *
 * Owns: the compilers' command lines and turning what they said into the
 * result's build state. Must not: run the submission's code, or read
 * lab.conf other than through config.h.
 */
#include "build.h"

#include "audit.h"
#include "probe.h"
#include "rewrite.h"
#include "scan.h"
#include "toolfault.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOOL_TIMEOUT 60

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

/*
 * A tool's output is kept up to the lab's build_output_limit, from its
 * beginning: where more was cut, the log says so after what was kept, or
 * the report would end mid-line with no error in sight.
 */
static char *cut_note(const char *tool, const struct run_result *res, const char *kept,
		      size_t limit)
{
	size_t n = kept ? strlen(kept) : 0;

	if (!res->output_dropped)
		return xstrdup("");
	return xasprintf("%s[... %s printed %zu bytes more, not shown: the first %zu are kept "
			 "(build_output_limit in lab.conf); its first error is above, or in the "
			 "part cut]\n",
			 n && kept[n - 1] != '\n' ? "\n" : "", tool, res->output_dropped, limit);
}

static bool is_source(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && !strcmp(name + n - 3, ".cu");
}

void build_student_objects(const struct grading *g, struct strlist *objs)
{
	for (size_t i = 0; i < g->cfg->files.n; i++)
		if (is_source(g->cfg->files.v[i]))
			strlist_pushf(objs, "%s/%s.o", g->workdir, g->cfg->files.v[i]);
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

/* Audits obj, the object nvcc made of the submission's file src (in the work folder). */
static int audit(const struct grading *g, const char *obj, const char *src,
		 struct strlist *problems)
{
	const struct toolchain *tc = g->tc;
	const struct lab_config *cfg = g->cfg;
	char *path = xasprintf("%s/%s", g->workdir, src);
	struct audit_rules rules = {&cfg->symbols, &cfg->allow_undefined, &cfg->deny_defined,
				    &cfg->allow_weak, read_file(path, NULL), src};
	const char *nm_argv[] = {tc->nm, "-P", obj, NULL};
	const char *readelf_argv[] = {tc->readelf, "-S", "-W", obj, NULL};
	const char *objdump_argv[] = {tc->objdump, "-d", "-r", obj, NULL};
	char *symbols = tool_output(nm_argv);
	char *sections = symbols ? tool_output(readelf_argv) : NULL;
	/* only read when there is a constructor of the student's to judge */
	char *disasm = sections && audit_constructors(sections) ? tool_output(objdump_argv) : NULL;
	int ret = -1;

	if (sections) {
		audit_symbols(symbols, &rules, problems);
		audit_sections(sections, disasm, problems);
		ret = 0;
	}
	free(disasm);
	free((char *)rules.source);
	free(path);
	free(symbols);
	free(sections);
	return ret;
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

int build_link(const struct grading *g, const struct strlist *objs, const char *rsp,
	       const char *name, char **binary, char **log)
{
	const struct toolchain *tc = g->tc;
	const struct lab_config *cfg = g->cfg;
	struct strlist argv = STRLIST_INIT;
	struct run_result lr;
	int ret = -1;

	*binary = xasprintf("%s/%s", g->workdir, name);
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
	char *fault = lr.started && (lr.signal || lr.exit_code) ? toolfault_why(&ls, &lr, g->workdir)
								   : NULL;
	if (fault) {
		ret = error("linking '%s' failed for the machine, not the submission: %s", name,
			    fault);
		free(fault);
	} else if (!lr.started || lr.timed_out || lr.signal || lr.exit_code) {
		char *why = run_describe(&ls, &lr), *cut = cut_note("the linker", &lr, lr.output,
								     cfg->build_output_limit);
		char *said = visible_text(lr.output ? lr.output : "", lr.output_len, false);
		*log = xasprintf("%s\n%s%s", why, said, cut);
		free(said);
		free(why);
		free(cut);
		ret = 1;
	}
	run_result_release(&lr);
out:
	strlist_clear(&argv);
	return ret;
}

int build_emulated_objects(const struct grading *g, const char *flags, const char *suffix,
			   struct strlist *objs, char **log)
{
	const struct lab_config *cfg = g->cfg;
	const char *workdir = g->workdir;
	for (size_t i = 0; i < cfg->files.n; i++) {
		const char *f = cfg->files.v[i];
		if (!is_source(f))
			continue;
		struct strlist argv = STRLIST_INIT;
		strlist_push(&argv, g->tc->cxx);
		grading_push_emu_flags(g, flags, &argv);
		strlist_pushf(&argv, "-I%s", workdir);
		strlist_pushf(&argv, "-I%s/%s", workdir, GRADING_INCLUDE);
		strlist_push(&argv, "-c");
		strlist_pushf(&argv, "%s/%s.emu.cpp", workdir, f);
		strlist_push(&argv, "-o");
		strlist_pushf(objs, "%s/%s.%s.o", workdir, f, suffix);
		strlist_push(&argv, objs->v[objs->n - 1]);
		/* built already in this grading's folder (the safety stage and the
		 * profile both use the trace build): a suffix is always one set of flags */
		if (!access(objs->v[objs->n - 1], F_OK)) {
			strlist_clear(&argv);
			continue;
		}
		struct run_spec spec = {.argv = (const char *const *)argv.v,
					.envp = (const char *const *)g->env, .cwd = workdir,
					.timeout = cfg->build_timeout, .output_limit = cfg->build_output_limit,
					.max_memory = cfg->memory_limit, .sandbox = &g->build_sandbox};
		struct run_result res;
		int rr = run_one(&spec, &res);
		char *fault = !rr && res.started && (res.signal || res.exit_code)
				      ? toolfault_why(&spec, &res, workdir) : NULL;
		if (fault) {
			rr = error("g++ on '%s' failed for the machine, not the submission: %s", f,
				   fault);
			free(fault);
		} else if (!rr && (!res.started || res.timed_out || res.signal || res.exit_code)) {
			char *cut = cut_note("g++", &res, res.output, cfg->build_output_limit);
			char *said = visible_text(res.output ? res.output : "", res.output_len, false);
			*log = xasprintf("'%s':\n%s%s", f, said, cut);
			free(said);
			free(cut);
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
static int emulated_build(struct grading *g, char **binary)
{
	const struct lab_config *cfg = g->cfg;
	const char *workdir = g->workdir;
	struct result *r = g->r;
	struct strlist objs = STRLIST_INIT;
	char *problem = NULL, *log = NULL, *asm_at = NULL;
	int ret = -1, rc;

	for (size_t i = 0; i < cfg->files.n && !problem; i++) {
		const char *f = cfg->files.v[i];
		if (!is_source(f))
			continue;
		char *src_path = xasprintf("%s/%s", workdir, f), *src = read_file(src_path, NULL);
		char *cpp = xasprintf("%s/%s.emu.cpp", workdir, f), *out, *at;
		free(src_path);
		out = src ? rewrite_cuda(src, f, &problem) : NULL;
		if (src && !asm_at && (at = rewrite_find_asm(src))) {
			asm_at = xasprintf("%s:%s", f, at);
			free(at);
		}
		free(src);
		rc = out ? write_file_atomic(cpp, out, strlen(out)) : problem ? 0 : -1;
		free(out);
		free(cpp);
		if (rc)
			goto out;
	}
	if (!problem) {
		rc = build_emulated_objects(g, g->tc->emu_cxxflags, "emu", &objs, &log);
		if (rc < 0)
			goto out;
		if (rc && asm_at)
			problem = xasprintf("the CPU emulator cannot run inline PTX, which only a GPU "
					    "runs (%s); g++ on %s", asm_at, log);
		else if (rc)
			problem = xasprintf("the CPU emulator cannot build %s", log);
	}
	if (!problem) {
		rc = build_link(g, &objs, "link-emu.rsp", "check_emu", binary, &log);
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
	free(asm_at);
	free(log);
	strlist_clear(&objs);
	return ret;
}

int build_compile(struct grading *g)
{
	const struct toolchain *tc = g->tc;
	const struct lab_config *cfg = g->cfg;
	const char *workdir = g->workdir;
	struct result *r = g->r;
	const char *probe_argv[2];
	struct strlist objs = STRLIST_INIT, problems = STRLIST_INIT;
	struct strlist *argvs = xcalloc(cfg->files.n + 1, sizeof(*argvs));
	struct run_spec *specs = xcalloc(cfg->files.n + 1, sizeof(*specs));
	struct run_result *res = xcalloc(cfg->files.n + 1, sizeof(*res));
	struct strbuf log = STRBUF_INIT;
	size_t n = 0;
	int ret = -1;

	probe_spec(g, probe_argv, &specs[n++]);
	build_student_objects(g, &objs);
	for (size_t i = 0, obj = 0; i < cfg->files.n; i++) {
		const char *f = cfg->files.v[i];
		if (!is_source(f))
			continue;
		strlist_push(&argvs[n], tc->nvcc);
		strlist_split(&argvs[n], tc->nvcc_flags);
		strlist_push(&argvs[n], "-arch=native");
		strlist_pushf(&argvs[n], "-I%s/%s", workdir, GRADING_INCLUDE);
		/* its preprocessed passes, for the source scan */
		char *keep = keep_dir(workdir, f);
		if (mkdir(keep, 0700) && errno != EEXIST) {
			error("cannot make '%s': %s", keep, strerror(errno));
			free(keep);
			goto out;
		}
		if (sandbox_own(&g->build_sandbox, keep)) {
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
		specs[n] = (struct run_spec){.envp = (const char *const *)g->env, .cwd = workdir,
					     .timeout = cfg->build_timeout,
					     .output_limit = cfg->build_output_limit,
					     .max_memory = cfg->memory_limit,
					     .sandbox = &g->build_sandbox};
		n++;
	}
	for (size_t i = 1; i < n; i++)
		specs[i].argv = (const char *const *)argvs[i].v;

	progress("building %s ...", cfg->files.v[0]);
	if (run_many(specs, res, n))
		goto out;
	probe_read(&specs[0], &res[0], &r->gpu);

	r->build = BUILD_OK;
	for (size_t i = 1; i < n; i++) {
		char *clean = clean_build_log(res[i].output);
		char *cut = cut_note("nvcc", &res[i], clean, cfg->build_output_limit);
		strbuf_addstr(&log, clean);
		strbuf_addstr(&log, cut);
		free(clean);
		free(cut);
		if (!res[i].started) {
			error("cannot run nvcc '%s': %s", tc->nvcc, res[i].output);
			goto out;
		}
		char *fault = res[i].signal || res[i].exit_code
				      ? toolfault_why(&specs[i], &res[i], workdir) : NULL;
		if (fault) {
			/* no compile error of the student's: the grader's failure, tried again */
			error("nvcc on '%s' failed for the machine, not the submission: %s",
			      argvs[i].v[argvs[i].n - 3], fault);
			free(fault);
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
	/* what nvcc said quotes the submission: shown, never obeyed, by a terminal */
	r->build_log = visible_text(log.buf ? log.buf : "", log.len, false);
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
	for (size_t i = 0, obj = 0; i < cfg->files.n; i++)
		if (is_source(cfg->files.v[i]) && audit(g, objs.v[obj++], cfg->files.v[i], &problems))
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

	ret = 0;
out:
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

int build_test_binary(struct grading *g, char **binary)
{
	struct result *r = g->r;
	struct strlist objs = STRLIST_INIT;
	int ret = -1;

	build_student_objects(g, &objs);
	if (r->mode == MODE_GPU || r->mode == MODE_CPU) {
		char *link_log = NULL;
		int rc = build_link(g, &objs, "link.rsp", "check_gpu", binary, &link_log);
		if (rc < 0)
			goto out;
		if (rc) {
			r->build = BUILD_LINK_ERROR;
			r->build_message = xstrdup("linking with the test harness failed");
			free(r->build_log);
			r->build_log = link_log;
		}
	}
	if (r->mode == MODE_EMULATED && emulated_build(g, binary))
		goto out;
	ret = 0;
out:
	strlist_clear(&objs);
	return ret;
}
