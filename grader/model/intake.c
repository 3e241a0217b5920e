/*
 * intake.c - copies a submission's files into the work directory.
 *
 * Owns: every check on what a student handed in before the compiler sees it.
 * Files are opened relative to the submission directory with O_NOFOLLOW and
 * checked on the open descriptor, so a file swapped for a link between the
 * check and the copy is still refused.
 */
#include "intake.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void sha256_hex(const void *data, size_t len, char out[65])
{
	struct sha256_ctx ctx;
	uint8_t digest[SHA256_DIGEST_SIZE];

	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	sha256_digest(&ctx, sizeof(digest), digest);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		sprintf(out + 2 * i, "%02x", digest[i]);
}

static void refuse(struct intake *in, const char *fmt, const char *name, size_t a, size_t b)
{
	if (in->refusal)
		return;
	in->accepted = false;
	in->refusal = xasprintf(fmt, name, a, b);
}

static bool is_source_name(const char *name)
{
	static const char *const ext[] = {".cu", ".cuh", ".h", ".hpp", ".c", ".cc", ".cpp"};
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t e = strlen(ext[i]);
		if (n > e && !strcmp(name + n - e, ext[i]))
			return true;
	}
	return false;
}

/*
 * Whether the '"' at a[i] opens a raw string literal: the word before it is
 * exactly one of the prefixes R, LR, uR, UR, u8R (fooR"( is the identifier
 * fooR, which a macro may make nothing, and an ordinary string).
 */
static bool raw_string_at(const char *a, size_t i)
{
	static const char *const prefixes[] = {"R", "LR", "uR", "UR", "u8R"};
	size_t start = i;

	while (start > 0 && ident_char(a[start - 1]))
		start--;
	for (size_t k = 0; k < ARRAY_SIZE(prefixes); k++)
		if (i - start == strlen(prefixes[k]) && !strncmp(a + start, prefixes[k], i - start))
			return !(start > 0 && (a[start - 1] & 0x80));   /* not the end of a UTF-8 name */
	return false;
}

/*
 * The text as the preprocessor reads its directives: backslash-newlines
 * spliced, each comment one space, string literals kept. line[i] is the
 * source line of out[i].
 */
static char *logical_text(const char *text, size_t len, size_t **line_of, size_t *out_len)
{
	char *a = xmalloc(len + 1), *out = xmalloc(len + 1);
	size_t *la = xmalloc((len + 1) * sizeof(size_t)), *lo = xmalloc((len + 1) * sizeof(size_t));
	size_t n = 0, m = 0, line = 1;

	for (size_t i = 0; i < len; i++) {   /* splice */
		if (text[i] == '\\' && i + 1 < len && text[i + 1] == '\n') {
			i++;
			line++;
			continue;
		}
		la[n] = line;
		a[n++] = text[i];
		line += text[i] == '\n';
	}
	for (size_t i = 0; i < n; i++) {   /* comments out, literals kept */
		char c = a[i];
		if (c == '/' && i + 1 < n && (a[i + 1] == '/' || a[i + 1] == '*')) {
			size_t at = i;
			if (a[i + 1] == '/') {
				while (i + 1 < n && a[i + 1] != '\n')
					i++;
			} else {
				for (i += 2; i + 1 < n && !(a[i] == '*' && a[i + 1] == '/'); i++)
					;
				i++;
			}
			lo[m] = la[at];
			out[m++] = ' ';
			continue;
		}
		if (c == '"' || c == '\'') {
			size_t j = i + 1;
			if (c == '"' && raw_string_at(a, i)) {   /* R"delim( ... )delim" */
				size_t d = j;
				while (j < n && a[j] != '(' && j - d < 16)
					j++;
				size_t dl = j - d;
				while (j < n && !(a[j] == ')' && j + dl + 1 < n &&
						  !memcmp(a + j + 1, a + d, dl) && a[j + dl + 1] == '"'))
					j++;
				i = j + dl + 1;   /* its text may look like directives: one "" instead */
				lo[m] = la[d - 1];
				out[m++] = '"';
				lo[m] = la[d - 1];
				out[m++] = '"';
				continue;
			} else {
				for (; j < n && a[j] != c && a[j] != '\n'; j++)
					if (a[j] == '\\')
						j++;
			}
			for (size_t k = i; k <= j && k < n; k++) {
				lo[m] = la[k];
				out[m++] = a[k];
			}
			i = j;
			continue;
		}
		lo[m] = la[i];
		out[m++] = c;
	}
	out[m] = '\0';
	lo[m] = line;
	free(a);
	free(la);
	*line_of = lo;
	*out_len = m;
	return out;
}

