/* Unit tests of config.c: lab.conf parsing and validation. */
#include "config.h"
#include "grading.h"
#include "leaderboard.h"
#include "run.h"
#include "scan.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LAB "[lab]\nname = demo\nfiles = a.cu b.h\nsymbols = f g\n"

START_TEST(test_config_parses_parts_and_points)
{
	struct lab_config cfg;

	ck_assert_int_eq(unit_parse_lab(LAB "run_timeout = 42\n[part p1]\ntitle = One\ntimeout = 5\n"
				   "tests = exact:4 random:2.5\ntests = config:1\n"
				   "[part p2]\nbonus = yes\ntests = x:10\n", &cfg), 0);
	ck_assert_str_eq(cfg.name, "demo");
	ck_assert_uint_eq(cfg.files.n, 2);
	ck_assert_str_eq(cfg.files.v[1], "b.h");
	ck_assert_uint_eq(cfg.symbols.n, 2);
	ck_assert_double_eq(cfg.run_timeout, 42);
	ck_assert_uint_eq(cfg.nparts, 2);
	ck_assert_str_eq(cfg.parts[0].title, "One");
	ck_assert_double_eq(cfg.parts[0].timeout, 5);
	ck_assert_uint_eq(cfg.parts[0].ntests, 3);
	ck_assert_str_eq(cfg.parts[0].tests[2].name, "config");
	ck_assert_double_eq(cfg.parts[0].tests[1].points, 2.5);
	ck_assert(cfg.parts[1].bonus);
	ck_assert_double_eq(lab_max_points(&cfg, false), 7.5);
	ck_assert_double_eq(lab_max_points(&cfg, true), 17.5);
	config_free(&cfg);
}
END_TEST

START_TEST(test_config_refuses_mistakes)
{
	static const char *const bad[] = {
		LAB "[part p]\ntests = exact\n",              /* no points */
		LAB "[part p]\ntests = exact:-1\n",           /* negative points */
		LAB "[part p]\ntests = a:1 a:2\n",            /* twice */
		LAB "[part p]\ntests = a:1\ntimeout = 0\n",   /* zero timeout */
		LAB "[part p]\ntests = a:1\nbonus = maybe\n",
		LAB "[part p]\ntests = a:1\ncolour = red\n",  /* unknown key */
		LAB "[part P Q]\ntests = a:1\n",              /* bad part name */
		LAB "[part p]\n",                             /* no tests */
		LAB,                                          /* no parts */
		"[lab]\nname = demo\nfiles = ../x.cu\n[part p]\ntests = a:1\n",
		"[lab]\nname = demo\n[part p]\ntests = a:1\n", /* no files */
		"[lab]\nname = Demo!\nfiles = a.cu\n[part p]\ntests = a:1\n",
		LAB "run_timeout = soon\n[part p]\ntests = a:1\n",
		"[lab]\nname = demo\nfiles = a.cu\n[part p]\ntests = a:1\n[extra]\nx = 1\n",
		LAB "[part p]\ntests = a:1\nvisibility = secret\n",   /* no such visibility */
		LAB "[part p]\ntests = a:1:later\n",
		LAB "[part p]\ntests = a::hidden\n",                   /* no points */
		LAB "[part p]\ntests = a:1:hidden:x\n",
	};
	char *long_line = xasprintf(LAB "[part p]\ntests = %0300d:1\n", 7);
	struct lab_config lc;
	ck_assert_int_eq(unit_parse_lab(long_line, &lc), -1);
	config_free(&lc);
	free(long_line);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct lab_config cfg;
		ck_assert_msg(unit_parse_lab(bad[i], &cfg) == -1, "accepted bad lab.conf #%zu:\n%s", i, bad[i]);
		config_free(&cfg);
	}
}
END_TEST

