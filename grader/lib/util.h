/*
 * util.h - the one reporting helper, allocation that cannot fail, growable
 * strings and string lists. Every other file reports through error() and
 * warning(); only main.c and cmd-*.c may die().
 */
#ifndef UTIL_H
#define UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Exit codes of every cudalab command (docs/exit-codes.md). */
enum exit_code {
	EXIT_FULL_MARKS = 0,
	EXIT_POINTS_LOST = 1,
	EXIT_USAGE = 2,
	EXIT_NOT_BUILT = 3,
	EXIT_INCOMPLETE = 4,
	EXIT_INTERNAL = 128,
};

/* "error: ..." on stderr; returns -1 so callers can `return error(...)`. */
int error(const char *fmt, ...) PRINTF(1, 2);
void warning(const char *fmt, ...) PRINTF(1, 2);
/* A progress line on stderr, unless progress is quiet. */
void progress(const char *fmt, ...) PRINTF(1, 2);
extern bool progress_quiet;
/* Silences error() and warning() (unit tests that expect them). */
extern bool report_quiet;
_Noreturn void die(const char *fmt, ...) PRINTF(1, 2);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF(1, 2);

struct strbuf {
	char *buf;   /* always NUL-terminated once anything was added */
	size_t len, alloc;
};
#define STRBUF_INIT {NULL, 0, 0}
void strbuf_add(struct strbuf *sb, const char *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) PRINTF(2, 3);
/* Returns the string (never NULL) and leaves sb empty. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
/* s in single quotes, for bash ('\'' for a quote). */
void strbuf_add_shell_quoted(struct strbuf *sb, const char *s);
/* s for bash: as it is where it needs no quoting, else quoted. */
void strbuf_add_shell_word(struct strbuf *sb, const char *s);
/* Whether c may be part of a C identifier (a letter, a digit or '_'). */
bool ident_char(char c);

/* Empties sb, keeping its memory. */
void strbuf_reset(struct strbuf *sb);

/* A NULL-terminated list of owned strings, usable as an argv. */
struct strlist {
	char **v;
	size_t n, alloc;
};
#define STRLIST_INIT {NULL, 0, 0}
void strlist_push(struct strlist *l, const char *s);
void strlist_pushf(struct strlist *l, const char *fmt, ...) PRINTF(2, 3);
/* Appends the whitespace-separated words of s. */
void strlist_split(struct strlist *l, const char *s);
bool strlist_has(const struct strlist *l, const char *s);
/* Whether name matches one of the shell globs in globs (NULL: none). */
bool strlist_matches(const struct strlist *globs, const char *name);
/* Appends every entry of a, then of b (either may be NULL). */
void strlist_concat(struct strlist *l, const struct strlist *a, const struct strlist *b);
/* Removes the first entry equal to s, if any. */
void strlist_remove(struct strlist *l, const char *s);
void strlist_clear(struct strlist *l);
/* Sorts l's strings, by strcmp. */
void strlist_sort(struct strlist *l);

/* Reads a whole file; NULL (after error()) when it cannot. */
char *read_file(const char *path, size_t *len);
/*
 * The last line of text's first len bytes that holds anything (trailing
 * line breaks and spaces left out), at most max bytes of it; NULL when
 * there is none. What a program said last, for a message.
 */
char *last_line(const char *text, size_t len, size_t max);
/* Writes data to path through a temporary file and rename(). */
int write_file_atomic(const char *path, const char *data, size_t len);
/*
 * Whether path is a folder: 0, or -1 with the reason said, naming it as
 * what ("submission folder"): it does not exist, or it is a file (and then
 * the folder that holds it is named).
 */
int folder_check(const char *what, const char *path);
/* Makes every missing folder above path's last part (mkdir -p of its
 * folder): 0, or -1 with the reason said. */
int make_parent_dirs(const char *path);
/*
 * The folders in path (links to folders too), by name, dot-folders left
 * out, pushed onto names: 0, or -1 with errno where path cannot be read.
 */
int list_folders(const char *path, struct strlist *names);
/* rm -rf, for work directories the grader made itself. */
int remove_tree(const char *path);
double now_seconds(void);
/* The CPUs this process may run on (its affinity: a Slurm task's, a cpuset's),
 * else the machine's online ones; at least 1. */
unsigned usable_cpus(void);
/*
 * A class's progress line: the bar "###..." (PROGRESS_BAR_WIDTH characters)
 * for finished of todo, into bar (at least PROGRESS_BAR_WIDTH + 1 bytes);
 * and the time left, "M:SS", at the pace of done in elapsed seconds for
 * left more ("0:00" when none is left, "?" before any is done).
 */
#define PROGRESS_BAR_WIDTH 30
void progress_bar(char *bar, size_t finished, size_t todo);
void progress_eta(char *eta, size_t size, size_t done, size_t left, double elapsed);
/* Seconds since the epoch (CLOCK_REALTIME), with a fraction: comparable across processes. */
double wall_seconds(void);

/* 32 random hexadecimal digits and a NUL: a token a child echoes to prove a
 * line or a file is its own. */
void random_token(char out[33]);

/* A copy of s that is valid UTF-8: each byte that does not start or continue
 * a well-formed sequence becomes U+FFFD. Student output and compiler
 * messages quote whatever bytes a submission holds. */
char *utf8_clean(const char *s);

/*
 * Text from the untrusted side (what a submission's programs print,
 * compiler diagnostics, a student's folder name), made safe to print to a
 * terminal or write to a log: a copy of the len bytes at s (NULL: NULL)
 * that is valid UTF-8 (bytes that are not become U+FFFD, as utf8_clean)
 * and in which every control character is written as \xHH, its code in two
 * lowercase hexadecimal digits: C0 (U+0000-U+001F) but newline and tab, DEL
 * (U+007F), and C1 (U+0080-U+009F, in UTF-8 two bytes each). So ESC is
 * "\x1b", and no escape sequence (CSI, OSC, ...) nor BEL nor carriage
 * return reaches a terminal. one_line: newline and tab too ("\x0a",
 * "\x09"), for a name or a path printed on a line of its own. Printable
 * text (accents, CJK) is kept as it is; a backslash is not escaped, so
 * applying it twice changes nothing.
 */
char *visible_text(const char *s, size_t len, bool one_line);
/* visible_text of the string s (NULL: NULL). */
char *visible_str(const char *s, bool one_line);

/* The executable `name` in a folder of $PATH (allocated), or NULL. */
char *path_lookup(const char *name);
/* Current UTC time as ISO 8601, in buf (at least 32 bytes). */
const char *iso_time(char *buf, size_t len);

#endif
