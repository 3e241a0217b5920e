/*
 * judge.c - the judge's folder, its command line, and how it starts its
 * runners (judge.h).
 */
#include "judge.h"

#include "grading.h"
#include "sysfilter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Descriptors the runner's bubblewrap reads its options and filter on. */
#define ARGS_FD 10
#define FILTER_FD 11

static int write_filter(const char *path);

char *judge_path(const struct grading *g, const char *name)
{
	return xasprintf("%s/%s", g->judgedir, name);
}

char *judge_program(const struct grading *g)
{
	return xasprintf("%s/labs/%s/judge", g->tc->build, g->cfg->name);
}

int judge_open(struct grading *g)
{
	const char *tmp = getenv("TMPDIR");

	g->judgedir = xasprintf("%s/cudalab-judge-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp",
				g->cfg->name);
	if (!mkdtemp(g->judgedir)) {
		int e = errno;
		free(g->judgedir);
		g->judgedir = NULL;
		return error("cannot create the judge's folder: %s", strerror(e));
	}
	/* the files the tests read (answers.txt), as intake copied them: the
	 * runners may change the work folder's */
	for (size_t i = 0; i < g->cfg->files.n; i++) {
		const char *f = g->cfg->files.v[i];
		char *from = xasprintf("%s/%s", g->workdir, f), *to = judge_path(g, f);
		size_t len;
		char *data = read_file(from, &len);
		int rc = data ? write_file_atomic(to, data, len) : 0;
		free(data);
		free(from);
		free(to);
		if (rc)
			return -1;
	}
	if (g->run_sandbox.bwrap) {
		char *filter = judge_path(g, "sandbox.bpf");
		int rc = write_filter(filter);
		free(filter);
		return rc;
	}
	return 0;
}

void judge_close(struct grading *g)
{
	if (!g->judgedir)
		return;
	if (g->o->keep_workdir)
		progress("judge's folder kept: %s", g->judgedir);
	else
		remove_tree(g->judgedir);
	free(g->judgedir);
	g->judgedir = NULL;
}

/* words, each with its NUL, into path. */
static int write_words(const char *path, const struct strlist *words)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < words->n; i++)
		strbuf_add(&sb, words->v[i], strlen(words->v[i]) + 1);
	int rc = write_file_atomic(path, sb.buf ? sb.buf : "", sb.len);
	strbuf_release(&sb);
	return rc;
}

/*
 * The sandbox's system-call filter, as bubblewrap reads it, into path: once,
 * by judge_open (the tests and the safety stage make recipes at once).
 */
static int write_filter(const char *path)
{
	char buf[65536];
	ssize_t n;
	int fd;

	if ((fd = seccomp_filter_fd()) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return error("cannot read the sandbox's system-call filter back");
	return write_file_atomic(path, buf, (size_t)n);
}

int judge_recipe(const struct grading *g, const char *name, const char *const *runner_argv,
		 bool sandboxed, char **path)
{
	const struct sandbox *sb = &g->run_sandbox;
	struct strlist words = STRLIST_INIT, opts = STRLIST_INIT;
	char *recipe = xasprintf("%s/%s.runner", g->judgedir, name);
	char *opts_path = xasprintf("%s/%s.bwrap", g->judgedir, name);
	char *filter = judge_path(g, "sandbox.bpf");
	int ret = -1;

	if (sandboxed && sb->drop) {
		/* a root grader's runners are never root, in or out of the sandbox */
		strlist_push(&words, "user");
		strlist_pushf(&words, "%u", (unsigned)sb->uid);
		strlist_pushf(&words, "%u", (unsigned)sb->gid);
	}
	strlist_push(&words, "cwd");
	strlist_push(&words, sandboxed ? g->workdir : g->judgedir);
	if (sandboxed && sb->bwrap) {
		sandbox_args(sb, g->workdir, NULL, FILTER_FD, &opts);
		if (write_words(opts_path, &opts))
			goto out;
		strlist_push(&words, "fd");
		strlist_pushf(&words, "%d", ARGS_FD);
		strlist_push(&words, opts_path);
		strlist_push(&words, "fd");
		strlist_pushf(&words, "%d", FILTER_FD);
		strlist_push(&words, filter);
	}
	strlist_push(&words, "argv");
	if (sandboxed && sb->bwrap) {
		strlist_push(&words, sb->bwrap);
		strlist_push(&words, "--args");
		strlist_pushf(&words, "%d", ARGS_FD);
		strlist_push(&words, "--");
	}
	for (const char *const *a = runner_argv; *a; a++)
		strlist_push(&words, *a);
	if (write_words(recipe, &words))
		goto out;
	*path = recipe;
	recipe = NULL;
	ret = 0;
out:
	strlist_clear(&words);
	strlist_clear(&opts);
	free(recipe);
	free(opts_path);
	free(filter);
	return ret;
}

int judge_argv(const struct grading *g, const char *name, const char *const *runner_argv,
	       struct strlist *argv)
{
	char *recipe;

	if (judge_recipe(g, name, runner_argv, true, &recipe))
		return -1;
	char *judge = judge_program(g);
	strlist_push(argv, judge);
	free(judge);
	strlist_push(argv, "--runner");
	strlist_push(argv, recipe);
	free(recipe);
	if (g->r->mode == MODE_EMULATED)
		strlist_push(argv, "--emulated");
	return 0;
}
