/*
 * harness.cu - the entry point of every lab's test binary.
 *
 * Owns: argument and seed parsing, the CPU-side setup, and running the
 * tests in processes of their own, in parallel, each test writing Check's
 * XML log for the grader to read: in lanes (below), and alone for a verdict
 * a lane cannot give; and the clock each test's time limit is kept by.
 *
 * Must not: call CUDA, or run any of the submission's code. This process
 * (the judge) forks; the lanes and the tests run alone (Check's forked
 * children) each start a runner, a sandboxed process of the submission's
 * object, which alone makes a CUDA context. (A safety run forks nothing:
 * its tests run in this process, with one runner under the sanitizer.)
 */
#include "cudalab.h"
#include "harness-words.h"   /* CL_SETUP_ENDED_FILE, CL_NOT_RUN_AFTER */
#include "procfs.h"

#include <math.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#define CL_MAX_PARTS 32
/*
 * The most bytes of the student's name kept (the grader cuts it so too:
 * TESTRUN_STUDENT_MAX, grader/grading/testrun.h).
 */
#define CL_STUDENT_MAX 200

struct part_opts {
	const char *name;
	double timeout;
};

static void usage(const char *lab)
{
	fprintf(stderr,
		"usage: judge_%s [--list] [--runner FILE] [--emulated] [--xml-dir DIR]\n"
		"       [--lanes N] [--jobs N] [--timeout PART=SECONDS]... [--only TEST]\n"
		"       [--safety] [PART...]\n"
		"The run's seed is read from standard input as 'seed=N', and the student's\n"
		"name (for labs with per-student questions) as 'student=ID'. The submission\n"
		"runs in a program of its own, started as FILE says (remote.cu).\n", lab);
}

float *cl_random_floats(size_t n, uint64_t seed)
{
	float *v = (float *)malloc((n ? n : 1) * sizeof(float));

	ck_assert(v != NULL);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)(0.5 + cl_rand_unit(&seed)) * ((cl_rand_next(&seed) & 1) ? 1.0f : -1.0f);
	return v;
}

const char *cl_fmt_float(float v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "NaN");
	else
		snprintf(buf, len, "%.9g", v);
	return buf;
}

int cl_part_wanted(const char *name, const char *const *parts, size_t nparts)
{
	for (size_t i = 0; i < nparts; i++)
		if (!strcmp(parts[i], name))
			return 1;
	return 0;
}

int cl_cpu_threads(void)
{
	long n = cl_usable_cpus();
	return n > 16 ? 16 : (int)n;
}

static int has_part(const struct cl_lab *lab, const char *name)
{
	for (size_t i = 0; i < lab->ntests; i++)
		if (!strcmp(lab->tests[i].tcase, name))
			return 1;
	return 0;
}

/*
 * The text after "name =" in answers.txt, trimmed, into value: 1 found, 0
 * no such line, -1 no answers.txt.
 */
static int answer_lookup(const char *name, char *value, size_t len)
{
	FILE *f = fopen("answers.txt", "r");
	char line[512];
	bool found = false;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *p = line + strspn(line, " \t");
		size_t n = strcspn(p, " \t=");
		if (*p == '#' || n != strlen(name) || strncmp(p, name, n))
			continue;
		p += n + strspn(p + n, " \t");
		if (*p != '=')
			continue;
		p += 1 + strspn(p + 1, " \t");
		n = strcspn(p, "\r\n#");
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		snprintf(value, len, "%.*s", (int)n, p);
		found = true;
	}
	fclose(f);
	return found;
}

const char *cl_answer(const char *name)
{
	static char value[128];
	int found = answer_lookup(name, value, sizeof(value));

	ck_assert_msg(found >= 0, "cannot open answers.txt: it must be in the submission");
	ck_assert_msg(found, "answers.txt has no line '%s = ...'", name);
	ck_assert_msg(value[0], "answers.txt: no answer yet for '%s'", name);
	return value;
}

const char *cl_answer_given(const char *name)
{
	static char value[CL_STUDENT_MAX + 56];   /* a whole name ("student = ..."), and more */

	return answer_lookup(name, value, sizeof(value)) > 0 && value[0] ? value : NULL;
}

long long cl_answer_int(const char *name)
{
	const char *v = cl_answer(name);
	char *end;
	long long x = strtoll(v, &end, 10);

	ck_assert_msg(end != v && !*end, "answers.txt: '%s' has '%s', which is not a whole number",
		      name, v);
	return x;
}

static char student[CL_STUDENT_MAX + 1] = "student";
const char *cl_student = student;
/* The grader's token for this run, and the test this process runs (xml mode). */
static char token[64];
static const char *done_dir, *done_test;   /* the XML folder; the test running */

/*
 * Check's own message with a forked test's duration (check_msg.c): sent
 * here for a test whose process this harness ends (test_end). Weak: with
 * a Check that has it not, such a test's duration is unknown.
 */
extern "C" void send_duration_info(int duration) __attribute__((weak));

static bool test_forked;    /* the test runs in a process of Check's, that ends with it */
static struct timespec test_began;