/* A part's visibility is its tests' unless a test names its own, wherever the key is. */
START_TEST(test_config_visibility)
{
	struct lab_config cfg;

	ck_assert_int_eq(unit_parse_lab(LAB "[part p]\ntests = a:1 b:2:visible c:0:hidden\n"
				   "visibility = after_due\n[part q]\ntests = d:1\n", &cfg), 0);
	ck_assert_int_eq(cfg.parts[0].tests[0].visibility, VIS_AFTER_DUE);
	ck_assert_int_eq(cfg.parts[0].tests[1].visibility, VIS_VISIBLE);
	ck_assert_int_eq(cfg.parts[0].tests[2].visibility, VIS_HIDDEN);
	ck_assert_double_eq(cfg.parts[0].tests[1].points, 2);
	ck_assert_int_eq(cfg.parts[1].tests[0].visibility, VIS_VISIBLE);
	ck_assert_str_eq(test_visibility_name(VIS_AFTER_DUE), "after_due");
	ck_assert_int_eq(test_visibility_of("hidden"), VIS_HIDDEN);
	ck_assert_int_eq(test_visibility_of("Hidden"), -1);
	config_free(&cfg);
}
END_TEST

START_TEST(test_config_loads_the_matmul_lab)
{
	struct lab_config cfg;
	struct strlist labs = STRLIST_INIT;

	ck_assert_int_eq(config_list_labs(unit_root(), &labs), 0);
	ck_assert(strlist_has(&labs, "matmul"));
	strlist_clear(&labs);
	ck_assert_int_eq(config_load(unit_root(), "matmul", &cfg), 0);
	ck_assert_uint_eq(cfg.nparts, 5);
	ck_assert(cfg.allow_undefined.n > 10);        /* from labs/common/audit.conf */
	ck_assert(strlist_has(&cfg.symbols, "matmul_k5"));
	ck_assert(cfg.parts[4].bonus);
	config_free(&cfg);
	report_quiet = true;
	ck_assert_int_eq(config_load(unit_root(), "no-such-lab", &cfg), -1);
	ck_assert_int_eq(config_load(unit_root(), "../matmul", &cfg), -1);
	report_quiet = false;
	config_free(&cfg);
}
END_TEST

/* The limits of the submission's programs: safe defaults, lab.conf's own, and bad values refused. */
START_TEST(test_config_limits)
{
	struct lab_config c;
	struct run_spec spec = {0};

	ck_assert_int_eq(unit_parse_lab("[lab]\nname = x\nfiles = a.cu\nrun_timeout = 50\n"
					"[part p]\ntests = a:1\n", &c), 0);
	ck_assert_double_eq(c.cpu_limit, 200);   /* 4 times run_timeout */
	ck_assert_uint_eq(c.file_limit, 256ul << 20);
	ck_assert_uint_eq(c.open_files, 1024);
	ck_assert_uint_eq(c.processes, 512);
	ck_assert_int_eq(c.inline_asm, ASM_NO);
	ck_assert_uint_eq(c.build_output_limit, 65536);
	lab_run_limits(&c, 3, &spec);
	ck_assert_uint_eq(spec.cpu_seconds, 600);   /* scaled like the emulation's timeouts */
	ck_assert_uint_eq(spec.max_file_bytes, 256ul << 20);
	config_free(&c);

	ck_assert_int_eq(unit_parse_lab("[lab]\nname = x\nfiles = a.cu\ncpu_limit = 30\n"
					"file_limit = 1048576\nopen_files = 128\nprocesses = 2048\n"
					"build_output_limit = 4096\noutput_limit = 2048\n"
					"inline_asm = device\n"
					"[part p]\ntests = a:1\n", &c), 0);
	ck_assert_int_eq(c.inline_asm, ASM_DEVICE);
	lab_run_limits(&c, 1, &spec);
	ck_assert_uint_eq(spec.cpu_seconds, 30);
	ck_assert_uint_eq(spec.max_file_bytes, 1048576);
	ck_assert_uint_eq(spec.max_open_files, 128);
	ck_assert_uint_eq(spec.max_processes, 2048);
	ck_assert_uint_eq(spec.output_limit, 2048);
	ck_assert_uint_eq(c.build_output_limit, 4096);
	config_free(&c);

	static const char *const bad[] = {"open_files = 3", "processes = 10", "output_limit = 10",
					  "cpu_limit = -1", "inline_asm = sometimes"};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *text = xasprintf("[lab]\nname = x\nfiles = a.cu\n%s\n[part p]\ntests = a:1\n",
				       bad[i]);
		ck_assert_msg(unit_parse_lab(text, &c) == -1, "accepted %s", bad[i]);
		config_free(&c);
		free(text);
	}
}
END_TEST

