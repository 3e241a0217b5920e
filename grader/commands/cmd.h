/*
 * cmd.h - the commands of `cudalab` (one cmd-<name>.c each) and what they
 * share (cmd-lib.c). Only main.c and cmd-*.c may die().
 */
#ifndef CMD_H
#define CMD_H

#include "config.h"
#include "grade.h"
#include "record.h"
#include "toolchain.h"

#include <stdio.h>

int cmd_test(int argc, char **argv);
int cmd_grade(int argc, char **argv);
int cmd_labs(int argc, char **argv);
int cmd_check_lab(int argc, char **argv);
int cmd_new_lab(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_rewrite(int argc, char **argv);
int cmd_questions(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_regrade(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_slurm(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_gpus(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_similar(int argc, char **argv);

/*
 * One option of a command (cmd-options.c): what cmd_getopt returns for it,
 * its long name, its short letter (0: none), its argument as the usage names
 * it (NULL: it takes none) and its help, lines split by '\n' (NULL: not
 * shown, as for an option a line of another one's names). The usage shows
 * its names as label says where label is given ("LAB --class"). A table
 * ends with CMD_OPT_END.
 */
struct cmd_opt {
	int key;
	const char *name;
	char letter;
	const char *arg;
	const char *help;
	const char *label;
};
#define CMD_OPT(key, name, letter, arg, help) {key, name, letter, arg, help, NULL}
#define CMD_OPT_SHOWN_AS(key, name, letter, arg, help, label) {key, name, letter, arg, help, label}
#define CMD_OPT_END {0, NULL, 0, NULL, NULL, NULL}
/* A number's macro as the text of a usage writes it: "default " TEXT_OF(N) */
#define TEXT_OF_(x) #x
#define TEXT_OF(x) TEXT_OF_(x)
#define CMD_TABLES 3

/*
 * A command's usage: the synopsis and what it does (up to the options),
 * its option tables in the order shown (-h, --help comes last by itself),
 * and what follows the options (NULL: nothing).
 */
struct cmd_spec {
	const char *synopsis;
	const struct cmd_opt *opts[CMD_TABLES];
	const char *epilog;
};

void cmd_usage(const struct cmd_spec *cmd, FILE *out);
/*
 * getopt_long over cmd's tables: the next option's key (optarg its
 * argument), CMD_END after the last, CMD_HELP once -h printed the usage on
 * stdout, CMD_BAD once a bad option printed it on stderr.
 */
#define CMD_END (-1)
#define CMD_HELP (-2)
#define CMD_BAD (-3)
int cmd_getopt(const struct cmd_spec *cmd, int argc, char **argv);
/* What a command exits with once cmd_getopt gave CMD_HELP (0) or CMD_BAD (2). */
int cmd_stopped(int c);
/* The usage on stderr for a wrong use; returns EXIT_USAGE. */
int cmd_bad_usage(const struct cmd_spec *cmd);

/* The toolchain make recorded next to this binary; dies when there is none. */
const struct toolchain *toolchain(void);
/* $CUDALAB_DB, else ./gradebook.db */
const char *default_db_path(void);
/*
 * Who runs cudalab, the student of `test` and `questions`: $USER, else the
 * user's name in the system's user database, else "uid<N>".
 */
const char *default_student(void);
#define DEFAULT_STUDENT_HELP "$USER, else the name of\nthe user running it"

/*
 * The options `test` and `grade` share (cmd-lib.c): --db, --json, --html,
 * --seed, --keep, --emulate, --no-emulate, --submitted-at, --lanes,
 * --unsandboxed, --quiet. grade_option takes one: true when c was one.
 */
extern const struct cmd_opt grade_opt_table[];
bool grade_option(int c, const char *arg, struct grade_opts *go, struct record_opts *ro);
/* A positive whole number from an option (-j, --slots), or 0 for anything else. */
unsigned positive_option(const char *s);

/*
 * Whether runs can be stored in the gradebook at path: it opens (made if
 * need be), it is a gradebook, and it can be written. Asked before anything
 * is graded, so a wrong --db costs no grading; reports why not.
 */
bool gradebook_ready(const char *path);
/*
 * The exit code for a gradebook that is not ready: the grader's own
 * failure (128) where the machine failed it (its disk full: db_system_fault),
 * else a usage error (2).
 */
int gradebook_unready(void);
/* Whether root has lab; says which labs there are when not. */
bool lab_exists(const char *root, const char *lab);

/*
 * A class on Slurm (cmd-collect.c; slurm.h has the spool): follow its
 * array's progress until no task is queued or running (0, or -1 when
 * squeue fails); store its results in the gradebook at db_path and list
 * what has none (returns collect's exit code).
 */
struct spool;
int collect_follow(const struct spool *sp);
int collect_spool(const struct spool *sp, const char *db_path);

/*
 * gradebook_ready for a class, whose gradings store their runs side by
 * side: and not on a network filesystem (db_on_network_fs), where only one
 * writer at a time is safe. Reports why not.
 */
bool class_gradebook_ready(const char *path);

/*
 * Grades one submission, then records it (record.h: the report, the result
 * document, the gradebook). Returns the exit code (docs/exit-codes.md).
 */
int grade_and_record(const char *lab, const struct grade_opts *go, const struct record_opts *ro);

/*
 * Under a listed run (show, db show): what it graded, its folder and its
 * files (each sha256's first 12 digits), so a history that mixes folders
 * reads right. Nothing when the run's document cannot be read.
 */
struct db;
void print_provenance(struct db *db, long long run);

#endif
