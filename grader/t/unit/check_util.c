/*
 * check_util.c - util.c: visible_text, the one way untrusted text is made
 * safe for a terminal or a log.
 */
#include "unit.h"
#include "util.h"

#include <string.h>

/* visible_text of the C string s, compared with want. */
static void expect_visible(const char *s, bool one_line, const char *want)
{
	char *got = visible_str(s, one_line);

	ck_assert_msg(!strcmp(got, want), "visible_text(\"%s\") is \"%s\", expected \"%s\"", s, got,
		      want);
	free(got);
}

/* ESC, so every CSI and OSC sequence, BEL, CR, backspace and the other C0 controls. */
START_TEST(test_util_visible_c0)
{
	expect_visible("\x1b[2J\x1b[HALL TESTS PASSED", false, "\\x1b[2J\\x1b[HALL TESTS PASSED");
	/* OSC 52 (set the clipboard), ended by BEL, and by ST (ESC \) */
	expect_visible("\x1b]52;c;cm0gLXJmIH4=\x07", false, "\\x1b]52;c;cm0gLXJmIH4=\\x07");
	expect_visible("\x1b]52;c;eA==\x1b\\", false, "\\x1b]52;c;eA==\\x1b\\");
	expect_visible("50/50\rscore 0/50\b\b\x01\x1f", false, "50/50\\x0dscore 0/50\\x08\\x08\\x01\\x1f");
	expect_visible("del\x7f", false, "del\\x7f");
}
END_TEST

/* Newline and tab stay in text of many lines, and are shown in a name (one_line). */
START_TEST(test_util_visible_lines)
{
	expect_visible("a.cu(3): warning\n\tint x;\n", false, "a.cu(3): warning\n\tint x;\n");
	expect_visible("alice\n50/50\tok", true, "alice\\x0a50/50\\x09ok");
	expect_visible("\x1b[31m\n", true, "\\x1b[31m\\x0a");
}
END_TEST

/* C1 controls, two bytes each in UTF-8 (U+009B is CSI on its own). */
START_TEST(test_util_visible_c1)
{
	expect_visible("\xc2\x9b" "2J \xc2\x9d" "52;c;x\xc2\x9c", false, "\\x9b2J \\x9d52;c;x\\x9c");
	expect_visible("\xc2\x80\xc2\x9f", false, "\\x80\\x9f");
	/* U+00A0 and on are printable */
	expect_visible("\xc2\xa0\xc2\xa9", false, "\xc2\xa0\xc2\xa9");
}
END_TEST

/* Printable UTF-8 is kept; bytes that are not UTF-8 become U+FFFD, as utf8_clean makes them. */
START_TEST(test_util_visible_utf8)
{
	const char *text = "caf\xc3\xa9, \xe6\xbc\xa2\xe5\xad\x97, \xf0\x9f\x98\x80, \xe2\x82\xac";
	const char *bad = "ok \xc3\xa9 \xff\xfe caf\xe9 \xe2\x82\xac \xed\xa0\x80 \xc0\xaf \x9b";
	char *clean = utf8_clean(bad);

	expect_visible(text, false, text);
	expect_visible(text, true, text);
	/* a raw 0x9b byte is no C1 control in UTF-8: not UTF-8, so U+FFFD */
	expect_visible(bad, false, clean);
	free(clean);
	/* a sequence cut by the end of the text */
	char *v = visible_text("ab\xe6\xbc", 4, false);
	ck_assert_str_eq(v, "ab\xef\xbf\xbd\xef\xbf\xbd");
	free(v);
}
END_TEST

/* NUL bytes inside the text are shown, not an end; NULL is NULL. */
START_TEST(test_util_visible_nul)
{
	char *v = visible_text("a\0b\x1b", 4, false);

	ck_assert_str_eq(v, "a\\x00b\\x1b");
	free(v);
	v = visible_text("", 0, true);
	ck_assert_str_eq(v, "");
	free(v);
	ck_assert_ptr_null(visible_text(NULL, 3, false));
	ck_assert_ptr_null(visible_str(NULL, true));
}
END_TEST

/* Made visible twice is made visible once: a stored text read again is unchanged. */
START_TEST(test_util_visible_idempotent)
{
	const char *s = "\x1b[2J\xc2\x9b\xff \\x1b caf\xc3\xa9\n\t\r\x07";
	char *once = visible_str(s, false), *twice = visible_str(once, false);
	char *line = visible_str(once, true), *line2 = visible_str(line, true);

	ck_assert_str_eq(once, twice);
	ck_assert_str_eq(line, line2);
	for (const char *p = line; *p; p++)
		ck_assert_msg((unsigned char)*p >= 0x20 && *p != 0x7f, "control 0x%02x left in '%s'",
			      (unsigned char)*p, line);
	free(once);
	free(twice);
	free(line);
	free(line2);
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("visible");

	tcase_add_test(tc, test_util_visible_c0);
	tcase_add_test(tc, test_util_visible_lines);
	tcase_add_test(tc, test_util_visible_c1);
	tcase_add_test(tc, test_util_visible_utf8);
	tcase_add_test(tc, test_util_visible_nul);
	tcase_add_test(tc, test_util_visible_idempotent);
	suite_add_tcase(s, tc);
	return s;
}
