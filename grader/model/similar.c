/*
 * similar.c - a class's pairwise similarity (similar.h). The comparison is
 * sim_c's, run as a trusted child on copies of the files in a fresh
 * folder; this file only prepares those copies (the starter's runs
 * blanked, a few CUDA words blanked, every line kept at its number) and
 * reads sim_c's report. Knows nothing of labs, the gradebook or output.
 */
#include "similar.h"

#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* sim_c's report of a class: a few lines a pair, a pair for every two files */
#define SIM_OUTPUT_LIMIT (256u << 20)
#define SIM_TIMEOUT 600

static const char *const blanked_words[] = {
	"__restrict__", "__restrict", "__forceinline__", "__noinline__", "__inline__",
};

/* Blanks the n bytes at p, newlines kept. */
static void blank(char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != '\n')
			p[i] = ' ';
}

void similar_normalise(char *text)
{
	for (char *p = text; *p; p++) {
		if (p != text && ident_char(p[-1]))
			continue;
		for (size_t w = 0; w < ARRAY_SIZE(blanked_words); w++) {
			size_t n = strlen(blanked_words[w]);
			if (!strncmp(p, blanked_words[w], n) && !ident_char(p[n]))
				blank(p, n);
		}
		if (*p == '#' && (p == text || p[-1] == '\n' || p[-1] == ' ' || p[-1] == '\t')) {
			/* '#pragma unroll [N]': the line alone, its end kept */
			const char *q = p + 1 + strspn(p + 1, " \t");
			if (!strncmp(q, "pragma", 6) && (q[6] == ' ' || q[6] == '\t')) {
				q += 6 + strspn(q + 6, " \t");
				if (!strncmp(q, "unroll", 6) && !ident_char(q[6]))
					blank(p, strcspn(p, "\n"));
			}
		}
	}
}

/* "PATH: line F-L" (or "line F") at the start of s, trailing blanks allowed, up to end. */
static int parse_side(const char *s, const char *end, char **path, size_t *first, size_t *last)
{
	const char *at = NULL;

	for (const char *p = s; p + 7 <= end; p++)
		if (!strncmp(p, ": line ", 7))
			at = p;   /* the last one: a path may hold ": line " */
	if (!at || at == s)
		return -1;
	char *stop;
	errno = 0;
	unsigned long f = strtoul(at + 7, &stop, 10), l = f;
	if (stop == at + 7 || errno)
		return -1;
	if (*stop == '-') {
		const char *from = stop + 1;
		l = strtoul(from, &stop, 10);
		if (stop == from)
			return -1;
	}
	*path = xstrndup(s, (size_t)(at - s));
	*first = f;
	*last = l;
	return 0;
}

long similar_parse(const char *output, sim_file_fn file_tokens, sim_run_fn run, void *ctx)
{
	long runs = 0;

	for (const char *line = output; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		char *l = xstrndup(line, len), *bar, *colon;
		unsigned long tokens, lines;

		line = eol ? eol + 1 : NULL;
		if (!strncmp(l, "File ", 5) && (colon = strstr(l, ": ")) &&
		    sscanf(colon + 2, "%lu tokens, %lu lines", &tokens, &lines) == 2) {
			*colon = '\0';
			file_tokens(ctx, l + 5, tokens, lines);
		} else if ((bar = strchr(l, '|')) && strchr(bar, '[')) {
			char *pa = NULL, *pb = NULL;
			size_t af, al, bf, bl;
			char *open = strrchr(bar, '['), *close;
			unsigned long n = strtoul(open + 1, &close, 10);
			if (parse_side(l, bar, &pa, &af, &al) ||
			    parse_side(bar + 1, open, &pb, &bf, &bl) || *close != ']') {
				free(pa);
				error("cannot read this line of sim_c's report: '%s'", l);
				free(l);
				return -1;
			}
			run(ctx, pa, af, al, pb, bf, bl, n);
			runs++;
			free(pa);
			free(pb);
		} else if (*l && strncmp(l, "File ", 5) && strncmp(l, "Total input:", 12)) {
			error("cannot read this line of sim_c's report: '%s'", l);
			free(l);
			return -1;
		}
		free(l);
	}
	return runs;
}

/* The work folder's copy of file f ("S/J": submission S's J-th file), or the starter's ("t/J"). */
struct prep {
	struct sim_class *c;
	char **text;                /* the normalised copy of each file */
	size_t *first_file;         /* per submission: its first index in c->files */
	size_t nnames;
	int failed;
};

