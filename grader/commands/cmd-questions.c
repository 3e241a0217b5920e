/*
 * cmd-questions.c - `cudalab questions LAB [--student ID] [--key]`: prints a
 * student's own question sheet for a lab with per-student questions (the
 * lab's tests/questions_<lab>.cu, built by make), or with --key the answers
 * the grader expects from that student, for TAs: the lab's
 * tests/hidden/key_<lab>.cu, which only the course's repository has (a
 * student's handout has the sheet, never the key).
 */
#include "cmd.h"
#include "testrun.h"

#include <errno.h>
#include <getopt.h>   /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct cmd_opt questions_opts[] = {
	CMD_OPT('s', "student", 0, "ID", "whose questions (default, as `cudalab test`: " DEFAULT_STUDENT_HELP ")"),
	CMD_OPT('k', "key", 0, NULL,
	 "the answers the grader expects from that student (for TAs;\n"
	 "in the course's repository only)"),
	CMD_OPT_END,
};
static const struct cmd_spec questions_cmd = {
	.synopsis = "usage: cudalab questions LAB [--student ID] [--key]\n"
		    "\n"
		    "Prints the questions of lab LAB for one student: each student gets their own\n"
		    "numbers, derived from their name, and answers them in the lab's answers.txt.\n"
		    "\n",
	.opts = {questions_opts},
};

int cmd_questions(int argc, char **argv)
{
	const char *student = default_student();
	bool key = false;
	int c;

	while ((c = cmd_getopt(&questions_cmd, argc, argv)) >= 0) {
		switch (c) {
		case 's':
			student = optarg;
			break;
		case 'k':
			key = true;
			break;
		}
	}
	if (c != CMD_END)
		return cmd_stopped(c);
	if (optind + 1 != argc || !*student)
		return cmd_bad_usage(&questions_cmd);
	const struct toolchain *tc = toolchain();
	struct lab_config cfg;
	if (config_load(tc->root, argv[optind], &cfg))
		return EXIT_USAGE;
	char *prog = xasprintf("%s/labs/%s/questions", tc->build, cfg.name);
	char *hidden = xasprintf("%s/tests/hidden", cfg.dir);
	bool course = !access(hidden, F_OK);
	config_free(&cfg);
	if (access(prog, X_OK)) {
		error("lab '%s' has no per-student questions (no %s)", argv[optind], prog);
		free(hidden);
		free(prog);
		return EXIT_USAGE;
	}
	if (key) {
		free(prog);
		prog = xasprintf("%s/labs/%s/key", tc->build, argv[optind]);
		if (!course || access(prog, X_OK)) {
			error("the answer key of lab '%s' is only available in the course's "
			      "repository%s", argv[optind],
			      course ? " (not built here: run make)"
				     : ": this is a student's copy (it has no tests/hidden/)");
			free(hidden);
			free(prog);
			return EXIT_USAGE;
		}
	}
	free(hidden);
	fflush(stdout);
	/* the name as a grading gives it to the harness: the same questions */
	char *const args[] = {prog, (char *)"--student", testrun_student(student), NULL};
	execv(prog, args);
	error("cannot run '%s': %s", prog, strerror(errno));
	free(prog);
	return EXIT_INTERNAL;
}
