/* Unit tests of safety.c: reading compute-sanitizer's reports (as it printed
 * them on an H100, CUDA 13.0) between the harness's test markers. */
#include "safety.h"
#include "unit.h"

#include <check.h>
#include <string.h>

/* the grader's token for a run: the harness's markers carry it */
#define TOK "0f1e2d3c"
#define END "@@cudalab-safety-end:" TOK "\n"
#define LOST "@@cudalab-safety-lost:" TOK "\n"

static const char memcheck_out[] =
	"========= COMPUTE-SANITIZER\n"
	"@@cudalab-safety:" TOK " test_matmul_k4_exact\n"
	"@@cudalab-safety:" TOK " test_matmul_k5_exact\n"
	"========= Invalid __global__ read of size 4 bytes\n"
	"=========     at oob_read(const float *, float *, int)+0xc0 in /tmp/w/matmul.cu:5\n"
	"=========     by thread (99,0,0) in block (0,0,0)\n"
	"=========     Access to 0x7f678a800190 is out of bounds\n"
	"=========     and is 1 bytes after the nearest allocation at 0x7f678a800000 of size 400 "
	"bytes\n"
	"========= \n"
	"========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch "
	"failure\" on CUDA API call to cudaDeviceSynchronize.\n"
	"========= \n"
	LOST
	"========= ERROR SUMMARY: 2 errors\n";

START_TEST(test_safety_reads_memcheck)
{
	struct safety_output o;

	safety_parse(memcheck_out, "memcheck", TOK, NULL, &o);
	ck_assert(o.banner);
	ck_assert(!o.ended);
	ck_assert_str_eq(o.last, "test_matmul_k5_exact");
	ck_assert_uint_eq(o.nfindings, 1);
	ck_assert_str_eq(o.findings[0].test, "test_matmul_k5_exact");
	ck_assert_str_eq(o.findings[0].text,
			 "out-of-bounds read of 4 bytes of global memory (1 byte past the end of a "
			 "400-byte buffer) at matmul.cu:5 in kernel oob_read, thread (99,0,0) of "
			 "block (0,0,0)");
	safety_output_release(&o);
}
END_TEST

/* the emulator's checking runtime, in the same form: a kernel given the host's arrays */
static const char host_memory_out[] =
	"@@cudalab-safety:" TOK " test_grid_host_result\n"
	"========= Invalid __global__ read of size 4 bytes\n"
	"=========     at grid_picture_kernel+0x0 in grid.cu:51\n"
	"=========     by thread (3,0,0) in block (1,0,0)\n"
	"=========     Address 0x55d0c0de10 is host memory, which a kernel on a GPU cannot reach\n"
	"========= \n"
	END;

/* The one memcheck finding of out: in test, its text beginning with want, with hint in it. */
static void one_finding(const char *out, const char *test, const char *want, const char *hint)
{
	struct safety_output o;

	safety_parse(out, "memcheck", TOK, NULL, &o);
	ck_assert_uint_eq(o.nfindings, 1);
	ck_assert_str_eq(o.findings[0].test, test);
	ck_assert_msg(!strncmp(o.findings[0].text, want, strlen(want)), "%s", o.findings[0].text);
	ck_assert_ptr_nonnull(strstr(o.findings[0].text, hint));
	safety_output_release(&o);
}

START_TEST(test_safety_names_host_memory)
{
	one_finding(host_memory_out, "test_grid_host_result",
		    "host-memory read of 4 bytes at grid.cu:51 in kernel grid_picture_kernel, "
		    "thread (3,0,0) of block (1,0,0): a kernel on a GPU cannot reach host memory",
		    "hint: copy the host's arrays");
}
END_TEST

/* the same runtime on the host's own read of a __device__ variable by name */
static const char host_device_out[] =
	"@@cudalab-safety:" TOK " test_matmul_k1_exact\n"
	"========= Invalid __global__ read of size 4 bytes\n"
	"=========     at host code+0x0 in matmul.cu:34\n"
	"=========     by the host\n"
	"=========     Address 0x55d0c0de10 is a __device__ variable, which the host's code "
	"cannot reach\n"
	"========= \n"
	END;

START_TEST(test_safety_names_the_hosts_device_variable)
{
	one_finding(host_device_out, "test_matmul_k1_exact",
		    "the host's code read a __device__ variable by name (4 bytes at "
		    "matmul.cu:34): on a GPU the host reaches only its own copy of it",
		    "hint: copy it with cudaMemcpyFromSymbol");
}
END_TEST

