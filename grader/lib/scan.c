/*
 * scan.c - judges a submission's preprocessed source (see scan.h).
 *
 * Owns: the tokens of the submission's own lines, and what the linemarkers
 * say was included. The preprocessed text holds every header too; its
 * linemarkers (# LINE "FILE" FLAGS) say which lines are the student's and
 * which files the compiler entered. Intake refuses a submission that writes
 * linemarkers or #line of its own (a check that errs towards refusing), and
 * scan_includes() refuses what such a directive leaves in the text, so these
 * cannot lie. Macros are already expanded here: a `#define X __asm__` shows
 * up as the __asm__ it hides.
 */
#include "scan.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PROBLEMS 20

enum tok_kind { T_IDENT, T_PUNCT, T_OTHER };

struct token {
	enum tok_kind kind;
	const char *s;
	size_t len;
	const char *file;   /* points into the linemarker; not terminated */
	size_t file_len, line;
};

struct tokens {
	struct token *v;
	size_t n, alloc;
};

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static bool is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool tok_is(const struct token *t, const char *s)
{
	return t->len == strlen(s) && !strncmp(t->s, s, t->len);
}

int scan_parse_asm_policy(const char *s)
{
	return !strcmp(s, "no") ? ASM_NO : !strcmp(s, "device") ? ASM_DEVICE :
	       !strcmp(s, "yes") ? ASM_YES : -1;
}

/*
 * Whether the linemarker's file (len bytes at f) is one of the submission's
 * sources: by its name, "./" and its name, or dir, '/' and its name.
 */
static bool is_submission(const char *f, size_t len, const struct scan_rules *rules)
{
	const struct strlist *files = rules->files;
	size_t dl = rules->dir ? strlen(rules->dir) : 0;

	if (len > 2 && !strncmp(f, "./", 2)) {
		f += 2;
		len -= 2;
	} else if (dl && len > dl + 1 && !strncmp(f, rules->dir, dl) && f[dl] == '/') {
		f += dl + 1;
		len -= dl + 1;
	}
	for (size_t i = 0; files && i < files->n; i++)
		if (strlen(files->v[i]) == len && !strncmp(files->v[i], f, len))
			return true;
	return false;
}

/* Whether the n bytes at s are a prefix that opens a raw string literal before '"'. */
static bool raw_prefix(const char *s, size_t n)
{
	static const char *const prefixes[] = {"R", "LR", "uR", "UR", "u8R"};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (strlen(prefixes[i]) == n && !strncmp(s, prefixes[i], n))
			return true;
	return false;
}

/* The end of the string or character literal that opens at p (at its quote). */
static const char *skip_quoted(const char *p, const char *end, size_t *line)
{
	char q = *p++;
	while (p < end && *p != q) {
		if (*p == '\\' && p + 1 < end)
			p++;
		if (*p == '\n')
			(*line)++;
		p++;
	}
	return p < end ? p + 1 : end;
}

/* The end of the raw string R"delim( ... )delim" whose quote is at p. */
static const char *skip_raw(const char *p, const char *end, size_t *line)
{
	const char *open = ++p;
	while (p < end && *p != '(' && *p != '\n' && p - open < 16)
		p++;
	size_t dlen = (size_t)(p - open);
	for (; p < end; p++) {
		if (*p == '\n')
			(*line)++;
		if (*p == ')' && (size_t)(end - p) > dlen + 1 && !strncmp(p + 1, open, dlen) &&
		    p[1 + dlen] == '"')
			return p + dlen + 2;
	}
	return end;
}

/* A linemarker's flags: entering a file, returning to one, a system header. */
enum { LM_ENTER = 1, LM_LEAVE = 2, LM_SYSTEM = 4 };

/*
 * Parses a linemarker "# 12 "file" flags" or "#line 12 "file"" at p; false
 * if it is none. Sets *flags (LM_*) when flags is not NULL.
 */
