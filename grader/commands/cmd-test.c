/*
 * cmd-test.c - `cudalab test LAB [--sub DIR]`: a student grades their own
 * work (what `make test LAB=...` runs).
 */
#include "cmd.h"

#include <getopt.h>   /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static const struct cmd_opt test_opts[] = {
	CMD_OPT('u', "sub", 0, "DIR", "the submission folder"),
	CMD_OPT('s', "student", 0, "ID", "the name the run is recorded under (default: " DEFAULT_STUDENT_HELP ")"),
	CMD_OPT('n', "no-db", 0, NULL, "do not record the run"),
	CMD_OPT_END,
};
static const struct cmd_spec test_cmd = {
	.synopsis = "usage: cudalab test LAB [--sub DIR] [--student ID] [--db PATH | --no-db]\n"
		    "\n"
		    "Builds and tests your submission for lab LAB (by default the folder LAB of\n"
		    "this checkout, else student_template/LAB), prints every test with its points\n"
		    "and each failure's message, and records the run in the gradebook.\n"
		    "\n",
	.opts = {test_opts, grade_opt_table},
};

int cmd_test(int argc, char **argv)
{
	struct grade_opts go = GRADE_OPTS_INIT;
	struct record_opts ro = {.report = true, .db_path = default_db_path()};
	char *sub = NULL;
	int c, code;

	go.student = default_student();
	go.own_code = true;
	while ((c = cmd_getopt(&test_cmd, argc, argv)) >= 0) {
		if (grade_option(c, optarg, &go, &ro))
			continue;
		switch (c) {
		case 'u':
			go.subdir = optarg;
			break;
		case 's':
			go.student = optarg;
			break;
		case 'n':
			ro.db_path = NULL;
			break;
		}
	}
	if (c != CMD_END)
		return cmd_stopped(c);
	if (argc - optind != 1)
		return cmd_bad_usage(&test_cmd);
	if (!go.subdir) {   /* a handout's <lab>/, else the course's stub */
		struct stat st;
		sub = xasprintf("%s/%s", toolchain()->root, argv[optind]);
		if (stat(sub, &st) || !S_ISDIR(st.st_mode)) {
			free(sub);
			sub = xasprintf("%s/student_template/%s", toolchain()->root, argv[optind]);
		}
		go.subdir = sub;
	}
	code = grade_and_record(argv[optind], &go, &ro);
	free(sub);
	return code;
}