/* Past the blanks and the comments (which may span lines) at a[i]. */
static size_t skip_blanks(const char *a, size_t n, size_t i)
{
	for (;;) {
		while (i < n && (a[i] == ' ' || a[i] == '\t' || a[i] == '\f' || a[i] == '\v' ||
				 a[i] == '\r'))
			i++;
		if (i + 1 >= n || a[i] != '/' || a[i + 1] != '*')
			return i;
		const char *e = memmem(a + i + 2, n - i - 2, "*/", 2);
		if (!e)
			return n;
		i = (size_t)(e - a) + 2;
	}
}

/*
 * A #line or linemarker (# 12 "file") anywhere it could be one: the source
 * scan trusts the preprocessor's linemarkers, so this check errs towards
 * refusing (and the same of #embed, whose file no linemarker would name).
 * It reads every '#', "%:" and "??=" that only blanks, comments or
 * the end of a comment ("*" "/") precede on its line, without deciding
 * whether a string or a comment holds it: a line that merely reads as one
 * inside a raw string is refused too, and no trick with literals (a macro
 * named fooR before "(", a comment the lexer misreads) hides a real one.
 * NULL, or why (allocated).
 */
static char *line_directive(const char *name, const char *src, size_t src_len)
{
	char *a = xmalloc(src_len + 1);
	size_t *line_of = xmalloc((src_len + 1) * sizeof(size_t)), n = 0, line = 1;
	char *why = NULL;

	for (size_t i = 0; i < src_len; i++) {   /* backslash-newlines spliced */
		if (src[i] == '\\' && i + 1 < src_len && src[i + 1] == '\n') {
			i++;
			line++;
			continue;
		}
		line_of[n] = line;
		a[n++] = src[i];
		line += src[i] == '\n';
	}
	for (size_t i = 0, bol = 0; i < n && !why; i++) {
		if (a[i] == '\n') {
			bol = i + 1;
			continue;
		}
		size_t mark = a[i] == '#' ? 1 : i + 1 < n && a[i] == '%' && a[i + 1] == ':' ? 2 :
			      i + 2 < n && a[i] == '?' && a[i + 1] == '?' && a[i + 2] == '=' ? 3 : 0;
		if (!mark)
			continue;
		bool first = skip_blanks(a, i, bol) == i ||
			     memmem(a + bol, i - bol, "*/", 2) != NULL;
		size_t p = skip_blanks(a, n, i + mark);
		if (!first || p >= n)
			continue;
		bool digit = a[p] >= '0' && a[p] <= '9';
		bool word = n - p >= 4 && !strncmp(a + p, "line", 4) && (p + 4 == n || !ident_char(a[p + 4]));
		/* C23's #embed reads a file as data, which no linemarker tells */
		bool embed = n - p >= 5 && !strncmp(a + p, "embed", 5) &&
			     (p + 5 == n || !ident_char(a[p + 5]));
		if (digit || word || embed) {
			size_t end = bol;
			while (end < n && a[end] != '\n')
				end++;
			int shown = (int)(end - bol > 200 ? 200 : end - bol);
			why = xasprintf("'%s' line %zu: '%.*s': a submission may not %s, nor write a line "
					"that reads as such a directive, even in a comment or a string",
					name, line_of[i], shown, a + bol,
					embed ? "embed a file's bytes (#embed)"
					      : "set its own line numbers or file names (#line)");
		}
	}
	free(a);
	free(line_of);
	return why;
}

