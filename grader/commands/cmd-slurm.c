/*
 * cmd-slurm.c - `cudalab slurm LAB DIR... --spool DIR`: a class graded on a
 * Slurm cluster as a job array, one task per submission (or per chunk), each
 * grading with `cudalab grade` into a result document in the spool; then
 * followed and collected (cmd-collect.c) into the gradebook by one writer.
 */
#include "cmd.h"

#include "batch.h"
#include "slurm.h"

#include <errno.h>
#include <getopt.h>   /* optind */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_THROTTLE 16
/* a task's time: what its gradings need at most (slurm_task_needs), and a quarter more */
#define TIME_MARGIN 1.25

static const struct cmd_opt slurm_opts[] = {
	CMD_OPT('s', "spool", 0, "DIR", "the spool folder, new (or the one to resume)"),
	CMD_OPT('R', "resume", 0, NULL, "grade again the spool's submissions that have no result"),
	CMD_OPT('d', "db", 0, "PATH",
	 "the gradebook collect writes (default: $CUDALAB_DB, else\n"
	 "./gradebook.db), checked before anything is submitted"),
	CMD_OPT('P', "per-task", 0, "N",
	 "submissions each task grades, one after another (default 1;\n"
	 "raised where the class is larger than the cluster's MaxArraySize\n"
	 "or your submit limits, MaxSubmitJobs, allow)"),
	CMD_OPT('T', "throttle", 0, "N",
	 "tasks running at once, sbatch's %N (default " TEXT_OF(DEFAULT_THROTTLE) "; 0: no limit)"),
	CMD_OPT('t', "time", 0, "MIN",
	 "each task's time limit in minutes, a backstop to cudalab's own\n"
	 "limits (default: what lab.conf's limits let a grading take, and a\n"
	 "quarter more, per submission the task grades)"),
	CMD_OPT('g', "gres", 0, "SPEC",
	 "what a task asks for (default gpu:1; none: nothing, for an\n"
	 "emulated pre-check on CPU nodes)"),
	CMD_OPT('M', "times", 0, "FILE", "when each student submitted, CSV 'student,time' (as grade)"),
	CMD_OPT('U', "setup", 0, "FILE",
	 "the site's set-up, sourced by bash in every task before it\n"
	 "grades (module load cuda/13.0, a PATH); kept in the spool"),
	CMD_OPT_SHOWN_AS('E', "emulate", 0, NULL,
	 "passed to every grading",
	 "--emulate, --no-emulate, --lanes N, --slots N"),
	CMD_OPT('W', "no-wait", 0, NULL, "submit and return: follow and collect later with collect"),
	CMD_OPT('C', "no-collect", 0, NULL, "follow, but leave the results in the spool"),
	CMD_OPT('S', "no-submit", 0, NULL,
	 "write the spool and the job script, print the sbatch line\n"
	 "that would submit them, and stop: to submit it yourself"),
	CMD_OPT('q', "quiet", 'q', NULL, "no progress lines"),
	CMD_OPT('N', "no-emulate", 0, NULL, NULL),   /* shown with another */
	CMD_OPT('A', "lanes", 0, "N", NULL),     /* shown with another */
	CMD_OPT('L', "slots", 0, "N", NULL),     /* shown with another */
	CMD_OPT_END,
};
static const struct cmd_spec slurm_cmd = {
	.synopsis = "usage: cudalab slurm LAB DIR... --spool DIR [options] [-- SBATCH-OPTIONS...]\n"
		    "       cudalab slurm LAB --spool DIR --resume [options] [-- SBATCH-OPTIONS...]\n"
		    "\n"
		    "Grades a class on a Slurm cluster: the submissions DIR... name (found as\n"
		    "`cudalab grade` finds a class) go in a roster in the spool folder DIR, on\n"
		    "storage the nodes share, and one job array grades them, a task per submission\n"
		    "(or per --per-task of them), each task on a GPU of its own (--gres gpu:1). A\n"
		    "task runs `cudalab grade` with a gradebook of its own on the node's disk and\n"
		    "publishes the result document into DIR/results/. The array is then followed\n"
		    "(graded, running, pending, failed, rate, ETA) and collected into the gradebook\n"
		    "(`cudalab collect`), the one writer. Leaving while it runs stops nothing:\n"
		    "`cudalab collect LAB DIR --wait` follows it again. What comes after `--` goes\n"
		    "to sbatch as it is: the course's --partition, --account, --qos, --constraint.\n"
		    "A submission whose task died (killed, time limit, node failure) has no result\n"
		    "and is never charged to the student: --resume grades those again.\n"
		    "Run it where the cudalab build and the submissions are on shared storage.\n"
		    "Exit codes: collect's (0 all graded, 4 some not yet, or all provisional), 2\n"
		    "usage (sbatch refused the array), 128 internal.\n"
		    "\n",
	.opts = {slurm_opts},
};

