/*
 * harness.cu - the entry point of every lab's test binary.
 *
 * Owns: argument and seed parsing, the CPU-side setup, and running each
 * graded part (a Check TCase) in its own process, in parallel, each writing
 * Check's XML log for the grader to read.
 *
 * Must not: call CUDA. This process and the per-part processes fork; only
 * the test bodies (Check's forked children) create a CUDA context.
 */
#include "cudalab.h"

#include <math.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CL_MAX_PARTS 32

struct part_opts {
	const char *name;
	double timeout;
};

static void usage(const char *lab)
{
	fprintf(stderr,
		"usage: check_%s [--list] [--xml-dir DIR] [--timeout PART=SECONDS]... "
		"[--only TEST] [PART...]\n"
		"The run's seed is read from standard input as 'seed=N', and the student's\n"
		"name (for labs with per-student questions) as 'student=ID'.\n", lab);
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
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

static int has_part(const struct cl_lab *lab, const char *name)
{
	for (size_t i = 0; i < lab->ntests; i++)
		if (!strcmp(lab->tests[i].tcase, name))
			return 1;
	return 0;
}

const char *cl_answer(const char *name)
{
	static char value[128];
	FILE *f = fopen("answers.txt", "r");
	char line[512];
	bool found = false;

	ck_assert_msg(f != NULL, "cannot open answers.txt: it must be in the submission");
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
		snprintf(value, sizeof(value), "%.*s", (int)n, p);
		found = true;
	}
	fclose(f);
	ck_assert_msg(found, "answers.txt has no line '%s = ...'", name);
	ck_assert_msg(value[0], "answers.txt: no answer yet for '%s'", name);
	return value;
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

static char student[256] = "student";
const char *cl_student = student;
/* The grader's token for this run, and the test this process runs (xml mode). */
static char token[64];
static const char *done_dir, *done_test;

/*
 * After a test body returned (a checked teardown: it does not run when the
 * test failed or its process ended early), <xml dir>/<test>.done gets the
 * grader's token. A test that Check reports passed without it ended its
 * process early, with status 0, from the submission's code.
 */
static void test_done(void)
{
	char path[4096];

	if (!done_dir || !done_test)
		return;
	snprintf(path, sizeof(path), "%s/%s.done", done_dir, done_test);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(token, f);
		fclose(f);
	}
}

/* "seed=N" and, optionally, "student=ID" and "token=T", to the end of standard input. */
static int read_seed(uint64_t *seed)
{
	char line[512];
	unsigned long long v;
	int found = -1;

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "seed=%llu", &v) == 1) {
			*seed = v;
			found = 0;
		} else if (!strncmp(line, "student=", 8) && line[8]) {
			snprintf(student, sizeof(student), "%.200s", line + 8);
		} else if (!strncmp(line, "token=", 6)) {
			snprintf(token, sizeof(token), "%.60s", line + 6);
		}
	}
	return found;
}

/*
 * Runs the tests of one part in this (already forked) process; only the test
 * `only` when it is not NULL. Returns the process's exit code.
 */
static int run_part(const struct cl_lab *lab, const struct part_opts *p, const TTest *only,
		    const char *xml_dir)
{
	Suite *s = suite_create(lab->name);
	TCase *tc = tcase_create(p->name);
	char path[4096];
	int failed;

	tcase_set_timeout(tc, p->timeout);
	if (xml_dir && only) {
		done_dir = xml_dir;
		done_test = only->name;
		tcase_add_checked_fixture(tc, NULL, test_done);
	}
	for (size_t i = 0; i < lab->ntests; i++)
		if (!strcmp(lab->tests[i].tcase, p->name) && (!only || only == lab->tests[i].test))
			tcase_add_test(tc, lab->tests[i].test);
	suite_add_tcase(s, tc);

	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_FORK);
	if (xml_dir) {
		snprintf(path, sizeof(path), "%s/%s.xml", xml_dir, only ? only->name : p->name);
		srunner_set_xml(sr, path);
	}
	srunner_run(sr, NULL, p->name, xml_dir ? CK_SILENT : CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

/* Waits for one test process; folds its exit code into status. */
static int reap_one(int status)
{
	int st;
	pid_t pid;

	while ((pid = wait(&st)) < 0 && errno == EINTR)
		;
	if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) > 1)
		return 3;
	if (WEXITSTATUS(st) == 1 && status == 0)
		return 1;
	return status;
}

int cl_main(const struct cl_lab *lab, int argc, char **argv)
{
	struct part_opts parts[CL_MAX_PARTS];
	const char *names[CL_MAX_PARTS];
	double timeout_val[CL_MAX_PARTS];
	const char *timeout_for[CL_MAX_PARTS];
	size_t nparts = 0, ntimeouts = 0;
	const char *xml_dir = NULL, *only[64];
	size_t nonly = 0;
	uint64_t seed;
	int status = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--list")) {
			for (size_t t = 0; t < lab->ntests; t++)
				printf("%s %s\n", lab->tests[t].tcase, lab->tests[t].test->name);
			return 0;
		} else if (!strcmp(a, "--xml-dir") && i + 1 < argc) {
			xml_dir = argv[++i];
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

	if (lab->setup)
		lab->setup(seed, names, nparts);
	fflush(stdout);
	fflush(stderr);

	/* Without an XML directory a person is reading: one part after another. */
	if (!xml_dir) {
		for (size_t p = 0; p < nparts; p++)
			status |= run_part(lab, &parts[p], NULL, NULL);
		return status;
	}

	/*
	 * Each test in a process of its own, as many at once as there are CPUs:
	 * every test pays for a CUDA context, so running them side by side is
	 * what keeps a whole suite to about the time of its slowest test.
	 */
	int running = 0, max_running = cl_cpu_threads();
	for (size_t p = 0; p < nparts; p++)
		for (size_t t = 0; t < lab->ntests; t++) {
			if (strcmp(lab->tests[t].tcase, parts[p].name) ||
			    (nonly && !cl_part_wanted(lab->tests[t].test->name, only, nonly)))
				continue;
			if (running == max_running) {
				status = reap_one(status);
				running--;
			}
			pid_t pid;
			/*
			 * No room for another process (a test filled the process
			 * limit, say with a fork bomb, until its timeout ends it):
			 * wait for a test to end, or a moment, rather than give up
			 * on the tests still to run and on those running.
			 */
			while ((pid = fork()) < 0 && (errno == EAGAIN || errno == ENOMEM)) {
				if (running) {
					status = reap_one(status);
					running--;
				} else {
					usleep(50000);
				}
			}
			if (pid < 0) {
				perror("fork");
				return 3;
			}
			if (pid == 0)
				_exit(run_part(lab, &parts[p], lab->tests[t].test, xml_dir));
			running++;
		}
	while (running--)
		status = reap_one(status);
	return status;
}
