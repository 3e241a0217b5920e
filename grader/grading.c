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

#include "build.h"
#include "gpulock.h"
#include "pidcg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/*
 * The grader's environment without Check's and cudalab's own variables, and
 * one GPU: the grading's, which its probe looks at (`cudalab gpus` probes
 * each GPU of a class with it too).
 */
char **grading_gpu_env(const char *gpu)
{
	struct strlist env = STRLIST_INIT;

	for (char **e = environ; *e; e++)
		if (strncmp(*e, "CK_", 3) && strncmp(*e, "CUDALAB_", 8) &&
		    strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21))
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
		       const char *const *argv)
{
	struct strlist wrapped = STRLIST_INIT;
	struct run_result res = {0};
	int ret = 0;

	if (!sb->bwrap)
		return 0;
	sandbox_wrap(sb, workdir, argv, &wrapped);
	struct run_spec spec = {.argv = (const char *const *)wrapped.v, .timeout = 30,
				.output_limit = 4096};
	if (run_one(&spec, &res) || !res.started || res.timed_out || res.signal ||
	    res.exit_code) {
		char *fate = res.started ? run_describe(&spec, &res) : xstrdup("could not start");
		sandbox_disable(sb, xasprintf("%s does not work in bubblewrap here (%s: %.200s)",
					      what, fate, res.output ? res.output : ""));
		free(fate);
		ret = -1;
	}
	run_result_release(&res);
	strlist_clear(&wrapped);
	return ret;
}

/*
 * The grading's two sandboxes, each tried with what it will run (a shell;
 * nvcc and g++); when either does not work here, neither is used, and the
 * result says why.
 */
static void open_sandboxes(struct grading *g)
{
	static const char *const shell[] = {
		"/bin/sh", "-c", "test -d /proc/self && ! test -e /etc/passwd", NULL};
	const struct toolchain *tc = g->tc;
	struct result *r = g->r;

	sandbox_init(&g->run_sandbox);
	sandbox_init(&g->build_sandbox);
	try_sandbox(&g->run_sandbox, g->workdir, "bubblewrap", shell);
	if (!g->run_sandbox.bwrap) {
		sandbox_disable(&g->build_sandbox, NULL);
	} else {
		sandbox_allow_read(&g->build_sandbox, g->cfg->dir);
		char *common = xasprintf("%s/labs/common", tc->root);
		sandbox_allow_read(&g->build_sandbox, common);
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
		strlist_push(&probe, g->cfg->dir);
		strlist_split(&flags, tc->emu_cxxflags ? tc->emu_cxxflags : "");
		for (size_t i = 0; i < flags.n; i++)
			if (!strncmp(flags.v[i], "-I", 2) && flags.v[i][2])
				strlist_push(&probe, flags.v[i] + 2);
		if (try_sandbox(&g->build_sandbox, g->workdir, "the compilers",
				(const char *const *)probe.v))
			sandbox_disable(&g->run_sandbox, xstrdup(g->build_sandbox.why));
		strlist_clear(&probe);
		strlist_clear(&flags);
	}
	r->sandbox = g->run_sandbox.bwrap ? xstrdup("bubblewrap") : NULL;
	r->sandbox_why = g->run_sandbox.why ? xstrdup(g->run_sandbox.why) : NULL;
	const char *why = "the lab sets no limit (processes = 0)";
	if (g->cfg->processes && pidcg_available(&why))
		r->processes = g->cfg->processes;
	else
		r->processes_why = xstrdup(why);
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
	open_sandboxes(g);
	return 0;
}

void grading_close(struct grading *g)
{
	if (g->workdir) {
		if (g->o->keep_workdir)
			progress("work folder kept: %s", g->workdir);
		else
			remove_tree(g->workdir);
	}
	build_kept_free(g->build);
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
}