static bool linemarker(const char *p, const char *eol, size_t *line, const char **file,
		       size_t *file_len, int *flags)
{
	p++;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if (eol - p > 4 && !strncmp(p, "line", 4) && (p[4] == ' ' || p[4] == '\t'))
		p += 5;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= eol || *p < '0' || *p > '9')
		return false;
	size_t n = 0;
	while (p < eol && *p >= '0' && *p <= '9')
		n = n * 10 + (size_t)(*p++ - '0');
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if (p < eol && *p == '"') {
		const char *f = ++p;
		while (p < eol && *p != '"')
			p += *p == '\\' ? 2 : 1;
		*file = f;
		*file_len = (size_t)((p < eol ? p : eol) - f);
		p += p < eol;
	}
	if (flags) {
		*flags = 0;
		while (p < eol) {
			if (*p == '1' || *p == '2' || *p == '3')
				*flags |= *p == '1' ? LM_ENTER : *p == '2' ? LM_LEAVE : LM_SYSTEM;
			p++;
		}
	}
	*line = n;
	return true;
}

/* The tokens of the submission's own lines, in order. */
static void tokenize(const char *text, size_t len, const struct scan_rules *rules,
		     struct tokens *out)
{
	const char *p = text, *end = text + len, *file = "";
	size_t file_len = 0, line = 1;
	bool mine = false, at_bol = true;

	while (p < end) {
		char c = *p;
		if (c == '\n') {
			line++;
			p++;
			at_bol = true;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			p++;
			continue;
		}
		if (c == '#' && at_bol) {   /* a linemarker, or a #pragma: never code */
			const char *eol = memchr(p, '\n', (size_t)(end - p));
			eol = eol ? eol : end;
			if (linemarker(p, eol, &line, &file, &file_len, NULL)) {
				mine = is_submission(file, file_len, rules);
				line--;   /* the marker names the next line */
			}
			p = eol;
			continue;
		}
		at_bol = false;
		struct token t = {T_OTHER, p, 0, file, file_len, line};
		size_t l0 = line;
		if (is_ident_start(c)) {
			while (p < end && is_ident_char(*p))
				p++;
			t.kind = T_IDENT;
			size_t n = (size_t)(p - t.s);
			if (p < end && (*p == '"' || *p == '\'')) {   /* an encoding prefix or raw string */
				bool raw = *p == '"' && raw_prefix(t.s, n);
				bool prefix = raw || (n <= 2 && strchr("LuU8", t.s[0]));
				if (prefix) {
					p = raw ? skip_raw(p, end, &line) : skip_quoted(p, end, &line);
					t.kind = T_OTHER;
				}
			}
		} else if (c >= '0' && c <= '9') {
			while (p < end && (is_ident_char(*p) || *p == '.' || *p == '\'' ||
					   ((*p == '+' || *p == '-') && strchr("eEpP", p[-1]))))
				p++;
		} else if (c == '"' || c == '\'') {
			p = skip_quoted(p, end, &line);
		} else if (end - p >= 2 && ((c == ':' && p[1] == ':') || (c == '[' && p[1] == '[') ||
					    (c == ']' && p[1] == ']'))) {
			t.kind = T_PUNCT;
			p += 2;
		} else {
			t.kind = T_PUNCT;
			p++;
		}
		t.len = (size_t)(p - t.s);
		if (!mine)
			continue;
		t.line = l0;
		if (out->n == out->alloc) {
			out->alloc = out->alloc ? 2 * out->alloc : 1024;
			out->v = xrealloc(out->v, out->alloc * sizeof(*out->v));
		}
		out->v[out->n++] = t;
	}
}

static void problem(struct strlist *problems, const struct token *t, const char *fmt,
		    const char *what)
{
	char *msg = xasprintf(fmt, what);
	char *line = xasprintf("%.*s:%zu: %s", (int)t->file_len, t->file, t->line, msg);
	free(msg);
	if (!strlist_has(problems, line) && problems->n < MAX_PROBLEMS)
		strlist_push(problems, line);
	free(line);
}