/*
 * racecheck on cg::reduce over a tile of 128 (the form NVIDIA's cudf
 * reported, CUDA 13): both accesses are in the toolkit's reduce.h, whose
 * tile syncs through a word of shared memory; not a finding. A race in the
 * submission's own function that takes a tile is one, though its name says
 * cooperative_groups.
 */
#define CG_LAMBDA                                                                          \
	"decltype((param#3(param#2, param#2))) cooperative_groups::__v1::details::"         \
	"tile_reduce_dispatch<(unsigned int)5>::reduce<(unsigned int)128, "                \
	"cooperative_groups::__v1::thread_block, float &, cooperative_groups::__v1::plus<"  \
	"float>>(const cooperative_groups::__v1::thread_block_tile<T1, T2> &, T3 &&, T4 &&)" \
	"::[lambda(const cooperative_groups::__v1::details::internal_thread_block_tile<"     \
	"(unsigned int)32, cooperative_groups::__v1::__static_size_multi_warp_tile_base<"    \
	"(unsigned int)128>> &, float *) (instance 1)]::operator ()(const "                  \
	"cooperative_groups::__v1::details::internal_thread_block_tile<(unsigned int)32, "   \
	"cooperative_groups::__v1::__static_size_multi_warp_tile_base<(unsigned int)128>> "  \
	"&, float *) const"
static const char toolkit_race_out[] =
	"========= COMPUTE-SANITIZER\n"
	"@@cudalab-safety:" TOK " test_reduction_warp_exact\n"
	"========= Error: Race reported between Write access at " CG_LAMBDA "+0xeb0 in "
	"/usr/local/cuda-13.0/targets/x86_64-linux/include/cooperative_groups/details/"
	"reduce.h:283\n"
	"=========     and Read access at " CG_LAMBDA "+0xf10 in /usr/local/cuda-13.0/targets/"
	"x86_64-linux/include/cooperative_groups/details/reduce.h:290 [64 hazards]\n"
	"========= \n"
	"========= Error: Race reported between Write access at " CG_LAMBDA "+0xeb0 in "
	"reduce.h:283\n"
	"=========     and Read access at " CG_LAMBDA "+0x1f0 in coalesced_reduce.h:66 "
	"[24 hazards]\n"
	"========= \n"
	"@@cudalab-safety:" TOK " test_reduction_warp_random\n"
	"========= Error: Race reported between Write access at tile_sum(cooperative_groups::"
	"__v1::thread_block_tile<(unsigned int)32, void>, float *)+0x90 in /tmp/w/"
	"reduction.cu:12\n"
	"=========     and Read access at " CG_LAMBDA "+0xf10 in /usr/local/cuda-13.0/targets/"
	"x86_64-linux/include/cooperative_groups/details/reduce.h:290 [8 hazards]\n"
	"========= \n"
	END;

START_TEST(test_safety_leaves_the_toolkits_races_out)
{
	struct safety_output o;

	struct strlist own = STRLIST_INIT;

	strlist_push(&own, "reduction.cu");
	safety_parse(toolkit_race_out, "racecheck", TOK, &own, &o);
	ck_assert(o.ended);
	ck_assert_uint_eq(o.toolkit_races, 2);
	ck_assert_uint_eq(o.nfindings, 1);
	ck_assert_str_eq(o.findings[0].test, "test_reduction_warp_random");
	ck_assert_msg(strstr(o.findings[0].text, "a Write at reduction.cu:12 and a Read at "
				 "reduce.h:290"), "%s", o.findings[0].text);
	safety_output_release(&o);
	ck_assert(safety_toolkit_race(" at cooperative_groups::f()+0x10 in "
				      "/opt/cuda/include/cooperative_groups.h:7", &own));
	/* racecheck's own form on an H200: the file's name alone */
	ck_assert(safety_toolkit_race(" at void cooperative_groups::__v1::details::g(int)+0x40 in "
				      "coalesced_reduce.h:66", &own));
	/* the namespace in a parameter of the submission's own function, its file */
	ck_assert(!safety_toolkit_race(" at f(cooperative_groups::thread_block)+0x10 in "
				       "/tmp/w/reduction.cu:7", &own));
	/* a header name, but no function of the toolkit's */
	ck_assert(!safety_toolkit_race(" at f()+0x10 in reduce.h:7", &own));
	/* a path that is not the toolkit's cooperative groups folder */
	ck_assert(!safety_toolkit_race(" at cooperative_groups::f()+0x10 in /tmp/w/reduce.h:7",
				       &own));
	ck_assert(!safety_toolkit_race(" at cooperative_groups::f()+0x10", &own));
	/* a submission file that has a header's name is the submission's */
	strlist_push(&own, "sync.h");
	ck_assert(!safety_toolkit_race(" at cooperative_groups::f()+0x10 in sync.h:3", &own));
	strlist_clear(&own);
}
END_TEST

