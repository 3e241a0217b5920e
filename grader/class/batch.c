/*
 * batch.c - grading a class (batch.h).
 *
 * Owns: the worker processes, progress, resume and retries (finding the
 * submissions and reading the times file: batch-collect.c; which GPUs:
 * os/gpus.c; the summary table: render/classsum.c). Each grading runs in
 * a worker process of its own (fork, then grade_submission and record_run
 * as for one submission),
 * which stores its run in the gradebook in one transaction and says its
 * run's id on a pipe; the summary reads that run's document back from the
 * gradebook. So a grading that goes wrong in any way costs that submission
 * alone, and a batch that is killed keeps every run it finished. Each
 * grading is given its GPU as an option; gpulock.h shares a GPU among them.
 */
#include "batch.h"

#include "classsum.h"
#include "db.h"
#include "doc.h"
#include "intake.h"
#include "record.h"
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROTOCOL "@@cudalab-batch "
/* what a worker says when it graded but could not store (the class then stops) */
#define NOT_STORED "the run was not stored in the gradebook"
#define MAX_TRIES 2

void batch_defaults(struct batch_opts *bo)
{
	if (!bo->jobs)
		bo->jobs = usable_cpus();
	bo->gpus_known = gpus_discover(&bo->gpus, bo->no_gpu_why, sizeof(bo->no_gpu_why));
}

/* -------------------------------------------------------------- workers */

static pid_t class_pid;   /* the process grading the class, whose workers these are */

enum item_state { PENDING, RUNNING, DONE, SKIPPED, FAILED };

struct item {
	const struct batch_sub *sub;
	enum item_state state;
	int tries;
	long long run;        /* the run it stored */
	json_t *doc;          /* and its result document, read back from the gradebook */
	char *why;            /* a system error's words */
	bool not_stored;      /* graded, but the gradebook did not take the run */
};

struct worker {
	pid_t pid;
	int fd;
	struct item *item;
	struct strbuf out;
	double start;
};

/*
 * In the worker: grades one submission on the given GPU, stores it, and
 * says the run's id (or why there is none); never returns.
 */
static _Noreturn void work(const struct toolchain *tc, const struct lab_config *cfg,
			   const struct grade_opts *go, const struct batch_opts *bo,
			   const struct batch_sub *sub, const char *gpu, int out)
{
	struct grade_opts g = *go;
	struct record_opts ro = {.db_path = bo->db_path};
	struct result r;
	long long run;

	/* it ends with the class: a stop of the class's, or the class's death */
	run_stop_on(SIGTERM);
	run_stop_on(SIGINT);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != class_pid)
		raise(SIGTERM);
	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
	close(out);
	progress_quiet = true;
	run_init();
	g.subdir = sub->dir;
	g.recorded_as = sub->recorded_as;
	g.student = sub->student;
	g.gpu = gpu;
	g.in_class = !bo->own_gradings;
	if (g.in_class) {
		/* the CPUs over the gradings at once, the emulated ones' workers
		 * (a class of 16 on 16 CPUs ran 16 threads in each) */
		unsigned cpus = usable_cpus(), jobs = bo->jobs ? bo->jobs : 1;
		g.cpus = cpus > jobs ? cpus / jobs : 1;
	}
	g.require_gpu = bo->gpus_known && g.emulate != 1;
	if (sub->submitted_at) {
		g.submitted_at = sub->submitted_at;
		g.submitted_from = sub->submitted_from;
	}
	if (grade_submission(tc, cfg, &g, &r) || run_stopped()) {
		/* stopped: whatever it had, nothing is stored */
		printf("\n" PROTOCOL "system %s\n", run_stopped() ? "stopped with the class, not stored"
				: "grading failed: a fault of the grader");
	} else {
		record_run(&r, tc->root, &ro, &run);
		if (run < 0)
			printf("\n" PROTOCOL "system " NOT_STORED " '%s'\n", bo->db_path);
		else
			printf("\n" PROTOCOL "run %lld\n", run);
	}
	fflush(stdout);
	_exit(0);
}