struct slurm_opts {
	const char *spool, *db_path, *times, *gres, *setup;
	unsigned per_task, throttle, minutes;
	bool throttle_set, resume, no_wait, no_collect, no_submit;
	struct strlist grade_args;
	struct slurm_needs needs;   /* of one grading, from lab.conf */
};

/* The new spool of a class: its submissions, with absolute folders and their times. */
static int new_spool(const char *lab, const struct lab_config *cfg, char **dirs, size_t ndirs,
		     const struct slurm_opts *o)
{
	struct batch_sub *subs;
	size_t n;
	int ret = -1;

	if (batch_collect(lab, &cfg->files, dirs, ndirs, &subs, &n))
		return -1;
	if (o->times && batch_read_times(o->times, subs, n))
		goto out;
	struct spool_sub *ss = xcalloc(n ? n : 1, sizeof(*ss));
	char **abs = xcalloc(n ? n : 1, sizeof(*abs));
	for (size_t i = 0; i < n; i++) {
		abs[i] = realpath(subs[i].dir, NULL);
		if (!abs[i])
			abs[i] = xstrdup(subs[i].dir);
		ss[i] = (struct spool_sub){subs[i].student, abs[i], subs[i].submitted_at};
	}
	ret = spool_create(o->spool, lab, ss, n);
	for (size_t i = 0; i < n; i++)
		free(abs[i]);
	free(abs);
	free(ss);
out:
	batch_free(subs, n);
	return ret;
}

/*
 * How many tasks Slurm takes from this user now (each is a job to its
 * submit limits, MaxSubmitJobs): -1 for no limit; 0 after saying none.
 */
static long submit_room(const struct spool *sp, const char **which)
{
	long room = slurm_submit_room(which);

	if (!room)
		error("Slurm takes no more jobs from you now (%s: your queued jobs use all of "
		      "it): once some have ended, grade the spool with cudalab slurm %s --spool %s "
		      "--resume", *which, sp->lab, sp->path);
	return room;
}

/* The tasks n submissions take at per a task. */
static size_t tasks_of(size_t n, unsigned per)
{
	return (n + per - 1) / per;
}

/*
 * Raises o->per_task so that n submissions take at most cap tasks, saying so
 * with limit (what cap is) where it had to.
 */
static void fit_tasks(size_t n, struct slurm_opts *o, long cap, const char *limit)
{
	if (tasks_of(n, o->per_task) <= (size_t)cap)
		return;
	o->per_task = (unsigned)tasks_of(n, (unsigned)cap);
	fprintf(stderr, "slurm: %zu submissions are more than %s: %u a task\n", n, limit,
		o->per_task);
}

/*
 * The array to submit: every task of the roster, or (resume) the
 * submissions that have no result and no task queued. NULL with *nothing
 * set when there is nothing to grade, NULL alone on an error.
 */
