/*
 * Unit tests of grading.c: the lanes' default, the children's environment,
 * the work folder; and the test binary's input (testrun.c).
 */
#include "grading.h"
#include "testrun.h"
#include "unit.h"

#include <string.h>
#include <sys/stat.h>

START_TEST(test_grading_lanes_default)
{
	struct grade_opts o = GRADE_OPTS_INIT;

	ck_assert_int_eq(grading_lanes(&o, MODE_GPU, 5), 1);
	ck_assert_int_eq(grading_lanes(&o, MODE_EMULATED, 5), 5);
	ck_assert_int_eq(grading_lanes(&o, MODE_CPU, 3), 3);
	o.in_class = true;
	ck_assert_int_eq(grading_lanes(&o, MODE_EMULATED, 5), 1);
	o.lanes = 0;   /* a process per test, wherever */
	ck_assert_int_eq(grading_lanes(&o, MODE_GPU, 5), 0);
	ck_assert_int_eq(grading_lanes(&o, MODE_EMULATED, 5), 0);
	o.lanes = 4;
	ck_assert_int_eq(grading_lanes(&o, MODE_GPU, 5), 4);

	/* the emulator's workers: the grading's CPUs over its lanes, at least 1 */
	ck_assert_uint_eq(grading_emu_workers(&o, MODE_EMULATED, 5), 0);   /* no share */
	o.cpus = 16;
	ck_assert_uint_eq(grading_emu_workers(&o, MODE_EMULATED, 1), 16);
	ck_assert_uint_eq(grading_emu_workers(&o, MODE_EMULATED, 5), 3);
	ck_assert_uint_eq(grading_emu_workers(&o, MODE_EMULATED, 0), 16);
	ck_assert_uint_eq(grading_emu_workers(&o, MODE_EMULATED, 32), 1);
	ck_assert_uint_eq(grading_emu_workers(&o, MODE_GPU, 1), 0);
}
END_TEST

static size_t count_prefix(char **env, const char *prefix, const char **last)
{
	size_t n = 0;
	for (char **e = env; e && *e; e++)
		if (!strncmp(*e, prefix, strlen(prefix))) {
			n++;
			*last = *e;
		}
	return n;
}

/* A grading whose GPU is given, or taken from the grader's own list. */
static void open_one(const char *gpu, struct grading *g, struct result *r,
		     struct lab_config *cfg, struct toolchain *tc, struct grade_opts *o)
{
	*tc = (struct toolchain){.root = (char *)unit_root(), .nvcc = "nvcc", .cxx = "g++"};
	ck_assert_int_eq(unit_parse_lab("[lab]\nname = demo\nfiles = a.cu\n[part p]\ntests = a:1\n",
					cfg), 0);
	*o = (struct grade_opts)GRADE_OPTS_INIT;
	o->gpu = gpu;
	memset(r, 0, sizeof(*r));
	ck_assert_int_eq(grading_open(g, tc, cfg, o, r), 0);
}

START_TEST(test_grading_env_has_one_gpu)
{
	struct grading g;
	struct result r;
	struct lab_config cfg;
	struct toolchain tc;
	struct grade_opts o;
	const char *v = NULL;
	struct stat st;

	setenv("CUDALAB_NO_SANDBOX", "1", 1);
	setenv("CK_FORK", "no", 1);
	setenv("CUDA_VISIBLE_DEVICES", "5,6", 1);
	open_one("2", &g, &r, &cfg, &tc, &o);
	ck_assert_uint_eq(count_prefix(g.env, "CUDA_VISIBLE_DEVICES=", &v), 1);
	ck_assert_str_eq(v, "CUDA_VISIBLE_DEVICES=2");
	ck_assert_uint_eq(count_prefix(g.env, "CK_", &v), 0);
	ck_assert_uint_eq(count_prefix(g.env, "CUDALAB_", &v), 0);
	ck_assert_ptr_null(r.sandbox);   /* CUDALAB_NO_SANDBOX: unsandboxed, and says why */
	ck_assert_ptr_nonnull(strstr(r.sandbox_why, "CUDALAB_NO_SANDBOX"));

	const char *const extra[] = {"CUDAEMU_WORKERS=1", NULL};
	char **env = grading_env(&g, extra);
	ck_assert_uint_eq(count_prefix(env, "CUDAEMU_WORKERS=", &v), 1);
	ck_assert_uint_eq(count_prefix(env, "CUDA_VISIBLE_DEVICES=", &v), 1);
	ck_assert_uint_eq(count_prefix(g.env, "CUDAEMU_WORKERS=", &v), 0);
	grading_free_env(env);
	/* an extra of a name g's has takes its place: one entry, the extra's */
	const char *const instead[] = {"CUDA_VISIBLE_DEVICES=7", NULL};
	env = grading_env(&g, instead);
	ck_assert_uint_eq(count_prefix(env, "CUDA_VISIBLE_DEVICES=", &v), 1);
	ck_assert_str_eq(v, "CUDA_VISIBLE_DEVICES=7");
	grading_free_env(env);
	/* set for the children from now on: replaces, never doubles */
	grading_setenv(&g, "CUDAEMU_WORKERS=2");
	grading_setenv(&g, "CUDAEMU_WORKERS=3");
	ck_assert_uint_eq(count_prefix(g.env, "CUDAEMU_WORKERS=", &v), 1);
	ck_assert_str_eq(v, "CUDAEMU_WORKERS=3");
	ck_assert_uint_eq(count_prefix(g.env, "CUDA_VISIBLE_DEVICES=", &v), 1);
	/* the grader's own tools outside the sandbox keep their files in the work folder */
	ck_assert_uint_eq(count_prefix(g.tool_env, "TMPDIR=", &v), 1);
	ck_assert_str_eq(v + strlen("TMPDIR="), g.workdir);

	char *workdir = xstrdup(g.workdir);
	ck_assert_int_eq(stat(workdir, &st), 0);
	grading_close(&g);
	ck_assert_int_ne(stat(workdir, &st), 0);   /* not kept: removed */
	free(workdir);
	result_release(&r);

	/* no GPU given: the first of the grader's own list */
	open_one(NULL, &g, &r, &cfg, &tc, &o);
	ck_assert_uint_eq(count_prefix(g.env, "CUDA_VISIBLE_DEVICES=", &v), 1);
	ck_assert_str_eq(v, "CUDA_VISIBLE_DEVICES=5");
	grading_close(&g);
	result_release(&r);
	config_free(&cfg);
	unsetenv("CUDALAB_NO_SANDBOX");
	unsetenv("CK_FORK");
	unsetenv("CUDA_VISIBLE_DEVICES");
}
END_TEST