/* The document of run, read back from the gradebook; NULL with an error. */
static json_t *stored_doc(const char *db_path, const char *root, long long run)
{
	struct db *db = db_open(db_path, root);
	char *text = NULL;
	json_t *doc = NULL;

	if (db && !db_run_json(db, run, &text))
		doc = json_loads(text, 0, NULL);
	if (db && !doc)
		error("cannot read run %lld back from the gradebook '%s'", run, db_path);
	free(text);
	db_close(db);
	return doc;
}

/* The first "error: " line of len bytes of text, past its prefix; NULL: none. */
static const char *first_error(const char *text, size_t len)
{
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		if (end - at > 7 && !strncmp(text + at, "error: ", 7))
			return text + at + 7;
		at = end + 1;
	}
	return NULL;
}

/* Reads what the worker said: the run it stored, or why it stored none. */
static void finish(struct worker *w, int status, const char *db_path, const char *root)
{
	struct item *it = w->item;
	const char *line = w->out.buf ? strstr(w->out.buf, PROTOCOL) : NULL;

	free(it->why);
	it->why = NULL;
	it->tries++;
	if (line && sscanf(line + strlen(PROTOCOL), "run %lld", &it->run) == 1) {
		it->doc = stored_doc(db_path, root, it->run);
		if (it->doc) {
			it->state = DONE;
			return;
		}
		/* stored, but not readable: not graded again, which would store it twice */
		it->tries = MAX_TRIES;
		it->state = FAILED;
		it->why = xasprintf("run %lld was stored but cannot be read back", it->run);
		return;
	}
	it->state = FAILED;
	if (run_stopped())
		it->tries = MAX_TRIES;   /* the class is stopping: nothing is tried again */
	if (line && !strncmp(line + strlen(PROTOCOL), "system ", 7))
		it->why = xasprintf("%.*s", (int)strcspn(line + strlen(PROTOCOL) + 7, "\n"),
				    line + strlen(PROTOCOL) + 7);
	else if (WIFSIGNALED(status))
		it->why = xasprintf("the grading process was killed by signal %d", WTERMSIG(status));
	else
		it->why = xstrdup("the grading process ended without a result");
	it->not_stored = strstr(it->why, NOT_STORED) == it->why;
	if (it->not_stored)
		it->tries = MAX_TRIES;   /* the class stops: the next would not be stored either */
	/* the last words it printed, for the summary (which may quote the submission);
	 * for a run not stored, the gradebook's first error: SQLite's words */
	const char *text = w->out.buf ? w->out.buf : "";
	size_t len = line ? (size_t)(line - text) : w->out.len;
	const char *first = it->not_stored ? first_error(text, len) : NULL;
	char *prefix = xasprintf("gradebook '%s': ", db_path);
	if (first && !strncmp(first, prefix, strlen(prefix)))
		first += strlen(prefix);   /* named once is enough */
	free(prefix);
	char *said = first ? xasprintf("%.*s", (int)strcspn(first, "\n"), first)
			   : last_line(text, len, 300);
	char *last = visible_str(said, true);
	free(said);
	if (last) {
		char *more = xasprintf("%s: %s", it->why, last);
		free(it->why);
		it->why = more;
		free(last);
	}
}

/* ------------------------------------------------------------ progress */

struct tally {
	size_t total, done, skipped, running, failed;
	double start;
	bool tty;
};

static void show_progress(const struct tally *t)
{
	if (!t->tty || progress_quiet)
		return;
	size_t finished = t->done + t->failed, todo = t->total - t->skipped;
	double el = now_seconds() - t->start, rate = finished && el > 0 ? finished / el * 60 : 0;
	char bar[PROGRESS_BAR_WIDTH + 1], eta[32];

	progress_bar(bar, finished, todo);
	progress_eta(eta, sizeof(eta), finished, todo - finished, el);
	fprintf(stderr, "\r\033[K[%s] %zu/%zu graded, %zu running, %.1f/min, ETA %s", bar, finished,
		todo, t->running, rate, eta);
	fflush(stderr);
}

static void show_finished(const struct tally *t, const struct item *it)
{
	if (t->tty || progress_quiet)
		return;
	char *name = visible_str(it->sub->student, true);
	if (it->state == DONE) {
		struct score_view view = doc_score_view(it->doc);
		char score[SCORE_TEXT_MAX];
		fprintf(stderr, "[%zu/%zu] %s: %s, %s, build %s (%.1f s)\n", t->done + t->failed,
			t->total - t->skipped, name, score_text(score, &view),
			doc_str(it->doc, "status"), class_doc_build(it->doc),
			doc_num(it->doc, "seconds"));
	} else
		fprintf(stderr, "[%zu/%zu] %s: SYSTEM ERROR%s: %s\n", t->done + t->failed,
			t->total - t->skipped, name,
			it->tries < MAX_TRIES ? " (tried again later)" : "", it->why);
	free(name);
}

