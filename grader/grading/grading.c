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
#include "cpus.h"
#include "gpulock.h"
#include "judge.h"
#include "pidcg.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

/*
 * What the submission's programs may write in their work folder, in all,
 * past the size of one file (file_limit, which a file reaches first: its
 * program gets SIGXFSZ, as anywhere): the folder is a tmpfs of the two
 * together for them (sandbox.h). A correct run writes nothing there; the
 * profile driver's outputs are files bound over it.
 */
#define RUN_WORK_SLACK (64ul << 20)
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

/* Whether extra (NULL-terminated; NULL: none) sets the variable entry sets. */
static bool set_by(const char *entry, const char *const *extra)
{
	size_t n = strcspn(entry, "=");

	for (size_t i = 0; extra && extra[i]; i++)
		if (!strncmp(extra[i], entry, n) && extra[i][n] == '=')
			return true;
	return false;
}

char **grading_env(const struct grading *g, const char *const *extra)
{
	struct strlist env = STRLIST_INIT;

	for (char **e = g->env; *e; e++)
		if (!set_by(*e, extra))
			strlist_push(&env, *e);
	for (size_t i = 0; extra && extra[i]; i++)
		strlist_push(&env, extra[i]);
	return env.v;
}

void grading_setenv(struct grading *g, const char *entry)
{
	char **env = grading_env(g, (const char *const[]){entry, NULL});

	grading_free_env(g->env);
	g->env = env;
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
	g->run_sandbox.tmp_bytes = g->build_sandbox.tmp_bytes = g->cfg->memory_limit;
	g->run_sandbox.work_bytes = (g->cfg->file_limit ? g->cfg->file_limit : 1ul << 30) +
				    RUN_WORK_SLACK;
	if (sandbox_own(&g->run_sandbox, g->workdir))
		sandbox_disable(&g->run_sandbox, xstrdup("the work folder cannot be given to "
							 "the sandbox's user"));
	try_sandbox(&g->run_sandbox, g->workdir, "bubblewrap", shell, g->env);
	if (!g->run_sandbox.bwrap) {
		sandbox_disable(&g->build_sandbox, NULL);
	} else {
		/* nvcc and g++ run there, and see the submission and the headers
		 * staged beside it (stage_headers): nothing else of the course */
		struct strlist probe = STRLIST_INIT;
		strlist_push(&probe, "/bin/sh");
		strlist_push(&probe, "-c");
		strlist_push(&probe, "\"$0\" --version >/dev/null && \"$1\" --version >/dev/null");
		strlist_push(&probe, tc->nvcc);
		strlist_push(&probe, tc->cxx);
		if (try_sandbox(&g->build_sandbox, g->workdir, "the compilers",
				(const char *const *)probe.v, g->env))
			sandbox_disable(&g->run_sandbox, xstrdup(g->build_sandbox.why));
		strlist_clear(&probe);
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

/* Copies the file src to dst (a header: small); 0 or -1 with an error. */
static int copy_small_file(const char *src, const char *dst)
{
	size_t len;
	char *text = read_file(src, &len);
	int ret = text ? write_file_atomic(dst, text, len) : -1;

	free(text);
	return ret;
}

/* Copies the headers (*.h) of folder src, and of its subfolders, into dst. */
static int copy_headers(const char *src, const char *dst)
{
	DIR *d = opendir(src);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return error("cannot read '%s': %s", src, strerror(errno));
	if (mkdir(dst, 0755) < 0 && errno != EEXIST) {
		closedir(d);
		return error("cannot create '%s': %s", dst, strerror(errno));
	}
	while (!ret && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "t"))
			continue;
		char *from = xasprintf("%s/%s", src, e->d_name), *to = xasprintf("%s/%s", dst, e->d_name);
		struct stat st;
		if (stat(from, &st) < 0)
			ret = error("cannot read '%s': %s", from, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			ret = copy_headers(from, to);
		else if (n > 2 && !strcmp(e->d_name + n - 2, ".h"))
			ret = copy_small_file(from, to);
		free(from);
		free(to);
	}
	closedir(d);
	return ret;
}

/*
 * The emulator's folder: the one of its compiler flags' -I folders that
 * holds cudaemu.h (the flags are the build's, which may be another
 * checkout's than the course's); NULL where there is no emulator.
 */
static char *emu_dir(const struct toolchain *tc)
{
	struct strlist words = STRLIST_INIT;
	char *found = NULL;

	strlist_split(&words, tc->emu_cxxflags ? tc->emu_cxxflags : "");
	for (size_t i = 0; i < words.n && !found; i++) {
		if (strncmp(words.v[i], "-I", 2) || !words.v[i][2])
			continue;
		char *h = xasprintf("%s/cudaemu.h", words.v[i] + 2);
		if (!access(h, R_OK))
			found = xstrdup(words.v[i] + 2);
		free(h);
	}
	strlist_clear(&words);
	return found;
}

/* A strict lab's checked barrier, into the work folder's GRADING_CHECKED. */
static int stage_checked_barrier(const struct grading *g)
{
	char *dir = xasprintf("%s/%s", g->workdir, GRADING_CHECKED);
	char *src = xasprintf("%s/labs/common/checked-barrier.h", g->tc->root);
	char *dst = xasprintf("%s/%s", g->workdir, GRADING_CHECKED_BARRIER);
	int ret = -1;

	if (mkdir(dir, 0755) < 0)
		error("cannot create '%s': %s", dir, strerror(errno));
	else
		ret = copy_small_file(src, dst);
	free(dst);
	free(src);
	free(dir);
	return ret;
}

/*
 * Copies into the work folder what the compilers may include of the
 * course's: the lab's public header (<lab>.h, its contract) into
 * GRADING_INCLUDE, and the CPU emulator's headers into GRADING_EMU. So the
 * compilers, as the sandbox's user, need nothing of the checkout: no folder
 * of it is named to them or bound into their sandbox, and a checkout in a
 * folder that user cannot enter (root's home, a test's private folder)
 * builds as well. A lab without a public header stages an empty folder.
 */
static int stage_headers(struct grading *g)
{
	char *dir = xasprintf("%s/%s", g->workdir, GRADING_INCLUDE);
	char *src = xasprintf("%s/%s.h", g->cfg->dir, g->cfg->name);
	char *dst = xasprintf("%s/%s.h", dir, g->cfg->name);
	char *emu = emu_dir(g->tc);
	char *emu_dst = xasprintf("%s/%s", g->workdir, GRADING_EMU);
	int ret = -1;

	if (mkdir(dir, 0755) < 0) {
		error("cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	if (!access(src, F_OK) && copy_small_file(src, dst))
		goto out;
	if (g->cfg->strict_barriers && stage_checked_barrier(g))
		goto out;
	ret = emu ? copy_headers(emu, emu_dst) : 0;
out:
	free(emu_dst);
	free(emu);
	free(dst);
	free(src);
	free(dir);
	return ret;
}

void grading_push_emu_flags(const struct grading *g, const char *flags, struct strlist *argv)
{
	char *emu = emu_dir(g->tc);
	size_t n = emu ? strlen(emu) : 0;
	struct strlist words = STRLIST_INIT;

	strlist_split(&words, flags ? flags : "");
	for (size_t i = 0; i < words.n; i++) {
		const char *w = words.v[i];
		if (emu && !strncmp(w, "-I", 2) && !strncmp(w + 2, emu, n) &&
		    (!w[2 + n] || w[2 + n] == '/'))
			strlist_pushf(argv, "-I%s/%s%s", g->workdir, GRADING_EMU, w + 2 + n);
		else
			strlist_push(argv, w);
	}
	strlist_clear(&words);
	free(emu);
}

/*
 * Whether the sandbox's user (a root grader's children) can reach the work
 * folder: each folder above it must let others, or that user's group, in.
 * -1 with an error naming the one that does not.
 */
static int workdir_reachable(const struct grading *g)
{
	const struct sandbox *sb = &g->run_sandbox;
	char *path = xstrdup(g->workdir), *slash;
	int ret = 0;

	while (sb->drop && !ret && (slash = strrchr(path, '/')) && slash != path) {
		struct stat st;
		*slash = '\0';
		if (stat(path, &st) < 0)
			continue;
		bool in = st.st_uid == sb->uid ? st.st_mode & S_IXUSR
			  : st.st_gid == sb->gid ? st.st_mode & S_IXGRP : st.st_mode & S_IXOTH;
		if (!in)
			ret = error("the work folder '%s' is inside '%s', which the submission's "
				    "user %s cannot enter\nhint: set TMPDIR to a folder others may "
				    "enter, such as /tmp", g->workdir, path, sb->user);
	}
	free(path);
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
	/* the timing phases' CPUs left to them: this grading's work on the others */
	cpu_set_t others;
	if (!sched_getaffinity(0, sizeof(g->cpus_before), &g->cpus_before) &&
	    cpus_for_grading(g->gpu, &g->timing_cpus, &others) &&
	    !sched_setaffinity(0, sizeof(others), &others))
		g->cpus_split = true;
	char *tmpdir = xasprintf("TMPDIR=%s", g->workdir);
	g->tool_env = grading_env(g, (const char *const[]){tmpdir, NULL});
	free(tmpdir);
	if (stage_headers(g)) {
		grading_close(g);
		return -1;
	}
	open_sandboxes(g);
	if (workdir_reachable(g) || (!g->run_sandbox.bwrap && !unsandboxed_allowed(g))) {
		grading_close(g);
		return -1;
	}
	return 0;
}

bool grading_sandbox_ready(const struct toolchain *tc, const struct lab_config *cfg,
			   const struct grade_opts *o)
{
	struct grade_opts quiet = *o;
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/cudalab-check-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	struct result r;
	struct grading g;
	bool ok;

	/* a work folder that cannot be made at all is each grading's failure,
	 * reported with it and tried again (batch.c): not the sandbox's */
	ok = mkdtemp(dir) && !rmdir(dir);
	free(dir);
	if (!ok)
		return true;
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
	if (g->cpus_split)
		sched_setaffinity(0, sizeof(g->cpus_before), &g->cpus_before);
	g->cpus_split = false;
	if (g->workdir) {
		if (g->o->keep_workdir)
			progress("work folder kept: %s", g->workdir);
		else
			remove_tree(g->workdir);
	}
	judge_close(g);
	build_kept_free(g->build);
	sandbox_release(&g->run_sandbox);
	sandbox_release(&g->build_sandbox);
	grading_free_env(g->env);
	grading_free_env(g->tool_env);
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

unsigned grading_emu_workers(const struct grade_opts *o, enum run_mode mode, int lanes)
{
	if (mode != MODE_EMULATED || !o->cpus)
		return 0;
	/* each lane its share (a process per test, lanes 0: the lot, as the
	 * harness runs no more of them at once than there are CPUs) */
	unsigned share = lanes > 1 ? o->cpus / (unsigned)lanes : o->cpus;
	return share ? share : 1;
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