static const char racecheck_out[] =
	"========= COMPUTE-SANITIZER\n"
	"@@cudalab-safety:" TOK " test_matmul_k5_exact\n"
	"========= Error: Race reported between Write access at race(float *)+0xb0 in "
	"matmul.cu:10\n"
	"=========     and Read access at race(float *)+0xc0 in matmul.cu:11 [256 hazards]\n"
	"========= \n"
	"========= Warning: Race reported between Read access at warpred(float *)+0xe0 in "
	"matmul.cu:20\n"
	"=========     and Write access at warpred(float *)+0x120 in matmul.cu:20 [96 hazards]\n"
	"========= \n"
	"@@cudalab-safety:" TOK " test_matmul_k5_random\n"
	END
	"========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)\n";

START_TEST(test_safety_reads_racecheck)
{
	struct safety_output o;

	safety_parse(racecheck_out, "racecheck", TOK, NULL, &o);
	ck_assert(o.ended);
	ck_assert_uint_eq(o.nfindings, 1);
	ck_assert_int_eq(o.findings[0].count, 2);
	ck_assert_msg(!strncmp(o.findings[0].text,
			       "a data race on shared memory in kernel race: a Write at matmul.cu:10 "
			       "and a Read at matmul.cu:11 by different threads with no barrier "
			       "between them [256 hazards]\nhint: ", 140),
		      "%s", o.findings[0].text);
	safety_output_release(&o);
}
END_TEST

static const char synccheck_out[] =
	"========= COMPUTE-SANITIZER\n"
	"@@cudalab-safety:" TOK " test_matmul_k5_exact\n"
	"========= Barrier error detected. Divergent thread(s) in warp.\n"
	"=========     at divbar(float *)+0x70 in matmul.cu:25\n"
	"=========     by thread (0,0,0) in block (0,0,0)\n"
	"========= \n"
	"========= Barrier error detected. Divergent thread(s) in warp.\n"
	"=========     at divbar(float *)+0x70 in matmul.cu:25\n"
	"=========     by thread (1,0,0) in block (0,0,0)\n"
	"========= \n"
	END;

START_TEST(test_safety_reads_synccheck)
{
	struct safety_output o;

	safety_parse(synccheck_out, "synccheck", TOK, NULL, &o);
	ck_assert_uint_eq(o.nfindings, 1);
	ck_assert_int_eq(o.findings[0].count, 2);
	ck_assert_msg(strstr(o.findings[0].text, "a barrier error (a __syncthreads() some threads "
				 "of a warp do not reach) at matmul.cu:25 in kernel divbar, thread "
				 "(0,0,0) of block (0,0,0)"), "%s", o.findings[0].text);
	safety_output_release(&o);
}
END_TEST

/* No banner: the sanitizer did not run, which is no pass. */
START_TEST(test_safety_without_banner)
{
	struct safety_output o;

	safety_parse("compute-sanitizer: error while loading shared libraries\n", "memcheck", TOK,
		     NULL, &o);
	ck_assert(!o.banner);
	ck_assert_uint_eq(o.nfindings, 0);
	safety_output_release(&o);
}
END_TEST

/*
 * What one run covered: its output (banner, markers, the end) and whether
 * it ended cleanly (in its time, by no signal); what runs again goes to
 * want (space-separated), and the test whose check could not finish alone
 * to verdict ("" none).
 */
static void expect_covered(const char *output, bool clean, const char *want,
			   const char *verdict)
{
	static const char *const tests[] = {"t_a", "t_b", "t_c", "t_d"};
	struct strlist left = STRLIST_INIT, again, wanted = STRLIST_INIT;
	struct safety_output o;

	for (size_t i = 0; i < 4; i++)
		strlist_push(&left, tests[i]);
	strlist_split(&wanted, want);
	safety_parse(output, "memcheck", TOK, NULL, &o);
	const char *got = safety_covered(&left, &o, clean, &again);
	ck_assert_str_eq(got ? got : "", verdict);
	ck_assert_uint_eq(again.n, wanted.n);
	for (size_t i = 0; i < wanted.n; i++)
		ck_assert_str_eq(again.v[i], wanted.v[i]);
	safety_output_release(&o);
	strlist_clear(&left);
	strlist_clear(&again);
	strlist_clear(&wanted);
}

#define BANNER "========= COMPUTE-SANITIZER\n"
#define AT(t) "@@cudalab-safety:" TOK " " t "\n"
#define OOB                                                                      \
	"========= Invalid __global__ read of size 4 bytes\n"                     \
	"=========     at k(const float *)+0x90 in a.cu:7\n"                      \
	"=========     by thread (0,0,0) in block (0,0,0)\n"                      \
	"=========     Access to 0x7f0000000004 is out of bounds\n"               \
	"=========\n"