static char *array_spec(const struct spool *sp, struct slurm_opts *o, bool *nothing)
{
	const char *which = NULL;
	long room;

	*nothing = false;
	if (!o->resume) {
		long max = slurm_max_array_index() + 1;
		if (!sp->n) {
			*nothing = true;
			return NULL;
		}
		if (!(room = submit_room(sp, &which)))
			return NULL;
		if (!o->per_task)
			o->per_task = 1;
		char *limit = xasprintf("the cluster's %ld tasks an array may have", max);
		fit_tasks(sp->n, o, max, limit);
		free(limit);
		if (room > 0) {
			limit = xasprintf("the %ld jobs Slurm takes from you now (%s)", room, which);
			fit_tasks(sp->n, o, room, limit);
			free(limit);
		}
		return xasprintf("0-%zu", tasks_of(sp->n, o->per_task) - 1);
	}
	struct entry_status *st = xcalloc(sp->n ? sp->n : 1, sizeof(*st));
	struct strbuf sb = STRBUF_INIT;
	size_t busy = 0, missing = 0;
	if (spool_status(sp, st)) {
		free(st);
		return NULL;
	}
	for (size_t i = 0; i < sp->n; i++) {
		busy += st[i].state == ENTRY_PENDING || st[i].state == ENTRY_RUNNING;
		if (st[i].state == ENTRY_MISSING) {
			missing++;
			strbuf_addf(&sb, "%s%ld", sb.len ? "," : "", sp->e[i].index);
		}
	}
	spool_status_free(st, sp->n);
	free(st);
	if (busy) {
		error("%zu submission%s of the spool '%s' still queued or grading: --resume grades what "
		      "has no result once no task of it is left (cudalab collect %s %s --wait)",
		      busy, busy == 1 ? " is" : "s are", sp->path, sp->lab, sp->path);
		strbuf_release(&sb);
		return NULL;
	}
	o->per_task = 1;   /* the task is the roster's index */
	if (missing && !(room = submit_room(sp, &which))) {
		strbuf_release(&sb);
		return NULL;
	}
	if (missing && room > 0 && missing > (size_t)room) {
		error("%zu submissions to grade again are more than the %ld jobs Slurm takes from you "
		      "now (%s): --resume grades them once %zu of your jobs have ended", missing,
		      room, which, missing - (size_t)room);
		strbuf_release(&sb);
		return NULL;
	}
	if (!sb.len)
		*nothing = true;
	return sb.len ? strbuf_detach(&sb) : NULL;
}

static int submit_and_follow(const struct spool *sp, struct slurm_opts *o, const char *array,
			     char **sbatch_args, size_t nsbatch)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *job = NULL;
	size_t tasks = 1;

	if (len < 0)
		return error("cannot find where cudalab is installed"), EXIT_INTERNAL;
	exe[len] = '\0';
	/* "0-29": the whole roster; "3,5": the indexes resumed */
	if (!strncmp(array, "0-", 2))
		tasks = (size_t)strtol(array + 2, NULL, 10) + 1;
	else
		for (const char *p = array; *p; p++)
			tasks += *p == ',';
	unsigned minutes = o->minutes ? o->minutes
			   : (unsigned)ceil(o->needs.seconds * TIME_MARGIN * o->per_task / 60);
	struct slurm_submit s = {
		.array = array,
		.per_task = o->per_task,
		.throttle = o->throttle_set ? o->throttle : DEFAULT_THROTTLE,
		.minutes = minutes,
		.mem_mb = o->needs.mem_mb,
		.cpus = o->needs.cpus,
		.gres = o->gres && strcmp(o->gres, "none") ? o->gres : o->gres ? NULL : "gpu:1",
		.sbatch_args = sbatch_args,
		.nsbatch_args = nsbatch,
		.grade_args = o->grade_args.v,
		.ngrade_args = o->grade_args.n,
	};
	if ((o->setup && slurm_keep_setup(sp, o->setup)) || slurm_write_job_script(sp, exe))
		return EXIT_USAGE;
	if (o->no_submit) {
		struct strlist argv = STRLIST_INIT;
		slurm_sbatch_argv(sp, &s, &argv);
		char *line = slurm_shell_line(&argv);
		printf("%s\n", line);
		fprintf(stderr, "slurm: not submitted; the line above submits it (add your own sbatch "
				"options before the script). Once the array ended: cudalab collect %s %s\n",
			sp->lab, sp->path);
		free(line);
		strlist_clear(&argv);
		return 0;
	}
	if (slurm_submit(sp, &s, &job))
		return EXIT_USAGE;
	fprintf(stderr, "slurm: job %s: %zu task%s grading %s's %zu submission%s, %u at once, "
			"each at most %u min, %u CPUs and %u MB (0: the site's default); spool %s\n",
		job, tasks, tasks == 1 ? "" : "s", sp->lab, sp->n, sp->n == 1 ? "" : "s",
		s.throttle, minutes, s.cpus, s.mem_mb, sp->path);
	if (o->no_wait) {
		fprintf(stderr, "slurm: follow and collect it with: cudalab collect %s %s --wait\n",
			sp->lab, sp->path);
		free(job);
		return 0;
	}
	fprintf(stderr, "slurm: leaving now stops nothing (scancel %s does); follow it again with "
			"cudalab collect %s %s --wait\n", job, sp->lab, sp->path);
	free(job);
	if (collect_follow(sp))
		return EXIT_INTERNAL;
	return o->no_collect ? 0 : collect_spool(sp, o->db_path);
}

