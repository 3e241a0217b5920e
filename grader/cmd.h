/*
 * cmd.h - the commands of `cudalab` (one cmd-<name>.c each) and what they
 * share. Only main.c and cmd-*.c may die().
 */
#ifndef CMD_H
#define CMD_H

#include "config.h"
#include "grade.h"

int cmd_test(int argc, char **argv);
int cmd_grade(int argc, char **argv);
int cmd_labs(int argc, char **argv);
int cmd_db(int argc, char **argv);

/* The toolchain make recorded next to this binary; dies when there is none. */
const struct toolchain *toolchain(void);
/* $CUDALAB_DB, else ./gradebook.db */
const char *default_db_path(void);

struct record_opts {
	const char *db_path;       /* NULL: do not store */
	const char *json_path;     /* NULL: do not write the document */
};

/*
 * Grades one submission, prints the report, writes the result document and
 * stores the run. Returns the exit code (README: "Exit codes").
 */
int grade_and_record(const char *lab, const struct grade_opts *go, const struct record_opts *ro);

#endif