/* The file of a work path "S/J", or (size_t)-1 for the starter's and anything else. */
static size_t file_of(const struct prep *p, const char *path)
{
	size_t s, j;
	char tail;

	if (sscanf(path, "%zu/%zu%c", &s, &j, &tail) != 2 || s >= p->c->nsubs || j >= p->nnames)
		return (size_t)-1;
	for (size_t f = p->first_file[s]; f < p->c->nfiles && p->c->files[f].sub == s; f++)
		if (!strcmp(p->c->files[f].name, p->c->names->v[j]))
			return f;
	return (size_t)-1;
}

static void ignore_file(void *ctx, const char *path, size_t tokens, size_t lines)
{
	(void)ctx, (void)path, (void)tokens, (void)lines;
}

/* A run a submission's file shares with the starter: blank its lines. */
static void starter_run(void *ctx, const char *a, size_t a_first, size_t a_last, const char *b,
			size_t b_first, size_t b_last, size_t tokens)
{
	struct prep *p = ctx;
	size_t f = file_of(p, a);
	char *s;

	(void)tokens;
	if (f == (size_t)-1) {   /* the starter's side first: sim_c puts the new file first */
		f = file_of(p, b);
		a_first = b_first;
		a_last = b_last;
	}
	if (f == (size_t)-1)
		return;
	s = p->text[f];
	for (size_t line = 1; *s && line <= a_last; line++) {
		size_t n = strcspn(s, "\n");
		if (line >= a_first) {
			bool had = false;
			for (size_t i = 0; i < n; i++)
				if (s[i] != ' ' && s[i] != '\t') {
					s[i] = ' ';
					had = true;
				}
			p->c->starter_lines_removed += had;
		}
		s += n + (s[n] == '\n');
	}
}

static void class_file(void *ctx, const char *path, size_t tokens, size_t lines)
{
	struct prep *p = ctx;
	size_t f = file_of(p, path);

	if (f == (size_t)-1)
		return;
	p->c->files[f].tokens = tokens;
	p->c->files[f].lines = lines;
	p->c->sub_tokens[p->c->files[f].sub] += tokens;
}

static struct sim_pair *pair_of(struct sim_class *c, size_t a, size_t b)
{
	for (size_t i = 0; i < c->npairs; i++)
		if (c->pairs[i].a == a && c->pairs[i].b == b)
			return &c->pairs[i];
	c->pairs = xrealloc(c->pairs, (c->npairs + 1) * sizeof(*c->pairs));
	c->pairs[c->npairs] = (struct sim_pair){.a = a, .b = b};
	return &c->pairs[c->npairs++];
}

static void class_run(void *ctx, const char *a, size_t a_first, size_t a_last, const char *b,
		      size_t b_first, size_t b_last, size_t tokens)
{
	struct prep *p = ctx;
	size_t fa = file_of(p, a), fb = file_of(p, b);
	struct sim_region r;

	if (fa == (size_t)-1 || fb == (size_t)-1) {
		p->failed = error("sim_c reported a run of files it was not given: '%s' and '%s'",
				  a, b);
		return;
	}
	if (p->c->files[fa].sub == p->c->files[fb].sub)
		return;   /* two files of one submission */
	size_t archive_from = p->c->nsubs - p->c->narchived;
	if (p->c->files[fa].sub >= archive_from && p->c->files[fb].sub >= archive_from)
		return;   /* two of the archive's: sim_c is not asked, but never reported */
	if (p->c->files[fa].sub > p->c->files[fb].sub)
		r = (struct sim_region){fb, fa, b_first, b_last, a_first, a_last, tokens};
	else
		r = (struct sim_region){fa, fb, a_first, a_last, b_first, b_last, tokens};
	struct sim_pair *pr = pair_of(p->c, p->c->files[r.file_a].sub, p->c->files[r.file_b].sub);
	for (size_t i = 0; i < pr->nregions; i++)
		if (!memcmp(&pr->regions[i], &r, sizeof(r)))
			return;   /* reported both ways round */
	pr->regions = xrealloc(pr->regions, (pr->nregions + 1) * sizeof(r));
	pr->regions[pr->nregions++] = r;
}

static int by_tokens(const void *x, const void *y)
{
	const struct sim_region *a = x, *b = y;
	if (a->tokens != b->tokens)
		return a->tokens < b->tokens ? 1 : -1;
	if (a->a_first != b->a_first)
		return a->a_first < b->a_first ? -1 : 1;
	return (a->b_first > b->b_first) - (a->b_first < b->b_first);
}

