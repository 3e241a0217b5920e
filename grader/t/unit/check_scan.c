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
	struct scan_rules rules = {.files = &files, .forbid_names = &names, .forbid_calls = &calls,
				   .inline_asm = policy};
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

/* A strict lab's nvcc passes: a barrier's name left in the submission's lines is the macro undone. */
START_TEST(test_scan_checked_barrier_undone)
{
	static const char body[] =
		"# 0 \"grid.cu\"\n"
		"# 1 \"/w/.checked/checked-barrier.h\" 1\n"
		"static void cl_checked_syncthreads(unsigned line) { __syncthreads_count(1); }\n"
		"# 3 \"grid.cu\" 2\n"
		"void k(void) { cl_checked_syncthreads(3); }\n"
		"void j(void) { __syncthreads(); int c = __syncthreads_or(1); }\n";
	struct scan_rules rules = {.files = &files, .forbid_names = &names, .forbid_calls = &calls,
				   .inline_asm = ASM_NO, .checked_barrier = true};
	struct strlist problems = STRLIST_INIT;

	scan_preprocessed(body, strlen(body), false, &rules, &problems);
	ck_assert_uint_eq(problems.n, 2);   /* the header's own use is its own */
	ck_assert_msg(strstr(problems.v[0], "grid.cu:4: '__syncthreads' is not the lab's checked "
					    "barrier here"), "%s", problems.v[0]);
	ck_assert_msg(strstr(problems.v[1], "grid.cu:4: '__syncthreads_or'"), "%s", problems.v[1]);
	strlist_clear(&problems);
	/* another lab, or the emulator's pass: the names are the barriers themselves */
	char *got = judge(body, false, ASM_NO);
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

/* scan_includes() of text, one "FILE <- SITE:LINE [direct]" line per file entered, then the problems. */
static char *includes_of(const char *text, const char *dir)
{
	struct scan_rules rules = {.files = &files, .dir = dir};
	struct scan_includes inc = {0};
	struct strlist problems = STRLIST_INIT;
	struct strbuf sb = STRBUF_INIT;

	scan_includes(text, strlen(text), &rules, &inc, &problems);
	for (size_t i = 0; i < inc.n; i++)
		strbuf_addf(&sb, "%s <- %s:%zu%s\n", inc.v[i].file, inc.v[i].site ? inc.v[i].site : "-",
			    inc.v[i].site_line, inc.v[i].direct ? " direct" : "");
	for (size_t i = 0; i < problems.n; i++)
		strbuf_addf(&sb, "problem: %s\n", problems.v[i]);
	scan_includes_release(&inc);
	strlist_clear(&problems);
	return strbuf_detach(&sb);
}

/* What nvcc's passes look like: its prologue, a forced include, the student's includes. */
START_TEST(test_scan_includes_follow_the_markers)
{
	char *got = includes_of("# 0 \"grid.cu\"\n"
				"# 0 \"<built-in>\"\n"
				"# 0 \"<command-line>\"\n"
				"# 1 \"/usr/include/stdc-predef.h\" 1 3 4\n"
				"# 0 \"<command-line>\" 2\n"
				"# 1 \"/cuda/include/cuda_runtime.h\" 1\n"
				"# 1 \"/cuda/include/crt/host_config.h\" 1\n"
				"# 2 \"/cuda/include/cuda_runtime.h\" 2\n"
				"# 0 \"<command-line>\" 2\n"
				"# 1 \"grid.cu\"\n"
				"int a;\n"
				"\n"
				"# 1 \"/labs/grid/grid.h\" 1\n"
				"# 1 \"/usr/include/stdio.h\" 1 3 4\n"
				"# 9 \"/labs/grid/grid.h\" 2\n"
				"# 4 \"grid.cu\" 2\n"
				"int b;\n"
				"# 1 \"/labs/grid/tests/hidden/key.h\" 1\n"
				"# 1 \"/labs/grid/tests/occ.h\" 1\n"
				"# 2 \"/labs/grid/tests/hidden/key.h\" 2\n"
				"# 6 \"grid.cu\" 2\n",
				NULL);
	ck_assert_str_eq(got, "/usr/include/stdc-predef.h <- -:0\n"
			      "/cuda/include/cuda_runtime.h <- -:0\n"
			      "/cuda/include/crt/host_config.h <- -:0\n"
			      "/labs/grid/grid.h <- grid.cu:3 direct\n"
			      "/usr/include/stdio.h <- grid.cu:3\n"
			      "/labs/grid/tests/hidden/key.h <- grid.cu:5 direct\n"
			      "/labs/grid/tests/occ.h <- grid.cu:5\n");
	free(got);
}
END_TEST

/*
 * g++ on the emulator's rewrite: the working folder's marker (-g), the
 * rewrite's own #line to the student's file, a header of the submission's
 * by its whole path; and an escaped name.
 */
START_TEST(test_scan_includes_emulated_and_escapes)
{
	char *got = includes_of("# 0 \"/w/grid.cu.emu.cpp\"\n"
				"# 1 \"/w//\"\n"
				"# 0 \"<built-in>\"\n"
				"# 0 \"<command-line>\"\n"
				"# 1 \"/emu/cudaemu.h\" 1\n"
				"# 0 \"<command-line>\" 2\n"
				"# 1 \"/w/grid.cu.emu.cpp\"\n"
				"# 1 \"grid.cu\"\n"
				"int a;\n"
				"# 1 \"/w/grid.cu\" 1\n"
				"# 1 \"/w/odd\\\\\\\"\\\\101.h\" 1\n"
				"# 2 \"/w/grid.cu\" 2\n"
				"# 3 \"grid.cu\" 2\n",
				"/w");
	ck_assert_str_eq(got, "/emu/cudaemu.h <- -:0\n"
			      "/w/grid.cu <- grid.cu:2 direct\n"
			      "/w/odd\\\"\\101.h <- /w/grid.cu:1 direct\n");
	free(got);
}
END_TEST

/* A #line that gives the student's code a header's name is refused; the compiler's own are not. */
START_TEST(test_scan_includes_refuse_renames)
{
	char *got = includes_of("# 0 \"grid.cu\"\n"
				"# 0 \"<built-in>\"\n"
				"# 0 \"<command-line>\"\n"
				"# 1 \"grid.cu\"\n"
				"int a;\n"
				"# 40 \"grid.cu\"\n"          /* the compiler skipping blank lines */
				"int b;\n"
				"# 12 \"/usr/include/stdio.h\"\n"
				"void hidden(void) { system(\"id\"); }\n",
				NULL);
	ck_assert_str_eq(got, "problem: grid.cu:41: '#line' gives the code after it the name of "
			      "another file ('/usr/include/stdio.h'), which submissions may not do\n");
	free(got);
}
END_TEST

/* fooR"( is no raw string: what follows it is still scanned. */
START_TEST(test_scan_raw_prefixes)
{
	char *got = judge(HEADER "const char *s = xR\"(\";\nvoid f(void) { system(\"x\"); }\n"
			  "const char *t = u8R\"y(\n)\" system(\n)y\";\n",
			  true, ASM_NO);
	ck_assert_msg(strstr(got, "grid.cu:4: calls 'system'") && !strstr(got, "grid.cu:5"), "%s",
		      got);
	free(got);
}
END_TEST

/*
 * The GPU's inline assembly, as nvcc's passes accepted it, is the only
 * assembly the emulator's build (all of it for the CPU) accepts, and only
 * spelled the same.
 */
START_TEST(test_scan_emulated_asm)
{
	struct strlist device = STRLIST_INIT, problems = STRLIST_INIT;
	struct scan_rules gpu = {.files = &files, .inline_asm = ASM_DEVICE, .device_asm = &device};
	struct scan_rules cpu = gpu;
	static const char pass[] = HEADER
		"__attribute__((device)) int lane(void) { int r; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(r)); return r; }\n";
	static const char emu[] = HEADER
		"int lane(void) { int r; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(r)); return r; }\n"
		"int other(void) { int r; asm(\"mov.u32 %0, 1;\" : \"=r\"(r)); return r; }\n"
		"void g(void) { asm(\".incbin \\\"/etc/passwd\\\"\"); }\n";

	scan_preprocessed(pass, strlen(pass), false, &gpu, &problems);
	ck_assert_uint_eq(problems.n, 0);
	ck_assert_uint_eq(device.n, 1);
	ck_assert_str_eq(device.v[0], "grid.cu:3: asm ( \"mov.u32 %0, %%laneid;\" : \"=r\" ( r ) )");
	cpu.emulated = true;
	scan_preprocessed(emu, strlen(emu), true, &cpu, &problems);
	ck_assert_uint_eq(problems.n, 2);
	ck_assert_str_eq(problems.v[0], "grid.cu:4: inline assembly ('asm') in code compiled for the "
					"host: this lab allows it only in __device__ and __global__ "
					"functions");
	ck_assert_ptr_nonnull(strstr(problems.v[1], "grid.cu:5:"));
	strlist_clear(&device);
	strlist_clear(&problems);
}
END_TEST

/* What turns off a checking build's instrumentation, and a sanitizer's names, are refused. */
START_TEST(test_scan_checking_builds)
{
	char *got = judge(HEADER
			  "__attribute__((no_sanitize_thread)) void a(int *p) { p[1] = 0; }\n"
			  "[[gnu::no_sanitize(\"address\")]] void b(void) {}\n"
			  "__attribute__((__no_sanitize_address__)) void c(void) {}\n",
			  true, ASM_NO);
	ck_assert_msg(strstr(got, "grid.cu:3: attribute 'no_sanitize_thread' turns off") &&
		      strstr(got, "grid.cu:4: attribute 'no_sanitize'") &&
		      strstr(got, "grid.cu:5: attribute 'no_sanitize_address'"), "%s", got);
	free(got);
}
END_TEST

Suite *scan_suite(void)
{
	Suite *s = suite_create("scan");
	TCase *tc = tcase_create("scan");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_scan_headers_do_not_count);
	tcase_add_test(tc, test_scan_checked_barrier_undone);
	tcase_add_test(tc, test_scan_asm_policies);
	tcase_add_test(tc, test_scan_device_region_ends);
	tcase_add_test(tc, test_scan_names_and_calls);
	tcase_add_test(tc, test_scan_placing_attributes);
	tcase_add_test(tc, test_scan_lines_follow_markers);
	tcase_add_test(tc, test_scan_includes_follow_the_markers);
	tcase_add_test(tc, test_scan_includes_emulated_and_escapes);
	tcase_add_test(tc, test_scan_includes_refuse_renames);
	tcase_add_test(tc, test_scan_raw_prefixes);
	tcase_add_test(tc, test_scan_emulated_asm);
	tcase_add_test(tc, test_scan_checking_builds);
	suite_add_tcase(s, tc);
	return s;
}
