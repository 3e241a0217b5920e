/*
 * util.c - reporting, allocation, strings. Knows nothing about grading.
 */
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sched.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/random.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool progress_quiet;
bool report_quiet;

/*
 * A message may quote what a submission's programs said (a tool's output,
 * a file name): it is written as visible_text shows it.
 */
static void report(const char *prefix, const char *fmt, va_list ap)
{
	static __thread bool reporting;   /* die() for want of memory while making it visible */
	char *msg = NULL, *text = NULL;
	int n = -1;

	if (!reporting) {
		reporting = true;
		n = vasprintf(&msg, fmt, ap);
		text = n >= 0 ? visible_text(msg, n, false) : NULL;
		reporting = false;
	}
	fflush(stdout);
	fprintf(stderr, "%s%s\n", prefix, text ? text : fmt);
	free(text);
	if (n >= 0)
		free(msg);
}

int error(const char *fmt, ...)
{
	va_list ap;

	if (report_quiet)
		return -1;
	va_start(ap, fmt);
	report("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	if (report_quiet)
		return;
	va_start(ap, fmt);
	report("warning: ", fmt, ap);
	va_end(ap);
}

void progress(const char *fmt, ...)
{
	va_list ap;

	if (progress_quiet)
		return;
	va_start(ap, fmt);
	report("", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("fatal: ", fmt, ap);
	va_end(ap);
	exit(EXIT_INTERNAL);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	sb.buf = xmalloc(n + 1);
	va_start(ap, fmt);
	vsnprintf(sb.buf, n + 1, fmt, ap);
	va_end(ap);
	return sb.buf;
}

static void strbuf_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->alloc)
		return;
	sb->alloc = (sb->len + extra + 1) * 3 / 2 + 16;
	sb->buf = xrealloc(sb->buf, sb->alloc);
}

void strbuf_add(struct strbuf *sb, const char *data, size_t n)
{
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	strbuf_grow(sb, n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, n + 1, fmt, ap);
	va_end(ap);
	sb->len += n;
}

char *strbuf_detach(struct strbuf *sb)
{
	char *s = sb->buf ? sb->buf : xstrdup("");
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return s;
}

bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

void strlist_push(struct strlist *l, const char *s)
{
	if (l->n + 2 > l->alloc) {
		l->alloc = (l->n + 2) * 2;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	l->v[l->n++] = xstrdup(s);
	l->v[l->n] = NULL;
}

void strlist_pushf(struct strlist *l, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc(n + 1);
	va_start(ap, fmt);
	vsnprintf(s, n + 1, fmt, ap);
	va_end(ap);
	strlist_push(l, s);
	free(s);
}

void strlist_split(struct strlist *l, const char *s)
{
	while (*s) {
		size_t skip = strspn(s, " \t\r\n"), len;
		s += skip;
		len = strcspn(s, " \t\r\n");
		if (!len)
			break;
		char *w = xstrndup(s, len);
		strlist_push(l, w);
		free(w);
		s += len;
	}
}

bool strlist_has(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

bool strlist_matches(const struct strlist *globs, const char *name)
{
	for (size_t i = 0; globs && i < globs->n; i++)
		if (!fnmatch(globs->v[i], name, 0))
			return true;
	return false;
}

void strlist_concat(struct strlist *l, const struct strlist *a, const struct strlist *b)
{
	for (size_t i = 0; a && i < a->n; i++)
		strlist_push(l, a->v[i]);
	for (size_t i = 0; b && i < b->n; i++)
		strlist_push(l, b->v[i]);
}

void strlist_remove(struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s)) {
			free(l->v[i]);
			/* the NULL after the last entry moves down with them */
			memmove(&l->v[i], &l->v[i + 1], (l->n - i) * sizeof(*l->v));
			l->n--;
			return;
		}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strlist_sort(struct strlist *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_str);
}

void strlist_clear(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

char *read_file(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char chunk[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		error("cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		strbuf_add(&sb, chunk, n);
	close(fd);
	if (n < 0) {
		error("cannot read '%s': %s", path, strerror(errno));
		strbuf_release(&sb);
		return NULL;
	}
	if (len)
		*len = sb.len;
	return strbuf_detach(&sb);
}

char *last_line(const char *text, size_t len, size_t max)
{
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	size_t from = len;
	while (from && text[from - 1] != '\n')
		from--;
	if (len == from)
		return NULL;
	return xasprintf("%.*s", (int)(len - from > max ? max : len - from), text + from);
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), ret = -1;

	if (fd < 0) {
		error("cannot create '%s': %s", tmp, strerror(errno));
		goto out_free;
	}
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0) {
			error("cannot write '%s': %s", tmp, strerror(errno));
			close(fd);
			goto out_unlink;
		}
		off += n;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		error("cannot write '%s': %s", path, strerror(errno));
		goto out_unlink;
	}
	ret = 0;
	goto out_free;
out_unlink:
	unlink(tmp);
out_free:
	free(tmp);
	return ret;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int folder_check(const char *what, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? error("%s '%s' does not exist", what, path)
				       : error("%s '%s' cannot be read: %s", what, path,
					       strerror(errno));
	if (S_ISDIR(st.st_mode))
		return 0;
	char *copy = xstrdup(path), *slash = strrchr(copy, '/');
	const char *holder = !slash ? "." : slash == copy ? "/" : (*slash = '\0', copy);
	error("%s '%s' is a file, not a folder: name the folder that holds it, '%s'", what,
	      path, holder);
	free(copy);
	return -1;
}

int make_parent_dirs(const char *path)
{
	char *dir = xstrdup(path);

	for (char *slash = *dir ? strchr(dir + 1, '/') : NULL; slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(dir, 0777) && errno != EEXIST) {
			int e = errno;
			error("cannot make the folder '%s': %s", dir, strerror(e));
			free(dir);
			return -1;
		}
		*slash = '/';
	}
	free(dir);
	return 0;
}

