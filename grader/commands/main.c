/*
 * main.c - the `cudalab` command: dispatches to cmd-<name>.c.
 */
#include "cmd.h"
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{"test", cmd_test, "test LAB [--sub DIR]          grade your work on this machine"},
	{"grade", cmd_grade, "grade LAB DIR...              grade a submission, or a class, into the gradebook"},
	{"labs", cmd_labs, "labs                          list the labs, their parts and points"},
	{"new-lab", cmd_new_lab, "new-lab NAME                  write a new lab that builds and passes check-lab as it is"},
	{"check-lab", cmd_check_lab, "check-lab [LAB...]            grade a lab's reference, stub, fixtures and corpus; hold each to its verdict"},
	{"questions", cmd_questions, "questions LAB [--student ID]  print a student's own questions"},
	{"db", cmd_db, "db init|show                  create or read the gradebook"},
	{"show", cmd_show, "show STUDENT [--lab LAB]      a student's runs, oldest first, and latest scores"},
	{"regrade", cmd_regrade, "regrade LAB [--student ID]    grade the latest submissions again; what changed"},
	{"slurm", cmd_slurm, "slurm LAB DIR... --spool DIR   grade a class on a Slurm cluster, a job array"},
	{"collect", cmd_collect, "collect LAB SPOOL             store what a Slurm array graded in the gradebook"},
	{"report", cmd_report, "report --run N [--out FILE]   one run's page, HTML with its plots"},
	{"export", cmd_export, "export LAB [--format F]       the latest grades: csv, gradescope, junit"},
	{"rewrite", cmd_rewrite, "rewrite FILE.cu               the C++ the CPU emulator compiles for it"},
	{"similar", cmd_similar, "similar LAB [DIR...]          the pairs of a class's submissions most alike"},
	{"gpus", cmd_gpus, "gpus [--json]                 the GPUs a class here uses, their UUIDs and locks"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: cudalab COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  cudalab %s\n", commands[i].usage);
	fprintf(out, "\n'cudalab COMMAND -h' describes one command. Exit codes: 0 full marks, "
		     "1 points lost,\n2 usage error, 3 not built, 4 incomplete (tests could not run), "
		     "128 internal error.\n");
}

int main(int argc, char **argv)
{
	run_init();
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "cudalab: no command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
