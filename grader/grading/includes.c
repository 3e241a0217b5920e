/*
 * includes.c - which files a submission's compilation may read (includes.h).
 *
 * Owns: the include policy. A file is allowed by its real path (symbolic
 * links and ".." resolved), never by the spelling of its #include: one of
 * the submission's own files, the lab's public header by exact file, or a
 * file inside a folder of the compiler's own search list that holds nothing
 * of the course (the system's, the CUDA Toolkit's, the emulator's headers).
 * Everything else (tests/, tests/hidden/, the reference, the fixtures, any
 * other file of the machine) is refused, with the submission's #include
 * line quoted. Must not: run a program (build.c asks the compilers for their
 * search lists), or trust a name the submission wrote.
 */
#include "includes.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Whether path is dir or inside it (both real paths). */
static bool inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* The real path of name (relative to dir unless absolute); NULL when there is no such file. */
static char *real_path_in(const char *dir, const char *name)
{
	char buf[PATH_MAX];
	char *path = name[0] == '/' || !dir ? xstrdup(name) : xasprintf("%s/%s", dir, name);
	char *real = realpath(path, buf) ? xstrdup(buf) : NULL;

	free(path);
	return real;
}

void includes_search_list(const char *output, struct strlist *dirs)
{
	bool in = false;

	for (const char *l = output; l && *l;) {
		size_t n = strcspn(l, "\n");
		if (n >= 19 && !memcmp(l + n - 19, "search starts here:", 19))
			in = true;
		else if (!strncmp(l, "End of search list.", 19))
			in = false;
		else if (in && n > 1 && l[0] == ' ') {
			const char *d = l + 1;
			size_t dn = n - 1;
			static const char framework[] = " (framework directory)";
			if (dn > sizeof(framework) - 1 &&
			    !memcmp(d + dn - (sizeof(framework) - 1), framework, sizeof(framework) - 1))
				dn -= sizeof(framework) - 1;
			char *dir = xstrndup(d, dn);
			if (!strlist_has(dirs, dir))
				strlist_push(dirs, dir);
			free(dir);
		}
		l += n + (l[n] == '\n');
	}
}

void includes_system_dirs(const struct strlist *search, const struct strlist *private_dirs,
			  const struct strlist *roots, struct strlist *out)
{
	struct strlist priv = STRLIST_INIT, root = STRLIST_INIT;

	for (size_t i = 0; private_dirs && i < private_dirs->n; i++) {
		char *r = real_path_in(NULL, private_dirs->v[i]);
		strlist_push(&priv, r ? r : private_dirs->v[i]);
		free(r);
	}
	for (size_t i = 0; roots && i < roots->n; i++) {
		char *r = real_path_in(NULL, roots->v[i]);
		strlist_push(&root, r ? r : roots->v[i]);
		free(r);
	}
	for (size_t i = 0; i < search->n; i++) {
		char *d = real_path_in(NULL, search->v[i]);
		bool ok = d != NULL;
		for (size_t j = 0; ok && j < priv.n; j++)
			ok = !inside(d, priv.v[j]) && !inside(priv.v[j], d);
		for (size_t j = 0; ok && j < root.n; j++)
			ok = !inside(root.v[j], d);
		if (ok && !strlist_has(out, d))
			strlist_push(out, d);
		free(d);
	}
	strlist_clear(&priv);
	strlist_clear(&root);
}

/* Skips blanks and the comments that open and close on this line. */
static const char *skip_blank(const char *p)
{
	for (;;) {
		p += strspn(p, " \t\f\v\r");
		if (p[0] != '/' || p[1] != '*')
			return p;
		const char *e = strstr(p + 2, "*/");
		if (!e)
			return p;
		p = e + 2;
	}
}

bool includes_is_directive(const char *text)
{
	static const char *const names[] = {"include_next", "include", "import"};
	const char *p = skip_blank(text);

	if (*p == '#')
		p++;
	else if (!strncmp(p, "%:", 2))
		p += 2;
	else
		return false;
	p = skip_blank(p);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		size_t n = strlen(names[i]);
		if (!strncmp(p, names[i], n) && !ident_char(p[n]))
			return true;
	}
	return false;
}

/*
 * Line no of the file text, with the lines a backslash continues joined:
 * the logical line the preprocessor read there (allocated); NULL when the
 * file is shorter.
 */
