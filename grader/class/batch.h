/*
 * batch.h - grading a class: many submissions, in parallel, on every GPU.
 */
#ifndef BATCH_H
#define BATCH_H

#include "config.h"
#include "gpus.h"
#include "grade.h"

#include <time.h>

struct batch_sub {
	char *dir, *student;
	char *recorded_as;          /* the folder its run names, when not dir (a regrade) */
	time_t submitted_at;        /* 0: not known */
	const char *submitted_from; /* who says so (static, or the path of a file of times) */
};

/*
 * The submissions that dirs name for lab, whose submission consists of
 * files: a folder holding one of those files is a submission, and so is the
 * folder <lab>/ of one that does not (a clone of the student repository
 * `make handout` makes); any other folder holds one submission per
 * sub-folder, dot-folders aside (a folder of git clones, one per student),
 * each found the same way, and one with neither is a submission that lacks
 * its files. The student is the folder's name, or for a submission in a
 * folder named after the lab, the name of the folder above it
 * (clones/ada/matmul is ada's). Returns 0, or -1 with an error for a folder
 * that does not exist or a student named twice.
 */
int batch_collect(const char *lab, const struct strlist *files, char *const *dirs, size_t ndirs,
		  struct batch_sub **subs, size_t *nsubs);
void batch_free(struct batch_sub *subs, size_t n);

/*
 * A Gradescope submission export (gsexport.c): a folder holding
 * submission_metadata.yml and a submission_<id>/ folder for each
 * submission. Each is its submitters' (a group's, each member's): the
 * student is the submitter's sid, else email, else name, the submission
 * time its :created_at. In its folder the lab's files are found at the top,
 * in <lab>/, or in the one folder it holds (a zip of a folder; __MACOSX/
 * and dot-files aside). gsexport_collect adds them to subs; 0, or -1 with
 * an error for a metadata file it cannot read.
 */
bool gsexport_is(const char *dir);
/* Whether dir holds one of the lab's files (a link counts: intake refuses it). */
bool batch_holds_lab_file(const char *dir, const struct strlist *files);
/* Where dir's submission is: dir when it holds a lab file, its <lab>/ when that does; NULL. */
char *batch_submission_in(const char *dir, const char *lab, const struct strlist *files);
int gsexport_collect(const char *dir, const char *lab, const struct strlist *files,
		     struct batch_sub **subs, size_t *n);

/*
 * Sets the submission times of subs from a CSV file of "student,time" lines
 * (an LMS export: a header line, '#' comments and quotes are fine). Students
 * it lacks are warned of. Returns 0, or -1 with an error naming the line.
 */
int batch_read_times(const char *path, struct batch_sub *subs, size_t n);

struct batch_opts {
	unsigned jobs;              /* gradings at once (0: one per CPU) */
	struct strlist gpus;        /* the GPUs to use, as CUDA_VISIBLE_DEVICES names them */
	bool gpus_known;            /* given, or found: a grading that finds none is a
				       failure of the system, not a reason to emulate */
	char no_gpu_why[160];       /* when not known, why ("no GPU found") */
	bool resume;                /* skip what the gradebook already holds */
	const char *db_path;        /* the gradebook every run is stored in */
	bool no_summary;            /* print no summary table (check-lab prints its own) */
	bool own_gradings;          /* each a grading of its own, not one of a class's
				       side by side (grade_opts.in_class: its lanes) */
	bool quiet;                 /* no progress on stderr (check-lab's emulated half,
				       graded beside its GPU half, which shows its own) */
};

/*
 * What options left unset default to: one grading at once per CPU, and
 * every GPU of the machine (gpus_discover: with none, gpus_known is false
 * and no_gpu_why says why).
 */
void batch_defaults(struct batch_opts *bo);

/*
 * Grades every submission (go's options for each, its folder and student
 * set per submission) into the gradebook, jobs at a time, each grading
 * given one of the GPUs in turn; shows progress on stderr and a summary
 * table on stdout. A grading that fails for the grader's own reasons is
 * tried once more at the end and, failing again, reported as a system
 * error, never stored as the student's. Returns the exit code: 0 when every
 * submission was graded (points lost or not), EXIT_INCOMPLETE when so but
 * every run that built is provisional (no GPU: all emulated), EXIT_INTERNAL
 * when one was not graded.
 */
int batch_grade(const struct toolchain *tc, const struct lab_config *cfg,
		const struct batch_sub *subs, size_t n, const struct batch_opts *bo,
		const struct grade_opts *go);

#endif
