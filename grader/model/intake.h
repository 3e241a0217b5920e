/*
 * intake.h - takes a submission in: copies the files a lab allows into a
 * fresh work directory, refusing anything suspicious.
 */
#ifndef INTAKE_H
#define INTAKE_H

#include "util.h"

struct intake_file {
	char *name;
	char sha256[65];
	size_t size;
	char *data;          /* its size bytes, kept for the gradebook (db_store_run) */
};

struct intake {
	bool accepted;
	char *refusal;                /* why not, for the student */
	struct intake_file *files;
	size_t nfiles;
};

/*
 * Copies each of files (names relative to subdir) into workdir. A missing
 * file, a symbolic link, anything but a regular file, a file over
 * max_bytes, or a source file that is not text (a NUL byte) is a refusal (in->accepted false, in->refusal says why), not an
 * error; -1 means the grader itself failed. workdir NULL: nothing is copied,
 * the same checks and hashes only.
 */
int intake_copy(const char *subdir, const struct strlist *files, size_t max_bytes,
		const char *workdir, struct intake *in);
void intake_release(struct intake *in);

/*
 * Whether the directives of the source text (len bytes of file name) are
 * allowed: no #line or linemarker sets a line number or file name of its
 * own (the source scan trusts the linemarkers; this check errs towards
 * refusing: a line that reads as one is refused even inside a comment or a
 * string); and, read as the preprocessor reads them (lines spliced,
 * comments gone, %: for #), no #include names its file by a path that
 * starts with '/' or has a ".." component. That second check is only an
 * early, clear message for the usual case: what the compiler read is
 * judged from its own preprocessor's output (includes.h), which nothing
 * here can hide from. NULL when they are, else why (allocated), with the line.
 */
char *intake_check_directives(const char *name, const char *text, size_t len);

/* sha256 of a buffer, as 64 hex digits. */
void sha256_hex(const void *data, size_t len, char out[65]);

#endif