static char *logical_line(const char *text, size_t no)
{
	const char *p = text;
	struct strbuf sb = STRBUF_INIT;

	for (size_t l = 1; p && l < no; l++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p || !*p)
		return NULL;
	for (;;) {
		size_t n = strcspn(p, "\n");
		size_t keep = n;
		while (keep && (p[keep - 1] == '\r'))
			keep--;
		bool more = keep && p[keep - 1] == '\\' && p[n] == '\n';
		strbuf_add(&sb, p, more ? keep - 1 : keep);
		if (!more)
			break;
		p += n + 1;
	}
	strbuf_addstr(&sb, "");
	return strbuf_detach(&sb);
}

/* A path shown to the student: in the course's folder or the work folder without them. */
static char *shown_path(const char *real, const struct include_rules *rules, const char *work)
{
	char *course = rules->course ? real_path_in(NULL, rules->course) : NULL;
	char *shown;

	if (course && inside(real, course) && strlen(real) > strlen(course))
		shown = xasprintf("the course's '%s'", real + strlen(course) + 1);
	else if (work && inside(real, work) && strlen(real) > strlen(work))
		shown = xasprintf("the work folder's '%s'", real + strlen(work) + 1);
	else
		shown = xasprintf("'%s'", real);
	free(course);
	return shown;
}

/* The line quoted in a message: blanks trimmed, at most 160 bytes. */
static char *quoted(const char *line)
{
	const char *t = line + strspn(line, " \t");
	size_t n = strlen(t);

	while (n && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\r'))
		n--;
	return xasprintf("%.*s", (int)(n > 160 ? 160 : n), t);
}

static void add_problem(struct strlist *problems, char *msg)
{
	if (!strlist_has(problems, msg) && problems->n < 20)
		strlist_push(problems, msg);
	free(msg);
}

/* The refusal of file (real path real, NULL: none) that in's #include led to, quoting line. */
static char *refusal(const struct scan_include *in, const char *real, const char *line,
		     const struct include_rules *rules, const char *work)
{
	char *shown = real ? shown_path(real, rules, work) : xasprintf("'%s'", in->file);
	char *q = line ? quoted(line) : NULL;
	char *what = xasprintf("reads %s%s, which a submission may not include: only its own files, "
			       "the lab's header %s, and the headers of the system and the CUDA "
			       "Toolkit", shown, real ? "" : " (no such file here)",
			       rules->header_name ? rules->header_name : "");
	char *msg = in->site && q ? xasprintf("%s:%zu: %s%s %s", in->site, in->site_line, q,
					      in->direct ? "" : " (through the headers it includes)",
					      what)
				  : xasprintf("the compiler %s", what);

	free(shown);
	free(q);
	free(what);
	return msg;
}

void includes_judge(const struct scan_includes *inc, const struct include_rules *rules,
		    struct strlist *problems)
{
	char *work = real_path_in(NULL, rules->workdir);
	/* "SITE:LINE" of the #include lines refused: a header a refused one
	 * includes in turn says nothing more */
	struct strlist refused = STRLIST_INIT;

	for (size_t i = 0; i < inc->n; i++) {
		const struct scan_include *in = &inc->v[i];
		char *real = real_path_in(rules->workdir, in->file);
		bool allowed = real && (strlist_has(rules->own, real) || strlist_has(rules->headers, real));
		for (size_t d = 0; real && !allowed && rules->system && d < rules->system->n; d++)
			allowed = inside(real, rules->system->v[d]);
		char *at = xasprintf("%s:%zu", in->site ? in->site : "", in->site_line);
		bool again = !allowed && in->site && strlist_has(&refused, at);
		/* the submission's line it was entered at: what every direct include
		 * is checked against, and what a refusal quotes */
		char *line = NULL;
		if (in->site && (in->direct || (!allowed && !again))) {
			char *site_real = real_path_in(rules->workdir, in->site);
			char *text = site_real && strlist_has(rules->own, site_real)
					     ? read_file(site_real, NULL) : NULL;
			line = text ? logical_line(text, in->site_line) : NULL;
			if (in->direct && text && (!line || !includes_is_directive(line))) {
				/* the compiler says it entered a file where the source has no #include */
				add_problem(problems, xasprintf("%s:%zu: a line marker of the submission's "
								"own (it names '%s' as entered here, "
								"where no #include is): submissions may "
								"not write line markers",
								in->site, in->site_line, in->file));
				again = true;
			}
			free(text);
			free(site_real);
		}
		if (!allowed && !again) {
			strlist_push(&refused, at);
			add_problem(problems, refusal(in, real, line, rules, work));
		}
		free(at);
		free(line);
		free(real);
	}
	strlist_clear(&refused);
	free(work);
}