char *intake_check_directives(const char *name, const char *src, size_t src_len)
{
	size_t len, *line_of;
	char *why = line_directive(name, src, src_len), *text;

	if (why)
		return why;
	text = logical_text(src, src_len, &line_of, &len);

	for (size_t i = 0; i < len && !why;) {
		size_t end = i, line = line_of[i];
		while (end < len && text[end] != '\n')
			end++;
		size_t p = i;
		while (p < end && (text[p] == ' ' || text[p] == '\t'))
			p++;
		int n = (int)(end - i > 200 ? 200 : end - i);
		bool hash = p < end && text[p] == '#', digraph = end - p >= 2 && !strncmp(text + p, "%:", 2);
		if (hash || digraph) {
			p += hash ? 1 : 2;
			while (p < end && (text[p] == ' ' || text[p] == '\t'))
				p++;
			static const char *const directives[] = {"include_next", "include", "import"};
			for (size_t d = 0; d < 3 && !why; d++) {
				size_t dl = strlen(directives[d]);
				if (end - p < dl || strncmp(text + p, directives[d], dl))
					continue;
				size_t q = p + dl;
				while (q < end && (text[q] == ' ' || text[q] == '\t'))
					q++;
				char close = q < end && text[q] == '"' ? '"' : q < end && text[q] == '<' ? '>' : 0;
				size_t a = q + 1, b = a;
				while (close && b < end && text[b] != close)
					b++;
				/* a macro, or no name: what the compiler reads of it is
				 * checked where it read it (includes.c) */
				if (!close || b >= end)
					break;
				bool up = false;
				for (size_t c = a; c + 1 < b; c++)
					up |= text[c] == '.' && text[c + 1] == '.' &&
					      (c == a || text[c - 1] == '/') && (c + 2 == b || text[c + 2] == '/');
				if (text[a] == '/' || up)
					why = xasprintf("'%s' line %zu: '%.*s': a submission includes the lab's "
							"headers and system headers by name, never by a path "
							"that starts with '/' or goes up with '..'", name,
							line, n, text + i);
				break;
			}
		}
		i = end + 1;
	}
	free(text);
	free(line_of);
	return why;
}

/* Reads at most max+1 bytes of fd: more than max means oversize. */
static char *read_capped(int fd, size_t max, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	ssize_t n;

	while (sb.len <= max && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			strbuf_release(&sb);
			return NULL;
		}
		strbuf_add(&sb, buf, n);
	}
	*len = sb.len;
	return strbuf_detach(&sb);
}

int intake_copy(const char *subdir, const struct strlist *files, size_t max_bytes,
		const char *workdir, struct intake *in)
{
	int dfd = open(subdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	memset(in, 0, sizeof(*in));
	if (dfd < 0)
		return error("cannot open submission folder '%s': %s", subdir, strerror(errno));
	in->accepted = true;
	in->files = xcalloc(files->n, sizeof(*in->files));

	for (size_t i = 0; i < files->n; i++) {
		const char *name = files->v[i];
		struct intake_file *f = &in->files[in->nfiles];
		struct stat st;
		size_t len;
		char *data, *dest;

		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				refuse(in, "missing file '%s': the submission must contain it", name, 0, 0);
			else
				refuse(in, "cannot read '%s'", name, 0, 0);
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			refuse(in, "'%s' is a symbolic link: submit the file itself", name, 0, 0);
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			refuse(in, "'%s' is not a regular file", name, 0, 0);
			continue;
		}
		int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			refuse(in, "'%s' changed while it was read, or cannot be read", name, 0, 0);
			if (fd >= 0)
				close(fd);
			continue;
		}
		data = read_capped(fd, max_bytes, &len);
		close(fd);
		if (!data) {
			refuse(in, "cannot read '%s'", name, 0, 0);
			continue;
		}
		if (len > max_bytes) {
			refuse(in, "'%s' is over the size limit (%zu bytes or more; the limit is %zu)",
			       name, len, max_bytes);
			free(data);
			continue;
		}
		const char *nul = is_source_name(name) ? memchr(data, '\0', len) : NULL;
		if (nul) {
			/* the compiler would warn of every NUL, and its error would be lost in them */
			size_t at = (size_t)(nul - data), line = 1;
			for (const char *c = data; c < nul; c++)
				line += *c == '\n';
			refuse(in, "'%s' is not a text file: a NUL byte at offset %zu (line %zu); submit "
			       "the source as text (ASCII or UTF-8, not a binary, nor UTF-16)", name, at,
			       line);
			free(data);
			continue;
		}
		char *bad = is_source_name(name) ? intake_check_directives(name, data, len) : NULL;
		if (bad) {
			if (!in->refusal) {
				in->accepted = false;
				in->refusal = bad;
			} else {
				free(bad);
			}
			free(data);
			continue;
		}
		f->name = xstrdup(name);
		f->size = len;
		sha256_hex(data, len, f->sha256);
		in->nfiles++;
		if (!workdir) {   /* only the hashes wanted */
			free(data);
			continue;
		}
		f->data = data;   /* for the gradebook */
		dest = xasprintf("%s/%s", workdir, name);
		int ret = write_file_atomic(dest, data, len);
		free(dest);
		if (ret) {
			close(dfd);
			return -1;
		}
	}
	close(dfd);
	return 0;
}

void intake_release(struct intake *in)
{
	for (size_t i = 0; i < in->nfiles; i++) {
		free(in->files[i].name);
		free(in->files[i].data);
	}
	free(in->files);
	free(in->refusal);
	memset(in, 0, sizeof(*in));
}
