/*
 * slurm.c - the spool of a class graded on Slurm, and the Slurm commands
 * (sbatch, squeue, sacct, scontrol) that submit and follow its array
 * (slurm.h). Runs only Slurm's own, trusted, commands; knows nothing of
 * labs or of the gradebook.
 */
#include "slurm.h"
#include "safety.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ----------------------------------------------------- Slurm's commands */

/*
 * Runs argv (found on PATH), its stdout into *out and its stderr into *err
 * (either may be NULL); returns its exit status, or -1 when it could not
 * be run at all.
 */
static int capture(char *const argv[], char **out, char **err)
{
	int po[2], pe[2], status;
	struct strbuf so = STRBUF_INIT, se = STRBUF_INIT;
	char buf[4096];
	ssize_t n;

	if (pipe2(po, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(pe, O_CLOEXEC) < 0) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
		return -1;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);
		dup2(null, STDIN_FILENO);
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	/* Slurm's answers are short: stdout whole, then stderr, cannot fill a pipe */
	while ((n = read(po[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			strbuf_add(&so, buf, (size_t)n);
	while ((n = read(pe[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			strbuf_add(&se, buf, (size_t)n);
	close(po[0]);
	close(pe[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (out)
		*out = so.buf ? strbuf_detach(&so) : xstrdup("");
	if (err)
		*err = se.buf ? strbuf_detach(&se) : xstrdup("");
	strbuf_release(&so);
	strbuf_release(&se);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool slurm_available(void)
{
	char *path = path_lookup("sbatch");

	if (!path)
		error("Slurm's sbatch is not on PATH: run this on a machine that submits jobs to the "
		      "cluster (a login node)");
	free(path);
	return path != NULL;
}

long slurm_max_array_index(void)
{
	char *argv[] = {"scontrol", "show", "config", NULL}, *out = NULL;
	long max = 1001;

	if (capture(argv, &out, NULL) == 0) {
		const char *p = strstr(out, "\nMaxArraySize");
		if (p && (p = strchr(p, '=')))
			max = strtol(p + 1, NULL, 10);
	}
	free(out);
	return max > 1 ? max - 1 : 1000;
}

long slurm_submit_room_of(const char *assoc_mgr, const char *qos, const char *user_qos,
			  long queued, const char **which)
{
	long room = -1;

	/* each association of the user's ("MaxSubmitJobs=3(1)": a limit of 3, 1 held) */
	for (const char *p = assoc_mgr; p && (p = strstr(p, "MaxSubmitJobs=")); ) {
		long max, held;
		p += strlen("MaxSubmitJobs=");
		if (sscanf(p, "%ld(%ld)", &max, &held) == 2 && max >= 0 &&
		    (room < 0 || max - held < room)) {
			room = max - held > 0 ? max - held : 0;
			*which = "its association's MaxSubmitJobs";
		}
	}
	/* each QOS of theirs with a MaxSubmitJobsPerUser: "normal|4" */
	for (const char *l = qos; l && *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		char name[128];
		long max;
		if (sscanf(l, "%127[^|\n]|%ld", name, &max) != 2 || max < 0)
			continue;
		bool theirs = false;
		for (const char *u = user_qos; u && *u; u += strcspn(u, ",") + (u[strcspn(u, ",")] != 0))
			theirs |= strcspn(u, ",\n") == strlen(name) && !strncmp(u, name, strlen(name));
		if (theirs && (room < 0 || max - queued < room)) {
			room = max - queued > 0 ? max - queued : 0;
			*which = "its QOS's MaxSubmitJobsPerUser";
		}
	}
	return room;
}

long slurm_submit_room(const char **which)
{
	struct passwd *pw = getpwuid(getuid());
	char *me = pw ? pw->pw_name : "root";
	char *users = xasprintf("users=%s", me);
	char *user = xasprintf("user=%s", me);
	char *amgr[] = {"scontrol", "show", "assoc_mgr", users, "flags=assoc", NULL};
	char *qos[] = {"sacctmgr", "-nP", "show", "qos", "format=Name,MaxSubmitPU", NULL};
	char *uq[] = {"sacctmgr", "-nP", "show", "assoc", "where", user, "format=QOS", NULL};
	char *sq[] = {"squeue", "-h", "-r", "-u", me, "-o", "%i", NULL};
	char *a = NULL, *q = NULL, *u = NULL, *s = NULL;
	long queued = 0, room = -1;

	*which = NULL;
	if (capture(amgr, &a, NULL) != 0) {
		free(a);
		a = NULL;
	}
	if (capture(qos, &q, NULL) == 0 && capture(uq, &u, NULL) == 0) {
		for (char *c = u; *c; c++)   /* one line per association: a list of lists */
			*c = *c == '\n' ? ',' : *c;
		if (capture(sq, &s, NULL) == 0)
			for (const char *c = s; *c; c++)
				queued += *c == '\n';
		room = slurm_submit_room_of(a, q, u, queued, which);
	} else {
		room = slurm_submit_room_of(a, NULL, NULL, 0, which);
	}
	free(a);
	free(q);
	free(u);
	free(s);
	free(users);
	free(user);
	return room;
}

/* ---------------------------------------------------------------- spool */

static char *spool_file(const char *spool, const char *name)
{
	return xasprintf("%s/%s", spool, name);
}

static int make_dir(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return error("cannot create the folder '%s': %s", path, strerror(errno));
	return 0;
}

static bool plain_field(const char *s)
{
	return *s && !strpbrk(s, "\t\n\r");
}

int spool_create(const char *path, const char *lab, const struct spool_sub *subs, size_t n)
{
	static const char *const dirs[] = {"results", "state", "logs"};
	struct strbuf sb = STRBUF_INIT;
	char *roster = spool_file(path, "roster.tsv"), *labfile = spool_file(path, "lab");
	int ret = -1;

	if (!access(roster, F_OK)) {
		error("the spool '%s' already holds a class (its roster.tsv): grade what has no "
		      "result yet with --resume, or give a new folder", path);
		goto out;
	}
	if (make_dir(path))
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *d = spool_file(path, dirs[i]);
		int bad = make_dir(d);
		free(d);
		if (bad)
			goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char at[32] = "-";
		if (!plain_field(subs[i].student) || !plain_field(subs[i].dir)) {
			error("the submission '%s' of '%s': a tab or a line break in its name cannot "
			      "go in the roster; rename the folder", subs[i].student, subs[i].dir);
			goto out;
		}
		if (subs[i].submitted_at) {
			struct tm tm;
			gmtime_r(&subs[i].submitted_at, &tm);
			strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", &tm);
		}
		strbuf_addf(&sb, "%zu\t%s\t%s\t%s\n", i, subs[i].student, subs[i].dir, at);
	}
	char *labline = xasprintf("%s\n", lab);
	ret = write_file_atomic(labfile, labline, strlen(labline)) ||
			      write_file_atomic(roster, sb.buf ? sb.buf : "", sb.len)
		      ? -1
		      : 0;
	free(labline);
out:
	strbuf_release(&sb);
	free(roster);
	free(labfile);
	return ret;
}

int spool_open(const char *path, const char *lab, struct spool *sp)
{
	char *labfile = spool_file(path, "lab"), *roster = spool_file(path, "roster.tsv");
	char *text = read_file(labfile, NULL), *list = NULL;
	int ret = -1;

	*sp = (struct spool){.path = xstrdup(path)};
	if (!text || !(list = read_file(roster, NULL))) {
		error("'%s' is not a spool of cudalab slurm (no %s)", path, text ? "roster.tsv" : "lab file");
		goto out;
	}
	text[strcspn(text, "\n")] = '\0';
	sp->lab = xstrdup(text);
	if (strcmp(sp->lab, lab)) {
		error("the spool '%s' is lab %s's, not %s's", path, sp->lab, lab);
		goto out;
	}
	for (char *line = list, *next; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		char *f[4] = {NULL};
		size_t k = 0;
		for (char *p = line; k < 4; k++) {
			f[k] = p;
			p += strcspn(p, "\t");
			if (!*p) {
				k++;
				break;
			}
			*p++ = '\0';
		}
		if (k != 4 || !f[3]) {
			error("%s: a line that is not 'index, student, folder, time': '%s'", roster, line);
			goto out;
		}
		sp->e = xrealloc(sp->e, (sp->n + 1) * sizeof(*sp->e));
		sp->e[sp->n++] = (struct spool_entry){
			.index = strtol(f[0], NULL, 10),
			.student = xstrdup(f[1]),
			.dir = xstrdup(f[2]),
			.submitted_at = strcmp(f[3], "-") ? xstrdup(f[3]) : NULL,
		};
	}
	ret = 0;
out:
	if (ret)
		spool_free(sp);
	free(text);
	free(list);
	free(labfile);
	free(roster);
	return ret;
}

void spool_free(struct spool *sp)
{
	for (size_t i = 0; i < sp->n; i++) {
		free(sp->e[i].student);
		free(sp->e[i].dir);
		free(sp->e[i].submitted_at);
	}
	free(sp->e);
	free(sp->path);
	free(sp->lab);
	memset(sp, 0, sizeof(*sp));
}

char *spool_result_path(const struct spool *sp, const struct spool_entry *e)
{
	return xasprintf("%s/results/%s.json", sp->path, e->student);
}

/* ------------------------------------------------------------- the jobs */

struct job {
	char id[32];
	long per;
};

/* The arrays submitted for the spool, oldest first. */
static struct job *read_jobs(const struct spool *sp, size_t *n)
{
	/* none with --no-submit, where the course submits the job script itself */
	char *path = spool_file(sp->path, "jobs"), *text = NULL;
	struct job *jobs = NULL;

	if (!access(path, F_OK))
		text = read_file(path, NULL);

	*n = 0;
	for (char *line = text; line && *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
		struct job j = {0};
		if (sscanf(line, "%31s %ld", j.id, &j.per) == 2 && j.per > 0) {
			jobs = xrealloc(jobs, (*n + 1) * sizeof(*jobs));
			jobs[(*n)++] = j;
		}
	}
	free(text);
	free(path);
	return jobs;
}

/* The entries task of job covers: [*first, *first + per). */
static long task_first(const struct job *j, long task)
{
	return task * j->per;
}

static struct spool_entry *entry_at(const struct spool *sp, long index)
{
	if (index >= 0 && (size_t)index < sp->n && sp->e[index].index == index)
		return &sp->e[index];
	for (size_t i = 0; i < sp->n; i++)
		if (sp->e[i].index == index)
			return &sp->e[i];
	return NULL;
}

/* What a task left in SPOOL/state/INDEX. */
struct task_trace {
	char task[64], host[256];
	long long started, ended_at;
	int exit_code;   /* -1: it never said it ended */
	int setup_rc;    /* the site's set-up failed with it: nothing graded (0: it did not) */
	bool seen;
};

static void read_trace(const struct spool *sp, long index, struct task_trace *t)
{
	char *path = xasprintf("%s/state/%ld", sp->path, index), *text;

	report_quiet = true;   /* no state yet: its task never started */
	text = read_file(path, NULL);
	report_quiet = false;
	*t = (struct task_trace){.exit_code = -1};
	for (char *line = text; line && *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
		if (sscanf(line, "started %63s %255s %lld", t->task, t->host, &t->started) == 3)
			t->seen = true;
		else if (sscanf(line, "setup-failed %d", &t->setup_rc) != 1)
			sscanf(line, "ended %d %lld", &t->exit_code, &t->ended_at);
	}
	free(text);
	free(path);
}

/* Slurm's words for a task, from squeue or sacct: "RUNNING", "TIMEOUT"... */
struct task_word {
	char state[32], node[256];
};

/* What Slurm says of task t of job (state, node) into the words of its entries. */
static void note_task(const struct spool *sp, const struct job *job, long t, const char *state,
		      const char *node, struct task_word *words)
{
	for (long i = task_first(job, t); i < task_first(job, t) + job->per; i++) {
		struct spool_entry *e = entry_at(sp, i);
		if (!e)
			continue;
		struct task_word *w = &words[e - sp->e];
		snprintf(w->state, sizeof(w->state), "%s", state);
		snprintf(w->node, sizeof(w->node), "%s", node);
	}
}

/*
 * For every entry, what squeue (queued: true) or sacct says of the task of
 * the newest job that covers it: into words[index].
 */
static int ask_slurm(const struct spool *sp, const struct job *jobs, size_t njobs, bool queued,
		     struct task_word *words)
{
	for (size_t j = 0; j < njobs; j++) {
		char *out = NULL, *err = NULL;
		char *sq[] = {"squeue", "-h", "-r", "-j", (char *)jobs[j].id, "-o", "%K|%T|%N", NULL};
		char *sa[] = {"sacct", "-X", "-n", "-P", "-j", (char *)jobs[j].id, "--format=JobID,State",
			      NULL};
		int rc = capture(queued ? sq : sa, &out, &err);
		static bool told;
		if (rc < 0 && queued && !told) {   /* collecting on a machine without Slurm */
			warning("squeue is not installed here: no task is taken to be queued or running");
			told = true;
		}
		/* a job Slurm has forgotten is not an error: it is no longer queued */
		for (char *line = rc == 0 ? out : ""; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
			char task[64] = "", state[32] = "", node[256] = "";
			long t;
			if (queued) {
				if (sscanf(line, "%63[^|]|%31[^|]|%255[^\n]", task, state, node) < 2)
					continue;
			} else {
				char id[64];
				if (sscanf(line, "%63[^|]|%31[^ \n|]", id, state) != 2 || !strchr(id, '_'))
					continue;
				snprintf(task, sizeof(task), "%s", strchr(id, '_') + 1);
			}
			/* one task, or those that never started, in one line: "12_[4-7%2]", "12_[1,3]" */
			for (char *p = task + (task[0] == '['), *end; *p && *p != '%' && *p != ']';
			     p = end + (*end == ',')) {
				long last;
				t = last = strtol(p, &end, 10);
				if (end == p)
					break;
				if (*end == '-')
					last = strtol(end + 1, &end, 10);
				for (; t <= last && t < (long)sp->n; t++)   /* no task past the roster */
					note_task(sp, &jobs[j], t, state, node, words);
				if (task[0] != '[')
					break;
			}
		}
		free(out);
		free(err);
	}
	return 0;
}

/* The last line its log holds, for a task like "12_3"; NULL without one. */
static char *log_tail(const struct spool *sp, const char *task, char **log_path)
{
	char *path = xasprintf("%s/logs/%s.log", sp->path, task), *text = read_file(path, NULL);
	char *tail = NULL;

	*log_path = NULL;
	if (!text) {
		free(path);
		return NULL;
	}
	*log_path = path;
	tail = last_line(text, strlen(text), 300);
	free(text);
	return tail;
}

static const char *slurm_state_words(const char *state)
{
	static const struct {
		const char *state, *words;
	} known[] = {
		{"TIMEOUT", "reached its time limit (--time)"},
		{"CANCELLED", "was cancelled (scancel)"},
		{"NODE_FAIL", "ended with the failure of its node"},
		{"OUT_OF_MEMORY", "ran out of memory (--mem)"},
		{"PREEMPTED", "was preempted by another job"},
		{"BOOT_FAIL", "could not start: its node failed to boot"},
		{"DEADLINE", "reached its deadline"},
		{"FAILED", "failed"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (!strncmp(state, known[i].state, strlen(known[i].state)))
			return known[i].words;
	return NULL;
}

/* Why entry e has no result, its task no longer queued. */
static char *why_missing(const struct spool *sp, const struct spool_entry *e, const struct task_word *acct)
{
	struct task_trace t;
	struct strbuf sb = STRBUF_INIT;
	const char *words = acct->state[0] ? slurm_state_words(acct->state) : NULL;

	read_trace(sp, e->index, &t);
	if (!t.seen) {
		if (words)
			strbuf_addf(&sb, "its task %s before it graded anything (%s)", words, acct->state);
		else
			strbuf_addstr(&sb, "no task graded it: its task never started (cancelled while "
					   "queued, or the array was not submitted)");
		return strbuf_detach(&sb);
	}
	char *log = NULL, *tail = log_tail(sp, t.task, &log);
	if (t.setup_rc)
		strbuf_addf(&sb, "its task %s on %s graded nothing: the site's set-up (--setup, the "
				 "spool's setup.sh) failed (exit %d)", t.task, t.host, t.setup_rc);
	else if (t.exit_code < 0 && words)
		strbuf_addf(&sb, "its task %s on %s %s (%s)", t.task, t.host, words, acct->state);
	else if (t.exit_code < 0)
		strbuf_addf(&sb, "its task %s on %s began grading it and never finished: ended by its "
				 "time limit, scancel or a failure of the node (the cluster keeps no "
				 "accounting that says which)", t.task, t.host);
	else if (t.exit_code == EXIT_INTERNAL)
		strbuf_addf(&sb, "the grader failed on it in task %s on %s (exit 128): a fault of the "
				 "grader, not of the submission", t.task, t.host);
	else if (t.exit_code > EXIT_INTERNAL)
		strbuf_addf(&sb, "cudalab grade was stopped by signal %d (%s) in task %s on %s: its "
				 "time limit, scancel or the node's shutdown",
			    t.exit_code - EXIT_INTERNAL, strsignal(t.exit_code - EXIT_INTERNAL),
			    t.task, t.host);
	else
		strbuf_addf(&sb, "cudalab grade ended (exit %d) in task %s on %s without writing its "
				 "result document", t.exit_code, t.task, t.host);
	if (tail && (t.exit_code >= 0 || t.setup_rc))
		strbuf_addf(&sb, ": \"%s\"", tail);
	if (log)
		strbuf_addf(&sb, "; its log: %s", log);
	free(log);
	free(tail);
	return strbuf_detach(&sb);
}

int spool_status(const struct spool *sp, struct entry_status *st)
{
	size_t njobs;
	struct job *jobs = read_jobs(sp, &njobs);
	struct task_word *queue = xcalloc(sp->n ? sp->n : 1, sizeof(*queue));
	struct task_word *acct = NULL;
	int ret = -1;

	if (ask_slurm(sp, jobs, njobs, true, queue))
		goto out;
	for (size_t i = 0; i < sp->n; i++) {
		char *result = spool_result_path(sp, &sp->e[i]);
		bool done = !access(result, F_OK);
		free(result);
		st[i] = (struct entry_status){0};
		if (done) {
			st[i].state = ENTRY_DONE;
		} else if (!strcmp(queue[i].state, "PENDING") || !strcmp(queue[i].state, "CONFIGURING") ||
			   !strcmp(queue[i].state, "REQUEUED")) {
			st[i].state = ENTRY_PENDING;
		} else if (queue[i].state[0]) {   /* RUNNING, COMPLETING, SUSPENDED... */
			st[i].state = ENTRY_RUNNING;
			st[i].why = xasprintf("%s on %s", queue[i].state, queue[i].node);
		} else {
			if (!acct) {   /* asked once, and only when something is missing */
				acct = xcalloc(sp->n ? sp->n : 1, sizeof(*acct));
				ask_slurm(sp, jobs, njobs, false, acct);
			}
			st[i].state = ENTRY_MISSING;
			st[i].why = why_missing(sp, &sp->e[i], &acct[i]);
		}
	}
	ret = 0;
out:
	free(acct);
	free(queue);
	free(jobs);
	return ret;
}

double slurm_poll_wait(double prev, bool changed)
{
	double next = changed || prev <= 0 ? SLURM_POLL_FIRST : prev * 1.5;
	return next > SLURM_POLL_MOST ? SLURM_POLL_MOST : next;
}

void spool_status_free(struct entry_status *st, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(st[i].why);
}

/* ------------------------------------------------------ the job script */


int slurm_keep_setup(const struct spool *sp, const char *path)
{
	struct stat st;
	size_t len;
	char *text, *dst;
	int ret;

	if (stat(path, &st) < 0)
		return error("--setup '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size > 64 * 1024)
		return error("--setup '%s': not a file of bash of at most 64 KiB", path);
	if (!(text = read_file(path, &len)))
		return error("--setup '%s': cannot read it", path);
	if (memchr(text, '\0', len)) {
		free(text);
		return error("--setup '%s': not text", path);
	}
	dst = spool_file(sp->path, "setup.sh");
	ret = write_file_atomic(dst, text, len);
	free(dst);
	free(text);
	return ret;
}

int slurm_write_job_script(const struct spool *sp, const char *cudalab)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = spool_file(sp->path, "grade.sbatch");
	int ret;

	strbuf_addf(&sb,
		    "#!/bin/bash\n"
		    "# Grades lab %s for `cudalab slurm`: array task K grades the submissions\n"
		    "# K*PER to K*PER+PER-1 of roster.tsv (PER: the first argument), each with\n"
		    "# `cudalab grade` into results/STUDENT.json, written whole or not at all.\n"
		    "# The other arguments go to every `cudalab grade`. state/INDEX says what\n"
		    "# the task did, for `cudalab collect`. A course may copy it: docs/ta-guide.md,\n"
		    "# \"Grading on a cluster\".\n"
		    "set -u\n"
		    "spool=", sp->lab);
	strbuf_add_shell_quoted(&sb, sp->path);
	strbuf_addstr(&sb, "\ncudalab=");
	strbuf_add_shell_quoted(&sb, cudalab);
	strbuf_addstr(&sb, "\nlab=");
	strbuf_add_shell_quoted(&sb, sp->lab);
	strbuf_addstr(&sb,
		      "\nper=${1:-1}\n"
		      "shift\n"
		      "# the GPU locks and the cache of the GPU's ceilings stay on the node\n"
		      "export CUDALAB_LOCK_DIR=${CUDALAB_LOCK_DIR:-/tmp}\n"
		      "# a gradebook of the task's own, on the node's disk: the spool gets the\n"
		      "# result document, and `cudalab collect` is the one writer of the class's\n"
		      "work=$(mktemp -d \"${TMPDIR:-/tmp}/cudalab-task.XXXXXX\") || exit 1\n"
		      "trap 'rm -rf \"$work\"' EXIT\n"
		      "# a TERM (scancel, the time limit) comes to this shell alone: passed on to\n"
		      "# `cudalab grade`, which ends what it runs and removes its work folder (the\n"
		      "# submission's code with it); waited for, then the task stops\n"
		      "child=\n"
		      "trap 'stopped=1; [ -z \"$child\" ] || kill -TERM \"$child\" 2>/dev/null' TERM\n"
		      "task=${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}\n"
		      "first=$((SLURM_ARRAY_TASK_ID * per))\n"
		      "# the site's set-up (cudalab slurm --setup FILE): module load, PATH\n"
		      "# (set -u off while it runs: module scripts read variables that may be unset);\n"
		      "# where it fails, each submission of the task says so, for collect\n"
		      "if [ -f \"$spool/setup.sh\" ]; then\n"
		      "\tset +u\n"
		      "\t. \"$spool/setup.sh\"\n"
		      "\trc=$?\n"
		      "\tset -u\n"
		      "\tif [ $rc != 0 ]; then\n"
		      "\t\techo \"cudalab: setup.sh failed (exit $rc): no grading\" >&2\n"
		      "\t\twhile IFS=$'\\t' read -r i _; do\n"
		      "\t\t\t[ \"$i\" -ge \"$first\" ] && [ \"$i\" -lt $((first + per)) ] || continue\n"
		      "\t\t\tprintf 'started %s %s %s\\nsetup-failed %s\\n' \"$task\" \"$(hostname)\" \\\n"
		      "\t\t\t\t\"$(date +%s)\" \"$rc\" >\"$spool/state/$i\"\n"
		      "\t\tdone <\"$spool/roster.tsv\"\n"
		      "\t\texit 1\n"
		      "\tfi\n"
		      "fi\n"
		      "while IFS=$'\\t' read -r i student dir at; do\n"
		      "\t[ \"$i\" -ge \"$first\" ] && [ \"$i\" -lt $((first + per)) ] || continue\n"
		      "\t[ -z \"${stopped:-}\" ] || exit 143\n"
		      "\techo \"started $task $(hostname) $(date +%s)\" >\"$spool/state/$i\"\n"
		      "\twhen=()\n"
		      "\t[ \"$at\" = - ] || when=(--submitted-at \"$at\")\n"
		      "\t\"$cudalab\" grade \"$lab\" \"$dir\" --student \"$student\" --db \"$work/gradebook.db\" \\\n"
		      "\t\t--json \"$spool/results/$student.json\" --quiet \"${when[@]}\" \"$@\" </dev/null &\n"
		      "\tchild=$!\n"
		      "\t# a wait the TERM interrupts is waited again: its exit code, once it has ended\n"
		      "\twhile wait \"$child\"; rc=$?; kill -0 \"$child\" 2>/dev/null; do :; done\n"
		      "\tchild=\n"
		      "\techo \"ended $rc $(date +%s)\" >>\"$spool/state/$i\"\n"
		      "\t[ -z \"${stopped:-}\" ] || exit 143\n"
		      "done <\"$spool/roster.tsv\"\n");
	ret = write_file_atomic(path, sb.buf, sb.len);
	if (!ret && chmod(path, 0755) < 0)
		ret = error("cannot make '%s' executable: %s", path, strerror(errno));
	strbuf_release(&sb);
	free(path);
	return ret;
}

void slurm_task_needs(const struct lab_config *cfg, bool emulated, struct slurm_needs *n)
{
	double slow = emulated ? cfg->emulation_slowdown : 1, s = cfg->build_timeout;
	size_t at_once;

	if (emulated) {
		/* the tests, then those that failed again in the AddressSanitizer
		 * build, then the safety run: each within the run's limit */
		s += 3 * cfg->run_timeout * slow;
		at_once = cfg->nparts ? cfg->nparts : 1;   /* a lane per part */
	} else {
		/* the tests (and the safety stage beside them, which starts no run
		 * after SAFETY_BUDGET), the timed kernels, a profile */
		s += cfg->run_timeout + SAFETY_BUDGET + SAFETY_TIMEOUT;
		s += cfg->ntimings * cfg->timing_timeout;
		if (cfg->nsectors)
			s += cfg->run_timeout;
		at_once = 1 + SAFETY_TOOLS;   /* one lane, and the sanitizers beside it */
	}
	s += 60;   /* the probe, the sandbox, the gradebook */
	n->seconds = (unsigned)s;
	/* each program at the memory limit, and 1 GiB for the grader, the
	 * judge and the driver */
	n->mem_mb = cfg->memory_limit
			    ? (unsigned)((at_once * cfg->memory_limit >> 20) + 1024)
			    : 0;
	n->cpus = at_once > 8 ? 8 : at_once < 2 ? 2 : (unsigned)at_once;
}

void slurm_sbatch_argv(const struct spool *sp, const struct slurm_submit *s, struct strlist *argv)
{
	strlist_push(argv, "sbatch");
	strlist_push(argv, "--parsable");
	strlist_pushf(argv, "--job-name=cudalab-%s", sp->lab);
	if (s->throttle)
		strlist_pushf(argv, "--array=%s%%%u", s->array, s->throttle);
	else
		strlist_pushf(argv, "--array=%s", s->array);
	if (s->gres)
		strlist_pushf(argv, "--gres=%s", s->gres);
	if (s->minutes)
		strlist_pushf(argv, "--time=%u", s->minutes);
	if (s->mem_mb)
		strlist_pushf(argv, "--mem=%uM", s->mem_mb);
	if (s->cpus)
		strlist_pushf(argv, "--cpus-per-task=%u", s->cpus);
	strlist_pushf(argv, "--output=%s/logs/%%A_%%a.log", sp->path);
	for (size_t i = 0; i < s->nsbatch_args; i++)
		strlist_push(argv, s->sbatch_args[i]);
	strlist_pushf(argv, "%s/grade.sbatch", sp->path);
	strlist_pushf(argv, "%u", s->per_task);
	for (size_t i = 0; i < s->ngrade_args; i++)
		strlist_push(argv, s->grade_args[i]);
}

char *slurm_shell_line(const struct strlist *argv)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < argv->n; i++) {
		if (i)
			strbuf_addstr(&sb, " ");
		strbuf_add_shell_word(&sb, argv->v[i]);
	}
	return strbuf_detach(&sb);
}

int slurm_submit(const struct spool *sp, const struct slurm_submit *s, char **job)
{
	struct strlist argv = STRLIST_INIT;
	char *out = NULL, *err = NULL;
	int ret = -1, rc;

	slurm_sbatch_argv(sp, s, &argv);
	rc = capture(argv.v, &out, &err);
	if (rc < 0) {
		error("cannot run sbatch");
		goto out;
	}
	out[strcspn(out, ";\n")] = '\0';   /* --parsable: "ID" or "ID;CLUSTER" */
	if (rc || !*out || out[strspn(out, "0123456789")]) {
		err[strcspn(err, "\n")] = '\0';
		error("sbatch refused the array (exit %d): %s", rc, *err ? err : "it said nothing");
		goto out;
	}
	char *jobs = spool_file(sp->path, "jobs");
	FILE *f = fopen(jobs, "a");
	if (!f || fprintf(f, "%s %u %s\n", out, s->per_task, s->array) < 0 || fclose(f)) {
		error("cannot record job %s in '%s': %s (it was submitted; scancel %s to stop it)", out,
		      jobs, strerror(errno), out);
		free(jobs);
		goto out;
	}
	free(jobs);
	*job = xstrdup(out);
	ret = 0;
out:
	strlist_clear(&argv);
	free(out);
	free(err);
	return ret;
}