/* "0,1,2" */
static const char *gpu_list(const struct strlist *gpus)
{
	static char buf[256];
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < gpus->n && at < sizeof(buf); i++)
		at += snprintf(buf + at, sizeof(buf) - at, "%s%s", i ? "," : "", gpus->v[i]);
	return buf;
}

/*
 * Where the class's tests run, as far as the batch knows before any grading:
 * "on GPU 0", or without a GPU, "emulated on the CPU: no GPU found" (never
 * a GPU it only defaults to).
 */
static const char *where_tests_run(const struct toolchain *tc, const struct lab_config *cfg,
				   const struct batch_opts *bo, const struct grade_opts *go)
{
	static char buf[320];

	if (!cfg->needs_gpu)
		return "on the CPU: the lab's tests need no GPU";
	if (go->emulate == 1)
		return "emulated on the CPU: --emulate";
	if (bo->gpus_known) {
		snprintf(buf, sizeof(buf), "on GPU%s %s", bo->gpus.n > 1 ? "s" : "", gpu_list(&bo->gpus));
		return buf;
	}
	if (go->emulate == 0)
		snprintf(buf, sizeof(buf), "with no tests run: %s, and --no-emulate", bo->no_gpu_why);
	else if (!tc->emu_cxxflags)
		snprintf(buf, sizeof(buf), "with no tests run: %s, and no CPU emulator on this "
			 "machine", bo->no_gpu_why);
	else
		snprintf(buf, sizeof(buf), "emulated on the CPU: %s", bo->no_gpu_why);
	return buf;
}

/* ---------------------------------------------------------------- batch */

/*
 * Whether no run of the class is a grade: every one that built is
 * provisional (emulated, say, on a machine without a GPU), and one at least
 * built. One that did not build is not built on any machine.
 */
static bool all_provisional(const struct item *items, size_t n)
{
	size_t built = 0, provisional = 0;

	for (size_t i = 0; i < n; i++) {
		if (items[i].state != DONE || strcmp(class_doc_build(items[i].doc), "ok"))
			continue;
		built++;
		provisional += json_is_true(json_object_get(items[i].doc, "provisional"));
	}
	return built && provisional == built;
}

/*
 * One class of a lab per gradebook at a time: a second would grade the
 * students the first has not stored yet again (two --resume runs both find
 * them missing). Held by a lock on DB-class-LAB.lock beside the gradebook
 * (its text: the holder's process id) until the class's process ends. The
 * lock's descriptor, or -1 with an error: another class holds it. A file
 * system without locks: a warning, and no lock.
 */
static int class_lock(const char *db_path, const char *lab, int *fd)
{
	char *path = xasprintf("%s-class-%s.lock", db_path, lab);
	char text[32] = "";
	int ret = 0;

	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0) {
		ret = error("cannot create '%s' (the lock that keeps a second class of %s out of "
			    "this gradebook): %s", path, lab, strerror(errno));
	} else if (flock(*fd, LOCK_EX | LOCK_NB) == 0) {
		int n = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
		if (ftruncate(*fd, 0) || pwrite(*fd, text, (size_t)n, 0) != n)
			warning("cannot write '%s': %s", path, strerror(errno));
	} else if (errno == EWOULDBLOCK) {
		ssize_t got = pread(*fd, text, sizeof(text) - 1, 0);
		text[got > 0 ? got : 0] = '\0';
		text[strcspn(text, "\n")] = '\0';
		ret = error("another class of %s is being graded into the gradebook '%s' (by "
			    "process %s): one class of a lab per gradebook at a time, or students "
			    "would be graded twice. Wait for it to end (or stop it), then run this "
			    "command again with --resume", lab, db_path, text[0] ? text : "?");
		close(*fd);
		*fd = -1;
	} else {
		warning("'%s' cannot be locked (%s): nothing keeps a second class of %s out of "
			"this gradebook", path, strerror(errno), lab);
	}
	free(path);
	return ret;
}