static int by_score(const void *x, const void *y)
{
	const struct sim_pair *a = x, *b = y;
	if (a->score != b->score)
		return a->score < b->score ? 1 : -1;
	if (a->shared != b->shared)
		return a->shared < b->shared ? 1 : -1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return (a->b > b->b) - (a->b < b->b);
}

/* Runs sim_c in dir with the options and then the work paths; its report in *out. */
static int run_sim(const char *tool, const char *dir, const char *const *opts, size_t nopts,
		   const struct strlist *paths, char **out)
{
	const char **argv = xcalloc(1 + nopts + paths->n + 1, sizeof(*argv));
	struct run_spec spec = {.argv = argv, .cwd = dir, .timeout = SIM_TIMEOUT,
				.output_limit = SIM_OUTPUT_LIMIT};
	struct run_result res = {0};
	size_t k = 0;
	int ret = -1;

	argv[k++] = tool;
	for (size_t i = 0; i < nopts; i++)
		argv[k++] = opts[i];
	for (size_t i = 0; i < paths->n; i++)
		argv[k++] = paths->v[i];
	argv[k] = NULL;
	if (run_one(&spec, &res))
		goto out;
	if (!res.started || res.timed_out || res.signal || res.exit_code || res.output_dropped) {
		char *how = run_describe(&spec, &res);
		char *said = res.output ? last_line(res.output, res.output_len, 200) : NULL;
		error("sim_c %s%s%s", res.output_dropped ? "wrote more than cudalab reads" : how,
		      said ? ": " : "", said ? said : "");
		free(said);
		free(how);
		goto out;
	}
	*out = res.output;
	res.output = NULL;
	ret = 0;
out:
	run_result_release(&res);
	free(argv);
	return ret;
}

static int write_copy(const char *path, const char *text)
{
	return write_file_atomic(path, text, strlen(text));
}

/* The class's copies as text has them now: DIR/S/J, named by subs, one per file. */
static int write_copies(const char *dir, const struct strlist *subs, char *const *text, size_t n)
{
	for (size_t f = 0; f < n; f++) {
		char *path = xasprintf("%s/%s", dir, subs->v[f]);
		int w = write_copy(path, text[f]);
		free(path);
		if (w)
			return -1;
	}
	return 0;
}

