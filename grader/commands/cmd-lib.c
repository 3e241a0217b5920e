/*
 * cmd-lib.c - what the commands share: the toolchain this cudalab was
 * built with, the default gradebook and student, the checks made before
 * long work (the lab exists, the gradebook can be written), the option
 * table that `grade` and `test` share, grading one submission into
 * the gradebook, and the provenance lines under a stored run.
 *
 * Must not: hold a command's own logic; main.c only dispatches.
 */
#include "cmd.h"

#include "db.h"
#include "doc.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A --seed: digits alone, at most SEED_MAX (grading.h says why). */
static int parse_seed(const char *arg, unsigned long long *seed)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (!*arg || arg[strspn(arg, "0123456789")])
		return error("--seed wants a whole number from 0 to %llu (2^53 - 1), not '%s'",
			     SEED_MAX, arg);
	if (errno == ERANGE || v > SEED_MAX)
		return error("--seed %s is above 2^53 - 1 (%llu): JSON readers such as jq and "
			     "JavaScript keep 53 bits of a number, so the seed the result "
			     "document gives back would be another one", arg, SEED_MAX);
	*seed = v;
	return 0;
}

const struct toolchain *toolchain(void)
{
	static struct toolchain tc;
	static bool loaded;
	char exe[PATH_MAX];
	ssize_t n;

	if (loaded)
		return &tc;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		die("cannot find where cudalab is installed");
	exe[n] = '\0';
	/* <build>/bin/cudalab: the toolchain file is in <build> */
	char *build = dirname(dirname(exe));
	if (toolchain_load(build, &tc))
		exit(EXIT_INTERNAL);
	loaded = true;
	return &tc;
}

const char *default_db_path(void)
{
	const char *p = getenv("CUDALAB_DB");
	return p && *p ? p : "gradebook.db";
}

const char *default_student(void)
{
	static char *name;
	const char *user = getenv("USER");
	struct passwd *pw;

	if (user && *user)
		return user;
	if (!name) {
		/* cron, containers and `env -i` leave $USER unset: the system knows who runs it */
		pw = getpwuid(getuid());
		name = pw && pw->pw_name && *pw->pw_name ? xstrdup(pw->pw_name)
							 : xasprintf("uid%u", (unsigned)getuid());
	}
	return name;
}

bool lab_exists(const char *root, const char *lab)
{
	struct strlist labs = STRLIST_INIT;
	bool found = false;

	if (!config_list_labs(root, &labs))
		found = strlist_has(&labs, lab);
	if (!found) {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < labs.n; i++)
			strbuf_addf(&sb, " %s", labs.v[i]);
		error("no lab '%s'; the labs are:%s", lab, sb.buf ? sb.buf : " (none)");
		strbuf_release(&sb);
	}
	strlist_clear(&labs);
	return found;
}

bool gradebook_ready(const char *path)
{
	struct db *db = db_open(path, toolchain()->root);
	bool ready = db && !db_check_writable(db);

	db_close(db);
	return ready;
}

int gradebook_unready(void)
{
	return db_system_fault() ? EXIT_INTERNAL : EXIT_USAGE;
}

bool class_gradebook_ready(const char *path)
{
	const char *fs;

	if (db_on_network_fs(path, &fs)) {
		error("the gradebook '%s' is on a network filesystem (%s), where SQLite cannot "
		      "take the writes of a class's gradings at once: nothing was graded. Grade "
		      "the class into a gradebook on a local disk (--db /var/tmp/NAME.db, copied "
		      "back when it is done), or on a cluster have each grading write its result "
		      "document (--json) and `cudalab collect` them into one gradebook", path, fs);
		return false;
	}
	return gradebook_ready(path);
}

int grade_and_record(const char *lab, const struct grade_opts *go, const struct record_opts *ro)
{
	const struct toolchain *tc = toolchain();
	struct lab_config cfg;
	struct result r;
	long long run;
	int code;

	if (!lab_exists(tc->root, lab))
		return EXIT_USAGE;
	if (folder_check("submission folder", go->subdir))
		return EXIT_USAGE;
	if (ro->db_path && !gradebook_ready(ro->db_path))
		return gradebook_unready();
	if (config_load(tc->root, lab, &cfg))
		return EXIT_INTERNAL;
	/*
	 * Ctrl-C, or a TERM (a Slurm task's time limit, a cancelled CI job):
	 * the programs being run end at once, the grading removes its folders
	 * (the submission's code with them), and nothing is stored
	 */
	run_stop_on(SIGINT);
	run_stop_on(SIGTERM);
	int failed = grade_submission(tc, &cfg, go, &r);
	if (run_stopped()) {
		error("stopped by signal %d (%s) while grading '%s': nothing stored", run_stopped(),
		      strsignal(run_stopped()), go->subdir);
		result_release(&r);
		config_free(&cfg);
		return 128 + run_stopped();
	}
	if (failed) {
		error("grading '%s' failed: this is a fault of the grader, not of the submission",
		      go->subdir);
		result_release(&r);
		config_free(&cfg);
		return EXIT_INTERNAL;
	}
	code = record_run(&r, tc->root, ro, &run);
	result_release(&r);
	config_free(&cfg);
	return code;
}

