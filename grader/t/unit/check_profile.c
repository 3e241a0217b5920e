/*
 * Unit tests of profile.c and of [sectors] in lab.conf: reading Nsight
 * Compute's CSV, and the verdict when no counter can be read.
 */
#include "profile.h"
#include "unit.h"

#include <string.h>

static struct lab_config cfg;

static const char *const lab_text =
	"[lab]\nname = demo\nfiles = a.cu\n"
	"[part p1]\ntests = a:1\n"
	"[timing time-k]\npart = p1\nkernel = k\nsize = 64\npoints = 2\n"
	"[sectors coalesced]\npart = p1\ncall = k\npoints = 3\nmax_load = 4.5\nmax_store = 4.5\n"
	"judge = time-k\n"
	"[sectors shown]\npart = p1\ncall = k2\n";

static void setup(void)
{
	ck_assert_int_eq(unit_parse_lab(lab_text, &cfg), 0);
}

static void teardown(void)
{
	config_free(&cfg);
}

START_TEST(test_sectors_config_is_checked)
{
	static const char *const bad[] = {
		"[sectors s]\ncall = k\n",                          /* no part */
		"[sectors s]\npart = p9\n",                         /* no such part */
		"[sectors a]\npart = p1\n",                         /* a correctness test's name */
		"[sectors s]\npart = p1\njudge = nothing\n",        /* not a timed test */
		"[sectors s]\npart = p1\nmax_load = 0.5\n",
		"[sectors s]\npart = p1\npoints = -1\n",
		"[sectors s]\npart = p1\nfast = yes\n",
	};
	struct lab_config c;

	ck_assert_uint_eq(cfg.nsectors, 2);
	ck_assert_str_eq(cfg.sectors[0].call, "k");
	ck_assert_str_eq(cfg.sectors[0].judge, "time-k");
	ck_assert_double_eq(cfg.sectors[0].max_store, 4.5);
	ck_assert_str_eq(cfg.sectors[1].call, "k2");
	ck_assert_double_eq(lab_max_points(&cfg, false), 1 + 2 + 3);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *text = xasprintf("[lab]\nname = demo\nfiles = a.cu\n[part p1]\ntests = a:1\n%s",
				       bad[i]);
		ck_assert_msg(unit_parse_lab(text, &c) == -1, "accepted:\n%s", text);
		config_free(&c);
		free(text);
	}
}
END_TEST

#define HEADER "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\"," \
	       "\"Stream\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
#define ROW(id, kernel, metric, value)                                                     \
	"\"" #id "\",\"77\",\"profile_gpu\",\"127.0.0.1\",\"" kernel "\",\"1\",\"7\","        \
	"\"Command line profiler metrics\",\"" metric "\",\"\",\"" value "\"\n"

/* Kernels in launch order, each metric on its row; kernel names hold commas,
 * values thousands separators, and ncu's own lines are not CSV. */
START_TEST(test_ncu_csv_is_read_per_kernel)
{
	const char *csv =
		"==PROF== Connected to process 77 (/tmp/w/profile_gpu)\n" HEADER
		ROW(0, "k(const float *, float *, int)", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "8,192")
		ROW(0, "k(const float *, float *, int)", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "262,144")
		ROW(0, "k(const float *, float *, int)", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "8,192")
		ROW(0, "k(const float *, float *, int)", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "32,768")
		ROW(1, "void t<\"\"x\"\">(float *)", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "10")
		ROW(1, "void t<\"\"x\"\">(float *)", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "40")
		ROW(1, "void t<\"\"x\"\">(float *)", "sm__cycles_elapsed.avg", "999")
		"==PROF== Disconnected from process 77\n";
	unsigned long long(*k)[4];
	char *why;

	ck_assert_int_eq(profile_read_ncu_csv(csv, &k, &why), 2);
	ck_assert_ptr_null(why);
	ck_assert_uint_eq(k[0][0], 8192);
	ck_assert_uint_eq(k[0][1], 262144);
	ck_assert_uint_eq(k[0][3], 32768);
	ck_assert_uint_eq(k[1][1], 40);
	ck_assert_uint_eq(k[1][2], 0);
	free(k);

	/* counters not permitted: nothing counted, and ncu's error says why */
	ck_assert_int_eq(profile_read_ncu_csv("==PROF== Connected to process 9\n==ERROR== "
					      "ERR_NVGPUCTRPERM - The user does not have "
					      "permission to access NVIDIA GPU Performance "
					      "Counters on the target device 0.\n",
					      &k, &why),
			 -1);
	ck_assert_ptr_nonnull(strstr(why, "Nsight Compute: ERR_NVGPUCTRPERM"));
	free(why);
	free(k);
	ck_assert_int_eq(profile_read_ncu_csv("", &k, &why), -1);
	ck_assert_str_eq(why, "Nsight Compute profiled no kernel");
	free(why);
}
END_TEST

static struct graded_test *test_named(struct result *r, const char *name)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (!strcmp(r->tests[i].name, name))
			return &r->tests[i];
	ck_abort_msg("no test %s", name);
	return NULL;
}

/* Without counters the timed judge decides; a test without one is not run. */
START_TEST(test_without_counters_the_judge_decides)
{
	struct result r;

	result_init(&r, &cfg);
	r.build = BUILD_OK;
	r.mode = MODE_GPU;
	test_named(&r, "a")->status = TEST_PASS;
	ck_assert_uint_eq(profile_plan(&cfg, &r), 2);
	test_named(&r, "time-k")->status = TEST_PASS;
	test_named(&r, "time-k")->points = 2;
	profile_without_counters(&cfg, &r, "Nsight Compute (ncu) is not installed");
	struct graded_test *c = test_named(&r, "coalesced"), *s = test_named(&r, "shown");
	ck_assert_int_eq(c->status, TEST_PASS);
	ck_assert_ptr_nonnull(strstr(c->message, "judged by time-k alone, which passed"));
	ck_assert_int_eq(s->status, TEST_NOT_RUN);
	result_finish(&r);
	ck_assert_double_eq(r.score, 1 + 2 + 3);
	/* a test worth nothing that did not run does not hold the grade back */
	ck_assert_int_eq(r.state, RUN_COMPLETE);
	result_release(&r);

	/* a part that failed is not profiled: a final verdict, not "not run" */
	result_init(&r, &cfg);
	r.build = BUILD_OK;
	r.mode = MODE_EMULATED;
	test_named(&r, "a")->status = TEST_FAIL;
	ck_assert_uint_eq(profile_plan(&cfg, &r), 0);
	ck_assert_int_eq(test_named(&r, "coalesced")->status, TEST_FAIL);
	ck_assert_ptr_nonnull(strstr(test_named(&r, "coalesced")->message, "not profiled"));
	result_release(&r);
}
END_TEST

Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_sectors_config_is_checked);
	tcase_add_test(tc, test_ncu_csv_is_read_per_kernel);
	tcase_add_test(tc, test_without_counters_the_judge_decides);
	suite_add_tcase(s, tc);
	return s;
}
