/*
 * rewrite.c - the source rewriting of the CPU emulation (see rewrite.h).
 *
 * Owns: finding launches and shared-memory declarations in CUDA source.
 * Works on tokens as far as it needs to: it knows comments, string,
 * character and raw string literals, bracket nesting, and which braces open
 * a namespace rather than a function; it does not parse C++ (what the
 * kernel's template arguments are is left to the compiler: cudaemu.h).
 */
#include "rewrite.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* For each byte: is it code (not inside a comment or a literal)? */
static char *code_map(const char *s, size_t n)
{
	char *code = xcalloc(n + 1, 1);
	size_t i = 0;

	while (i < n) {
		if (s[i] == '/' && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
		} else if (s[i] == '/' && s[i + 1] == '*') {
			const char *end = strstr(s + i + 2, "*/");
			i = end ? (size_t)(end - s) + 2 : n;
		} else if (s[i] == 'R' && s[i + 1] == '"' && (i == 0 || !isalnum((unsigned char)s[i - 1]))) {
			/* R"delim( ... )delim" */
			size_t d = i + 2, dl = strcspn(s + d, "(");
			char close[40];
			if (dl < 16) {
				snprintf(close, sizeof(close), ")%.*s\"", (int)dl, s + d);
				const char *end = strstr(s + d + dl, close);
				i = end ? (size_t)(end - s) + strlen(close) : n;
			} else {
				code[i++] = 1;
			}
		} else if (s[i] == '"' || (s[i] == '\'' && !(i && isxdigit((unsigned char)s[i - 1]) &&
							      isxdigit((unsigned char)s[i + 1])))) {
			/* a literal; a ' between hex digits is a C++14 digit separator */
			char q = s[i++];
			while (i < n && s[i] != q && s[i] != '\n')
				i += s[i] == '\\' ? 2 : 1;
			i++;
		} else {
			code[i++] = 1;
		}
	}
	return code;
}

/* Whether the word w (a whole identifier) starts at s + i. */
static bool word_at(const char *s, size_t i, const char *w)
{
	size_t n = strlen(w);
	return !strncmp(s + i, w, n) && !ident_char(s[i + n]) && (i == 0 || !ident_char(s[i - 1]));
}

/* Whether the word w ends just before position j. */
static bool word_before(const char *s, size_t j, const char *w)
{
	size_t n = strlen(w);
	return j >= n && !strncmp(s + j - n, w, n) && (j == n || !ident_char(s[j - n - 1]));
}

/* Start of the kernel expression that ends just before position end:
 * `k`, `ns::k`, `k<float, 16>`, `ns::k<T>`. Returns end when there is none. */
static size_t kernel_start(const char *s, const char *code, size_t end)
{
	size_t i = end;

	while (i > 0 && isspace((unsigned char)s[i - 1]))
		i--;
	for (;;) {
		if (i > 0 && s[i - 1] == '>' && code[i - 1]) {   /* template arguments */
			int depth = 0;
			while (i > 0) {
				char c = s[--i];
				if (!code[i])
					continue;
				depth += c == '>' || c == ')' ? 1 : c == '<' || c == '(' ? -1 : 0;
				if (depth == 0)
					break;
			}
			while (i > 0 && isspace((unsigned char)s[i - 1]))
				i--;
		}
		size_t id_end = i;
		while (i > 0 && ident_char(s[i - 1]))
			i--;
		if (i == id_end)
			return end;
		if (i >= 2 && s[i - 1] == ':' && s[i - 2] == ':') {
			i -= 2;
			continue;
		}
		return isdigit((unsigned char)s[i]) ? end : i;
	}
}

/*
 * The end of the chevron token c c c at i (`<<<` or `>>>`), spelled as nvcc
 * takes it: the last of the three may stand apart from the first two, after
 * blanks or comments (`k<< <grid, block >> >(...)`, as the Visual Studio
 * template and some formatters write a launch). Lines that nvcc would not
 * join are taken too: nvcc has compiled the source first. 0 when there is
 * none at i.
 */
static size_t chevrons(const char *s, const char *code, size_t n, size_t i, char c)
{
	if (i + 2 >= n || s[i] != c || s[i + 1] != c || !code[i] || !code[i + 1])
		return 0;
	for (i += 2; i < n;) {
		if (isspace((unsigned char)s[i])) {
			i++;
		} else if (!code[i] && s[i] == '/' && (s[i + 1] == '*' || s[i + 1] == '/')) {
			const char *end = s[i + 1] == '*' ? strstr(s + i + 2, "*/") : NULL;
			i = end ? (size_t)(end - s) + 2 : i + strcspn(s + i, "\n");
		} else {
			break;
		}
	}
	return i < n && s[i] == c && code[i] ? i + 1 : 0;
}

