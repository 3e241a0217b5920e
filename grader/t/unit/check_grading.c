/* Unit tests of grading.c: the lanes' default, the children's environment, the work folder. */
#include "grading.h"
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

Suite *grading_suite(void)
{
	Suite *s = suite_create("grading");
	TCase *tc = tcase_create("grading");

	tcase_add_test(tc, test_grading_lanes_default);
	tcase_add_test(tc, test_grading_env_has_one_gpu);
	suite_add_tcase(s, tc);
	return s;
}