static void test_start(void)
{
	cl_remote_out_of_memory();   /* an earlier test's, in a lane: forgotten */
	cl_device_oom = 0;
	cl_request_times = (struct cl_request_times){};
	clock_gettime(CLOCK_MONOTONIC, &test_began);
}

/*
 * After a test body returned (a checked teardown: it does not run when the
 * test failed or its process ended early), <xml dir>/<test>.done gets the
 * grader's token; a line CL_TIMES_LINE with where the test's time went
 * (cl_request_times: its runner's start, the launchers' calls, the other
 * requests; seconds); and a last line "out of memory" when a cudaMalloc
 * failed for want of device memory during the test. A test that Check
 * reports passed without the token ended its process early, with status 0,
 * from the submission's code.
 */
static void test_done(void)
{
	char path[4096];

	if (!done_dir || !done_test)
		return;
	cl_remote_out_of_memory();
	snprintf(path, sizeof(path), "%s/%s.done", done_dir, done_test);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(token, f);
		fprintf(f, "\n%s %.6f %.6f %.6f", CL_TIMES_LINE, cl_request_times.start,
			cl_request_times.calls, cl_request_times.requests);
		if (cl_device_oom)
			fputs("\nout of memory", f);
		fclose(f);
	}
}

/*
 * After a test body returned: its .done file; then, in a process of Check's
 * own (fork mode), the end of that process, with _exit(). Check would end it
 * with exit(), which runs what the submission registered with atexit() and
 * the destructors of its static objects: code that runs after the test,
 * which may spin or crash there and turn a pass into a timeout, or a crash.
 * Nothing of the submission's runs once its test is done: here, in a lane
 * (lane_run) and at the end of the harness (cl_main) alike.
 */
static void test_end(void)
{
	struct timespec now;

	test_done();
	if (!test_forked)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (send_duration_info)
		send_duration_info((int)((now.tv_sec - test_began.tv_sec) * 1000000 +
					 (now.tv_nsec - test_began.tv_nsec) / 1000));
	cl_remote_end();
	fflush(NULL);
	_exit(EXIT_SUCCESS);
}

/*
 * "seed=N" and, optionally, "student=ID" and "token=T", to the end of
 * standard input. Each line is read whole, however long: the end of a long
 * one is never taken for a line of its own. The name is cut to
 * CL_STUDENT_MAX bytes, never inside a UTF-8 character.
 */
static int read_seed(uint64_t *seed)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned long long v;
	int found = -1;

	while (getline(&line, &cap, stdin) >= 0) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "seed=%llu", &v) == 1) {
			*seed = v;
			found = 0;
		} else if (!strncmp(line, "student=", 8) && line[8]) {
			size_t n = strlen(line + 8);
			if (n > CL_STUDENT_MAX) {
				n = CL_STUDENT_MAX;
				while (n && ((unsigned char)line[8 + n] & 0xc0) == 0x80)
					n--;
			}
			memcpy(student, line + 8, n);
			student[n] = '\0';
		} else if (!strncmp(line, "token=", 6)) {
			snprintf(token, sizeof(token), "%.60s", line + 6);
		}
	}
	free(line);
	return found;
}

/*
 * Runs the tests of one part in this process, or only the test `only`:
 * Check forks each, ending one that runs `limit` seconds (wall time), or,
 * with fork_status CK_NOFORK, runs it right here, in the context earlier
 * tests of this process made. The log goes to xml; with none, Check's
 * verbose report goes to standard output. Returns 1 when a test did not
 * pass.
 */
static int run_part(const struct cl_lab *lab, const struct part_opts *p, const TTest *only,
		    enum fork_status fork_status, const char *xml, double limit)
{
	Suite *s = suite_create(lab->name);
	TCase *tc = tcase_create(p->name);
	int failed;

