/*
 * build-reads.c - what the compilers may read (build.c's include check):
 * each compiler's own search list, asked once a process, and the policy
 * built from it, the submission's files and the lab's header, against
 * which every file a preprocessed text says it entered is judged.
 *
 * Owns: which folders hold nothing of the course (includes.c decides, from
 * the search list and the course's roots). Must not: run the submission's
 * code; a compiler is asked only for its search list, in the build sandbox.
 */
#include "build-reads.h"

#include "includes.h"
#include "run.h"
#include "toolfault.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The search lists the compilers gave, by their command line: asked once a process. */
static struct {
	char *key;
	struct strlist dirs;
} search_cache[4];

/* nvcc and its flags, or (emulated) g++ and the emulator's flags. */
static void compiler_argv(const struct grading *g, bool emulated, struct strlist *argv)
{
	strlist_push(argv, emulated ? g->tc->cxx : g->tc->nvcc);
	strlist_split(argv, emulated ? g->tc->emu_cxxflags : g->tc->nvcc_flags);
}

/* The cache's key of the compiler emulated says (allocated), and its answer; NULL: not asked. */
const struct strlist *compiler_search_cached(const struct grading *g, bool emulated, char **key)
{
	struct strlist argv = STRLIST_INIT;
	struct strbuf sb = STRBUF_INIT;

	compiler_argv(g, emulated, &argv);
	for (size_t i = 0; i < argv.n; i++)
		strbuf_addf(&sb, "%s\n", argv.v[i]);
	strlist_clear(&argv);
	*key = strbuf_detach(&sb);
	for (size_t i = 0; i < ARRAY_SIZE(search_cache); i++)
		if (search_cache[i].key && !strcmp(search_cache[i].key, *key))
			return &search_cache[i].dirs;
	return NULL;
}

/*
 * The command that asks a compiler where it finds headers, as it says
 * itself: the compiler and its flags with -E -v on an empty file (nvcc
 * hands -v to the host compiler, which preprocesses for it).
 */
void compiler_search_command(const struct grading *g, bool emulated, struct strlist *cmd)
{
	static const char *const gxx_tail[] = {"-E", "-v", "-x", "c++", "/dev/null", "-o",
					       "/dev/null", NULL};
	static const char *const nvcc_tail[] = {"-E", "-Xcompiler", "-v", "-x", "cu", "/dev/null",
						"-o", "/dev/null", NULL};

	compiler_argv(g, emulated, cmd);
	for (const char *const *t = emulated ? gxx_tail : nvcc_tail; *t; t++)
		strlist_push(cmd, *t);
}

struct run_spec compiler_search_spec(const struct grading *g, const struct strlist *cmd)
{
	return (struct run_spec){.argv = (const char *const *)cmd->v,
				 .envp = (const char *const *)g->tool_env, .timeout = TOOL_TIMEOUT,
				 .output_limit = 1 << 20};
}

/* Keeps the search list the command spec said (res) under key; -1 when it said none. */
int compiler_search_answer(const char *key, const struct run_spec *spec,
			   const struct run_result *res, const char *workdir)
{
	struct strlist found = STRLIST_INIT;

	if (res->started && !res->timed_out && !res->signal && res->exit_code == 0)
		includes_search_list(res->output, &found);
	char *fault = !found.n && res->started ? toolfault_why(spec, res, workdir) : NULL;
	if (fault) {   /* a full disk, a compiler killed: the machine's, as for a compile */
		error("%s, asked where it finds headers, failed for the machine, not the "
		      "submission: %s", spec->argv[0], fault);
		free(fault);
		return -1;
	}
	if (!found.n) {
		char *why = res->started ? run_describe(spec, res) : xstrdup("could not start");
		error("'%s' did not say where it finds headers (%s): %.300s", spec->argv[0], why,
		      res->output ? res->output : "");
		free(why);
		return -1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(search_cache); i++)
		if (!search_cache[i].key) {
			search_cache[i].key = xstrdup(key);
			strlist_concat(&search_cache[i].dirs, &found, NULL);
			break;
		}
	strlist_clear(&found);
	return 0;
}

