/*
 * check_toolfault.c - toolfault.c and run_ended_by_limit (run.c): whether a
 * compiler that failed failed for the machine or for the submission.
 */
#include "run.h"
#include "toolfault.h"
#include "unit.h"

#include <signal.h>
#include <string.h>

/* A signal from the grader's own limits, and one from elsewhere. */
START_TEST(test_toolfault_limits)
{
	struct run_spec spec = {.timeout = 10};
	struct run_result r = {.started = true, .signal = SIGKILL, .timed_out = true};

	ck_assert(run_ended_by_limit(&spec, &r));   /* its timeout */
	r.timed_out = false;
	ck_assert(!run_ended_by_limit(&spec, &r));   /* SIGKILL from outside */
	r.signal = SIGSEGV;
	ck_assert(!run_ended_by_limit(&spec, &r));
	r.signal = SIGXFSZ;
	ck_assert(!run_ended_by_limit(&spec, &r));   /* no file limit was set */
	spec.max_file_bytes = 1 << 20;
	ck_assert(run_ended_by_limit(&spec, &r));
	r.signal = SIGXCPU;
	ck_assert(!run_ended_by_limit(&spec, &r));
	spec.cpu_seconds = 5;
	ck_assert(run_ended_by_limit(&spec, &r));
	/* at a CPU limit whose soft and hard values are one, the kernel sends SIGKILL */
	r.signal = SIGKILL;
	r.cpu_seconds = 5.02;
	ck_assert(run_ended_by_limit(&spec, &r));
	r.cpu_seconds = 0.3;
	ck_assert(!run_ended_by_limit(&spec, &r));
	r.signal = 0;
	r.cancelled = true;
	ck_assert(run_ended_by_limit(&spec, &r));
}
END_TEST

/* A driver's words that one of its tools died; never the submission's quoted text. */
START_TEST(test_toolfault_signal)
{
	ck_assert_int_eq(toolfault_signal("nvcc error   : 'cicc' died due to signal 11 (Invalid "
					  "memory reference)\n"), SIGSEGV);
	ck_assert_int_eq(toolfault_signal("a.cu(3): warning: x\nnvcc error   : 'ptxas' died due "
					  "to signal 9 (Kill signal)\n"), SIGKILL);
	char *ice = xasprintf("x86_64-linux-gnu-gcc-12: internal compiler error: %s signal "
			      "terminated program cc1plus\nPlease submit a full bug report\n",
			      strsignal(SIGXFSZ));
	ck_assert_int_eq(toolfault_signal(ice), SIGXFSZ);
	free(ice);
	ck_assert_int_eq(toolfault_signal(""), 0);
	ck_assert_int_eq(toolfault_signal(NULL), 0);
	ck_assert_int_eq(toolfault_signal("nvcc fatal   : Unsupported gpu architecture\n"), 0);
	/* what a submission can make a compiler print: a diagnostic's text, a quoted line */
	ck_assert_int_eq(toolfault_signal("matmul.cu(1): warning #1105-D: #warning directive: "
					  "nvcc error : 'cicc' died due to signal 11\n"), 0);
	ck_assert_int_eq(toolfault_signal("matmul.cu(1): error: expected a \";\"\n"
					  "  nvcc error : x died due to signal 11\n  ^\n"), 0);
	ck_assert_int_eq(toolfault_signal("matmul.cu(2): error: gcc: internal compiler error: "
					  "Segmentation fault signal terminated program cc1plus\n"), 0);
	ck_assert_int_eq(toolfault_signal("In file included: internal compiler error: "
					  "Segmentation fault signal terminated program x\n"), 0);
}
END_TEST

/* A failed run: the machine's where a signal not of the limits ended it, else the submission's. */
START_TEST(test_toolfault_why)
{
	char *dir = unit_tmpdir();
	struct run_spec spec = {.timeout = 60};
	struct run_result r = {.started = true, .exit_code = 1,
			       .output = (char *)"a.cu(3): error: identifier \"x\" is undefined\n"};
	char *why;

	ck_assert_ptr_null(toolfault_why(&spec, &r, dir));   /* a compile error */
	r.output = (char *)"a.cu(1): warning: #warning directive: No space left on device\n";
	ck_assert_ptr_null(toolfault_why(&spec, &r, dir));   /* said, but there is room */
	r.output = (char *)"";
	r.exit_code = 0;
	r.signal = SIGKILL;
	why = toolfault_why(&spec, &r, dir);
	ck_assert_ptr_nonnull(why);
	ck_assert_ptr_nonnull(strstr(why, "killed by signal 9"));
	free(why);
	r.timed_out = true;   /* killed at the build's time limit: the submission's */
	ck_assert_ptr_null(toolfault_why(&spec, &r, dir));
	r.timed_out = false;
	r.signal = 0;
	r.exit_code = 4;
	r.output = (char *)"nvcc error   : 'cicc' died due to signal 11 (Invalid memory reference)\n";
	why = toolfault_why(&spec, &r, dir);
	ck_assert_ptr_nonnull(why);
	ck_assert_ptr_nonnull(strstr(why, "died of signal 11"));
	free(why);
	remove_tree(dir);
	free(dir);
}
END_TEST

Suite *toolfault_suite(void)
{
	Suite *s = suite_create("toolfault");
	TCase *tc = tcase_create("toolfault");

	tcase_add_test(tc, test_toolfault_limits);
	tcase_add_test(tc, test_toolfault_signal);
	tcase_add_test(tc, test_toolfault_why);
	suite_add_tcase(s, tc);
	return s;
}
