/* Unit tests of scan.c: the source scan of preprocessed text. */
#include "scan.h"
#include "unit.h"

#include <check.h>
#include <string.h>

static struct strlist files, names, calls;

static void setup(void)
{
	strlist_split(&files, "grid.cu");
	strlist_split(&names, "cudaStream* std::thread pthread_*");
	strlist_split(&calls, "fork system syscall");
}

static void teardown(void)
{
	strlist_clear(&files);
	strlist_clear(&names);
	strlist_clear(&calls);
}

/* What the scan finds in text, one problem per line, "" when nothing. */
static char *judge(const char *text, bool host_pass, enum asm_policy policy)
{
	struct scan_rules rules = {&files, &names, &calls, policy};
	struct strlist problems = STRLIST_INIT;
	struct strbuf sb = STRBUF_INIT;

	scan_preprocessed(text, strlen(text), host_pass, &rules, &problems);
	for (size_t i = 0; i < problems.n; i++)
		strbuf_addf(&sb, "%s\n", problems.v[i]);
	strlist_clear(&problems);
	return strbuf_detach(&sb);
}

/* A header full of what the submission may not write, then the submission. */
#define HEADER                                                                                     \
	"# 0 \"grid.cu\"\n"                                                                        \
	"# 1 \"/usr/include/unistd.h\" 1 3\n"                                                     \
	"extern int fork (void) __asm (\"fork\");\n"                                              \
	"static inline void h(void) { __asm__ volatile (\"nop\"); system(\"x\"); }\n"             \
	"typedef struct cudaStream_st *cudaStream_t;\n"                                           \
	"# 3 \"grid.cu\" 2\n"

START_TEST(test_scan_headers_do_not_count)
{
	char *got = judge(HEADER "int x = 1;\n", true, ASM_NO);
	ck_assert_str_eq(got, "");
	free(got);
}
END_TEST

START_TEST(test_scan_asm_policies)
{
	static const char body[] =
		HEADER
		"__attribute__((device)) int lane(void) { int r; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(r)); return r; }\n"
		"__attribute__((host)) __attribute__((device)) void both(void) { __asm__(\"nop\"); }\n"
		"void on_host(void) {\n"
		"  __asm volatile (\"syscall\");\n"
		"}\n";
	char *got = judge(body, true, ASM_NO);
	ck_assert_msg(strstr(got, "grid.cu:3: inline assembly") && strstr(got, "grid.cu:4:") &&
		      strstr(got, "grid.cu:6:"), "%s", got);
	free(got);

	got = judge(body, true, ASM_DEVICE);   /* the device-only function may, the rest may not */
	ck_assert_msg(!strstr(got, "grid.cu:3:") && strstr(got, "grid.cu:4: inline assembly ('asm') "
		      "in code compiled for the host") && strstr(got, "grid.cu:6:"), "%s", got);
	free(got);

	got = judge(body, false, ASM_DEVICE);  /* the device pass: all of it is for the GPU */
	ck_assert_str_eq(got, "");
	free(got);
	got = judge(body, true, ASM_YES);
	ck_assert_str_eq(got, "");
	free(got);
}
END_TEST

/* A device function's body ends where its braces do; nested braces inside. */
START_TEST(test_scan_device_region_ends)
{
	char *got = judge(HEADER
			  "__attribute__((global)) void k(int *p) { if (*p) { p[1] = 2; } }\n"
			  "static int counter[2] = {0, 1};\n"
			  "void launch(void) { asm(\"int $0x80\"); }\n",
			  true, ASM_DEVICE);
	ck_assert_msg(strstr(got, "grid.cu:5: inline assembly") && !strstr(got, "grid.cu:3:"),
		      "%s", got);
	free(got);
}
END_TEST

/* What a macro hid is there after the preprocessor: the scan sees it. */
START_TEST(test_scan_names_and_calls)
{
	char *got = judge(HEADER
			  "void a(void) { cudaStream_t s; cudaStreamCreate(&s); }\n"
			  "void b(void) { std::thread t(a); t.join(); }\n"
			  "void c(void) { fork(); int system = 3; (void)system; }\n"
			  "void d(void) { ::syscall(39); }\n"
			  "const char *e = \"fork() system() asm\";\n"
			  "int forked = fork_count(1);\n",
			  true, ASM_NO);
	ck_assert_msg(strstr(got, "grid.cu:3: uses 'cudaStream_t'") &&
		      strstr(got, "grid.cu:3: uses 'cudaStreamCreate'") &&
		      strstr(got, "grid.cu:4: uses 'std::thread'") &&
		      strstr(got, "grid.cu:5: calls 'fork'") && !strstr(got, "'system'") &&
		      strstr(got, "grid.cu:6: calls 'syscall'") && !strstr(got, "grid.cu:7") &&
		      !strstr(got, "grid.cu:8"), "%s", got);
	free(got);
}
END_TEST

START_TEST(test_scan_placing_attributes)
{
	char *got = judge(HEADER
			  "__attribute__((section(\".text\"))) const unsigned char code[] = {0x0f, 0x05};\n"
			  "[[gnu::constructor]] static void early(void) {}\n"
			  "__attribute__((__naked__, used)) void bare(void) {}\n"
			  "__attribute__((unused)) static int fine;\n",
			  true, ASM_YES);
	ck_assert_msg(strstr(got, "grid.cu:3: attribute 'section'") &&
		      strstr(got, "grid.cu:4: attribute 'constructor'") &&
		      strstr(got, "grid.cu:5: attribute 'naked'") && !strstr(got, "grid.cu:6"),
		      "%s", got);
	free(got);
}
END_TEST

/* Line numbers follow the markers and the newlines in string literals. */
START_TEST(test_scan_lines_follow_markers)
{
	char *got = judge(HEADER "const char *s = \"a\\\n"
			  "b\";\n"
			  "# 40 \"grid.cu\"\n"
			  "void f(void) { system(\"ls\"); }\n"
			  "const char *r = R\"x(\n)\n)x\"; void g(void) { fork(); }\n",
			  true, ASM_NO);
	ck_assert_msg(strstr(got, "grid.cu:40: calls 'system'") &&
		      strstr(got, "grid.cu:43: calls 'fork'"), "%s", got);
	free(got);
	ck_assert_int_eq(scan_parse_asm_policy("device"), ASM_DEVICE);
	ck_assert_int_eq(scan_parse_asm_policy("maybe"), -1);
}
END_TEST

Suite *scan_suite(void)
{
	Suite *s = suite_create("scan");
	TCase *tc = tcase_create("scan");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_scan_headers_do_not_count);
	tcase_add_test(tc, test_scan_asm_policies);
	tcase_add_test(tc, test_scan_device_region_ends);
	tcase_add_test(tc, test_scan_names_and_calls);
	tcase_add_test(tc, test_scan_placing_attributes);
	tcase_add_test(tc, test_scan_lines_follow_markers);
	suite_add_tcase(s, tc);
	return s;
}