	tcase_set_timeout(tc, limit);
	test_forked = fork_status == CK_FORK;
	if (xml && only)
		done_test = only->name;
	if ((xml && only) || test_forked)
		tcase_add_checked_fixture(tc, test_start, test_end);
	for (size_t i = 0; i < lab->ntests; i++)
		if (!strcmp(lab->tests[i].tcase, p->name) && (!only || only == lab->tests[i].test))
			tcase_add_test(tc, lab->tests[i].test);
	suite_add_tcase(s, tc);

	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, fork_status);
	if (xml)
		srunner_set_xml(sr, xml);
	srunner_run(sr, NULL, p->name, xml ? CK_SILENT : CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

/* The log of test `name` in the XML folder, with suffix after ".xml". */
static void xml_path(char *buf, size_t len, const char *name, const char *suffix)
{
	snprintf(buf, len, "%s/%s.xml%s", done_dir, name, suffix);
}

/* Folds a test process's wait status into the harness's exit status. */
static int reap_status(int st, int status)
{
	if (!WIFEXITED(st) || WEXITSTATUS(st) > 1)
		return 3;
	if (WEXITSTATUS(st) == 1 && status == 0)
		return 1;
	return status;
}

/* ------------------------------------------------------------ test clocks */

/*
 * How much of its part's time limit a test has used. A machine busy with
 * other work stretches a test's wall time by however busy it is: enough for
 * a correct test to run out of time on a loaded CI runner, emulated (where
 * the work is all the CPU's) and on a GPU too, whose tests spend most of
 * their time on the CPU (making inputs, checking outputs, the runner's
 * calls): on a 64-CPU host loaded by other gradings, matmul's correct
 * tests ran out of their 10 s by the wall clock. So a test keeps its own
 * time, which runs
 *  - at the wall clock's pace while it sleeps (waits for the GPU) or gets
 *    the CPU it wants, up to one CPU (the harness runs no more processes
 *    at once than there are CPUs; with more than 16 CPUs a test has more
 *    than one, and its clock runs at the wall's pace until it gets less
 *    than one);
 *  - slower, in proportion, while it waits for a CPU.
 * So on an idle machine a test that spins or sleeps forever (a kernel that
 * never ends) runs out of time after its limit, as by the wall clock,
 * while a correct test on a busy one uses about what it uses on an idle
 * one.
 *
 * Its clock is read every CLOCK_PERIOD seconds. Over an interval of dt
 * seconds the test's process got `cpu` seconds of CPU (its CPU clock, with
 * the threads that ended) and its threads waited `waited` seconds for a CPU
 * (each thread's schedstat). It wanted a CPU for want = min(dt, cpu +
 * waited) seconds of dt (as if one thread at a time wanted one: more at
 * once only make want, and so the clock, smaller) and slept the rest: the
 * clock moves dt - want + min(cpu, want). The waits of a thread that
 * starts and ends between two readings are missed, which makes the clock
 * run a little fast under load (the emulator's workers live as long as a
 * launch). Where the waits cannot be read, want is dt: the clock is the
 * CPU time the test got, and one that sleeps is ended by the wall-clock
 * backstop alone.
 *
 * The backstop, WALL_FACTOR times the limit of wall time, ends a test
 * whatever its clock says: a sleeper where the waits cannot be read, and
 * any test on a machine so loaded that its time would stretch without end.
 */
int cl_emulated;   /* --emulated: the runner is the CPU emulator, whose work is the CPU's */
#define CLOCK_PERIOD 0.1
#define WALL_FACTOR 4
#define CLOCK_THREADS 260   /* the emulator's workers (at most 256), and the test's own */

struct thread_wait {
	pid_t tid;
	double waited;      /* seconds it waited for a CPU, in all */
};

struct test_clock {
	pid_t parent;       /* the process whose only child runs the test */
	pid_t pid;          /* that child, once seen; 0 before */
	double started;     /* CLOCK_MONOTONIC seconds */
	double at;          /* when the clock was last read */
	double used;        /* seconds of its limit used, at `at` */
	double cpu;         /* its process's CPU seconds, at `at` */
	int nthreads;       /* its threads, at `at` */
	struct thread_wait th[CLOCK_THREADS];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* How long a test may run in wall time, for a part's limit. */
static double wall_limit(double limit)
{
	return WALL_FACTOR * limit;
}

/*
 * The child of process parent (a lane's waiting parent, or the runner of a
 * test run alone: each has only the one), or 0 when it has none or the
 * kernel does not list children (CONFIG_PROC_CHILDREN).
 */
static pid_t only_child(pid_t parent)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)parent, (int)parent);
	return cl_read_proc(path, buf, sizeof(buf)) ? (pid_t)atoi(buf) : 0;
}

#define CLOCK_PROCS 16

/*
 * Adds to *waited the seconds each thread of the processes in pids waited
 * for a CPU since the last reading (all a thread waited, for one not seen
 * before), and keeps what each has waited now. -1 when no thread's wait
 * could be read, or the kernel keeps none.
 */
static int read_waits(struct test_clock *c, const pid_t *pids, int npids, double *waited)
{
	struct thread_wait seen[CLOCK_THREADS];
	int nseen = 0;
	bool any = false;

	for (int k = 0; k < npids; k++) {
		pid_t tids[CL_THREADS_MAX];
		int nt = cl_threads(pids[k], tids, CL_THREADS_MAX);
		for (int t = 0; t < nt; t++) {
			pid_t tid = tids[t];
			struct cl_schedstat st;
			if (!cl_read_schedstat(pids[k], tid, &st))
				continue;   /* it ended since the listing, or there is no schedstat */
			/* a kernel that keeps no waits (older ones without schedstats or
			 * delay accounting) shows no time slices either */
			any |= st.slices > 0;
			double w = st.waited, before = 0;
			for (int i = 0; i < c->nthreads; i++)
				if (c->th[i].tid == tid)
					before = c->th[i].waited;
			*waited += w > before ? w - before : 0;
			if (nseen < CLOCK_THREADS)
				seen[nseen++] = (struct thread_wait){tid, w};
		}
	}
	memcpy(c->th, seen, nseen * sizeof(seen[0]));
	c->nthreads = nseen;
	return any ? 0 : -1;
}

/* The CPU seconds the processes in pids have used; false when the first's cannot be read. */
static bool tree_cpu(const pid_t *pids, int npids, double *cpu)
{
	struct timespec ts;
	clockid_t id;

	*cpu = 0;
	for (int k = 0; k < npids; k++) {
		if (clock_getcpuclockid(pids[k], &id) || clock_gettime(id, &ts)) {
			if (!k)
				return false;
			continue;   /* ended since the listing */
		}
		*cpu += ts.tv_sec + ts.tv_nsec * 1e-9;
	}
	return true;
}