/* The folders the compiler searches for headers, appended to dirs: cached, else asked now. */
static int search_list(const struct grading *g, bool emulated, struct strlist *dirs)
{
	char *key;
	const struct strlist *cached = compiler_search_cached(g, emulated, &key);

	if (!cached) {
		struct strlist cmd = STRLIST_INIT;
		struct run_result res;
		compiler_search_command(g, emulated, &cmd);
		struct run_spec spec = compiler_search_spec(g, &cmd);
		int ret = run_one(&spec, &res);
		if (!ret) {
			ret = compiler_search_answer(key, &spec, &res, g->workdir);
			run_result_release(&res);
		}
		strlist_clear(&cmd);
		free(key);
		cached = ret ? NULL : compiler_search_cached(g, emulated, &key);
		if (ret)
			return -1;
	}
	strlist_concat(dirs, cached, NULL);
	free(key);
	return 0;
}

static void push_real(struct strlist *l, const char *path)
{
	char buf[PATH_MAX];

	if (realpath(path, buf) && !strlist_has(l, buf))
		strlist_push(l, buf);
}

/*
 * The include policy of nvcc's passes, or (emulated) of g++'s on the
 * emulator's rewrite: the submission's files (and that rewrite of them),
 * the lab's header <lab>.h where the compiler finds it (the lab's folder,
 * or the copy staged in the work folder's .include/), and the folders of
 * the compiler's own search list that hold nothing of the course.
 */
int include_policy_init(const struct grading *g, bool emulated, struct include_policy *p)
{
	const struct toolchain *tc = g->tc;
	const struct lab_config *cfg = g->cfg;
	struct strlist search = STRLIST_INIT, priv = STRLIST_INIT, roots = STRLIST_INIT;
	int ret;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < cfg->files.n; i++) {
		char *path = xasprintf("%s/%s%s", g->workdir, cfg->files.v[i],
				       emulated && build_is_source(cfg->files.v[i]) ? ".emu.cpp"
										  : "");
		push_real(&p->own, path);
		free(path);
		path = xasprintf("%s/%s", g->workdir, cfg->files.v[i]);
		push_real(&p->own, path);
		free(path);
	}
	char *header = xasprintf("%s/%s.h", cfg->dir, cfg->name);
	push_real(&p->headers, header);
	free(header);
	header = xasprintf("%s/.include/%s.h", g->workdir, cfg->name);
	push_real(&p->headers, header);
	free(header);

	ret = search_list(g, emulated, &search);
	strlist_push(&priv, cfg->dir);
	strlist_push(&priv, g->workdir);
	strlist_pushf(&priv, "%s/reference", tc->root);
	strlist_push(&roots, tc->root);
	includes_system_dirs(&search, &priv, &roots, &p->system);
	/* the emulator's headers, staged in the work folder by the grader (root's
	 * where the grader is root): the runtime's, not the course's */
	if (emulated) {
		char *emu = xasprintf("%s/%s", g->workdir, GRADING_EMU);
		push_real(&p->system, emu);
		free(emu);
	} else if (cfg->strict_barriers) {
		/* the checked barrier, forced in by the grader's own -include */
		char *checked = xasprintf("%s/%s", g->workdir, GRADING_CHECKED);
		push_real(&p->system, checked);
		free(checked);
	}

	p->rules = (struct include_rules){g->workdir, &cfg->files, &p->own, &p->headers, NULL,
					  &p->system, tc->root};
	strlist_clear(&search);
	strlist_clear(&priv);
	strlist_clear(&roots);
	return ret;
}

void include_policy_release(struct include_policy *p)
{
	strlist_clear(&p->own);
	strlist_clear(&p->headers);
	strlist_clear(&p->system);
}

/* Every file the preprocessed text says the compiler entered must be one the policy allows. */
void judge_includes(const char *text, size_t len, const struct scan_rules *rules,
		    const struct include_policy *p, const char *header_name,
		    struct strlist *problems)
{
	struct scan_includes inc = {0};
	struct include_rules ir = p->rules;

	ir.header_name = header_name;
	scan_includes(text, len, rules, &inc, problems);
	includes_judge(&inc, &ir, problems);
	scan_includes_release(&inc);
}