/*
 * A test counts as checked only once the run went past it: a run that ran
 * out of time or died in a test (at its end too: a spin in an atexit
 * handler, a destructor) runs it again, first and alone, and the tests after
 * it; alone, that is its verdict.
 */
START_TEST(test_safety_covered)
{
	/* every test, the end, a clean exit: all checked */
	expect_covered(BANNER AT("t_a") AT("t_b") AT("t_c") AT("t_d") END,
		       true, "", "");
	/* the context lost in t_b, where the tool reported why: the rest in a
	 * fresh process */
	expect_covered(BANNER AT("t_a") AT("t_b") OOB LOST, true, "t_c t_d",
		       "");
	/* lost in t_b with no report of why (memcheck beside many others lost
	 * one): t_b is not taken as checked, but runs again, first */
	expect_covered(BANNER AT("t_a") AT("t_b") LOST, true, "t_b t_c t_d",
		       "");
	/* so again, the run's first: that is its verdict */
	expect_covered(BANNER AT("t_a") LOST, true, "t_b t_c t_d", "t_a");
	/* a report in an earlier test does not explain a loss in this one */
	expect_covered(BANNER AT("t_a") OOB AT("t_b") LOST, true,
		       "t_b t_c t_d", "");
	/* lost in t_b, and then no clean exit (it spun at exit): t_b again, first */
	expect_covered(BANNER AT("t_a") AT("t_b") LOST, false, "t_b t_c t_d",
		       "");
	/* the end said, but no clean exit: the last test is not taken as checked */
	expect_covered(BANNER AT("t_a") AT("t_b") AT("t_c") AT("t_d") END,
		       false, "t_d", "");
	/* out of time in t_c */
	expect_covered(BANNER AT("t_a") AT("t_b") AT("t_c"), false, "t_c t_d", "");
	/* out of time in t_a, the run's first: its verdict */
	expect_covered(BANNER AT("t_a"), false, "t_b t_c t_d", "t_a");
	/* ended cleanly but short of its tests (an exit(0)): the rest again */
	expect_covered(BANNER AT("t_a") AT("t_b"), true, "t_b t_c t_d", "");
}
END_TEST

/*
 * The runner prints into the stream the markers are in: a marker without
 * the run's token is its, and not one. A forged marker of another test
 * just before a bad access does not take the report away from the test it
 * is in, nor does a forged end close the run.
 */
START_TEST(test_safety_ignores_forged_markers)
{
	struct safety_output o;

	safety_parse(BANNER AT("t_a") "@@cudalab-safety t_config\n"
			    "@@cudalab-safety:forged t_config\n" OOB
			    "@@cudalab-safety-end\n@@cudalab-safety-end:forged\n",
		     "memcheck", TOK, NULL, &o);
	ck_assert_uint_eq(o.started.n, 1);
	ck_assert_uint_eq(o.nfindings, 1);
	ck_assert_str_eq(o.findings[0].test, "t_a");
	ck_assert(!o.closed && !o.ended);
	safety_output_release(&o);
}
END_TEST

/* The markers a run printed, in order, and whether it said it ended. */
START_TEST(test_safety_reads_markers)
{
	struct safety_output o;

	safety_parse(memcheck_out, "memcheck", TOK, NULL, &o);
	ck_assert_uint_eq(o.started.n, 2);
	ck_assert_str_eq(o.started.v[1], "test_matmul_k5_exact");
	ck_assert(o.closed && !o.ended);
	safety_output_release(&o);
	safety_parse(BANNER AT("t_a") END AT("t_b"), "memcheck", TOK, NULL, &o);
	ck_assert(!o.closed && o.ended);
	safety_output_release(&o);
}
END_TEST

Suite *safety_suite(void)
{
	Suite *s = suite_create("safety");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_safety_reads_memcheck);
	tcase_add_test(tc, test_safety_names_host_memory);
	tcase_add_test(tc, test_safety_leaves_the_toolkits_races_out);
	tcase_add_test(tc, test_safety_names_the_hosts_device_variable);
	tcase_add_test(tc, test_safety_reads_racecheck);
	tcase_add_test(tc, test_safety_reads_synccheck);
	tcase_add_test(tc, test_safety_without_banner);
	tcase_add_test(tc, test_safety_reads_markers);
	tcase_add_test(tc, test_safety_ignores_forged_markers);
	tcase_add_test(tc, test_safety_covered);
	suite_add_tcase(s, tc);
	return s;
}
