/* Unit tests of intake.c: what a submission may contain. */
#include "intake.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *sub, *work;
static struct strlist files;

static void setup(void)
{
	sub = unit_tmpdir();
	work = unit_tmpdir();
	strlist_split(&files, "a.cu b.h");
}

static void teardown(void)
{
	remove_tree(sub);
	remove_tree(work);
	free(sub);
	free(work);
	strlist_clear(&files);
}

static void put(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", sub, name);
	ck_assert_int_eq(write_file_atomic(p, text, strlen(text)), 0);
	free(p);
}

START_TEST(test_intake_copies_and_hashes)
{
	struct intake in;
	char *copy;

	put("a.cu", "abc");
	put("b.h", "");
	put("other.txt", "not copied");
	ck_assert_int_eq(intake_copy(sub, &files, 100, work, &in), 0);
	ck_assert(in.accepted);
	ck_assert_uint_eq(in.nfiles, 2);
	/* sha256("abc") */
	ck_assert_str_eq(in.files[0].sha256,
			 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ck_assert_uint_eq(in.files[0].size, 3);
	copy = xasprintf("%s/a.cu", work);
	ck_assert_int_eq(access(copy, R_OK), 0);
	free(copy);
	copy = xasprintf("%s/other.txt", work);
	ck_assert_int_ne(access(copy, F_OK), 0);
	free(copy);
	intake_release(&in);
}
END_TEST

START_TEST(test_intake_refuses_missing_file)
{
	struct intake in;

	put("a.cu", "abc");
	ck_assert_int_eq(intake_copy(sub, &files, 100, work, &in), 0);
	ck_assert(!in.accepted);
	ck_assert_ptr_nonnull(strstr(in.refusal, "missing file 'b.h'"));
	intake_release(&in);
}
END_TEST

START_TEST(test_intake_refuses_symlink)
{
	struct intake in;
	char *link = xasprintf("%s/b.h", sub);

	put("a.cu", "abc");
	ck_assert_int_eq(symlink("/etc/passwd", link), 0);
	ck_assert_int_eq(intake_copy(sub, &files, 1 << 20, work, &in), 0);
	ck_assert(!in.accepted);
	ck_assert_ptr_nonnull(strstr(in.refusal, "'b.h' is a symbolic link"));
	intake_release(&in);
	free(link);
}
END_TEST

START_TEST(test_intake_refuses_oversize_and_odd_files)
{
	struct intake in;
	char *fifo = xasprintf("%s/b.h", sub);

	put("a.cu", "0123456789");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(intake_copy(sub, &files, 9, work, &in), 0);
	ck_assert(!in.accepted);
	ck_assert_ptr_nonnull(strstr(in.refusal, "'a.cu' is over the size limit"));
	intake_release(&in);
	ck_assert_int_eq(intake_copy(sub, &files, 10, work, &in), 0);
	ck_assert(!in.accepted);
	ck_assert_ptr_nonnull(strstr(in.refusal, "'b.h' is not a regular file"));
	intake_release(&in);
	free(fifo);
}
END_TEST

/* A source with a NUL byte is no text: refused with where the first one is. */
START_TEST(test_intake_refuses_a_source_that_is_not_text)
{
	static const char utf16[] = "/\0/\0 \0a\0\n\0";   /* "// a\n", as UTF-16 */
	char *p = xasprintf("%s/a.cu", sub);
	struct intake in;

	put("b.h", "");
	put("a.cu", "int a;\nint b;\n");
	ck_assert_int_eq(intake_copy(sub, &files, 1 << 20, work, &in), 0);
	ck_assert(in.accepted);
	intake_release(&in);

	ck_assert_int_eq(write_file_atomic(p, "int a;\nint b\0;\n", 16), 0);
	ck_assert_int_eq(intake_copy(sub, &files, 1 << 20, work, &in), 0);
	ck_assert(!in.accepted);
	ck_assert_str_eq(in.refusal, "'a.cu' is not a text file: a NUL byte at offset 12 (line 2); "
				     "submit the source as text (ASCII or UTF-8, not a binary, nor "
				     "UTF-16)");
	intake_release(&in);

	ck_assert_int_eq(write_file_atomic(p, utf16, sizeof(utf16) - 1), 0);
	ck_assert_int_eq(intake_copy(sub, &files, 1 << 20, work, &in), 0);
	ck_assert(!in.accepted);
	ck_assert_ptr_nonnull(strstr(in.refusal, "a NUL byte at offset 1 (line 1)"));
	intake_release(&in);
	free(p);
}
END_TEST

/*
 * No #line or linemarker, wherever one could hide; an early word on
 * includes by an absolute path or "..". A macro is left to the check of
 * what the compiler read (includes.c).
 */
START_TEST(test_intake_checks_includes)
{
	static const char *const good[] = {
		"#include \"grid.h\"\n#include <stdio.h>\n",
		"  #  include   <cuda/std/cmath>\n",
		"// #include \"/etc/passwd\"\nint x;\n",   /* a comment */
		"#include \"a..b.h\"\n",                    /* dots, not a step up */
		"#define X 1\n#if X\n#endif\n",
		"const char *s = \"/* not a comment\";\n#include \"grid.h\" // */\n",
		"const char *r = R\"x(\n#include \"/etc/passwd\"\n)x\";\n",   /* a raw string */
		"#pragma unroll 4\n#define LINE __LINE__\n",
		"#include REF\n",                             /* for the compiler to say */
		"printf(\"test #1 failed\\n\"); // see #2\n",  /* a '#' that starts no line */
		" * #include 3 in a comment\n",
		"int x = 1'000; /* # 1 */ int y;\n",           /* no directive before it */
	};
	static const struct {
		const char *text, *why;
	} bad[] = {
		{"#include \"/home/ta/cudalab/reference/grid/grid.cu\"\n", "line 1"},
		{"int a;\n#include \"../../reference/grid/grid.cu\"\n", "line 2"},
		{"#include <sub/../../x.h>\n", "never by a path"},
		{"#  include_next \"..\"\n", "line 1"},
		{"#import \"/x\"\n", "starts with '/'"},
		{"int a;\n#inc\\\nlude \"/etc/passwd\"\n", "line 2"},   /* spliced */
		{"#/* hidden */include \"../x\"\n", "starts with '/'"},
		{"#/*\n*/include \"/x\"\n", "line 1"},   /* a comment across lines */
		{"%:include \"/x\"\n", "never by a path"},  /* the digraph of # */
		{"#line 1 \"grid.h\"\n", "#line"},
		{"\n\n# 12 \"/usr/include/stdio.h\" 3\n", "line 3"},
		{"# line 7\n", "#line"},
		/* fooR"( is no raw string: a macro makes fooR nothing */
		{"#define fooR\nconst char *s = fooR\"(\";\n#include \"/etc/passwd\"\n// )\"\n",
		 "line 3"},
		{"#define xR\nconst char *s = xR\"(\";\n#line 1 \"/usr/include/stdio.h\"\n// )\"\n",
		 "#line"},
		/* a linemarker after a comment that closes on its line, or in a raw string */
		{"/* a\n */ # 1 \"/usr/include/stdio.h\" 1 3\n", "line 2"},
		{"const char *r = R\"x(\n# 1 \"stdio.h\" 1\n)x\";\n", "line 2"},
		{"?\?= line 3\n", "#line"},   /* the trigraph of # */
		{"#/* c */line 3\n", "#line"},
		{"const unsigned char key[] = {\n#embed \"tests/hidden/k.h\"\n};\n", "#embed"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		char *why = intake_check_directives("grid.cu", good[i], strlen(good[i]));
		ck_assert_msg(!why, "refused %s: %s", good[i], why);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *why = intake_check_directives("grid.cu", bad[i].text, strlen(bad[i].text));
		ck_assert_msg(why && strstr(why, bad[i].why), "%s: %s", bad[i].text, why ? why : "accepted");
		ck_assert_ptr_nonnull(strstr(why, "'grid.cu'"));
		free(why);
	}
}
END_TEST

Suite *intake_suite(void)
{
	Suite *s = suite_create("intake");
	TCase *tc = tcase_create("intake");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_intake_copies_and_hashes);
	tcase_add_test(tc, test_intake_refuses_missing_file);
	tcase_add_test(tc, test_intake_refuses_symlink);
	tcase_add_test(tc, test_intake_refuses_oversize_and_odd_files);
	tcase_add_test(tc, test_intake_checks_includes);
	tcase_add_test(tc, test_intake_refuses_a_source_that_is_not_text);
	suite_add_tcase(s, tc);
	return s;
}
