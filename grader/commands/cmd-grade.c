/*
 * cmd-grade.c - `cudalab grade LAB DIR...`: grade a submission, or a class
 * (batch.c), into the gradebook.
 */
#include "cmd.h"

#include "batch.h"
#include "db.h"

#include <errno.h>
#include <getopt.h>   /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct cmd_opt grade_class_opts[] = {
	CMD_OPT('s', "student", 0, "ID",
	 "who submitted it (one submission; default: the folder's name,\n"
	 "or the one above a folder named LAB)"),
	CMD_OPT('j', "jobs", 'j', "N", "gradings at once (default: one per CPU)"),
	CMD_OPT('G', "gpus", 0, "LIST",
	 "the GPUs to use, as CUDA_VISIBLE_DEVICES names them, \"0,1\"\n"
	 "(default: every GPU of the machine; in a Slurm job, the job's;\n"
	 "`cudalab gpus` lists them)"),
	CMD_OPT('L', "slots", 0, "N",
	 "gradings whose tests share one GPU at once (default 4; for one\n"
	 "submission too: the most it runs its tests beside)"),
	CMD_OPT('R', "resume", 0, NULL,
	 "skip submissions whose files the gradebook already holds a run of\n"
	 "for this lab version, whatever its verdict (refused: for the\n"
	 "same reason)"),
	CMD_OPT('M', "times", 0, "FILE",
	 "when each student submitted, for the lab's deadline: CSV lines\n"
	 "'student,YYYY-MM-DD HH:MM +01:00' (an LMS export)"),
	CMD_OPT_END,
};
static const struct cmd_spec grade_cmd = {
	.synopsis = "usage: cudalab grade LAB DIR [--student ID] [--db PATH] [--json PATH] [--keep]\n"
		    "       cudalab grade LAB DIR... [-j N] [--gpus LIST] [--slots N] [--resume]\n"
		    "                                [--times FILE]\n"
		    "\n"
		    "Grades the submission in folder DIR for lab LAB, prints the report and stores the\n"
		    "run in the gradebook. A regrade adds a new run; earlier runs are kept.\n"
		    "\n"
		    "A class: a DIR that holds none of the lab's files holds one submission per\n"
		    "folder (the student is the folder's name: a folder of git clones; a dot-folder\n"
		    "and a Mac zip's __MACOSX are no student's), and several DIRs grade them all. A\n"
		    "clone of the student repository (make handout) is graded from its folder LAB; a\n"
		    "submission folder named LAB is the student of the folder above it\n"
		    "(clones/ada/matmul is ada's). A Gradescope submission export (a DIR with\n"
		    "submission_metadata.yml) is a class of its submitters, each under their SID\n"
		    "(else email) at the time they submitted. The gradings run N at once, each given\n"
		    "one GPU in turn; their tests share a GPU (SLOTS gradings at once) and each\n"
		    "timing phase has it to itself. Progress on stderr, a summary table on stdout;\n"
		    "every run is stored as it ends, so an interrupted batch loses only the gradings\n"
		    "under way. Ctrl-C or a TERM stops a class: the gradings under way end, store\n"
		    "nothing and remove their folders, and a line says how to go on (--resume);\n"
		    "if the grader itself is killed, its gradings end with it. One class of a lab\n"
		    "per gradebook at a time (a second is refused, exit 2); a run the gradebook\n"
		    "does not take stops the class, saying why. A class exits 0 when\n"
		    "every submission was graded, 4 when besides every run that built is provisional\n"
		    "(no GPU: all emulated), 128 when one could not be graded, 128 + N when signal N\n"
		    "stopped it. One submission stopped so stores nothing and removes its folders.\n"
		    "\n",
	.opts = {grade_class_opts, grade_opt_table},
};

int cmd_grade(int argc, char **argv)
{
	struct grade_opts go = GRADE_OPTS_INIT;
	struct record_opts ro = {.report = true, .db_path = default_db_path()};
	struct batch_opts bo = {0};
	bool batch_option = false;
	const char *times = NULL;
	int c, code;

	while ((c = cmd_getopt(&grade_cmd, argc, argv)) >= 0) {
		if (grade_option(c, optarg, &go, &ro))
			continue;
		switch (c) {
		case 's':
			go.student = optarg;
			break;
		case 'j':
		case 'L':
			if (!positive_option(optarg)) {
				error("--%s wants a positive number, not '%s'", c == 'j' ? "jobs" : "slots",
				      optarg);
				return EXIT_USAGE;
			}
			*(c == 'j' ? &bo.jobs : &go.gpu_slots) = positive_option(optarg);
			batch_option |= c == 'j';   /* slots are every GPU grading's, one's too */
			break;
		case 'G':
			gpus_parse(optarg, &bo.gpus);
			batch_option = true;
			break;
		case 'R':
			bo.resume = true;
			batch_option = true;
			break;
		case 'M':
			times = optarg;
			batch_option = true;
			break;
		}
	}
	if (c != CMD_END)
		return cmd_stopped(c);
	if (argc - optind < 2 || (go.student && !*go.student))
		return cmd_bad_usage(&grade_cmd);
	const struct toolchain *tc = toolchain();
	const char *lab = argv[optind];
	struct lab_config cfg;
	struct batch_sub *subs;
	size_t n;

	if (!lab_exists(tc->root, lab))
		return EXIT_USAGE;
	if (config_load(tc->root, lab, &cfg))
		return EXIT_INTERNAL;
	if (batch_collect(lab, &cfg.files, argv + optind + 1, argc - optind - 1, &subs, &n)) {
		config_free(&cfg);
		return EXIT_USAGE;
	}
	if (times && batch_read_times(times, subs, n)) {
		code = EXIT_USAGE;
	} else if (n == 1 && !batch_option) {   /* one submission: its full report */
		go.subdir = subs[0].dir;
		if (!go.student)
			go.student = subs[0].student;
		code = grade_and_record(lab, &go, &ro);
	} else if (go.student || ro.json_path || ro.html_path || !ro.db_path) {
		error("--student, --json and --html are for one submission; a class is stored in "
		      "the gradebook (--db), each run under its folder's name (its pages: cudalab "
		      "report LAB --class)");
		code = EXIT_USAGE;
	} else if (!class_gradebook_ready(ro.db_path)) {
		code = gradebook_unready();   /* found now, not once every grading is done */
	} else if (!grading_sandbox_ready(tc, &cfg, &go)) {
		code = EXIT_INTERNAL;   /* the machine's, before any grading starts */
	} else {
		bo.db_path = ro.db_path;
		batch_defaults(&bo);
		code = batch_grade(tc, &cfg, subs, n, &bo, &go);
	}
	strlist_clear(&bo.gpus);
	batch_free(subs, n);
	config_free(&cfg);
	return code;
}