/* Keeps the line breaks of s[from, to) in out, so that lines stay where they were. */
static void add_newlines(struct strbuf *out, const char *s, size_t from, size_t to)
{
	for (size_t t = from; t < to; t++)
		if (s[t] == '\n')
			strbuf_addstr(out, "\n");
}

/*
 * Where the `>>>` that closes the launch configuration from start ends, or
 * 0; *close is set to where it begins.
 */
static size_t config_end(const char *s, const char *code, size_t n, size_t start, size_t *close)
{
	int depth = 0;

	for (size_t i = start; i < n; i++) {
		size_t end;
		if (!code[i])
			continue;
		if (strchr("([{", s[i]))
			depth++;
		else if (strchr(")]}", s[i]))
			depth--;
		else if (depth == 0 && (end = chevrons(s, code, n, i, '>'))) {
			*close = i;
			return end;
		}
		if (depth < 0)
			return 0;
	}
	return 0;
}

static void add_escaped(struct strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '"' || c == '\\')
			strbuf_addf(out, "\\%c", c);
		else if (!isspace((unsigned char)c))
			strbuf_add(out, &c, 1);
		else if (out->len && out->buf[out->len - 1] != ' ' && out->buf[out->len - 1] != '"')
			strbuf_addstr(out, " ");
	}
}

/*
 * `extern __shared__ T name[];` at i (pointing at "extern"): its rewrite, or
 * 0. In a function, a pointer to the running block's dynamic shared memory.
 * Outside every function (file_scope) no block runs when it is initialised,
 * so it becomes a pointer of each OS thread, which the runtime points at the
 * block's dynamic shared memory before the block runs (CUDAEMU_FILE_SHARED).
 */
static size_t dyn_shared(const char *s, const char *code, size_t n, size_t i, bool file_scope,
			 struct strbuf *out)
{
	size_t p = i + 6, semi, close, open, name_end, name_start, type_start;

	while (p < n && isspace((unsigned char)s[p]))
		p++;
	if (!word_at(s, p, "__shared__"))
		return 0;
	type_start = p + 10;
	for (semi = type_start; semi < n && !(code[semi] && s[semi] == ';'); semi++)
		;
	if (semi == n)
		return 0;
	close = semi;
	while (close > type_start && isspace((unsigned char)s[close - 1]))
		close--;
	if (close <= type_start || s[close - 1] != ']')
		return 0;
	open = close - 1;
	while (open > type_start && s[open] != '[')
		open--;
	name_end = open;
	while (name_end > type_start && isspace((unsigned char)s[name_end - 1]))
		name_end--;
	name_start = name_end;
	while (name_start > type_start && ident_char(s[name_start - 1]))
		name_start--;
	if (name_start == name_end)
		return 0;

	/* the type, without any __align__(n) */
	struct strbuf type = STRBUF_INIT;
	for (size_t t = type_start; t < name_start; t++) {
		if (!strncmp(s + t, "__align__", 9)) {
			t = strchr(s + t, ')') ? (size_t)(strchr(s + t, ')') - s) : t;
			continue;
		}
		if (s[t] != '\n')
			strbuf_add(&type, s + t, 1);
	}
	int len = (int)(name_end - name_start);
	if (file_scope)
		strbuf_addf(out, "static __thread %s *%.*s; CUDAEMU_FILE_SHARED(%.*s);", type.buf,
			    len, s + name_start, len, s + name_start);
	else
		strbuf_addf(out, "%s *const %.*s = (%s *)cudaemu_dyn_shmem();", type.buf, len,
			    s + name_start, type.buf);
	add_newlines(out, s, i, semi + 1);
	strbuf_release(&type);
	return semi + 1;
}

/*
 * One declarator `name[d1][d2]` of a shared declaration, in s[from, to):
 * where its name starts and ends and its dimensions end. false for any
 * other form (a pointer, an initialiser).
 */
static bool shared_declarator(const char *s, size_t from, size_t to, size_t *name_start,
			      size_t *name_end, size_t *dims)
{
	size_t e = to;

	while (e > from && isspace((unsigned char)s[e - 1]))
		e--;
	*dims = e;
	while (e > from && s[e - 1] == ']') {
		while (e > from && s[e - 1] != '[')
			e--;
		if (e == from)
			return false;
		e--;
		while (e > from && isspace((unsigned char)s[e - 1]))
			e--;
	}
	*name_end = e;
	while (e > from && ident_char(s[e - 1]))
		e--;
	*name_start = e;
	return *name_start < *name_end;
}