const struct cmd_opt grade_opt_table[] = {
	CMD_OPT('d', "db", 0, "PATH",
	 "the gradebook (default: $CUDALAB_DB, else ./gradebook.db), checked\n"
	 "first: one that is none, or is read-only, is refused (exit 2)"),
	CMD_OPT('J', "json", 0, "PATH", "also write the result document there"),
	CMD_OPT('H', "html", 0, "PATH", "also write the run's page there (HTML, as cudalab report does)"),
	CMD_OPT('S', "seed", 0, "N",
	 "the inputs' seed, 0 to 2^53 - 1, as a result document gives it\n"
	 "(default: a fresh random one)"),
	CMD_OPT('k', "keep", 0, NULL,
	 "keep the work and judge folders (the build, the test logs,\n"
	 "what each safety tool said)"),
	CMD_OPT('E', "emulate", 0, NULL, "run the tests on the CPU emulator even where a GPU is"),
	CMD_OPT('N', "no-emulate", 0, NULL, "without a GPU, do not fall back to the CPU emulator"),
	CMD_OPT('T', "submitted-at", 0, "TIME",
	 "when it was submitted, for the lab's deadline: 'now', or\n"
	 "'YYYY-MM-DD HH:MM' and a zone ('Z', '+01:00'; none: the local one)"),
	CMD_OPT('A', "lanes", 0, "N",
	 "test processes that each run test after test in one CUDA context\n"
	 "(default: one on a GPU, one per part on the CPU emulator, one a\n"
	 "submission in a class; 0: a process per test)"),
	CMD_OPT('U', "unsandboxed", 0, NULL,
	 "where the sandbox cannot start, run the submission's programs\n"
	 "without it all the same (every report of the run says so)"),
	CMD_OPT('q', "quiet", 'q', NULL, "no progress lines"),
	CMD_OPT_END,
};

bool grade_option(int c, const char *arg, struct grade_opts *go, struct record_opts *ro)
{
	switch (c) {
	case 'd':
		ro->db_path = arg;
		return true;
	case 'J':
		ro->json_path = arg;
		return true;
	case 'H':
		ro->html_path = arg;
		return true;
	case 'S':
		if (parse_seed(arg, &go->seed))
			exit(EXIT_USAGE);
		go->seed_given = true;
		return true;
	case 'k':
		go->keep_workdir = true;
		return true;
	case 'U':
		go->unsandboxed = true;
		return true;
	case 'E':
		go->emulate = 1;
		return true;
	case 'N':
		go->emulate = 0;
		return true;
	case 'q':
		progress_quiet = true;
		return true;
	case 'T':
		if (!strcmp(arg, "now")) {
			go->submitted_at = time(NULL);
		} else if (late_parse_time(arg, &go->submitted_at)) {
			error("--submitted-at: '%s' is not a time ('now', or 'YYYY-MM-DD HH:MM' "
			      "and a zone, e.g. '2026-12-04 23:59 +01:00')", arg);
			exit(EXIT_USAGE);
		}
		go->submitted_from = "--submitted-at";
		return true;
	case 'A': {
		char *end;
		long v = strtol(arg, &end, 10);
		if (!*arg || *end || v < 0 || v > 64) {
			error("--lanes wants a number from 0 to 64, not '%s'", arg);
			exit(EXIT_USAGE);
		}
		go->lanes = (int)v;
		return true;
	}
	default:
		return false;
	}
}

unsigned positive_option(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	return *s && !*end && v > 0 && v < 100000 ? (unsigned)v : 0;
}

void print_provenance(struct db *db, long long run)
{
	char *text = NULL;
	json_t *doc = NULL, *f;
	size_t i;

	if (db_run_json(db, run, &text) || !(doc = json_loads(text, 0, NULL))) {
		free(text);
		return;
	}
	char *folder = visible_str(doc_str(doc, "submission"), true);
	printf("%-10s %s:", "", folder);
	json_array_foreach(json_object_get(doc, "files"), i, f) {
		char *file = visible_str(doc_str(f, "name"), true);
		printf("%s %s %.12s", i ? "," : "", file, doc_str(f, "sha256"));
		free(file);
	}
	printf("%s\n", json_array_size(json_object_get(doc, "files")) ? "" : " no files");
	free(folder);
	json_decref(doc);
	free(text);
}
