/* Unit tests of htmlreport.c: escaping, safe names, and a page that keeps a hostile id text. */
#include "htmldash.h"
#include "htmlreport.h"
#include "unit.h"
#include "util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void escapes_to(const char *in, const char *want)
{
	char *got = html_escape(in);
	ck_assert_msg(!strcmp(got, want), "html_escape(\"%s\"): expected \"%s\", got \"%s\"", in,
		      want, got);
	free(got);
}

START_TEST(test_htmlreport_escape)
{
	escapes_to("", "");
	escapes_to(NULL, "");
	escapes_to("ada", "ada");
	escapes_to("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
	escapes_to("a & b", "a &amp; b");
	/* an entity is text to escape, not to keep */
	escapes_to("&lt;", "&amp;lt;");
	/* attribute values: both quotes */
	escapes_to("x\" onload='y'", "x&quot; onload=&#39;y&#39;");
	/* UTF-8 and newlines pass unchanged */
	escapes_to("é\nü", "é\nü");
}
END_TEST

START_TEST(test_htmlreport_safe_name)
{
	char *s = safe_name("../<script>alert(1)</script> x");
	ck_assert_str_eq(s, "..__script_alert_1___script__x");
	free(s);
	s = safe_name("k1-time.2048_ok");
	ck_assert_str_eq(s, "k1-time.2048_ok");
	free(s);
}
END_TEST

/* Every string of the document is text on the page: no tag of a student's survives. */
START_TEST(test_htmlreport_page_escapes_document)
{
	json_t *doc = json_pack(
	    "{s:s, s:s, s:s, s:s, s:s, s:s, s:[{s:s, s:s}], s:{s:s, s:s, s:s},"
	    " s:[{s:s, s:s, s:s, s:f, s:f, s:b, s:s, s:s}], s:f, s:f, s:f, s:f, s:s, s:s}",
	    "schema", "cudalab-result/1", "lab", "demo", "lab_title", "Demo", "student",
	    "<script>alert(1)</script>", "started_at", "2026-12-04T22:59:00Z", "lab_version", "1",
	    "files", "name", "<b>.cu", "sha256", "00ff", "build", "status", "compile-error",
	    "message", "nvcc failed on '<b>.cu'", "log", "a.cu(1): error: <img src=x>", "tests",
	    "part", "p", "name", "<i>exact", "status", "not-run", "points", 0.0, "max_points",
	    4.0, "bonus", 0, "message", "</td><script>", "kind", "correctness", "score", 0.0,
	    "max_score", 4.0, "bonus_score", 0.0, "final_score", 0.0, "mode", "none", "status",
	    "not-built");
	char *page = NULL;

	ck_assert_ptr_nonnull(doc);
	ck_assert_int_eq(html_report(doc, 7, &page), 0);
	ck_assert_ptr_null(strstr(page, "<script"));
	ck_assert_ptr_null(strstr(page, "<img"));
	ck_assert_ptr_null(strstr(page, "<b>"));
	ck_assert_ptr_null(strstr(page, "<i>"));
	ck_assert_ptr_nonnull(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	ck_assert_ptr_nonnull(strstr(page, "a.cu(1): error: &lt;img src=x&gt;"));
	ck_assert_ptr_nonnull(strstr(page, "0 / 4"));
	ck_assert_ptr_nonnull(strstr(page, "NOT BUILT"));
	free(page);
	json_decref(doc);
}
END_TEST

static void collapses_to(const char *in, const char *want)
{
	char *got = collapse_numbers(in);
	ck_assert_msg(!strcmp(got, want), "collapse_numbers(\"%s\"): expected \"%s\", got \"%s\"",
		      in, want, got);
	free(got);
}

START_TEST(test_htmldash_collapse_numbers)
{
	collapses_to("", "");
	collapses_to(NULL, "");
	collapses_to("no numbers", "no numbers");
	/* a run of digits is one '#': messages that differ in their numbers' lengths are alike */
	collapses_to("C[12,3] = 7.5, expected 1024", "C[#,#] = #.#, expected #");
	collapses_to("2048", "#");
	/* a number inside a name is the name's: matmul_k1 and matmul_k5 stay apart */
	collapses_to("matmul_k1(n=33): C[1,2] wrong", "matmul_k1(n=#): C[#,#] wrong");
	collapses_to("float4 load at 0x7f10", "float4 load at #x7f10");
	collapses_to("12abc", "#abc");
}
END_TEST

START_TEST(test_htmldash_page_escapes_and_counts)
{
	json_t *a = json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:{s:s}, s:[{s:s, s:s, s:s, s:s}]}",
			      "schema", "cudalab-result/1", "lab", "grid", "student",
			      "<b>ada</b>", "status", "complete", "score", 0.0, "max_score", 10.0,
			      "build", "status", "ok", "tests", "part", "p<1>", "name", "t",
			      "status", "fail", "message", "got 17 at <3>");
	json_t *b = json_deep_copy(a);
	struct dash_run runs[] = {{a, 1, "x/a-1.html"}, {b, 2, NULL}};
	char *page;

	json_object_set_new(b, "student", json_string("bob"));
	json_object_set_new(json_array_get(json_object_get(b, "tests"), 0), "message",
			    json_string("got 4 at <99>"));
	ck_assert_int_eq(html_dashboard("grid", runs, 2, NULL, NULL, &page), 0);
	ck_assert_ptr_null(strstr(page, "<b>"));
	ck_assert_ptr_nonnull(strstr(page, "<a href=\"x/a-1.html\">&lt;b&gt;ada&lt;/b&gt;</a>"));
	/* both students' failures are one message, given twice */
	ck_assert_ptr_nonnull(
		strstr(page, "<td class=\"num\">2</td><td><pre>got # at &lt;#&gt;</pre>"));
	ck_assert_ptr_nonnull(strstr(page, "<td>p&lt;1&gt;</td><td>t</td><td class=\"num\">0</td>"
					   "<td class=\"num\">2</td>"));
	free(page);
	json_decref(a);
	json_decref(b);
}
END_TEST

Suite *htmlreport_suite(void)
{
	Suite *s = suite_create("htmlreport");
	TCase *tc = tcase_create("page");

	tcase_add_test(tc, test_htmlreport_escape);
	tcase_add_test(tc, test_htmlreport_safe_name);
	tcase_add_test(tc, test_htmlreport_page_escapes_document);
	tcase_add_test(tc, test_htmldash_collapse_numbers);
	tcase_add_test(tc, test_htmldash_page_escapes_and_counts);
	suite_add_tcase(s, tc);
	return s;
}
