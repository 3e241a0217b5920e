/* check_expect.c - holding a result document to an expect file (expect.h). */
#include "unit.h"

#include "expect.h"

#include <string.h>

/* A small run: part p1 (a, b), a timed test of p1, built, in mode (gpu, emulated). */
static json_t *run_doc(const char *mode, int exit_code, const char *b_status)
{
	json_t *doc = json_pack(
		"{s:s, s:i, s:{s:s, s:s, s:s}, s:{s:s, s:n, s:I}, s:s, s:["
		"{s:s, s:s, s:s, s:s, s:s},"
		"{s:s, s:s, s:s, s:s, s:s},"
		"{s:s, s:s, s:s, s:s, s:s}]}",
		"mode", mode, "exit_code", exit_code,
		"build", "status", "ok", "message", "", "log", "warning: x unused in /src/root/lab.h",
		"sandbox", "kind", "bubblewrap", "reason", "memory_limit", (json_int_t)1 << 30,
		"submission", "/src/root/reference/lab",
		"tests",
		"part", "p1", "name", "a", "kind", "correctness", "status", "pass", "message", "",
		"part", "p1", "name", "b", "kind", "correctness", "status", b_status, "message",
		"C[3] is 2, expected 4",
		"part", "p1", "name", "time@64", "kind", "timing", "status",
		strcmp(mode, "gpu") ? "not-run" : "pass", "message",
		strcmp(mode, "gpu") ? "not run: timing needs a GPU" : "ratio 1.01");
	ck_assert_ptr_nonnull(doc);
	return doc;
}

static enum expect_outcome held(json_t *doc, const char *expect, struct strlist *findings)
{
	struct expect_context cx = {.root = "/src/root", .report = "score 8 / 10\n"};

	strlist_clear(findings);
	return expect_check(doc, expect, &cx, findings);
}

START_TEST(test_expect_lines)
{
	struct strlist f = STRLIST_INIT;
	json_t *gpu = run_doc("gpu", 1, "fail");

	ck_assert_int_eq(held(gpu, "# a comment\nexit 1\nbuild ok\np1 a pass\n"
				   "p1 b fail expected 4\np1 time@64 pass\n", &f), EXPECT_HOLDS);
	/* several states or codes: any will do */
	ck_assert_int_eq(held(gpu, "exit 0|1\nbuild ok|compile-error\np1 b crash|fail\n", &f),
			 EXPECT_HOLDS);
	/* '*' is every correctness test of the part: b fails */
	ck_assert_int_eq(held(gpu, "p1 * pass\n", &f), EXPECT_DIFFERS);
	ck_assert_uint_eq(f.n, 1);
	ck_assert_str_eq(f.v[0], "p1/b is fail, expected pass: C[3] is 2, expected 4");
	ck_assert_int_eq(held(gpu, "p1 b fail expected 5\n", &f), EXPECT_DIFFERS);
	ck_assert_msg(strstr(f.v[0], "message lacks 'expected 5'"), "%s", f.v[0]);
	ck_assert_int_eq(held(gpu, "exit 0\nbuild compile-error\np9 a pass\n", &f), EXPECT_DIFFERS);
	ck_assert_uint_eq(f.n, 3);
	ck_assert_str_eq(f.v[0], "exit code 1, expected 0");
	ck_assert_str_eq(f.v[1], "build ok, expected compile-error");
	ck_assert_str_eq(f.v[2], "no test p9/a");
	ck_assert_int_eq(held(gpu, "log x unused\nmemory-limited\nno-control\n", &f), EXPECT_HOLDS);
	ck_assert_int_eq(held(gpu, "log y unused\n", &f), EXPECT_DIFFERS);
	/* the checkout named in the build log, not only in the submission's own path */
	ck_assert_int_eq(held(gpu, "conceals root\n", &f), EXPECT_DIFFERS);
	ck_assert_int_eq(held(gpu, "p1 b\n", &f), EXPECT_DIFFERS);
	ck_assert_msg(strstr(f.v[0], "cannot mean"), "%s", f.v[0]);
	strlist_clear(&f);
	json_decref(gpu);
}
END_TEST

/* Emulated: an exit of 0 or 1 reads as 4, a timed test of a built part as not run. */
START_TEST(test_expect_emulated)
{
	struct strlist f = STRLIST_INIT;
	json_t *emu = run_doc("emulated", 4, "pass");

	ck_assert_int_eq(held(emu, "exit 0\nbuild ok\np1 * pass\np1 time@64 pass\n", &f),
			 EXPECT_HOLDS);
	ck_assert_int_eq(held(emu, "exit 0|1\n", &f), EXPECT_HOLDS);
	ck_assert_int_eq(held(emu, "exit 3\n", &f), EXPECT_DIFFERS);
	/* "not timed" is what a part that failed gets anywhere: held as written */
	ck_assert_int_eq(held(emu, "p1 time@64 fail not timed\n", &f), EXPECT_DIFFERS);
	strlist_clear(&f);
	json_decref(emu);
}
END_TEST

/* A case only the sandbox contains is skipped where it ran unsandboxed, saying why. */
START_TEST(test_expect_sandboxed)
{
	struct strlist f = STRLIST_INIT;
	json_t *doc = run_doc("gpu", 0, "pass");

	json_object_set_new(json_object_get(doc, "sandbox"), "kind", json_string("none"));
	json_object_set_new(json_object_get(doc, "sandbox"), "reason", json_string("no bwrap"));
	ck_assert_int_eq(held(doc, "exit 0\nsandboxed\n", &f), EXPECT_SKIPPED);
	ck_assert_str_eq(f.v[0], "unsandboxed here (no bwrap): only the sandbox contains it");
	ck_assert_int_eq(held(doc, "exit 0\n", &f), EXPECT_HOLDS);
	strlist_clear(&f);
	json_decref(doc);
}
END_TEST

Suite *expect_suite(void)
{
	Suite *s = suite_create("expect");
	TCase *tc = tcase_create("expect");

	tcase_add_test(tc, test_expect_lines);
	tcase_add_test(tc, test_expect_emulated);
	tcase_add_test(tc, test_expect_sandboxed);
	suite_add_tcase(s, tc);
	return s;
}
