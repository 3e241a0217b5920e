/*
 * checklog.h - reads the XML log a Check runner writes (srunner_set_xml).
 */
#ifndef CHECKLOG_H
#define CHECKLOG_H

#include "util.h"

struct check_entry {
	char *id;          /* the test function: test_matmul_k1_exact */
	char *tcase;       /* Check's <description>: the TCase */
	char *result;      /* "success", "failure" or "error" */
	char *message;
	double duration;   /* seconds, -1 when absent */
};

struct check_log {
	struct check_entry *entries;
	size_t n;
};

/*
 * Reads what is there of the log at path: a log cut short by a killed runner
 * yields the tests it completed. A missing file yields no entries (not an
 * error: the runner may have died before writing it).
 */
int checklog_read(const char *path, struct check_log *log);
/* Parses a log already in memory. */
int checklog_parse(const char *xml, size_t len, struct check_log *log);
const struct check_entry *checklog_find(const struct check_log *log, const char *id);
void checklog_release(struct check_log *log);

#endif