int list_folders(const char *path, struct strlist *names)
{
	DIR *d = opendir(path);
	struct strlist found = STRLIST_INIT;
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		struct stat st;
		char *sub = xasprintf("%s/%s", path, e->d_name);
		if (e->d_name[0] != '.' && !stat(sub, &st) && S_ISDIR(st.st_mode))
			strlist_push(&found, e->d_name);
		free(sub);
	}
	closedir(d);
	strlist_sort(&found);
	strlist_concat(names, NULL, &found);
	strlist_clear(&found);
	return 0;
}

int remove_tree(const char *path)
{
	if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
		return error("cannot remove '%s': %s", path, strerror(errno));
	return 0;
}

unsigned usable_cpus(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_bar(char *bar, size_t finished, size_t todo)
{
	size_t filled = todo ? PROGRESS_BAR_WIDTH * finished / todo : PROGRESS_BAR_WIDTH;

	for (size_t i = 0; i < PROGRESS_BAR_WIDTH; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[PROGRESS_BAR_WIDTH] = '\0';
}

void progress_eta(char *eta, size_t size, size_t done, size_t left, double elapsed)
{
	if (!left) {
		snprintf(eta, size, "0:00");
	} else if (done && elapsed > 0) {
		double s = left / (done / elapsed);
		snprintf(eta, size, "%d:%02d", (int)s / 60, (int)s % 60);
	} else {
		snprintf(eta, size, "?");
	}
}

double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *iso_time(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

void random_token(char out[33])
{
	unsigned char b[16];

	if (getrandom(b, sizeof(b), 0) != sizeof(b))
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)(rand() ^ (int)(now_seconds() * 1e6) ^ (int)(i * 131));
	for (size_t i = 0; i < sizeof(b); i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* The length of the well-formed UTF-8 sequence at s, or 0. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
	if (!n || (n == 2 && c < 0xc2) || (n == 4 && c > 0xf4))
		return 0;   /* a stray continuation byte, an overlong or too large a start */
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0)))
		return 0;   /* overlong, or a UTF-16 surrogate */
	if (n == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90)))
		return 0;
	return n;
}

/* Whether the character at s, n bytes long, is a control character visible_text shows. */
static bool shown_as_code(const unsigned char *s, size_t n, bool one_line)
{
	if (n == 1)
		return s[0] < 0x20 ? one_line || (s[0] != '\n' && s[0] != '\t') : s[0] == 0x7f;
	return n == 2 && s[0] == 0xc2 && s[1] < 0xa0;   /* U+0080-U+009F */
}

char *visible_text(const char *s, size_t len, bool one_line)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	if (!s)
		return NULL;
	strbuf_grow(&sb, len);
	sb.buf[0] = '\0';
	while (p < end) {
		/* a sequence its lead byte says runs past the end is cut: not UTF-8 */
		size_t want = *p < 0xc0 ? 1 : *p < 0xe0 ? 2 : *p < 0xf0 ? 3 : 4;
		size_t n = want <= (size_t)(end - p) ? utf8_seq(p) : 0;
		if (!n) {
			strbuf_addstr(&sb, "\xef\xbf\xbd");
			p++;
		} else if (shown_as_code(p, n, one_line)) {
			strbuf_addf(&sb, "\\x%02x", n == 1 ? p[0] : p[1]);
			p += n;
		} else {
			strbuf_add(&sb, (const char *)p, n);
			p += n;
		}
	}
	return strbuf_detach(&sb);
}

char *visible_str(const char *s, bool one_line)
{
	return s ? visible_text(s, strlen(s), one_line) : NULL;
}

char *utf8_clean(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = utf8_seq(p);
		if (n) {
			strbuf_add(&sb, (const char *)p, n);
			p += n;
		} else {
			strbuf_addstr(&sb, "\xef\xbf\xbd");
			p++;
		}
	}
	return strbuf_detach(&sb);
}

char *path_lookup(const char *name)
{
	const char *path = getenv("PATH");
	char *copy = xstrdup(path ? path : "/usr/bin:/bin"), *save = NULL, *found = NULL;

	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *c = xasprintf("%s/%s", *d ? d : ".", name);
		if (!access(c, X_OK))
			found = c;
		else
			free(c);
	}
	free(copy);
	return found;
}

void strbuf_add_shell_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addstr(sb, "'");
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_add(sb, s, 1);
	}
	strbuf_addstr(sb, "'");
}

void strbuf_add_shell_word(struct strbuf *sb, const char *s)
{
	if (!*s || s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789-_=.,/:%+@")])
		strbuf_add_shell_quoted(sb, s);
	else
		strbuf_addstr(sb, s);
}
