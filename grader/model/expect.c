/*
 * expect.c - holding a graded run to an expect file (expect.h).
 */
#include "expect.h"

#include "doc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Whether word is one of the '|'-separated alternatives of list. */
static bool one_of(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && !strncmp(p, word, n))
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

/*
 * line split as a shell's `read -r w1 ... wn rest` splits it: up to n words
 * into words (NULL-padded: each a new string), the rest, leading blanks
 * dropped, into *rest ("" when none). The caller frees them.
 */
static void split_line(const char *line, char **words, int n, char **rest)
{
	const char *p = line + strspn(line, " \t");

	for (int i = 0; i < n; i++) {
		size_t len = strcspn(p, " \t");
		words[i] = len ? xstrndup(p, len) : NULL;
		p += len;
		p += strspn(p, " \t");
	}
	size_t len = strlen(p);
	while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
		len--;
	*rest = xstrndup(p, len);
}

/* "a b c" from a and its rest, as `$a${b:+ $b}${text:+ $text}` makes it. */
static char *joined(char *const *words, int n, const char *rest)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < n; i++)
		if (words[i])
			strbuf_addf(&sb, "%s%s", sb.len ? " " : "", words[i]);
	if (*rest)
		strbuf_addf(&sb, "%s%s", sb.len ? " " : "", rest);
	return strbuf_detach(&sb);
}

static void finding(struct strlist *findings, bool *differs, const char *fmt, ...)
{
	va_list ap;
	char buf[2048];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	strlist_push(findings, buf);
	*differs = true;
}

/* The first line of s, at most 300 bytes of it, for a finding. */
static char *first_line(const char *s)
{
	size_t n = strcspn(s, "\n");
	return xstrndup(s, n > 300 ? 300 : n);
}

/* Whether a string anywhere in v (its keys' values, its items) holds what. */
static bool holds(json_t *v, const char *what)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_string(v))
		return strstr(json_string_value(v), what) != NULL;
	if (json_is_object(v)) {
		json_object_foreach(v, key, item)
			if (holds(item, what))
				return true;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			if (holds(item, what))
				return true;
	}
	return false;
}

/* Every text of the run but the submission's own path and files. */
static bool run_shows(json_t *doc, const char *what)
{
	json_t *copy = json_deep_copy(doc);
	bool found;

	json_object_del(copy, "submission");
	json_object_del(copy, "files");
	found = holds(copy, what);
	json_decref(copy);
	return found;
}

static void check_conceals(json_t *doc, const char *what, const struct expect_context *cx,
			   struct strlist *findings, bool *differs)
{
	if (!strcmp(what, "root")) {
		if (!cx->root || !*cx->root)
			finding(findings, differs, "conceals root: no checkout to look for");
		else if (run_shows(doc, cx->root))
			finding(findings, differs, "the run names the grader's checkout (%s)", cx->root);
		return;
	}
	if (strcmp(what, "secrets")) {
		finding(findings, differs, "conceals what? '%s'", what);
		return;
	}
	bool any = false;
	for (const char *const *s = cx->secrets; s && *s; s++) {
		if (!**s)
			continue;
		any = true;
		if (run_shows(doc, *s) || (cx->report && strstr(cx->report, *s)))
			finding(findings, differs, "the run shows one of the grader's secrets");
	}
	if (!any)
		finding(findings, differs, "conceals secrets: no secret to look for here");
}