/* The input of a run whose student's name is n bytes of c: its lines, each checked. */
static void check_input_for(size_t n, char c)
{
	struct result r = {.seed = 123456789};
	char *name = xmalloc(n + 1), *in;
	const char *token = "0123456789abcdef0123456789abcdef";

	memset(name, c, n);
	name[n] = '\0';
	r.student = name;
	in = testrun_input(&r, token);
	size_t kept = n < TESTRUN_STUDENT_MAX ? n : TESTRUN_STUDENT_MAX;
	char *want = xasprintf("seed=123456789\ntoken=%s\nstudent=%.*s\n", token, (int)kept, name);
	ck_assert_str_eq(in, want);
	free(want);
	free(in);
	free(name);
}

/* A long name is cut to TESTRUN_STUDENT_MAX bytes; the token is whole (a 190-byte name cut it). */
START_TEST(test_testrun_input_long_name)
{
	check_input_for(5, 'a');
	check_input_for(190, 'b');
	check_input_for(TESTRUN_STUDENT_MAX, 'c');
	check_input_for(250, 'd');
	check_input_for(4000, 'e');
}
END_TEST

/* The name is one line, and is never cut inside a UTF-8 character. */
START_TEST(test_testrun_student_cut)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	s = testrun_student("ada\ntoken=forged");
	ck_assert_str_eq(s, "ada");
	free(s);
	s = testrun_student("bob\r\nseed=1");
	ck_assert_str_eq(s, "bob");
	free(s);
	s = testrun_student(NULL);
	ck_assert_str_eq(s, "");
	free(s);
	/* 199 bytes, then a 3-byte character that would straddle the limit */
	for (int i = 0; i < TESTRUN_STUDENT_MAX - 1; i++)
		strbuf_addstr(&sb, "x");
	strbuf_addstr(&sb, "\xe6\xbc\xa2\xe5\xad\x97");
	s = testrun_student(sb.buf);
	ck_assert_uint_eq(strlen(s), TESTRUN_STUDENT_MAX - 1);
	free(s);
	/* 197 bytes, the character and one more: cut after the character */
	strbuf_reset(&sb);
	for (int i = 0; i < TESTRUN_STUDENT_MAX - 3; i++)
		strbuf_addstr(&sb, "y");
	strbuf_addstr(&sb, "\xe6\xbc\xa2z");
	s = testrun_student(sb.buf);
	ck_assert_uint_eq(strlen(s), TESTRUN_STUDENT_MAX);
	ck_assert_str_eq(s + TESTRUN_STUDENT_MAX - 3, "\xe6\xbc\xa2");
	free(s);
	strbuf_release(&sb);
}
END_TEST

Suite *grading_suite(void)
{
	Suite *s = suite_create("grading");
	TCase *tc = tcase_create("grading");

	tcase_add_test(tc, test_grading_lanes_default);
	tcase_add_test(tc, test_grading_env_has_one_gpu);
	tcase_add_test(tc, test_testrun_input_long_name);
	tcase_add_test(tc, test_testrun_student_cut);
	suite_add_tcase(s, tc);
	return s;
}
