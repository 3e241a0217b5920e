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

int cmd_test(int argc, char **argv);
int cmd_grade(int argc, char **argv);
int cmd_labs(int argc, char **argv);
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

/* The toolchain make recorded next to this binary; dies when there is none. */
const struct toolchain *toolchain(void);
/* $CUDALAB_DB, else ./gradebook.db */
const char *default_db_path(void);
/*
 * Who runs cudalab, the student of `test` and `questions`: $USER, else the
 * user's name in the system's user database, else "uid<N>".
 */
const char *default_student(void);
#define DEFAULT_STUDENT_HELP "$USER, else the name of\n                 the user running it"

/*
 * The options `test` and `grade` share: --db, --json, --seed, --keep,
 * --quiet. Returns true when c was one of them.
 */
#define GRADE_LONG_OPTIONS                                                                         \
	{"db", required_argument, NULL, 'd'}, {"json", required_argument, NULL, 'J'},             \
	{"seed", required_argument, NULL, 'S'}, {"keep", no_argument, NULL, 'k'},                 \
	{"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'},                     \
	{"emulate", no_argument, NULL, 'E'}, {"no-emulate", no_argument, NULL, 'N'},              \
	{"lanes", required_argument, NULL, 'A'}, {"submitted-at", required_argument, NULL, 'T'},   \
	{"html", required_argument, NULL, 'H'}, {"unsandboxed", no_argument, NULL, 'U'}
#define GRADE_SHORT_OPTIONS "d:J:S:kqhENA:T:"
#define GRADE_OPTIONS_HELP                                                                         \
	"  --db PATH      the gradebook (default: $CUDALAB_DB, else ./gradebook.db), checked\n"  \
	"                 first: one that is none, or is read-only, is refused (exit 2)\n"       \
	"  --json PATH    also write the result document there\n"                                 \
	"  --html PATH    also write the run's page there (HTML, as cudalab report does)\n"    \
	"  --seed N       the inputs' seed, 0 to 2^53 - 1, as a result document gives it\n"     \
	"                 (default: a fresh random one)\n"                                       \
	"  --keep         keep the work and judge folders (the build, the test logs,\n"   \
	"                 what each safety tool said)\n"                                    \
	"  --emulate      run the tests on the CPU emulator even where a GPU is\n"                \
	"  --no-emulate   without a GPU, do not fall back to the CPU emulator\n"                  \
	"  --submitted-at TIME  when it was submitted, for the lab's deadline: 'now', or\n"  \
	"                 'YYYY-MM-DD HH:MM' and a zone ('Z', '+01:00'; none: the local one)\n" \
	"  --lanes N      test processes that each run test after test in one CUDA context\n"    \
	"                 (default: one on a GPU, one per part on the CPU emulator, one a\n"    \
	"                 submission in a class; 0: a process per test)\n"                      \
	"  --unsandboxed  where the sandbox cannot start, run the submission's programs\n"    \
	"                 without it all the same (every report of the run says so)\n"       \
	"  -q, --quiet    no progress lines\n"                                                    \
	"  -h, --help     this text\n"
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
