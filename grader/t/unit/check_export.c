/* Unit tests of export.c: what each platform reads of a result document. */
#include "export.h"
#include "unit.h"
#include "util.h"

#include <jansson.h>
#include <string.h>

/* A result document of two tests, one of them a bonus, built like result.c's. */
static json_t *doc_of(const char *mode, bool provisional, const char *build, const char *log)
{
	return json_pack(
	    "{s:s, s:s, s:s, s:f, s:I, s:[{s:s, s:s}], s:{s:s, s:s, s:s},"
	    " s:[{s:s, s:s, s:s, s:f, s:f, s:b, s:s, s:s},"
	    " {s:s, s:s, s:s, s:f, s:f, s:b, s:s, s:s}],"
	    " s:f, s:f, s:f, s:f, s:s, s:s, s:b, s:n, s:i}",
	    "lab", "demo", "lab_version", "1", "student", "ada", "seconds", 1.5, "seed",
	    (json_int_t)-1, "files", "name", "a.cu", "sha256", "00ff", "build", "status", build,
	    "message", strcmp(build, "ok") ? "nvcc failed on 'a.cu'" : "", "log", log, "tests",
	    "part", "p", "name", "exact", "status", strcmp(build, "ok") ? "not-run" : "pass",
	    "points", strcmp(build, "ok") ? 0.0 : 4.0, "max_points", 4.0, "bonus", 0, "message", "",
	    "kind", "correctness", "part", "q", "name", "time@64", "status", "not-run", "points",
	    0.0, "max_points", 2.0, "bonus", 1, "message", "not run: timing needs a GPU", "kind",
	    "timing", "score", 4.0, "max_score", 4.0, "bonus_score", 0.0, "final_score", 4.0,
	    "mode", mode, "status", provisional ? "incomplete" : "complete", "provisional",
	    provisional, "late", "exit_code", 4);
}

START_TEST(test_export_gradescope_pending_and_bonus)
{
	json_t *doc = doc_of("emulated", true, "ok", "");
	char *text = export_gradescope(doc, 7, false);
	json_t *r = json_loads(text, 0, NULL), *t;

	ck_assert_ptr_nonnull(r);
	ck_assert(json_is_true(json_object_get(json_object_get(r, "extra_data"), "provisional")));
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_object_get(r, "extra_data"), "run")), 7);
	/* the unsigned seed --seed takes, as text */
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(r, "extra_data"), "seed")),
	    "18446744073709551615");
	ck_assert(strstr(json_string_value(json_object_get(r, "output")), "pre-check"));
	t = json_array_get(json_object_get(r, "tests"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(t, "name")), "build");
	/* a pre-check records 0, whatever it scored: never a grade to publish */
	ck_assert_double_eq(json_number_value(json_object_get(r, "score")), 0);
	ck_assert_double_eq(
	    json_number_value(json_object_get(json_object_get(r, "extra_data"), "final_score")), 4);
	ck_assert(strstr(json_string_value(json_object_get(r, "output")), "records for this run is 0"));
	t = json_array_get(json_object_get(r, "tests"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(t, "status")), "passed");
	ck_assert_str_eq(json_string_value(json_object_get(t, "number")), "1.1");
	/* its tests pass or fail, and carry no points: they say what they are worth */
	ck_assert_ptr_null(json_object_get(t, "score"));
	ck_assert_ptr_null(json_object_get(t, "max_score"));
	ck_assert_msg(strstr(json_string_value(json_object_get(t, "output")),
			     "worth 4 points in the course's grading (4 of them in this pre-check)"),
		      "%s", json_string_value(json_object_get(t, "output")));
	/* the bonus test not run here: pending, no score, no status */
	t = json_array_get(json_object_get(r, "tests"), 2);
	ck_assert_str_eq(json_string_value(json_object_get(t, "number")), "2.1");
	ck_assert_ptr_null(json_object_get(t, "score"));
	ck_assert_ptr_null(json_object_get(t, "status"));
	ck_assert_str_eq(json_string_value(json_object_get(t, "name")), "q: time@64 (bonus)");
	json_decref(r);
	free(text);

	/* complete (on a GPU): the bonus test not run lost its points; worth 0 of the maximum */
	json_object_set_new(doc, "provisional", json_false());
	json_object_set_new(doc, "mode", json_string("gpu"));
	text = export_gradescope(doc, 7, false);
	r = json_loads(text, 0, NULL);
	ck_assert_double_eq(json_number_value(json_object_get(r, "score")), 4);
	ck_assert_double_eq(
	    json_number_value(json_object_get(json_array_get(json_object_get(r, "tests"), 1),
					      "score")), 4);
	t = json_array_get(json_object_get(r, "tests"), 2);
	ck_assert_str_eq(json_string_value(json_object_get(t, "status")), "failed");
	ck_assert_double_eq(json_real_value(json_object_get(t, "max_score")), 0);
	ck_assert_ptr_null(strstr(json_string_value(json_object_get(r, "output")), "pre-check"));
	json_decref(r);
	free(text);

	/* on a GPU, a test the course's grader runs (held back): not counted yet, not lost */
	json_object_set_new(json_array_get(json_object_get(doc, "tests"), 1), "held_back",
			    json_true());
	json_object_set_new(doc, "provisional", json_true());
	text = export_gradescope(doc, 7, false);
	r = json_loads(text, 0, NULL);
	t = json_array_get(json_object_get(r, "tests"), 2);
	ck_assert_ptr_null(json_object_get(t, "score"));
	ck_assert_ptr_null(json_object_get(t, "status"));
	ck_assert(strstr(json_string_value(json_object_get(t, "output")), "graded later"));
	json_decref(r);
	free(text);
	json_decref(doc);
}
END_TEST