/* Attributes with which code or data could be put where the audit does not look. */
static const char *const placing_attributes[] = {
	"section", "naked", "ifunc", "alias", "weakref", "symver", "constructor",
	"destructor", "init_priority", "target_clones", NULL,
};

/*
 * Attributes that switch off the instrumentation of the emulator's checking
 * builds (AddressSanitizer, the trace build's hooks) for a function: code
 * that would then go unchecked there alone.
 */
static const char *const unchecked_attributes[] = {
	"no_sanitize", "no_sanitize_address", "no_sanitize_thread", "no_sanitize_undefined",
	"no_address_safety_analysis", "no_sanitize_coverage", "disable_sanitizer_instrumentation",
	NULL,
};

/* "__section__" is "section" */
static bool attribute_is(const struct token *t, const char *name)
{
	size_t n = strlen(name);
	if (tok_is(t, name))
		return true;
	return t->len == n + 4 && !strncmp(t->s, "__", 2) && !strncmp(t->s + 2, name, n) &&
	       !strncmp(t->s + 2 + n, "__", 2);
}

/*
 * The attribute list opening at v[i] (`__attribute__ ((...))` or `[[...]]`):
 * sets *device / *host from device, global, host; reports placing attributes.
 * Returns the index past it.
 */
static size_t attribute_list(const struct token *v, size_t n, size_t i, bool *device,
			     bool *host, struct strlist *problems)
{
	bool brackets = tok_is(&v[i], "[[");
	int depth = 0;

	for (i++; i < n; i++) {
		const struct token *t = &v[i];
		if (brackets && tok_is(t, "]]"))
			return i + 1;
		if (tok_is(t, "("))
			depth++;
		else if (tok_is(t, ")") && --depth <= 0 && !brackets)
			return i + 1;
		else if (t->kind == T_IDENT && (depth == 2 || brackets)) {
			if (attribute_is(t, "device") || attribute_is(t, "global"))
				*device = true;
			else if (attribute_is(t, "host"))
				*host = true;
			for (size_t a = 0; placing_attributes[a]; a++)
				if (attribute_is(t, placing_attributes[a]))
					problem(problems, t, "attribute '%s' places code or data by hand, "
						"which submissions may not do", placing_attributes[a]);
			for (size_t a = 0; unchecked_attributes[a]; a++)
				if (attribute_is(t, unchecked_attributes[a]))
					problem(problems, t, "attribute '%s' turns off the checks of the "
						"emulator's checking builds, which submissions may not do",
						unchecked_attributes[a]);
		}
	}
	return n;
}

/* The name that starts at v[i], qualified (std::thread) when it is; *next: past it. */
static char *qualified_name(const struct token *v, size_t n, size_t i, size_t *next)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add(&sb, v[i].s, v[i].len);
	while (i + 2 < n && tok_is(&v[i + 1], "::") && v[i + 2].kind == T_IDENT) {
		strbuf_addstr(&sb, "::");
		strbuf_add(&sb, v[i + 2].s, v[i + 2].len);
		i += 2;
	}
	*next = i + 1;
	return strbuf_detach(&sb);
}

/*
 * The inline assembly statement at v[i] (asm, its qualifiers, its
 * parenthesised operands) as "FILE:LINE: tokens", one space between tokens:
 * the same statement in two passes has the same key, whatever their spacing.
 */