/*
 * `__shared__ T name[d1][d2], other[d];` inside a function body at i
 * (pointing at "__shared__"): for each declarator, a reference into the
 * block's shared-memory arena, laid out in the order the block reaches the
 * declarations, ending at a guard page as the GPU's shared memory ends. 0
 * (left to the macro) for any other form.
 */
static size_t static_shared(const char *s, const char *code, size_t n, size_t i,
			    struct strbuf *out)
{
	size_t p = i + 10, semi, cuts[17], ncuts = 0;
	int brackets = 0;

	cuts[ncuts++] = p;
	for (semi = p; semi < n && !(code[semi] && s[semi] == ';'); semi++) {
		if (!code[semi])
			continue;
		brackets += s[semi] == '[' ? 1 : s[semi] == ']' ? -1 : 0;
		if (s[semi] == ',' && !brackets) {
			if (ncuts == 16)
				return 0;
			cuts[ncuts++] = semi + 1;
		} else if (strchr("=(){}", s[semi])) {
			return 0;
		}
	}
	if (semi == n)
		return 0;
	cuts[ncuts] = semi + 1;   /* each piece ends one before the next cut */

	size_t name_start, name_end, dims;
	if (!shared_declarator(s, p, cuts[1] - 1, &name_start, &name_end, &dims) ||
	    name_start == p)
		return 0;
	struct strbuf type = STRBUF_INIT, d = STRBUF_INIT;
	for (size_t t = p; t < name_start; t++) {
		if (!strncmp(s + t, "__align__", 9) && strchr(s + t, ')')) {
			t = (size_t)(strchr(s + t, ')') - s);
			continue;
		}
		if (word_at(s, t, "volatile")) {
			t += strlen("volatile") - 1;   /* kept below, on the reference */
			continue;
		}
		if (s[t] != '\n')
			strbuf_add(&type, s + t, 1);
	}
	bool vol = memmem(s + p, name_start - p, "volatile", 8) != NULL, ok = true;
	for (size_t k = 0; k < ncuts && ok; k++) {
		if (k && !(ok = shared_declarator(s, cuts[k], cuts[k + 1] - 1, &name_start,
						  &name_end, &dims)))
			break;
		/* the later declarators are a bare name and dimensions */
		for (size_t t = cuts[k]; k && t < name_start; t++)
			ok &= isspace((unsigned char)s[t]) != 0;
		strbuf_reset(&d);
		for (size_t t = name_end; t < dims; t++)
			if (s[t] != '\n')
				strbuf_add(&d, s + t, 1);
		/* an array's reference needs parentheses, a scalar's none (g++
		 * warns of them, in the student's own build log) */
		const char *sub = d.len ? d.buf : "", *vq = vol ? "volatile " : "";
		int name_len = (int)(name_end - name_start);
		strbuf_addf(out, "%s%s %s%.*s%s%s = *(%s%s %s%s)cudaemu_static_shared(__COUNTER__, "
			    "sizeof(%s%s));", vq, type.buf, d.len ? "(&" : "&", name_len,
			    s + name_start, d.len ? ")" : "", sub, vq, type.buf, d.len ? "(*)" : "*",
			    sub, type.buf, sub);
	}
	strbuf_release(&type);
	strbuf_release(&d);
	if (!ok) {
		strbuf_reset(out);
		return 0;
	}
	add_newlines(out, s, i, semi + 1);
	return semi + 1;
}

/*
 * Whether the `{` at i opens a namespace (`namespace a::b {`, `namespace {`)
 * or a linkage block (`extern "C" {`): what is declared in it is still
 * outside every function.
 */
static bool opens_namespace(const char *s, const char *code, size_t i)
{
	size_t j = i;

	/* back over blanks and comments (not over a string literal) */
	while (j > 0 && (isspace((unsigned char)s[j - 1]) || (!code[j - 1] && s[j - 1] != '"')))
		j--;
	if (j > 0 && s[j - 1] == '"' && !code[j - 1]) {   /* extern "C" { */
		for (j--; j > 0 && !code[j - 1]; j--)
			;
		while (j > 0 && isspace((unsigned char)s[j - 1]))
			j--;
		return word_before(s, j, "extern");
	}
	if (word_before(s, j, "namespace"))
		return true;
	while (j > 0 && (ident_char(s[j - 1]) || s[j - 1] == ':'))
		j--;
	while (j > 0 && isspace((unsigned char)s[j - 1]))
		j--;
	return word_before(s, j, "namespace");
}