/* Starts the clock of a test that the only child of `parent` runs. */
static void clock_start(struct test_clock *c, pid_t parent)
{
	c->parent = parent;
	c->pid = 0;
	c->started = c->at = now_s();
	c->used = c->cpu = 0;
	c->nthreads = 0;
}

/*
 * The seconds of its limit the test has used (see above): the test's
 * process and its runner's (where the emulator's work is, or the calls
 * into the GPU's driver).
 */
static double clock_used(struct test_clock *c)
{
	double now = now_s(), dt = now - c->at, waited = 0, cpu;
	pid_t pids[CLOCK_PROCS];

	if (dt < CLOCK_PERIOD)
		return c->used;
	c->at = now;
	pid_t pid = only_child(c->parent);
	int npids = pid > 0 ? cl_process_tree(pid, pids, CLOCK_PROCS) : 0;
	if (pid <= 0 || !tree_cpu(pids, npids, &cpu)) {
		c->pid = 0;   /* not started yet, or ended: the wall's pace */
		return c->used += dt;
	}
	double got = cpu - c->cpu, want = dt;
	c->cpu = cpu;
	if (pid != c->pid || got < 0) {
		/* first seen (what it used before is another test's), or a
		 * process of it ended: counted from here */
		c->pid = pid;
		c->nthreads = 0;
		read_waits(c, pids, npids, &waited);
		return c->used += dt;
	}
	if (!read_waits(c, pids, npids, &waited) && got + waited < dt)
		want = got + waited;
	return c->used += dt - want + (got < want ? got : want);
}

/* ------------------------------------------------------------------ lanes */

/*
 * A CUDA context costs about 0.2 s of the driver's time, and a GPU makes its
 * contexts one at a time: with a process per test, contexts are most of a
 * grading's GPU time. A lane is a process that runs test after test in one
 * context, each time taking the next test from a board it shares with this
 * process:
 *  - a test that passes in a lane keeps its verdict;
 *  - a test that fails keeps it only as its lane's first (nothing ran before
 *    it there). Either way the lane then ends, since the failure may have
 *    spoiled its context or the submission's state; a failure after other
 *    tests is run again alone. So every verdict but a pass is that of a
 *    test in a fresh process, as without lanes;
 *  - a lane that dies or ends during a test (a crash, exit(), its parent
 *    killed) leaves that test to be run alone, for Check's verdict;
 *  - a test that runs out of its part's time (on its clock, above) is
 *    ended here, with its lane, and logged as Check logs a timeout. No
 *    lane starts after that: the tests left run alone, side by side, so a
 *    submission that hangs in every test costs a timeout or so, not one
 *    per test;
 *  - once a test of a part ran out of time (in a lane or alone), the
 *    part's tests that have not started are not run: each is logged "not
 *    run" after that one (log_not_run). A kernel that never ends would
 *    cost each of them another full timeout, one after another where the
 *    CPUs or the GPU's slots are few, and its part is lost anyway;
 *  - a lane whose parent is killed by a signal not sent here (a test of
 *    the lane sent it) has every verdict it kept run again alone: a test
 *    can finish in the moment between its parent's death and its lane's.
 * With no lanes (0), every test runs alone, as many at once as CPUs.
 * The board is the judge's own memory: no runner shares it. Even so, a
 * test index taken from it is checked against n before it is used, and
 * nothing waits on a value of it.
 */
enum { T_FREE, T_RUNNING, T_KEPT, T_REDO, T_NOT_RUN };

struct board_test {
	int state;
	int lane;        /* the slot of the lane that took it */
	double start;    /* when it started, CLOCK_MONOTONIC seconds */
};

struct board {
	int next;        /* the next test to take */
	struct board_test t[];
};

struct pick {            /* a test to run, and its part */
	const struct part_opts *part;
	const TTest *test;
};

#define CL_MAX_LANES 64

/* In a lane: runs tests from the board until none are left or one fails. */
static void lane_run(const struct cl_lab *lab, const struct pick *picks, int n,
		     struct board *b, int slot)
{
	char xml[4096], kept[4096];

