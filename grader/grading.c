/*
 * grading.c - the context of one grading (grading.h).
 *
 * Owns: the work folder, the children's environment (the one place the
 * GPU's name is set into it), the two sandboxes and the trial that decides
 * whether they work here, the lanes' default and the lab's limits on a
 * program that runs the submission. Must not: run a step of the grading or
 * decide a verdict.
 */
#include "grading.h"

#include "gpulock.h"
#include "pidcg.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/*
 * What of the grader's environment reaches a program that builds or runs a
 * submission: names a compiler, the CUDA runtime and the C library need, and
 * nothing else. An allow list, because the secrets a grader's environment
 * holds (tokens of CI, of the cloud, of the course's platforms) have names
 * nobody can list in advance. A trailing '*' is a prefix.
 */
static const char *const env_allowed[] = {
	"PATH", "LD_LIBRARY_PATH", "TMPDIR", "LANG", "LANGUAGE", "LC_*", "TZ",
	/* the toolkit's and the driver's own settings (MPS, the JIT cache, lazy loading) */
	"CUDA_*", "NVIDIA_*",
};

bool grading_env_allowed(const char *entry)
{
	size_t name_len = strcspn(entry, "=");

	if (!entry[name_len])
		return false;
	for (size_t i = 0; i < sizeof(env_allowed) / sizeof(env_allowed[0]); i++) {
		const char *a = env_allowed[i];
		size_t n = strlen(a);
		if (a[n - 1] == '*' ? name_len >= n - 1 && !strncmp(entry, a, n - 1)
				    : name_len == n && !strncmp(entry, a, n))
			return true;
	}
	return false;
}

/*
 * The grader's environment as far as the allow list above lets it through,
 * and one GPU: the grading's, which its probe looks at (`cudalab gpus`
 * probes each GPU of a class with it too).
 */
char **grading_gpu_env(const char *gpu)
{
	struct strlist env = STRLIST_INIT;

	for (char **e = environ; *e; e++)
		if (grading_env_allowed(*e) && strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21))
			strlist_push(&env, *e);
	strlist_pushf(&env, "CUDA_VISIBLE_DEVICES=%s", gpu);
	/* an empty list, not NULL: a NULL envp would mean "inherit everything" */
	return env.v ? env.v : xcalloc(1, sizeof(char *));
}

char **grading_env(const struct grading *g, const char *const *extra)
{
	struct strlist env = STRLIST_INIT;

	for (char **e = g->env; *e; e++)
		strlist_push(&env, *e);
	for (size_t i = 0; extra && extra[i]; i++)
		strlist_push(&env, extra[i]);
	return env.v;
}

