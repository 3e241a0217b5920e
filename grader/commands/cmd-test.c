/*
 * cmd-test.c - `cudalab test LAB [--sub DIR]`: a student grades their own
 * work (what `make test LAB=...` runs).
 */
#include "cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cudalab test LAB [--sub DIR] [--student ID] [--db PATH | --no-db]\n"
		"\n"
		"Builds and tests your submission for lab LAB (by default the folder LAB of\n"
		"this checkout, else student_template/LAB), prints every test with its points\n"
		"and each failure's message, and records the run in the gradebook.\n"
		"\n"
		"  --sub DIR      the submission folder\n"
		"  --student ID   the name the run is recorded under (default: " DEFAULT_STUDENT_HELP
		")\n"
		"  --no-db        do not record the run\n" GRADE_OPTIONS_HELP);
}

int cmd_test(int argc, char **argv)
{
	static const struct option opts[] = {
		{"sub", required_argument, NULL, 'u'}, {"student", required_argument, NULL, 's'},
		{"no-db", no_argument, NULL, 'n'},     GRADE_LONG_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct grade_opts go = GRADE_OPTS_INIT;
	struct record_opts ro = {.report = true, .db_path = default_db_path()};
	char *sub = NULL;
	int c, code;

	go.student = default_student();
	go.own_code = true;
	while ((c = getopt_long(argc, argv, "u:s:n" GRADE_SHORT_OPTIONS, opts, NULL)) != -1) {
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
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
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
