/* Unit tests of checklog.c: Check's XML log, whole and cut short. */
#include "checklog.h"
#include "unit.h"

#include <string.h>

#define HEAD                                                                                       \
	"<?xml version=\"1.0\"?>\n<testsuites xmlns=\"http://check.sourceforge.net/ns\">\n"      \
	"<datetime>2026-11-22 08:00:00</datetime>\n<suite><title>matmul</title>\n"
#define PASS                                                                                       \
	"<test result=\"success\"><path>.</path><fn>a.cu:1</fn><id>test_a</id>"                    \
	"<iteration>0</iteration><duration>0.250000</duration><description>k1</description>"       \
	"<message>Passed</message></test>\n"
#define FAIL                                                                                       \
	"<test result=\"failure\"><path>.</path><fn>a.cu:2</fn><id>test_b</id>"                    \
	"<iteration>0</iteration><duration>-1.000000</duration><description>k1</description>"      \
	"<message>C[0][1] = 2 &lt; 3 &amp; more\nhint: x</message></test>\n"
#define TIMEOUT                                                                                    \
	"<test result=\"error\"><path>.</path><fn>a.cu:3</fn><id>test_c</id>"                      \
	"<iteration>0</iteration><duration>-1.000000</duration><description>k2</description>"      \
	"<message>Test timeout expired</message></test>\n"

START_TEST(test_checklog_reads_every_outcome)
{
	const char *xml = HEAD PASS FAIL TIMEOUT "</suite><duration>1</duration></testsuites>\n";
	struct check_log log;
	const struct check_entry *e;

	ck_assert_int_eq(checklog_parse(xml, strlen(xml), &log), 0);
	ck_assert_uint_eq(log.n, 3);
	e = checklog_find(&log, "test_a");
	ck_assert_str_eq(e->result, "success");
	ck_assert_str_eq(e->tcase, "k1");
	ck_assert_double_eq_tol(e->duration, 0.25, 1e-9);
	e = checklog_find(&log, "test_b");
	ck_assert_str_eq(e->result, "failure");
	ck_assert_str_eq(e->message, "C[0][1] = 2 < 3 & more\nhint: x");
	e = checklog_find(&log, "test_c");
	ck_assert_str_eq(e->result, "error");
	ck_assert_ptr_null(checklog_find(&log, "test_d"));
	checklog_release(&log);
}
END_TEST

START_TEST(test_checklog_reads_a_log_cut_short)
{
	/* the runner was killed in the middle of the second entry */
	const char *xml = HEAD PASS "<test result=\"failure\"><path>.</path><fn>a.cu:2</fn><id>te";
	struct check_log log;

	ck_assert_int_eq(checklog_parse(xml, strlen(xml), &log), 0);
	ck_assert_ptr_nonnull(checklog_find(&log, "test_a"));
	ck_assert_ptr_null(checklog_find(&log, "test_b"));
	checklog_release(&log);

	ck_assert_int_eq(checklog_parse("garbage", 7, &log), 0);
	ck_assert_uint_eq(log.n, 0);
	checklog_release(&log);
	ck_assert_int_eq(checklog_read("/nonexistent/k1.xml", &log), 0);
	ck_assert_uint_eq(log.n, 0);
}
END_TEST

Suite *checklog_suite(void)
{
	Suite *s = suite_create("checklog");
	TCase *tc = tcase_create("checklog");

	tcase_add_test(tc, test_checklog_reads_every_outcome);
	tcase_add_test(tc, test_checklog_reads_a_log_cut_short);
	suite_add_tcase(s, tc);
	return s;
}