/* Whether text holds a control character but newline and tab (C0, DEL, C1). */
static bool has_control(const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f ||
		    (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return true;
	return false;
}

/* The exit codes that list allows, as an emulated run reads them: 0 and 1 are 4. */
static char *emulated_codes(const char *list)
{
	char *out = xstrdup(list);

	for (char *p = out; *p; p++) {
		bool alone = (p == out || p[-1] == '|') && (p[1] == '|' || !p[1]);
		if (alone && (*p == '0' || *p == '1'))
			*p = '4';
	}
	return out;
}

/* A "PART TEST STATUS [TEXT]" line. */
static void check_test(json_t *doc, const char *part, const char *name, const char *status,
		       const char *text, bool emulated, struct strlist *findings, bool *differs)
{
	json_t *tests = json_object_get(doc, "tests"), *t;
	bool built = doc_built(doc);
	size_t i, selected = 0, named = 0, timed = 0;

	json_array_foreach(tests, i, t)
		if (!strcmp(doc_str(t, "part"), part) && !strcmp(doc_str(t, "name"), name)) {
			named++;
			timed += !strcmp(doc_str(t, "kind"), "timing");
		}
	/* emulated, a timed kernel of a built submission is never run, unless its
	 * part failed a test: then it is "not timed" anywhere */
	if (emulated && strcmp(name, "*") && built && named && timed == named &&
	    strncmp(text, "not timed", 9)) {
		status = "not-run";
		text = "timing needs a GPU";
	}
	json_array_foreach(tests, i, t) {
		if (strcmp(doc_str(t, "part"), part))
			continue;
		if (!strcmp(name, "*") ? strcmp(doc_str(t, "kind"), "correctness")
				       : strcmp(doc_str(t, "name"), name))
			continue;
		selected++;
		const char *got = doc_str(t, "status"), *message = doc_str(t, "message");
		char *said = first_line(message);
		if (!one_of(status, got))
			finding(findings, differs, "%s/%s is %s, expected %s: %s", part,
				doc_str(t, "name"), got, status, said);
		if (*text && !strstr(message, text))
			finding(findings, differs, "%s/%s message lacks '%s': %s", part,
				doc_str(t, "name"), text, said);
		free(said);
	}
	if (!selected)
		finding(findings, differs, "no test %s/%s", part, name);
}

bool expect_says(const char *expect, const char *word)
{
	size_t n = strlen(word);

	for (const char *l = expect; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		l += strspn(l, " \t");
		size_t len = strcspn(l, "\n");
		while (len && strchr(" \t\r", l[len - 1]))
			len--;
		if (len == n && !strncmp(l, word, n))
			return true;
	}
	return false;
}

enum expect_outcome expect_check(json_t *doc, const char *expect,
				 const struct expect_context *cx, struct strlist *findings)
{
	bool differs = false;
	bool emulated = !strcmp(doc_str(doc, "mode"), "emulated");
	json_t *build = json_object_get(doc, "build"), *sandbox = json_object_get(doc, "sandbox");
	char *copy, *save = NULL;

	if (expect_says(expect, "sandboxed") && strcmp(doc_str(sandbox, "kind"), "bubblewrap")) {
		const char *why = doc_str(sandbox, "reason");
		strlist_pushf(findings, "unsandboxed here (%s): only the sandbox contains it",
			      *why ? why : "?");
		return EXPECT_SKIPPED;
	}
	copy = xstrdup(expect);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *w[3], *rest;
		split_line(line, w, 3, &rest);
		const char *kind = w[0] ? w[0] : "";
		if (!*kind || *kind == '#' || !strcmp(kind, "sandboxed") ||
		    !strcmp(kind, "processes-limited")) {
			/* a comment, or a line of what the sandbox or the test script decides */
		} else if (!strcmp(kind, "conceals")) {
			char *what = joined(w + 1, 2, rest);
			check_conceals(doc, what, cx, findings, &differs);
			free(what);
		} else if (!strcmp(kind, "no-control")) {
			if (!cx->report)
				finding(findings, &differs, "no-control: no report of the run to look at");
			else if (has_control(cx->report))
				finding(findings, &differs, "the report carries control characters");
		} else if (!strcmp(kind, "memory-limited")) {
			if (!(doc_num(sandbox, "memory_limit") > 0))
				finding(findings, &differs, "no memory limit: the run names none");
		} else if (!strcmp(kind, "exit")) {
			json_t *code = json_object_get(doc, "exit_code");
			char got[32];
			snprintf(got, sizeof(got), "%lld", (long long)json_integer_value(code));
			char *want = emulated ? emulated_codes(w[1] ? w[1] : "") : xstrdup(w[1] ? w[1] : "");
			if (!json_is_integer(code) || !one_of(want, got))
				finding(findings, &differs, "exit code %s, expected %s", got, want);
			free(want);
		} else if (!strcmp(kind, "build")) {
			const char *got = doc_str(build, "status");
			char *text = joined(w + 2, 1, rest);
			if (!one_of(w[1] ? w[1] : "", got))
				finding(findings, &differs, "build %s, expected %s", got, w[1] ? w[1] : "");
			if (*text && !strstr(doc_str(build, "message"), text))
				finding(findings, &differs, "build message lacks '%s': %s", text,
					doc_str(build, "message"));
			free(text);
		} else if (!strcmp(kind, "log")) {
			char *text = joined(w + 1, 2, rest);
			if (!strstr(doc_str(build, "log"), text))
				finding(findings, &differs, "build log lacks '%s'", text);
			free(text);
		} else if (!w[1] || !w[2]) {
			finding(findings, &differs, "a line this file cannot mean: '%s'", line);
		} else {
			check_test(doc, kind, w[1], w[2], rest, emulated, findings, &differs);
		}
		for (int i = 0; i < 3; i++)
			free(w[i]);
		free(rest);
	}
	free(copy);
	return differs ? EXPECT_DIFFERS : EXPECT_HOLDS;
}
