/* Unit tests of cmd-options.c: one table makes a command's usage and reads its options. */
#include "cmd.h"
#include "unit.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cmd_opt demo_opts[] = {
	CMD_OPT('d', "db", 0, "PATH", "the gradebook"),
	CMD_OPT('j', "jobs", 'j', "N", "gradings at once\n(default: one per CPU)"),
	CMD_OPT('w', "a-rather-long-name", 0, NULL, "help after two spaces"),
	CMD_OPT_SHOWN_AS('c', "class", 0, NULL, "the class", "LAB --class"),
	CMD_OPT('n', "no-wait", 0, NULL, NULL),
	CMD_OPT_END,
};
static const struct cmd_spec demo = {
	.synopsis = "usage: demo [--db PATH]\n\n",
	.opts = {demo_opts},
	.epilog = "after\n",
};

static char *usage_text(const struct cmd_spec *cmd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cmd_usage(cmd, f);
	fclose(f);
	return buf;
}

START_TEST(test_options_usage_from_the_table)
{
	char *text = usage_text(&demo);

	ck_assert_str_eq(text, "usage: demo [--db PATH]\n"
			       "\n"
			       "  --db PATH      the gradebook\n"
			       "  -j, --jobs N   gradings at once\n"
			       "                 (default: one per CPU)\n"
			       "  --a-rather-long-name  help after two spaces\n"
			       "  LAB --class    the class\n"
			       "  -h, --help     this text\n"
			       "after\n");
	free(text);
}
END_TEST

/* cmd_getopt over argv (NULL-terminated): each key it gave, with its argument */
static char *read_all(const struct cmd_spec *cmd, char **argv, int *last)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int argc = 0, c;

	while (argv[argc])
		argc++;
	optind = 0;   /* glibc: start again */
	opterr = 0;
	while ((c = cmd_getopt(cmd, argc, argv)) >= 0)
		fprintf(f, "%c%s%s ", c, optarg ? "=" : "", optarg ? optarg : "");
	*last = c;
	fprintf(f, "| %d", optind);
	fclose(f);
	return buf;
}

START_TEST(test_options_read_from_the_table)
{
	char *a[] = {"demo", "--db", "x.db", "-j", "3", "--no-wait", "LAB", "--class", NULL};
	char *b[] = {"demo", "-d", "x.db", NULL};
	char *h[] = {"demo", "--jobs=2", "-h", NULL};
	char *s;
	int last;

	s = read_all(&demo, a, &last);
	/* operands mix with options, as getopt permutes them */
	ck_assert_str_eq(s, "d=x.db j=3 n c | 7");
	ck_assert_int_eq(last, CMD_END);
	free(s);
	/* a letter is a short option only where the table gives one (the usage goes to stderr) */
	FILE *err = stderr;
	stderr = fopen("/dev/null", "w");
	s = read_all(&demo, b, &last);
	fclose(stderr);
	stderr = err;
	ck_assert_int_eq(last, CMD_BAD);
	ck_assert_int_eq(cmd_stopped(last), EXIT_USAGE);
	free(s);
	FILE *keep = stdout;
	stdout = fopen("/dev/null", "w");   /* -h writes the usage there */
	s = read_all(&demo, h, &last);
	fclose(stdout);
	stdout = keep;
	ck_assert_int_eq(last, CMD_HELP);
	ck_assert_int_eq(cmd_stopped(last), 0);
	free(s);
}
END_TEST

Suite *options_suite(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("options");
	tcase_add_test(tc, test_options_usage_from_the_table);
	tcase_add_test(tc, test_options_read_from_the_table);
	suite_add_tcase(s, tc);
	return s;
}