/* Whether the gradebook already holds this submission, as its files are now. */
static int already_graded(struct db *db, const struct lab_config *cfg, const struct batch_sub *s)
{
	struct intake in;
	char hash[65];
	int has = 0;

	if (intake_copy(s->dir, &cfg->files, cfg->max_file_bytes, NULL, &in))
		return -1;
	/* refused: the files it took, and the same reason (a run that was refused) */
	db_files_hash(in.files, in.nfiles, hash);
	has = db_has_run(db, s->student, cfg->name, cfg->version, hash,
			 in.accepted ? NULL : in.refusal);
	intake_release(&in);
	return has;
}

int batch_grade(const struct toolchain *tc, const struct lab_config *cfg,
		const struct batch_sub *subs, size_t n, const struct batch_opts *bo,
		const struct grade_opts *go)
{
	struct item *items = xcalloc(n ? n : 1, sizeof(*items));
	unsigned jobs = bo->jobs ? bo->jobs : 1;
	struct worker *w = xcalloc(jobs, sizeof(*w));
	struct pollfd *pfd = xcalloc(jobs, sizeof(*pfd));
	struct tally t = {.total = n, .start = now_seconds(), .tty = isatty(STDERR_FILENO)};
	size_t next_gpu = 0;
	int code = 0;

	bool stopping = false;
	const struct item *unstored = NULL;   /* the first run the gradebook did not take */
	int lock = -1;                        /* class_lock's, held to the end */

	/* Ctrl-C or a TERM stops the class: its workers end what they run, store
	 * nothing unfinished, and remove their folders (work) */
	class_pid = getpid();
	if (bo->quiet)
		progress_quiet = true;
	run_stop_on(SIGINT);
	run_stop_on(SIGTERM);
	for (size_t i = 0; i < n; i++)
		items[i].sub = &subs[i];
	if (class_lock(bo->db_path, cfg->name, &lock)) {
		free(items), free(w), free(pfd);
		return EXIT_USAGE;
	}
	if (bo->resume) {
		struct db *db = db_open(bo->db_path, tc->root);
		if (!db) {
			free(items), free(w), free(pfd);
			close(lock);
			return EXIT_INTERNAL;
		}
		for (size_t i = 0; i < n; i++)
			if (already_graded(db, cfg, &subs[i]) > 0) {
				items[i].state = SKIPPED;
				t.skipped++;
			}
		db_close(db);
	}
	const char *where = where_tests_run(tc, cfg, bo, go);
	if (!progress_quiet)
		fprintf(stderr, "grading %zu submissions of %s%s, %u at once, %s%s\n", n - t.skipped,
			cfg->name, t.skipped ? " (the rest already graded)" : "", jobs, where,
			cfg->needs_gpu && !bo->gpus_known ? "; every run provisional, not a grade" : "");
	for (size_t i = 0; i < jobs; i++)
		w[i].fd = -1;
	fflush(stdout);
	fflush(stderr);

	for (;;) {
		if (run_stopped() && !stopping) {
			stopping = true;
			for (size_t k = 0; k < jobs; k++)
				if (w[k].pid)
					kill(w[k].pid, SIGTERM);
		}
		/* start what there is room for: first tries first, then the retries */
		for (size_t k = 0; k < jobs && !stopping && !unstored; k++) {
			if (w[k].pid)
				continue;
			struct item *it = NULL;
			for (int pass = 0; pass < MAX_TRIES && !it; pass++)
				for (size_t i = 0; i < n && !it; i++)
					if ((items[i].state == PENDING && pass == 0) ||
					    (items[i].state == FAILED && items[i].tries == pass &&
					     items[i].tries < MAX_TRIES))
						it = &items[i];
			if (!it)
				break;
			int p[2];
			if (pipe2(p, O_CLOEXEC) < 0) {
				code = error("pipe: %s", strerror(errno));
				goto out;
			}
			const char *gpu = bo->gpus.v[next_gpu++ % bo->gpus.n];
			pid_t pid = fork();
			if (pid < 0) {
				close(p[0]), close(p[1]);
				code = error("fork: %s", strerror(errno));
				goto out;
			}
			if (pid == 0) {
				close(p[0]);
				work(tc, cfg, go, bo, it->sub, gpu, p[1]);
			}
			close(p[1]);
			if (it->state == FAILED)
				t.failed--;
			it->state = RUNNING;
			w[k] = (struct worker){.pid = pid, .fd = p[0], .item = it, .start = now_seconds()};
			t.running++;
		}
		if (!t.running)
			break;
		show_progress(&t);

		for (size_t k = 0; k < jobs; k++)
			pfd[k] = (struct pollfd){w[k].pid ? w[k].fd : -1, POLLIN, 0};
		if (poll(pfd, jobs, 1000) < 0 && errno != EINTR) {
			code = error("poll: %s", strerror(errno));
			goto out;
		}
		for (size_t k = 0; k < jobs; k++) {
			if (!w[k].pid || !pfd[k].revents)
				continue;
			char buf[8192];
			ssize_t got = read(w[k].fd, buf, sizeof(buf));
			if (got > 0) {
				if (w[k].out.len < (1 << 20))
					strbuf_add(&w[k].out, buf, got);
				continue;
			}
			if (got < 0 && errno == EINTR)
				continue;
			/* the end of its output (or a read error): it is done */
			int st = 0;
			while (waitpid(w[k].pid, &st, 0) < 0 && errno == EINTR)
				;
			close(w[k].fd);
			finish(&w[k], st, bo->db_path, tc->root);
			if (w[k].item->not_stored && !unstored)
				unstored = w[k].item;   /* the next would not be stored either */
			t.running--;
			if (w[k].item->state == DONE)
				t.done++;
			else
				t.failed++;
			show_finished(&t, w[k].item);
			strbuf_release(&w[k].out);
			w[k] = (struct worker){.fd = -1};
		}
	}
	if (t.tty && !progress_quiet) {
		show_progress(&t);
		fputc('\n', stderr);
	}
	if (stopping) {
		size_t stored = 0;
		for (size_t i = 0; i < n; i++)
			stored += items[i].state == DONE;
		fprintf(stderr, "stopped by signal %d (%s): %zu graded and stored, %zu not; run the "
			"same command with --resume to grade the rest\n", run_stopped(),
			strsignal(run_stopped()), stored, n - t.skipped - stored);
		code = 128 + run_stopped();
		goto out;
	}
	size_t left = 0;
	for (size_t i = 0; unstored && i < n; i++)
		if (items[i].state == PENDING) {
			items[i].why = xstrdup("not graded: the class stopped when the gradebook "
					       "did not store a run");
			left++;
		}
	t.failed += left;
	struct class_row *rows = xcalloc(n ? n : 1, sizeof(*rows));
	for (size_t i = 0; i < n; i++)
		rows[i] = (struct class_row){
			.student = items[i].sub->student, .doc = items[i].doc, .run = items[i].run,
			.why = items[i].why,
			.state = items[i].state == DONE      ? CLASS_ROW_GRADED
				 : items[i].state == SKIPPED ? CLASS_ROW_SKIPPED
							     : CLASS_ROW_FAILED};
	if (!bo->no_summary)
		class_summary_print(rows, n,
			    &(struct class_totals){.skipped = t.skipped, .failed = t.failed,
						   .wall = now_seconds() - t.start, .jobs = bo->jobs,
						   .where = where});
	free(rows);
	code = t.failed ? EXIT_INTERNAL : all_provisional(items, n) ? EXIT_INCOMPLETE : 0;
	if (unstored)
		code = error("the class stopped at %s: %s. %zu more submission%s not graded: once "
			     "the gradebook can store runs again (a disk with room, a file that can "
			     "be written), run the same command with --resume",
			     unstored->sub->student, unstored->why, left, left == 1 ? " was" : "s were");
out:
	for (size_t k = 0; k < jobs; k++)
		if (w[k].pid) {
			kill(w[k].pid, SIGKILL);
			waitpid(w[k].pid, NULL, 0);
		}
	for (size_t i = 0; i < n; i++) {
		free(items[i].why);
		json_decref(items[i].doc);
	}
	free(items);
	free(w);
	free(pfd);
	if (lock >= 0)
		close(lock);   /* the workers, ended, hold it no more */
	return code < 0 ? EXIT_INTERNAL : code;
}