char *rewrite_cuda(const char *src, const char *name, char **why)
{
	size_t n = strlen(src), done = 0;
	char *code = code_map(src, n);
	struct strbuf out = STRBUF_INIT;
	/* the open braces, and which of them open a namespace (up to 256 deep):
	 * what is declared where only namespaces are open is at file scope */
	unsigned char ns[256];
	int depth = 0, inner = 0;

	*why = NULL;
	strbuf_addf(&out, "#line 1 \"%s\"\n", name);
	for (size_t i = 0; i < n; i++) {
		if (!code[i])
			continue;
		if (src[i] == '{') {
			bool is_ns = opens_namespace(src, code, i);
			if (depth < 256)
				ns[depth] = is_ns;
			depth++;
			inner += !is_ns;
		} else if (src[i] == '}' && depth > 0) {
			depth--;
			inner -= depth >= 256 || !ns[depth];
		}
		/* a declaration of shared memory: its rewrite replaces it */
		struct strbuf decl = STRBUF_INIT;
		size_t next = 0;
		if (inner > 0 && word_at(src, i, "__shared__"))
			next = static_shared(src, code, n, i, &decl);
		else if (word_at(src, i, "extern"))
			next = dyn_shared(src, code, n, i, inner == 0, &decl);
		if (next) {
			strbuf_add(&out, src + done, i - done);
			strbuf_add(&out, decl.buf, decl.len);
			done = i = next;
			i--;
		}
		strbuf_release(&decl);
		if (next)
			continue;
		size_t open_end = chevrons(src, code, n, i, '<'), before = i;
		while (before > 0 && isspace((unsigned char)src[before - 1]))
			before--;
		if (!open_end || word_before(src, before, "operator"))   /* operator<< <T> */
			continue;
		size_t start = kernel_start(src, code, i), close = 0, after;
		size_t end = config_end(src, code, n, open_end, &close);
		if (start == i || start < done) {
			*why = xasprintf("%s: a launch '<<<' without a kernel name before it", name);
			break;
		}
		if (!end) {
			*why = xasprintf("%s: a launch '<<<' without its closing '>>>'", name);
			break;
		}
		for (after = end; after < n && isspace((unsigned char)src[after]); after++)
			;
		if (src[after] != '(') {
			*why = xasprintf("%s: a launch '>>>' not followed by the kernel's arguments", name);
			break;
		}
		size_t expr_end = i;
		while (expr_end > start && isspace((unsigned char)src[expr_end - 1]))
			expr_end--;
		strbuf_add(&out, src + done, start - done);
		/* CUDAEMU_KERNEL (cudaemu.h) takes the kernel's address, or, for a
		 * template launched without its arguments, deduces them from the call */
		strbuf_addstr(&out, "cudaemu::launch(CUDAEMU_KERNEL(");
		strbuf_add(&out, src + start, expr_end - start);
		strbuf_addstr(&out, "), \"");
		add_escaped(&out, src + start, expr_end - start);
		strbuf_addstr(&out, "\", __FILE__, __LINE__, ");
		/* whatever stood between the kernel and <<<, and the configuration, verbatim */
		strbuf_add(&out, src + expr_end, i - expr_end);
		add_newlines(&out, src, i, open_end);
		strbuf_add(&out, src + open_end, close - open_end);
		add_newlines(&out, src, close, end);
		strbuf_addstr(&out, ")");
		done = i = end;
		i--;
	}
	free(code);
	if (*why) {
		strbuf_release(&out);
		return NULL;
	}
	strbuf_add(&out, src + done, n - done);
	return strbuf_detach(&out);
}

char *rewrite_find_asm(const char *src)
{
	size_t n = strlen(src);
	char *code = code_map(src, n), *found = NULL;
	int line = 1;

	for (size_t i = 0; i < n && !found; i++) {
		if (src[i] == '\n')
			line++;
		else if (code[i] && (word_at(src, i, "asm") || word_at(src, i, "__asm") ||
				     word_at(src, i, "__asm__"))) {
			size_t from = i, to = i + strcspn(src + i, "\n");
			while (from > 0 && src[from - 1] != '\n')
				from--;
			while (from < to && isspace((unsigned char)src[from]))
				from++;
			found = xasprintf("%d: %.*s", line, (int)(to - from), src + from);
		}
	}
	free(code);
	return found;
}