int cmd_slurm(int argc, char **argv)
{
	struct slurm_opts o = {.db_path = default_db_path(), .grade_args = STRLIST_INIT};
	int c, code = EXIT_USAGE, mine = argc;
	struct lab_config cfg;
	struct spool sp;

	/* what follows "--" is sbatch's */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			mine = i;
			break;
		}
	while ((c = cmd_getopt(&slurm_cmd, mine, argv)) >= 0) {
		unsigned v;
		switch (c) {
		case 's':
			o.spool = optarg;
			break;
		case 'R':
			o.resume = true;
			break;
		case 'd':
			o.db_path = optarg;
			break;
		case 'g':
			o.gres = optarg;
			break;
		case 'M':
			o.times = optarg;
			break;
		case 'U':
			o.setup = optarg;
			break;
		case 'W':
			o.no_wait = true;
			break;
		case 'C':
			o.no_collect = true;
			break;
		case 'S':
			o.no_submit = true;
			break;
		case 'q':
			progress_quiet = true;
			strlist_push(&o.grade_args, "--quiet");
			break;
		case 'E':
			strlist_push(&o.grade_args, "--emulate");
			break;
		case 'N':
			strlist_push(&o.grade_args, "--no-emulate");
			break;
		case 'P':
		case 'T':
		case 't':
		case 'A':
		case 'L':
			v = positive_option(optarg);
			if (!v && !(c == 'T' && !strcmp(optarg, "0")) && !(c == 'A' && !strcmp(optarg, "0"))) {
				error("--%s wants a positive number, not '%s'",
				      c == 'P' ? "per-task" : c == 'T' ? "throttle" : c == 't' ? "time"
				      : c == 'A' ? "lanes" : "slots", optarg);
				goto out;
			}
			if (c == 'P')
				o.per_task = v;
			else if (c == 'T')
				o.throttle = v, o.throttle_set = true;
			else if (c == 't')
				o.minutes = v;
			else
				strlist_pushf(&o.grade_args, "--%s=%u", c == 'A' ? "lanes" : "slots", v);
			break;
		}
	}
	if (c != CMD_END) {
		code = cmd_stopped(c);
		goto out;
	}
	if (optind >= mine || !o.spool || (o.resume && optind + 1 < mine) ||
	    (!o.resume && optind + 1 >= mine)) {
		if (o.resume && optind + 1 < mine)
			error("--resume grades the spool's own roster again: give no folders");
		else if (!o.spool && optind < mine)
			error("--spool DIR is required: the folder, on storage the nodes share, that "
			      "the tasks write their results into");
		cmd_bad_usage(&slurm_cmd);
		goto out;
	}
	const char *lab = argv[optind];
	const struct toolchain *tc = toolchain();
	if (!lab_exists(tc->root, lab))
		goto out;
	if (!o.no_submit && !slurm_available())
		goto out;
	if (o.no_submit)
		o.no_wait = true;
	if (!o.no_collect && !o.no_wait && !gradebook_ready(o.db_path)) {
		code = gradebook_unready();
		goto out;   /* found now, not once the class is graded */
	}
	if (config_load(tc->root, lab, &cfg)) {
		code = EXIT_INTERNAL;
		goto out;
	}
	slurm_task_needs(&cfg, (o.gres && !strcmp(o.gres, "none")) ||
				       strlist_has(&o.grade_args, "--emulate"), &o.needs);
	if (!o.resume && new_spool(lab, &cfg, argv + optind + 1, (size_t)(mine - optind - 1), &o)) {
		config_free(&cfg);
		goto out;
	}
	config_free(&cfg);
	if (spool_open(o.spool, lab, &sp))
		goto out;
	bool nothing;
	char *array = array_spec(&sp, &o, &nothing);
	if (array) {
		code = submit_and_follow(&sp, &o, array, argv + mine + (mine < argc),
					 (size_t)(argc - mine - (mine < argc)));
	} else if (nothing) {
		fprintf(stderr, "slurm: every submission of the spool '%s' has its result: nothing to "
				"grade\n", o.spool);
		code = o.no_collect || o.no_wait ? 0 : collect_spool(&sp, o.db_path);
	}
	free(array);
	spool_free(&sp);
out:
	strlist_clear(&o.grade_args);
	return code;
}