START_TEST(test_export_gradescope_build_log_fenced)
{
	/* a log holding a fence of its own cannot end the code block early */
	json_t *doc = doc_of("none", false, "compile-error", "a.cu(3): error ```` x\n```\n*b*");
	char *text = export_gradescope(doc, 1, false);
	json_t *r = json_loads(text, 0, NULL);
	json_t *build = json_array_get(json_object_get(r, "tests"), 0);
	const char *out = json_string_value(json_object_get(build, "output"));

	ck_assert_str_eq(json_string_value(json_object_get(build, "status")), "failed");
	ck_assert_str_eq(json_string_value(json_object_get(build, "output_format")), "md");
	ck_assert_msg(strstr(out, "\n`````text\na.cu(3): error ```` x\n```\n*b*\n`````\n"), "%s",
		      out);
	/* the message is escaped where it is prose */
	ck_assert_msg(strstr(out, "nvcc failed on 'a.cu'"), "%s", out);
	ck_assert(strstr(json_string_value(json_object_get(r, "output")), "`````text\n"));
	json_decref(r);
	free(text);
	json_decref(doc);
}
END_TEST

START_TEST(test_export_file_stem)
{
	static const char *const cases[][2] = {
	    {"ada", "ada"},
	    {".hidden", "%2Ehidden"},
	    {"a/b", "a%2Fb"},
	    {"a%2Fb", "a%252Fb"},
	    {"..", "%2E."},
	    {"a.b", "a.b"},
	    {"tab\there", "tab%09here"},
	    {"", "%"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *s = export_file_stem(cases[i][0]);
		ck_assert_str_eq(s, cases[i][1]);
		free(s);
	}
}
END_TEST

/* The JUnit export of one document, run 3, as text (freed by the caller). */
static char *junit_of(json_t *doc, bool with_student)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	long long run = 3;

	export_junit(f, &doc, &run, 1, with_student);
	fclose(f);
	return buf;
}

START_TEST(test_export_junit_build_and_points)
{
	json_t *doc = doc_of("none", false, "compile-error", "a.cu(3): error: <x> & y");
	char *xml = junit_of(doc, false);

	/* the build test case fails with the compiler's output, escaped */
	ck_assert_msg(strstr(xml, "<testsuite name=\"demo.ada\" tests=\"3\" failures=\"1\" "
				  "errors=\"0\" skipped=\"2\""),
		      "%s", xml);
	ck_assert_msg(strstr(xml, "<testcase classname=\"demo\" name=\"build\""), "%s", xml);
	ck_assert_msg(strstr(xml, "a.cu(3): error: &lt;x&gt; &amp; y</failure>"), "%s", xml);
	/* a test not run in a run that is not provisional: its points lost */
	ck_assert_msg(strstr(xml, "(0 of 4 points)</skipped>"), "%s", xml);
	free(xml);
	json_decref(doc);

	doc = doc_of("emulated", true, "ok", "");
	xml = junit_of(doc, true);
	ck_assert_msg(strstr(xml, "<testcase classname=\"demo.ada.p\" name=\"exact\""), "%s", xml);
	ck_assert_msg(strstr(xml, "<system-out>pass: 4 of 4 points</system-out>"), "%s", xml);
	ck_assert_msg(strstr(xml, "(worth 2 bonus points, not counted in this provisional score)"
				  "</skipped>"),
		      "%s", xml);
	free(xml);
	json_decref(doc);
}
END_TEST

START_TEST(test_export_csv_cells)
{
	static const char *const names[][2] = {
	    {"=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\""},
	    {"+1", "\"'+1\""},
	    {"-x", "\"'-x\""},
	    {"@SUM(A1)", "\"'@SUM(A1)\""},
	    {"\tx", "\"'\tx\""},
	    {"\rx", "\"'\rx\""},
	    {"a\tb", "\"a\tb\""},
	    {"lee, ann", "\"lee, ann\""},
	    {"a=b", "a=b"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		json_t *doc = doc_of("gpu", false, "ok", "");
		char *buf = NULL, *want = xasprintf("\r\n%s,4,4,-1,", names[i][1]);
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		long long run = 1;

		json_object_set_new(doc, "student", json_string(names[i][0]));
		/* a negative number is a number, never guarded */
		json_object_set_new(doc, "bonus_score", json_real(-1));
		export_csv(f, &doc, &run, 1);
		fclose(f);
		ck_assert_msg(strstr(buf, want), "'%s' gave %s", names[i][0], buf);
		ck_assert_msg(strstr(buf, ",4,4,-1,"), "%s", buf);
		/* points, then maxima, and CRLF after the last */
		ck_assert_msg(strstr(buf, ",p/exact,q/time@64,p/exact max,q/time@64 max\r\n"), "%s",
			      buf);
		ck_assert_msg(len > 6 && !strcmp(buf + len - 6, ",4,2\r\n"), "%s", buf);
		free(want);
		free(buf);
		json_decref(doc);
	}
}
END_TEST

Suite *export_suite(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("formats");

	tcase_add_test(tc, test_export_gradescope_pending_and_bonus);
	tcase_add_test(tc, test_export_gradescope_build_log_fenced);
	tcase_add_test(tc, test_export_file_stem);
	tcase_add_test(tc, test_export_junit_build_and_points);
	tcase_add_test(tc, test_export_csv_cells);
	suite_add_tcase(s, tc);
	return s;
}