	for (bool first = true;;) {
		int j = __atomic_fetch_add(&b->next, 1, __ATOMIC_SEQ_CST);
		fflush(NULL);   /* what the tests printed: _exit() would drop it */
		if (j < 0 || j >= n) {
			cl_remote_end();
			_exit(0);
		}
		b->t[j].lane = slot;
		b->t[j].start = now_s();
		int free_state = T_FREE;
		if (!__atomic_compare_exchange_n(&b->t[j].state, &free_state, T_RUNNING, false,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;   /* not to be run (T_NOT_RUN): the next, still the first */
		xml_path(xml, sizeof(xml), picks[j].test->name, ".lane");
		xml_path(kept, sizeof(kept), picks[j].test->name, "");
		int failed = run_part(lab, picks[j].part, picks[j].test, CK_NOFORK, xml,
				      picks[j].part->timeout);
		bool was_first = first;
		first = false;
		if (failed && !was_first) {
			unlink(xml);
			__atomic_store_n(&b->t[j].state, T_REDO, __ATOMIC_SEQ_CST);
			cl_remote_end();
			fflush(NULL);
			_exit(0);
		}
		rename(xml, kept);
		__atomic_store_n(&b->t[j].state, T_KEPT, __ATOMIC_SEQ_CST);
		if (failed) {
			cl_remote_end();
			fflush(NULL);
			_exit(1);
		}
	}
}

/*
 * Starts a lane in its own process group, under a parent that only waits
 * for it: a test that kills its parent kills that one, and the lane dies
 * with it. Returns the parent's pid, or -1 when no process can be made now.
 */
static pid_t lane_start(const struct cl_lab *lab, const struct pick *picks, int n,
			struct board *b, int slot)
{
	pid_t pid = fork();

	if (pid > 0)
		setpgid(pid, pid);
	if (pid != 0)
		return pid;
	setpgid(0, 0);
	pid_t self = getpid(), lane = fork();
	if (lane == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != self)
			_exit(0);
		lane_run(lab, picks, n, b, slot);
	}
	int st = 0;
	while (lane > 0 && waitpid(lane, &st, 0) < 0 && errno == EINTR)
		;
	_exit(lane > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1 ? 1 : 0);
}

/*
 * Logs test p as Check logs a test that ended in an error: after `seconds`,
 * with the message `what` then `name` (test names and Check's words: no
 * character XML would want escaped).
 */
static void log_error(const struct cl_lab *lab, const struct pick *p, double seconds,
		      const char *what, const char *name)
{
	char path[4096];
	FILE *f;

	xml_path(path, sizeof(path), p->test->name, "");
	if (!(f = fopen(path, "w")))
		return;
	fprintf(f, "<?xml version=\"1.0\"?>\n<testsuites>\n <suite>\n  <title>%s</title>\n"
		   "  <test result=\"error\">\n   <id>%s</id>\n   <description>%s</description>\n"
		   "   <duration>%f</duration>\n   <message>%s%s</message>\n"
		   "  </test>\n </suite>\n</testsuites>\n",
		lab->name, p->test->name, p->part->name, seconds, what, name);
	fclose(f);
}

/* Logs test p as Check logs a test that ran out of time. */
static void log_timeout(const struct cl_lab *lab, const struct pick *p)
{
	log_error(lab, p, p->part->timeout, "Test timeout expired", "");
}

/* Logs test p as not run, since test `after` of its part ran out of time. */
static void log_not_run(const struct cl_lab *lab, const struct pick *p, const struct pick *after)
{
	log_error(lab, p, 0, CL_NOT_RUN_AFTER, after->test->name);
}

/* The test of k's part that ran out of time (ran_out, run_lanes), or -1. */
static int part_ran_out(const struct pick *picks, int n, const bool *ran_out, int k)
{
	for (int j = 0; j < n; j++)
		if (ran_out[j] && picks[j].part == picks[k].part)
			return j;
	return -1;
}

/*
 * Test j ran out of time: every test of its part that has not started is
 * not run (lanes above). A lane's test is taken from the board (T_FREE to
 * T_NOT_RUN, unless a lane took it first); one to run alone, queued now or
 * later (a lane's failure to run again), is not run when its turn comes
 * (part_ran_out).
 */
static void part_timed_out(const struct cl_lab *lab, const struct pick *picks, int n,
			   struct board *b, int j, bool *alone, bool *ran_out)
{
	ran_out[j] = true;
	for (int k = 0; k < n; k++) {
		int free_state = T_FREE;
		if (k == j || picks[k].part != picks[j].part || alone[k] ||
		    !__atomic_compare_exchange_n(&b->t[k].state, &free_state, T_NOT_RUN, false,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;   /* another part's, alone's, or a lane has it */
		alone[k] = true;
		log_not_run(lab, &picks[k], &picks[j]);
	}
}

/*
 * Runs picks in up to `lanes` lanes at once, and alone (Check forking, as
 * without lanes) what the lanes leave; at most max_running processes at
 * once. Returns the harness's exit status.
 */
static int run_lanes(const struct cl_lab *lab, const struct pick *picks, int n, int lanes,
		     int max_running)
{
	size_t size = sizeof(struct board) + n * sizeof(struct board_test);
	struct board *b = (struct board *)mmap(NULL, size, PROT_READ | PROT_WRITE,
					       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t lane_pid[CL_MAX_LANES] = {0};
	bool *queued = (bool *)calloc(n, 1), *alone = (bool *)calloc(n, 1);
	bool *clocked = (bool *)calloc(n, 1);   /* its clock runs (a lane's test) */
	bool *ran_out = (bool *)calloc(n, 1);   /* it ran out of time (part_timed_out) */
	pid_t *runner = (pid_t *)calloc(n, sizeof(pid_t));   /* of a test run alone */
	pid_t *alone_pid = (pid_t *)calloc(n, sizeof(pid_t));   /* the same, until reaped */
	struct test_clock *clocks = (struct test_clock *)calloc(n, sizeof(struct test_clock));
	double lane_since[CL_MAX_LANES] = {0};   /* when each lane started */
	bool lane_killed[CL_MAX_LANES] = {0};    /* ended here, for a timeout */
	int alive = 0, running_alone = 0, started = 0, status = 0;
	bool timed_out = false;   /* a test ran out of time: no more lanes */

	if (b == MAP_FAILED || !queued || !alone || !clocked || !ran_out || !runner || !alone_pid ||
	    !clocks) {
		perror("harness");
		return 3;
	}
	memset(b, 0, size);
	if (lanes > CL_MAX_LANES)
		lanes = CL_MAX_LANES;
	if (lanes > max_running)
		lanes = max_running;
	for (;;) {
		int next = __atomic_load_n(&b->next, __ATOMIC_SEQ_CST);
		for (int slot = 0; !timed_out && slot < lanes && next >= 0 && next < n &&
				   started < n && alive + running_alone < max_running; slot++) {
			if (lane_pid[slot])
				continue;
			double since = now_s();
			pid_t pid = lane_start(lab, picks, n, b, slot);
			if (pid < 0)
				break;   /* no room for a process now: later */
			lane_pid[slot] = pid;
			lane_since[slot] = since;
			lane_killed[slot] = false;
			alive++;
			started++;
		}
		bool waiting = false;
		for (int j = 0; j < n; j++) {
			if (!queued[j])
				continue;
			int hung = part_ran_out(picks, n, ran_out, j);
			if (hung >= 0) {
				queued[j] = false;
				log_not_run(lab, &picks[j], &picks[hung]);
				continue;
			}
			if (alive + running_alone == max_running) {
				waiting = true;
				break;
			}
			pid_t pid = fork();
			if (pid < 0) {
				waiting = true;
				break;
			}
			if (pid == 0) {
				char xml[4096];
				/*
				 * This process keeps the test's time by Check's timer, as
				 * a backstop to its clock, which this harness keeps and
				 * ends by setting that timer off early (below). One that
				 * comes once Check is done must not end this process.
				 */
				signal(SIGALRM, SIG_IGN);
				xml_path(xml, sizeof(xml), picks[j].test->name, "");
				_exit(run_part(lab, picks[j].part, picks[j].test, CK_FORK, xml,
					       wall_limit(picks[j].part->timeout)));
			}
			queued[j] = false;
			runner[j] = alone_pid[j] = pid;
			clock_start(&clocks[j], pid);
			running_alone++;
		}
		if (!alive && !running_alone && !waiting) {
			/* no lane can take what is left (lanes ran out, or a forged board) */
			bool more = false;
			for (int j = 0; j < n; j++)
				if (!alone[j] && __atomic_load_n(&b->t[j].state, __ATOMIC_SEQ_CST) == T_FREE)
					more = queued[j] = alone[j] = true;
			if (!more)
				break;
			__atomic_store_n(&b->next, n, __ATOMIC_SEQ_CST);
			continue;
		}

		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0) {
			int slot = 0;
			while (slot < lanes && lane_pid[slot] != pid)
				slot++;
			if (slot == lanes) {
				bool known = false;
				for (int j = 0; j < n; j++)
					if (alone_pid[j] == pid) {
						alone_pid[j] = runner[j] = 0;
						known = true;
					}
				/* else a runner whose test process was killed, come to
				 * this process (a subreaper, cl_main): only reaped */
				if (known) {
					running_alone--;
					status = reap_status(st, status);
				}
				continue;
			}
			lane_pid[slot] = 0;
			alive--;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 1 && !status)
				status = 1;
			/*
			 * What the lane left: the test it was in, failures to redo,
			 * and, when a signal not ours killed its parent, every
			 * verdict it kept (above).
			 */
			bool foreign = WIFSIGNALED(st) && !lane_killed[slot];
			for (int j = 0; j < n; j++) {
				int state = __atomic_load_n(&b->t[j].state, __ATOMIC_SEQ_CST);
				bool mine = b->t[j].lane == slot && b->t[j].start >= lane_since[slot];
				if (alone[j] || !(state == T_REDO || (state == T_RUNNING && mine) ||
						  (state == T_KEPT && mine && foreign)))
					continue;
				if (state == T_KEPT) {
					char xml[4096];
					xml_path(xml, sizeof(xml), picks[j].test->name, "");
					unlink(xml);
				}
				queued[j] = alone[j] = true;
			}
			continue;
		}
		for (int j = 0; j < n; j++) {
			double limit = picks[j].part->timeout;
			/*
			 * A test run alone that ran out of its time on its clock:
			 * its runner's Check timer goes off now (SIGALRM is how the
			 * timer goes off), so Check ends it and logs a timeout, as
			 * when its wall time runs out.
			 */
			if (runner[j] > 0) {
				if (clock_used(&clocks[j]) > limit) {
					kill(runner[j], SIGALRM);
					runner[j] = -1;   /* once */
					part_timed_out(lab, picks, n, b, j, alone, ran_out);
				}
				continue;
			}
			int slot = b->t[j].lane;
			if (alone[j] || __atomic_load_n(&b->t[j].state, __ATOMIC_SEQ_CST) != T_RUNNING ||
			    slot < 0 || slot >= lanes || !lane_pid[slot])
				continue;
			if (!clocked[j]) {
				/* seen running: its clock starts (not the lane's word for when) */
				clock_start(&clocks[j], lane_pid[slot]);
				clocked[j] = true;
			}
			if (clock_used(&clocks[j]) <= limit &&
			    now_s() - clocks[j].started <= wall_limit(limit))
				continue;
			kill(-lane_pid[slot], SIGKILL);
			lane_killed[slot] = true;
			log_timeout(lab, &picks[j]);
			alone[j] = true;   /* its verdict is in: not to be run again */
			timed_out = true;
			part_timed_out(lab, picks, n, b, j, alone, ran_out);
		}
		usleep(5000);
	}
	free(queued);
	free(alone);
	free(clocked);
	free(ran_out);
	free(runner);
	free(alone_pid);
	free(clocks);
	munmap(b, size);
	return status;
}

/* ------------------------------------------------------------ lab setup */

/* text into the file name of the log folder dir, for the grader (no folder: nothing). */
static void log_file(const char *dir, const char *name, const char *text)
{
	char path[4096];

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The lab whose setup hook is running, and the log folder: for setup_ended. */
static const struct cl_lab *setup_lab;
static const char *setup_dir;

/*
 * At exit, while the lab's setup hook runs: it ended the process. Says so on
 * standard error and, for the grader, in CL_SETUP_ENDED_FILE of the log
 * folder, instead of leaving every test to read "exited with 2 before it
 * reported". Check's ck_assert, called outside a test, prints "No messaging
 * setup" and exits with 2.
 */
static void setup_ended(void)
{
	char text[512];

	if (!setup_lab)
		return;
	snprintf(text, sizeof(text),
		 "the setup hook of lab %s ended the test binary before any test ran: setup "
		 "runs in the harness's main process, outside every test, where a failed "
		 "ck_assert has no test to fail (Check then exits with 2); prepare the inputs "
		 "there and assert in the tests",
		 setup_lab->name);
	fprintf(stderr, "harness: %s\n", text);
	log_file(setup_dir, CL_SETUP_ENDED_FILE, text);
}

/* How long the lab's setup hook took (its data sets and expected values),
 * for the grader: CL_SETUP_SECONDS_FILE of the log folder. */
static void setup_took(const char *dir, double seconds)
{
	char text[32];

	snprintf(text, sizeof(text), "%.6f\n", seconds);
	log_file(dir, CL_SETUP_SECONDS_FILE, text);
}

/* ----------------------------------------------------------- safety run */

/*
 * A safety run (--safety), under compute-sanitizer: the tests asked for, at
 * their small sizes with allocations of exact size (cl_safety), one after
 * another in this one process (the sanitizer follows one context; the
 * grader sets the time limit). Before each, a line "@@cudalab-safety:TOKEN
 * TEST" tells the grader whose the sanitizer's reports that follow are. A
 * test after which the context is lost (memcheck stops a kernel at its
 * first bad access) ends the run with "@@cudalab-safety-lost:TOKEN": the
 * grader runs the tests after it in a fresh process. TOKEN is the grader's
 * for this run (token=, on standard input): the runner prints into the same
 * stream, and a marker it forged (a test of no safety part's, just before
 * a bad access, would take the report away from the test it is in) is
 * not read. Verdicts are not the point here: Check's go nowhere.
 */
static int run_safety(const struct cl_lab *lab, const struct pick *picks, int n)
{
	for (int j = 0; j < n; j++) {
		printf("@@cudalab-safety:%s %s\n", token, picks[j].test->name);
		fflush(stdout);
		run_part(lab, picks[j].part, picks[j].test, CK_NOFORK, "/dev/null",
			 picks[j].part->timeout);
		fflush(stdout);
		if (cl_context_lost()) {
			printf("@@cudalab-safety-lost:%s\n", token);
			return 0;
		}
	}
	printf("@@cudalab-safety-end:%s\n", token);
	return 0;
}

static int harness_main(const struct cl_lab *lab, int argc, char **argv)
{
	struct part_opts parts[CL_MAX_PARTS];
	const char *names[CL_MAX_PARTS];
	double timeout_val[CL_MAX_PARTS];
	const char *timeout_for[CL_MAX_PARTS];
	size_t nparts = 0, ntimeouts = 0;
	const char *xml_dir = NULL, *only[64];
	size_t nonly = 0;
	int lanes = 0, jobs = 0;
	uint64_t seed;
	int status = 0;

	cl_shared_poison = 1;   /* see launch.cu */

	/* the hidden tests join the lab's, in the course's repository only */
	struct cl_lab with_hidden;
	if (&cl_hidden_ntests && cl_hidden_ntests) {
		struct cl_test *all = (struct cl_test *)calloc(lab->ntests + cl_hidden_ntests,
							       sizeof(*all));
		if (!all)
			return 3;
		memcpy(all, lab->tests, lab->ntests * sizeof(*all));
		memcpy(all + lab->ntests, cl_hidden_tests, cl_hidden_ntests * sizeof(*all));
		with_hidden = *lab;
		with_hidden.tests = all;
		with_hidden.ntests = lab->ntests + cl_hidden_ntests;
		lab = &with_hidden;
	}

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--list")) {
			for (size_t t = 0; t < lab->ntests; t++)
				printf("%s %s\n", lab->tests[t].tcase, lab->tests[t].test->name);
			return 0;
		} else if (!strcmp(a, "--xml-dir") && i + 1 < argc) {
			xml_dir = argv[++i];
		} else if (!strcmp(a, "--lanes") && i + 1 < argc) {
			lanes = atoi(argv[++i]);   /* 0: a process per test */
			if (lanes < 0)
				lanes = 0;
		} else if (!strcmp(a, "--jobs") && i + 1 < argc) {
			jobs = atoi(argv[++i]);   /* processes at once; 0: a CPU each */
			if (jobs < 0)
				jobs = 0;
		} else if (!strcmp(a, "--safety")) {
			cl_safety = 1;
		} else if (!strcmp(a, "--emulated")) {
			cl_emulated = 1;
		} else if (!strcmp(a, "--runner") && i + 1 < argc) {
			if (cl_remote_configure(argv[++i])) {
				fprintf(stderr, "judge_%s: cannot read the runner's recipe '%s'\n",
					lab->name, argv[i]);
				return 2;
			}
		} else if (!strcmp(a, "--only") && i + 1 < argc && nonly < 64) {
			only[nonly++] = argv[++i];   /* only these test functions */
		} else if (!strcmp(a, "--timeout") && i + 1 < argc && ntimeouts < CL_MAX_PARTS) {
			char *eq = strchr(argv[++i], '=');
			if (!eq || (timeout_val[ntimeouts] = atof(eq + 1)) <= 0) {
				usage(lab->name);
				return 2;
			}
			*eq = '\0';
			timeout_for[ntimeouts++] = argv[i];
		} else if (a[0] == '-' || nparts == CL_MAX_PARTS || !has_part(lab, a)) {
			if (a[0] != '-')
				fprintf(stderr, "check_%s: no part '%s'\n", lab->name, a);
			usage(lab->name);
			return 2;
		} else {
			names[nparts++] = a;
		}
	}
	if (!nparts)
		for (size_t t = 0; t < lab->ntests && nparts < CL_MAX_PARTS; t++)
			if (!cl_part_wanted(lab->tests[t].tcase, names, nparts))
				names[nparts++] = lab->tests[t].tcase;
	for (size_t p = 0; p < nparts; p++) {
		parts[p].name = names[p];
		parts[p].timeout = 30;
		for (size_t t = 0; t < ntimeouts; t++)
			if (!strcmp(timeout_for[t], names[p]))
				parts[p].timeout = timeout_val[t];
	}
	if (read_seed(&seed) < 0) {
		fprintf(stderr, "check_%s: no 'seed=N' line on standard input\n", lab->name);
		return 2;
	}