static char *asm_key(const struct token *v, size_t n, size_t i, const struct scan_rules *rules)
{
	struct strbuf sb = STRBUF_INIT;
	const char *f = v[i].file;
	size_t fl = v[i].file_len, dl = rules->dir ? strlen(rules->dir) : 0;
	int depth = 0;

	/* a file of the submission's by its name alone, however the pass named it */
	if (fl > 2 && !strncmp(f, "./", 2))
		f += 2, fl -= 2;
	else if (dl && fl > dl + 1 && !strncmp(f, rules->dir, dl) && f[dl] == '/')
		f += dl + 1, fl -= dl + 1;
	strbuf_addf(&sb, "%.*s:%zu:", (int)fl, f, v[i].line);
	for (; i < n; i++) {
		strbuf_addstr(&sb, " ");
		strbuf_add(&sb, v[i].s, v[i].len);
		if (tok_is(&v[i], "("))
			depth++;
		else if (tok_is(&v[i], ")") && --depth <= 0)
			break;
		else if (depth <= 0 && (tok_is(&v[i], ";") || tok_is(&v[i], "{")))
			break;
	}
	return strbuf_detach(&sb);
}

void scan_preprocessed(const char *text, size_t len, bool host_pass,
		       const struct scan_rules *rules, struct strlist *problems)
{
	struct tokens tk = {0};
	/* brace depth; the depth inside which code is for the GPU alone (-1: none) */
	long depth = 0, device_from = -1;
	bool decl_device = false, decl_host = false;

	tokenize(text, len, rules, &tk);
	for (size_t i = 0; i < tk.n;) {
		const struct token *t = &tk.v[i];
		if (tok_is(t, "__attribute__") || tok_is(t, "__attribute") || tok_is(t, "[[")) {
			i = attribute_list(tk.v, tk.n, i, &decl_device, &decl_host, problems);
			continue;
		}
		if (tok_is(t, "{")) {
			if (device_from < 0 && decl_device && !decl_host)
				device_from = depth;
			depth++;
			decl_device = decl_host = false;
		} else if (tok_is(t, "}")) {
			if (--depth <= device_from)
				device_from = -1;
			decl_device = decl_host = false;
		} else if (tok_is(t, ";")) {
			decl_device = decl_host = false;
		}
		if (t->kind != T_IDENT) {
			i++;
			continue;
		}
		if (tok_is(t, "asm") || tok_is(t, "__asm") || tok_is(t, "__asm__")) {
			bool gpu_only = !rules->emulated && (!host_pass || device_from >= 0);
			char *key = asm_key(tk.v, tk.n, i, rules);
			if (rules->emulated)
				gpu_only = rules->device_asm && strlist_has(rules->device_asm, key);
			else if (gpu_only && rules->device_asm && !strlist_has(rules->device_asm, key))
				strlist_push(rules->device_asm, key);
			free(key);
			if (rules->inline_asm == ASM_NO)
				problem(problems, t, "inline assembly ('%s'): submissions to this lab may "
					"not use any", "asm");
			else if (rules->inline_asm == ASM_DEVICE && !gpu_only)
				problem(problems, t, "inline assembly ('%s') in code compiled for the host: "
					"this lab allows it only in __device__ and __global__ functions",
					"asm");
			i++;
			continue;
		}
		size_t next;
		char *name = qualified_name(tk.v, tk.n, i, &next);
		const char *last = strrchr(name, ':');
		last = last ? last + 1 : name;
		if (rules->checked_barrier &&
		    (!strcmp(name, "__syncthreads") || !strcmp(name, "__syncthreads_count") ||
		     !strcmp(name, "__syncthreads_and") || !strcmp(name, "__syncthreads_or") ||
		     !strcmp(name, "__barrier_sync")))
			problem(problems, t, "'%s' is not the lab's checked barrier here (an #undef or "
				"#define of it): this lab checks that every thread of a block reaches "
				"each barrier, so call it as it is", name);
		else if (strlist_matches(rules->forbid_names, name) ||
			 strlist_matches(rules->forbid_names, last))
			problem(problems, t, "uses '%s', which submissions to this lab may not use", name);
		else if (next < tk.n && tok_is(&tk.v[next], "(") &&
			 (strlist_matches(rules->forbid_calls, name) || strlist_matches(rules->forbid_calls, last)))
			problem(problems, t, "calls '%s', which submissions to this lab may not use", last);
		free(name);
		i = next;
	}
	free(tk.v);
}