int similar_run(struct sim_class *c)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = NULL, *out = NULL, minrun[32];
	struct prep p = {.c = c, .nnames = c->names->n};
	struct strlist subs = STRLIST_INIT, starter = STRLIST_INIT;
	int ret = -1;

	c->tool = path_lookup("sim_c");
	if (!c->tool)
		return error("sim_c is not installed here, and it is what compares the submissions: "
			     "install the Debian package %s (apt-get install %s)",
			     SIMILAR_PACKAGE, SIMILAR_PACKAGE);
	snprintf(minrun, sizeof(minrun), "-r%u", c->min_run ? c->min_run : SIMILAR_MIN_RUN);
	c->sub_tokens = xcalloc(c->nsubs ? c->nsubs : 1, sizeof(*c->sub_tokens));
	p.first_file = xcalloc(c->nsubs ? c->nsubs : 1, sizeof(*p.first_file));
	dir = xasprintf("%s/cudalab-similar.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		error("cannot make a folder under '%s': %s", tmp && *tmp ? tmp : "/tmp",
		      strerror(errno));
		*dir = '\0';
		goto out;
	}

	/* the copies: DIR/S/J for the J-th file of submission S, DIR/t/J the starter's */
	for (size_t s = 0; s < c->nsubs; s++) {
		char *sd = xasprintf("%s/%zu", dir, s);
		int made = mkdir(sd, 0700);
		free(sd);
		if (made)
			goto out_mkdir;
		p.first_file[s] = c->nfiles;
		for (size_t j = 0; j < p.nnames; j++) {
			char *path = xasprintf("%s/%s", c->dirs[s], c->names->v[j]);
			struct stat st;
			if (stat(path, &st) || !S_ISREG(st.st_mode)) {
				free(path);
				continue;   /* a submission lacking a file: compared on the rest */
			}
			size_t len;
			char *text = read_file(path, &len);
			free(path);
			if (!text)
				goto out;
			c->files = xrealloc(c->files, (c->nfiles + 1) * sizeof(*c->files));
			c->files[c->nfiles] = (struct sim_file){.sub = s, .name = xstrdup(c->names->v[j]),
								.text = text};
			p.text = xrealloc(p.text, (c->nfiles + 1) * sizeof(*p.text));
			p.text[c->nfiles] = xstrndup(text, strlen(text));   /* up to a NUL */
			similar_normalise(p.text[c->nfiles]);
			c->nfiles++;
			strlist_pushf(&subs, "%zu/%zu", s, j);
		}
	}
	for (size_t j = 0; c->starter_dir && j < p.nnames; j++) {
		char *path = xasprintf("%s/%s", c->starter_dir, c->names->v[j]), *text;
		struct stat st;
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		text = read_file(path, NULL);
		free(path);
		if (!text)
			goto out;
		similar_normalise(text);
		if (!starter.n) {
			char *td = xasprintf("%s/t", dir);
			int made = mkdir(td, 0700);
			free(td);
			if (made)
				goto out_mkdir;
		}
		path = xasprintf("%s/t/%zu", dir, j);
		int w = write_copy(path, text);
		free(path);
		free(text);
		if (w)
			goto out;
		strlist_pushf(&starter, "t/%zu", j);
	}
	if (subs.n && starter.n) {
		/* what each file shares with the starter is the starter's, not copied */
		const char *opts[] = {"-e", "-n", "-S", "-w1000", minrun};
		struct strlist all = STRLIST_INIT;
		if (write_copies(dir, &subs, p.text, c->nfiles))
			goto out;
		for (size_t f = 0; f < c->nfiles; f++)
			strlist_push(&all, subs.v[f]);
		strlist_push(&all, "/");
		for (size_t j = 0; j < starter.n; j++)
			strlist_push(&all, starter.v[j]);
		int r = run_sim(c->tool, dir, opts, ARRAY_SIZE(opts), &all, &out);
		strlist_clear(&all);
		if (r || similar_parse(out, ignore_file, starter_run, &p) < 0)
			goto out;
		free(out);
		out = NULL;
	}
	/* again, with what the starter accounts for blanked */
	if (write_copies(dir, &subs, p.text, c->nfiles))
		goto out;
	if (subs.n > 1) {
		/* the archive's files after a "/": sim_c's old files, which it
		 * compares with the new ones only */
		const char *opts[] = {"-e", "-n", "-s", "-w1000", minrun};
		struct strlist order = STRLIST_INIT;
		bool slash = false;
		for (size_t f = 0; f < c->nfiles; f++) {
			if (!slash && c->files[f].sub >= c->nsubs - c->narchived) {
				strlist_push(&order, "/");
				slash = true;
			}
			strlist_push(&order, subs.v[f]);
		}
		int r = run_sim(c->tool, dir, opts, ARRAY_SIZE(opts), &order, &out);
		strlist_clear(&order);
		if (r || similar_parse(out, class_file, class_run, &p) < 0 || p.failed)
			goto out;
	}
	for (size_t i = 0; i < c->npairs; i++) {
		struct sim_pair *pr = &c->pairs[i];
		size_t ta = c->sub_tokens[pr->a], tb = c->sub_tokens[pr->b], sum = 0;
		for (size_t r = 0; r < pr->nregions; r++)
			sum += pr->regions[r].tokens;
		size_t sa = sum < ta ? sum : ta, sb = sum < tb ? sum : tb;
		pr->shared = sa < sb ? sa : sb;
		pr->of_a = ta ? (double)sa / ta : 0;
		pr->of_b = tb ? (double)sb / tb : 0;
		pr->score = ta + tb ? (double)(sa + sb) / (double)(ta + tb) : 0;
		qsort(pr->regions, pr->nregions, sizeof(*pr->regions), by_tokens);
	}
	if (c->npairs)
		qsort(c->pairs, c->npairs, sizeof(*c->pairs), by_score);
	ret = 0;
	goto out;
out_mkdir:
	error("cannot make a folder in '%s': %s", dir, strerror(errno));
out:
	free(out);
	for (size_t f = 0; p.text && f < c->nfiles; f++)
		free(p.text[f]);
	free(p.text);
	free(p.first_file);
	strlist_clear(&subs);
	strlist_clear(&starter);
	if (dir && *dir)
		remove_tree(dir);
	free(dir);
	return ret;
}

void similar_release(struct sim_class *c)
{
	for (size_t f = 0; f < c->nfiles; f++) {
		free(c->files[f].name);
		free(c->files[f].text);
	}
	free(c->files);
	for (size_t i = 0; i < c->npairs; i++)
		free(c->pairs[i].regions);
	free(c->pairs);
	free(c->sub_tokens);
	free(c->tool);
	c->files = NULL;
	c->pairs = NULL;
	c->sub_tokens = NULL;
	c->tool = NULL;
	c->nfiles = c->npairs = 0;
}