	if (lab->setup) {
		setup_lab = lab;
		setup_dir = xml_dir;
		atexit(setup_ended);
		double t0 = now_s();
		lab->setup(seed, names, nparts);
		setup_lab = NULL;
		setup_took(xml_dir, now_s() - t0);
	}
	fflush(stdout);
	fflush(stderr);

	/* Without an XML directory a person is reading: one part after another. */
	if (!xml_dir && !cl_safety) {
		for (size_t p = 0; p < nparts; p++)
			status |= run_part(lab, &parts[p], NULL, CK_FORK, NULL, parts[p].timeout);
		return status;
	}

	done_dir = xml_dir;
	struct pick *picks = (struct pick *)calloc(lab->ntests ? lab->ntests : 1, sizeof(*picks));
	int n = 0;
	if (!picks) {
		perror("harness");
		return 3;
	}
	/*
	 * The parts in turn, a test of each (every part's first test, then
	 * every part's second, ...): where each part has a kernel that never
	 * ends, the first timeouts are in different parts, and each ends the
	 * rest of its part (lanes, above), so they cost as few timeouts as the
	 * CPUs allow, not one for each part's first two tests.
	 */
	size_t picked[CL_MAX_PARTS] = {0};
	for (bool more = true; more;) {
		more = false;
		for (size_t p = 0; p < nparts; p++) {
			size_t seen = 0;
			for (size_t t = 0; t < lab->ntests; t++) {
				if (strcmp(lab->tests[t].tcase, parts[p].name) ||
				    (nonly && !cl_part_wanted(lab->tests[t].test->name, only, nonly)))
					continue;
				if (seen++ < picked[p])
					continue;
				picks[n++] = (struct pick){&parts[p], lab->tests[t].test};
				picked[p]++;
				more = true;
				break;
			}
		}
	}
	status = cl_safety ? run_safety(lab, picks, n)
			   : run_lanes(lab, picks, n, lanes, jobs ? jobs : cl_cpu_threads());
	free(picks);
	return status;
}

/*
 * The harness ends with _exit() once what it has to say is written: no
 * atexit() handler or static object's destructor of the submission's runs
 * after its tests (a spin there outlived the safety stage's time, and the
 * tests it had not checked then passed unchecked).
 */
int cl_main(const struct cl_lab *lab, int argc, char **argv)
{
	/*
	 * Runners whose test process was killed (a timeout) come here to be
	 * reaped, not to the grader; and nothing of the judge's can be read or
	 * traced by a process of its user (an unsandboxed runner).
	 */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_DUMPABLE, 0);
	int status = harness_main(lab, argc, argv);

	cl_remote_end();
	fflush(NULL);
	_exit(status);
}
