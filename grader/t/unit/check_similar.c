/* Unit tests of similar.c: reading sim_c's report, and the CUDA words blanked. */
#include "similar.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

struct seen {
	char files[8][16];
	size_t tokens[8], nfiles;
	char runs[8][64];
	size_t nruns;
};

static void on_file(void *ctx, const char *path, size_t tokens, size_t lines)
{
	struct seen *s = ctx;
	(void)lines;
	snprintf(s->files[s->nfiles], sizeof(s->files[0]), "%s", path);
	s->tokens[s->nfiles++] = tokens;
}

static void on_run(void *ctx, const char *a, size_t af, size_t al, const char *b, size_t bf,
		   size_t bl, size_t tokens)
{
	struct seen *s = ctx;
	snprintf(s->runs[s->nruns++], sizeof(s->runs[0]), "%s %zu-%zu %s %zu-%zu %zu", a, af, al, b,
		 bf, bl, tokens);
}

START_TEST(test_similar_parse_report)
{
	/* sim_c 3.0.2 -e -n -S: the header, the separator, runs padded to the page width */
	const char *report =
		"File 0/0: 415 tokens, 76 lines\n"
		"File 1/0: 52 tokens, 9 lines\n"
		"File /: new/old separator\n"
		"File t/0: 215 tokens, 68 lines\n"
		"Total input: 3 files (2 new, 1 old), 682 tokens\n"
		"\n"
		"0/0: line 38-76             |t/0: line 24-57            [130]\n"
		"\n"
		"1/0: line 5-5 |0/0: line 7                [24]\n";
	struct seen s = {0};

	ck_assert_int_eq(similar_parse(report, on_file, on_run, &s), 2);
	ck_assert_uint_eq(s.nfiles, 3);
	ck_assert_str_eq(s.files[0], "0/0");
	ck_assert_uint_eq(s.tokens[0], 415);
	ck_assert_str_eq(s.files[2], "t/0");
	ck_assert_str_eq(s.runs[0], "0/0 38-76 t/0 24-57 130");
	ck_assert_str_eq(s.runs[1], "1/0 5-5 0/0 7-7 24");
}
END_TEST

START_TEST(test_similar_parse_refuses_the_unknown)
{
	struct seen s = {0};

	report_quiet = true;
	ck_assert_int_eq(similar_parse("sim_c: out of memory\n", on_file, on_run, &s), -1);
	ck_assert_int_eq(similar_parse("0/0: line x |1/0: line 3-4 [30]\n", on_file, on_run, &s),
			 -1);
	report_quiet = false;
	ck_assert_int_eq(similar_parse("", on_file, on_run, &s), 0);
	ck_assert_uint_eq(s.nruns, 0);
}
END_TEST

START_TEST(test_similar_normalise_keeps_lines)
{
	char text[] = "__global__ void k(const float *__restrict__ a, float *__restrict b)\n"
		      "{\n"
		      "#pragma unroll 4\n"
		      "\tfor (;;) my__restrict__x = a[0];\n"
		      "  # pragma unroll\n"
		      "#pragma once\n"
		      "}\n";
	size_t len = strlen(text), lines = 0;

	similar_normalise(text);
	ck_assert_uint_eq(strlen(text), len);
	for (char *p = text; *p; p++)
		lines += *p == '\n';
	ck_assert_uint_eq(lines, 7);
	ck_assert_ptr_null(strstr(text, "*__restrict"));
	ck_assert_ptr_null(strstr(text, " __restrict"));
	ck_assert_ptr_null(strstr(text, "unroll"));
	ck_assert_ptr_nonnull(strstr(text, "__global__ void k(const float *"));
	ck_assert_ptr_nonnull(strstr(text, "my__restrict__x"));   /* a word of its own */
	ck_assert_ptr_nonnull(strstr(text, "#pragma once"));
}
END_TEST

Suite *similar_suite(void)
{
	Suite *s = suite_create("similar");
	TCase *tc = tcase_create("similar");

	tcase_add_test(tc, test_similar_parse_report);
	tcase_add_test(tc, test_similar_parse_refuses_the_unknown);
	tcase_add_test(tc, test_similar_normalise_keeps_lines);
	suite_add_tcase(s, tc);
	return s;
}