void grading_free_env(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

/*
 * Runs argv in sb, with workdir writable, and checks that it succeeds;
 * when it does not, sb is disabled, saying why (naming what).
 */
static int try_sandbox(struct sandbox *sb, const char *workdir, const char *what,
		       const char *const *argv, char **env)
{
	struct run_result res = {0};
	int ret = 0;

	if (!sb->bwrap)
		return 0;
	struct run_spec spec = {.argv = argv, .envp = (const char *const *)env, .cwd = workdir,
				.timeout = 30, .output_limit = 4096, .sandbox = sb};
	if (run_one(&spec, &res) || !res.started || res.timed_out || res.signal ||
	    res.exit_code) {
		char *fate = res.started ? run_describe(&spec, &res) : xstrdup("could not start");
		sandbox_disable(sb, xasprintf("%s does not work in bubblewrap here (%s: %.200s)",
					      what, fate, res.output ? res.output : ""));
		free(fate);
		ret = -1;
	}
	run_result_release(&res);
	return ret;
}

/*
 * The grading's two sandboxes, each tried with what it will run (a shell;
 * nvcc and g++); when either does not work here, neither is used, and the
 * result says why.
 */
static void open_sandboxes(struct grading *g)
{
	/* it starts, sees only what it should, and holds no capability at all */
	static const char *const shell[] = {
		"/bin/sh", "-c", "test -d /proc/self && ! test -e /etc/passwd && "
		"grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status || "
		"{ grep ^Cap /proc/self/status; exit 1; }", NULL};
	const struct toolchain *tc = g->tc;
	struct result *r = g->r;

	sandbox_init(&g->run_sandbox);
	sandbox_init(&g->build_sandbox);
	if (sandbox_own(&g->run_sandbox, g->workdir))
		sandbox_disable(&g->run_sandbox, xstrdup("the work folder cannot be given to "
							 "the sandbox's user"));
	try_sandbox(&g->run_sandbox, g->workdir, "bubblewrap", shell, g->env);
	if (!g->run_sandbox.bwrap) {
		sandbox_disable(&g->build_sandbox, NULL);
	} else {
		/*
		 * nvcc and g++ run there and see the submission and the lab's
		 * public header (staged in the work folder by grading_open),
		 * and the emulator's headers: nothing else of the course.
		 */
		char *emu = xasprintf("%s/labs/common/emu", tc->root);
		sandbox_allow_read(&g->build_sandbox, emu);
		free(emu);
		struct strlist probe = STRLIST_INIT, flags = STRLIST_INIT;
		strlist_push(&probe, "/bin/sh");
		strlist_push(&probe, "-c");
		strlist_push(&probe, "\"$0\" --version >/dev/null && \"$1\" --version >/dev/null && "
				     "shift 2 && for d; do test -d \"$d\" || { echo \"cannot see $d\"; "
				     "exit 1; }; done");
		strlist_push(&probe, tc->nvcc);
		strlist_push(&probe, tc->cxx);
		strlist_split(&flags, tc->emu_cxxflags ? tc->emu_cxxflags : "");
		for (size_t i = 0; i < flags.n; i++)
			if (!strncmp(flags.v[i], "-I", 2) && flags.v[i][2])
				strlist_push(&probe, flags.v[i] + 2);
		if (try_sandbox(&g->build_sandbox, g->workdir, "the compilers",
				(const char *const *)probe.v, g->env))
			sandbox_disable(&g->run_sandbox, xstrdup(g->build_sandbox.why));
		strlist_clear(&probe);
		strlist_clear(&flags);
	}
	r->sandbox = g->run_sandbox.bwrap ? xstrdup("bubblewrap") : NULL;
	r->sandbox_user = sandbox_describe_user(&g->run_sandbox);
	r->memory_limit = g->cfg->memory_limit;
	r->sandbox_why = !g->run_sandbox.why ? NULL
			 : g->o->unsandboxed ? xasprintf("%s; graded unsandboxed on request "
							 "(--unsandboxed)", g->run_sandbox.why)
					     : xstrdup(g->run_sandbox.why);
	const char *why = "the lab sets no limit (processes = 0)";
	if (g->cfg->processes && pidcg_available(&why))
		r->processes = g->cfg->processes;
	else
		r->processes_why = xstrdup(why);
}

/*
 * Copies the lab's public header (<lab>.h, its contract) into the work
 * folder's GRADING_INCLUDE, the only folder of the course's that the
 * compilers are told of. A lab without one stages an empty folder.
 */
static int stage_public_header(struct grading *g)
{
	char *dir = xasprintf("%s/%s", g->workdir, GRADING_INCLUDE);
	char *src = xasprintf("%s/%s.h", g->cfg->dir, g->cfg->name);
	char *dst = xasprintf("%s/%s.h", dir, g->cfg->name);
	size_t len;
	char *text = NULL;
	int ret = -1;

	if (mkdir(dir, 0755) < 0) {
		error("cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	if (access(src, F_OK) < 0) {
		ret = 0;
		goto out;
	}
	text = read_file(src, &len);
	ret = text ? write_file_atomic(dst, text, len) : -1;
out:
	free(text);
	free(dst);
	free(src);
	free(dir);
	return ret;
}

/*
 * Code that is not one's own never runs unsandboxed by default: where the
 * sandbox cannot start, only --unsandboxed, CUDALAB_NO_SANDBOX or a student's
 * own `cudalab test` goes on (and every report of the run says so).
 */
static bool unsandboxed_allowed(const struct grading *g)
{
	const struct sandbox *sb = &g->run_sandbox;

	if (g->o->unsandboxed || sb->off)
		return true;
	if (g->o->own_code) {
		progress("note: your code runs unsandboxed here (%s)", sb->why);
		return true;
	}
	error("the sandbox that runs submissions cannot start here: %s\n"
	      "hint: install bubblewrap and allow unprivileged user namespaces "
	      "(kernel.unprivileged_userns_clone=1, or a container run with them), or, "
	      "to grade without it all the same, give --unsandboxed: every report of "
	      "such a run says so", sb->why);
	return false;
}

int grading_open(struct grading *g, const struct toolchain *tc, const struct lab_config *cfg,
		 const struct grade_opts *o, struct result *r)
{
	const char *tmp = getenv("TMPDIR");

	*g = (struct grading){.tc = tc, .cfg = cfg, .o = o, .r = r};
	g->workdir = xasprintf("%s/cudalab-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", cfg->name);
	if (!mkdtemp(g->workdir)) {
		error("cannot create a work folder '%s': %s", g->workdir, strerror(errno));
		free(g->workdir);
		g->workdir = NULL;
		return -1;
	}
	g->gpu = o->gpu ? xstrdup(o->gpu) : gpulock_gpu_name();
	g->env = grading_gpu_env(g->gpu);
	if (stage_public_header(g)) {
		grading_close(g);
		return -1;
	}
	open_sandboxes(g);
	if (!g->run_sandbox.bwrap && !unsandboxed_allowed(g)) {
		grading_close(g);
		return -1;
	}
	return 0;
}

bool grading_sandbox_ready(const struct toolchain *tc, const struct lab_config *cfg,
			   const struct grade_opts *o)
{
	struct grade_opts quiet = *o;
	struct result r;
	struct grading g;
	bool ok;

	quiet.keep_workdir = false;
	result_init(&r, cfg);
	ok = !grading_open(&g, tc, cfg, &quiet, &r);
	if (ok)
		grading_close(&g);
	result_release(&r);
	return ok;
}

void grading_close(struct grading *g)
{
	if (g->workdir) {
		if (g->o->keep_workdir)
			progress("work folder kept: %s", g->workdir);
		else
			remove_tree(g->workdir);
	}
	sandbox_release(&g->run_sandbox);
	sandbox_release(&g->build_sandbox);
	grading_free_env(g->env);
	free(g->gpu);
	free(g->gpu_key);
	free(g->workdir);
	memset(g, 0, sizeof(*g));
}

int grading_lanes(const struct grade_opts *o, enum run_mode mode, size_t nparts)
{
	/* a matmul grading's tests on an H100: 1.2 s in one lane, 1.7 s in five,
	 * 3.9 s in a process each */
	if (o->lanes != LANES_DEFAULT)
		return o->lanes;
	return mode == MODE_GPU || o->in_class ? 1 : (int)nparts;
}

void lab_run_limits(const struct lab_config *cfg, double slow, struct run_spec *spec)
{
	spec->output_limit = cfg->output_limit;
	spec->cpu_seconds = (unsigned long)(cfg->cpu_limit * slow);
	spec->max_file_bytes = cfg->file_limit;
	spec->max_open_files = cfg->open_files;
	spec->max_processes = cfg->processes;
	spec->max_memory = cfg->memory_limit;
}