/* What parsing text as a lab.conf says on standard error. */
static char *parse_said(const char *text)
{
	char *dir = unit_tmpdir(), *path = xasprintf("%s/lab.conf", dir);
	char *said = xasprintf("%s/said", dir);
	struct lab_config cfg;
	int saved = dup(2);

	ck_assert_int_eq(write_file_atomic(path, text, strlen(text)), 0);
	fflush(stderr);
	ck_assert(freopen(said, "w", stderr) != NULL);
	config_init(&cfg);
	ck_assert_int_eq(config_parse(path, &cfg), -1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	config_free(&cfg);
	char *out = read_file(said, NULL);
	remove_tree(dir);
	free(said);
	free(path);
	free(dir);
	return out;
}

/* A number out of its key's range, or an unknown key, is refused by name and line. */
START_TEST(test_config_names_bad_numbers_and_unknown_keys)
{
	char *said = parse_said("[lab]\nname = x\nfiles = a.cu\n"
				"max_file_bytes = 99999999999999999999\n[part p]\ntests = a:1\n");
	ck_assert_msg(strstr(said, "lab.conf:4: 'max_file_bytes' must be a whole number from 1 "
			     "to 1073741824, not '99999999999999999999'"), "%s", said);
	free(said);
	said = parse_said("[lab]\nname = x\nfiles = a.cu\nfrobnicate = yes\n");
	ck_assert_msg(strstr(said, "lab.conf:4: unknown key 'frobnicate' in [lab]"), "%s", said);
	free(said);
	said = parse_said("[lab]\nname = x\nfiles = a.cu\noutput_limit = 10\n");
	ck_assert_msg(strstr(said, "'output_limit' must be a whole number from 1024"), "%s", said);
	free(said);
	said = parse_said("[lab]\nname = x\nfiles = a.cu\nprocesses = 12.5\n");
	ck_assert_msg(strstr(said, "(or 0: no limit), not '12.5'"), "%s", said);
	free(said);

	struct lab_config c;
	ck_assert_int_eq(unit_parse_lab("[lab]\nname = x\nfiles = a.cu\nmax_file_bytes = 1073741824\n"
					"processes = 0\n[part p]\ntests = a:1\n", &c), 0);
	ck_assert_uint_eq(c.max_file_bytes, 1u << 30);
	ck_assert_uint_eq(c.processes, 0);
	config_free(&c);

	/* the leaderboard: off by default, pseudonyms for yes, for timed labs only */
	said = parse_said("[lab]\nname = x\nfiles = a.cu\nleaderboard = sometimes\n");
	ck_assert_msg(strstr(said, "lab.conf:4: leaderboard must be no, yes (pseudonyms) or names"),
		      "%s", said);
	free(said);
	ck_assert_int_eq(unit_parse_lab("[lab]\nname = x\nfiles = a.cu\nleaderboard = yes\n"
					"[part p]\ntests = a:1\n", &c), -1);
	ck_assert_int_eq(unit_parse_lab("[lab]\nname = x\nfiles = a.cu\n[part p]\ntests = a:1\n",
					&c), 0);
	ck_assert_int_eq(c.leaderboard, LEADERBOARD_OFF);
	config_free(&c);
	ck_assert_int_eq(unit_parse_lab("[lab]\nname = x\nfiles = a.cu\nleaderboard = yes\n"
					"[part p]\ntests = a:1\n[timing p]\nsize = 64\npoints = 1\n",
					&c), 0);
	ck_assert_int_eq(c.leaderboard, LEADERBOARD_PSEUDONYMS);
	config_free(&c);
}
END_TEST

Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");

	tcase_add_test(tc, test_config_parses_parts_and_points);
	tcase_add_test(tc, test_config_refuses_mistakes);
	tcase_add_test(tc, test_config_visibility);
	tcase_add_test(tc, test_config_loads_the_matmul_lab);
	tcase_add_test(tc, test_config_limits);
	tcase_add_test(tc, test_config_names_bad_numbers_and_unknown_keys);
	suite_add_tcase(s, tc);
	return s;
}