/* A linemarker's file name (len bytes at f, as GCC escapes it: \\, \", \ooo), unescaped. */
static char *marker_name(const char *f, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < len; i++) {
		char c = f[i];
		if (c == '\\' && i + 1 < len) {
			c = f[++i];
			if (c >= '0' && c <= '7') {
				int v = 0;
				for (int k = 0; k < 3 && i < len && f[i] >= '0' && f[i] <= '7'; k++)
					v = v * 8 + (f[i++] - '0');
				i--;
				c = (char)v;
			}
		}
		strbuf_add(&sb, &c, 1);
	}
	strbuf_addstr(&sb, "");
	return strbuf_detach(&sb);
}

/* One file the preprocessor is in, as the linemarkers nest them. */
struct frame {
	char *name;
	bool mine;          /* one of the submission's files */
	char *site;         /* the innermost file of the submission's around it, and */
	size_t site_line;   /* the line of that file's #include that led here */
};

void scan_includes(const char *text, size_t len, const struct scan_rules *rules,
		   struct scan_includes *out, struct strlist *problems)
{
	const char *p = text, *end = text + len;
	struct frame *stack = NULL;
	size_t depth = 0, alloc = 0, line = 1;
	/* over once the root is named a file of the submission's from its line 1 on:
	 * before, the compiler renames it itself (<built-in>, <command-line>) */
	bool prologue = true;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *f;
		size_t n, fl;
		int flags;
		eol = eol ? eol : end;
		if (*p != '#' || !linemarker(p, eol, &n, &f, &fl, &flags) || !f) {
			line++;
			p = eol + (eol < end);
			continue;
		}
		char *name = marker_name(f, fl);
		bool mine = is_submission(f, fl, rules);
		if (!depth || (flags & LM_ENTER)) {
			/* the root's first marker, or a file entered */
			if (depth == alloc) {
				alloc = alloc ? 2 * alloc : 16;
				stack = xrealloc(stack, alloc * sizeof(*stack));
			}
			struct frame *parent = depth ? &stack[depth - 1] : NULL;
			struct frame *fr = &stack[depth++];
			fr->name = name;
			fr->mine = mine;
			fr->site = parent ? (parent->mine ? parent->name : parent->site) : NULL;
			fr->site_line = parent ? (parent->mine ? line : parent->site_line) : 0;
			if (parent) {
				if (out->n == out->alloc) {
					out->alloc = out->alloc ? 2 * out->alloc : 64;
					out->v = xrealloc(out->v, out->alloc * sizeof(*out->v));
				}
				out->v[out->n++] = (struct scan_include){
					xstrdup(name), fr->site ? xstrdup(fr->site) : NULL, fr->site_line,
					parent->mine};
			}
		} else if (flags & LM_LEAVE) {
			/* back in the file that included this one (GCC checks the name) */
			if (depth > 1)
				free(stack[--depth].name);
			free(name);
		} else if (strcmp(name, stack[depth - 1].name)) {
			/* the same file under another name: #line N "name" */
			struct frame *fr = &stack[depth - 1];
			if (fr->mine && !prologue) {
				char *msg = xasprintf("%s:%zu: '#line' gives the code after it the name "
						      "of another file ('%s'), which submissions may not do",
						      fr->name, line, name);
				if (!strlist_has(problems, msg) && problems->n < MAX_PROBLEMS)
					strlist_push(problems, msg);
				free(msg);
			}
			free(fr->name);
			fr->name = name;
			fr->mine = mine;
		} else {
			free(name);   /* the same file, another line */
		}
		if (depth == 1 && stack[0].mine && n >= 1)
			prologue = false;
		line = n;
		p = eol + (eol < end);
	}
	while (depth)
		free(stack[--depth].name);
	free(stack);
}

void scan_includes_release(struct scan_includes *inc)
{
	for (size_t i = 0; i < inc->n; i++) {
		free(inc->v[i].file);
		free(inc->v[i].site);
	}
	free(inc->v);
	memset(inc, 0, sizeof(*inc));
}
