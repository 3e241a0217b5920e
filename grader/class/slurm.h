/*
 * slurm.h - a class graded on a Slurm cluster: the spool folder on shared
 * storage that array tasks publish result documents into, the job script
 * they run, and what sbatch, squeue and sacct say of them.
 *
 * The spool (docs/ta-guide.md, "Grading on a cluster"):
 *   lab             the lab's name
 *   roster.tsv      one line per submission: index, student, folder,
 *                   submission time (ISO 8601 UTC or "-"), tab-separated
 *   grade.sbatch    the job script (slurm_job_script)
 *   jobs            one line per array submitted: job id, submissions per task
 *   state/INDEX     what the task of a submission did: "started JOB_TASK HOST
 *                   EPOCH", then "ended EXIT EPOCH"
 *   results/STUDENT.json  the result document, written whole or not at all
 *   logs/JOB_TASK.log     each task's output
 * The tasks never write a gradebook on shared storage: `cudalab collect` is
 * the one writer. Nothing here knows labs or the gradebook.
 */
#ifndef SLURM_H
#define SLURM_H

#include "config.h"
#include "util.h"

#include <time.h>

struct spool_entry {
	long index;
	char *student, *dir;
	char *submitted_at;          /* ISO 8601 UTC, or NULL: not known */
};

struct spool {
	char *path, *lab;
	struct spool_entry *e;
	size_t n;
};

/* One submission of a new spool (dir absolute, submitted_at 0: not known). */
struct spool_sub {
	const char *student, *dir;
	time_t submitted_at;
};

/*
 * Makes a new spool at path for lab: its folders and roster. A folder that
 * already holds a roster is refused (its runs would mix with another
 * class's), as is a student or folder name holding a tab or a newline.
 */
int spool_create(const char *path, const char *lab, const struct spool_sub *subs, size_t n);
/* Reads the spool at path, which must be lab's. */
int spool_open(const char *path, const char *lab, struct spool *sp);
void spool_free(struct spool *sp);
/* SPOOL/results/STUDENT.json */
char *spool_result_path(const struct spool *sp, const struct spool_entry *e);

/* How far the grading of one submission is. */
enum entry_state {
	ENTRY_DONE,      /* its result document is in the spool */
	ENTRY_PENDING,   /* its task waits in the queue */
	ENTRY_RUNNING,   /* its task runs */
	ENTRY_MISSING,   /* no task of it is queued, and it has no result: why says why */
};

struct entry_status {
	enum entry_state state;
	char *why;       /* ENTRY_MISSING: in words, with the task's log; RUNNING: the node */
};

/*
 * The state of every entry of sp, from the spool's files, squeue and, where
 * the cluster keeps accounting, sacct. Returns 0, or -1 with an error when
 * squeue cannot be asked.
 */
int spool_status(const struct spool *sp, struct entry_status *st);
void spool_status_free(struct entry_status *st, size_t n);

/*
 * Seconds to wait before asking again, after a wait of prev seconds (0:
 * none yet) that changed something or not: SLURM_POLL_FIRST after a
 * change, half as long again after each wait that changed nothing, never
 * more than SLURM_POLL_MOST. A following of hours asks squeue about twice
 * a minute, not thirty times.
 */
#define SLURM_POLL_FIRST 2.0
#define SLURM_POLL_MOST 30.0
double slurm_poll_wait(double prev, bool changed);

/*
 * The job script: bash, readable and copyable, that grades the submissions
 * of task SLURM_ARRAY_TASK_ID (its first argument: submissions per task)
 * with `cudalab grade`, passing its other arguments on; into SPOOL/grade.sbatch.
 */
int slurm_write_job_script(const struct spool *sp, const char *cudalab);
/*
 * The site's set-up (module load, PATH), a bash file, kept in the spool as
 * setup.sh, which every task sources before it grades; a task whose
 * set-up fails grades nothing, and says so in its log. 0, or -1 with an
 * error for a file that cannot be read or is not a small text file.
 */
int slurm_keep_setup(const struct spool *sp, const char *path);

struct slurm_submit {
	const char *array;           /* "0-29", "3,5": task ids */
	unsigned per_task, throttle, minutes;
	unsigned mem_mb, cpus;       /* --mem, --cpus-per-task; 0: not asked */
	const char *gres;            /* "gpu:1"; NULL: none */
	char *const *sbatch_args;    /* passed as they are (partition, account...) */
	size_t nsbatch_args;
	char *const *grade_args;     /* passed to every `cudalab grade` */
	size_t ngrade_args;
};

/*
 * What one grading of the lab can need at most, from lab.conf's own limits,
 * which the grader keeps itself: a task's time, memory and CPUs are these
 * (times the submissions it grades, for the time) and a margin, so that
 * Slurm never ends a grading the grader would have finished, and a course
 * asks for no more than that. Emulated: no GPU (--gres none).
 */
struct slurm_needs {
	unsigned seconds;     /* the wall time of a grading, every limit reached */
	unsigned mem_mb;      /* its programs at once, each at the memory limit; 0: no limit */
	unsigned cpus;
};
void slurm_task_needs(const struct lab_config *cfg, bool emulated, struct slurm_needs *n);

/* The sbatch command that submits the array s (into argv), and as one shell line. */
void slurm_sbatch_argv(const struct spool *sp, const struct slurm_submit *s, struct strlist *argv);
char *slurm_shell_line(const struct strlist *argv);

/*
 * Submits the spool's job script as an array; records the job in SPOOL/jobs.
 * Returns 0 with *job set, or -1 with an error quoting sbatch.
 */
int slurm_submit(const struct spool *sp, const struct slurm_submit *s, char **job);

/* The largest array index the cluster takes (MaxArraySize - 1); 1000 when it does not say. */
long slurm_max_array_index(void);
/*
 * How many more jobs Slurm takes from this user now, each array task
 * counting as one: the tightest of its associations' MaxSubmitJobs less
 * what each holds (scontrol show assoc_mgr), and of its QOSes'
 * MaxSubmitJobsPerUser less its jobs queued (sacctmgr, squeue). -1 where no
 * such limit is set or the cluster keeps no accounting; *which (static
 * text) names the limit found.
 */
long slurm_submit_room(const char **which);
/*
 * The same from what those commands printed: assoc_mgr, scontrol show
 * assoc_mgr flags=assoc; qos, sacctmgr -nP show qos format=Name,MaxSubmitPU;
 * user_qos, the QOSes of the user's associations, comma-separated;
 * queued, the user's jobs and tasks queued or running.
 */
long slurm_submit_room_of(const char *assoc_mgr, const char *qos, const char *user_qos,
			  long queued, const char **which);
/* Whether sbatch can be found on PATH (the error says what to do when not). */
bool slurm_available(void);

#endif
