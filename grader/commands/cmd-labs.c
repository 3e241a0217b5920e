/*
 * cmd-labs.c - `cudalab labs`: the labs of this checkout, their parts and
 * points, and with --where, where each one's material lives.
 */
#include "cmd.h"

#include <getopt.h>   /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct cmd_opt labs_opts[] = {
	CMD_OPT('w', "where", 0, NULL,
	 "also where each lab's material lives: its folder, test suites,\n"
	 "reference, fixtures, real-world corpus, red-team cases and\n"
	 "stub, with how many cases each folder of cases holds"),
	CMD_OPT_END,
};
static const struct cmd_spec labs_cmd = {
	.synopsis = "usage: cudalab labs [--where] [LAB...]\n"
		    "\n"
		    "Lists the labs (those named, else every one), with each graded part, its\n"
		    "tests and their points.\n"
		    "\n",
	.opts = {labs_opts},
};

/* How many folders path holds (cases), or -1 where it is no folder. */
static int count_cases(const char *path)
{
	struct strlist cases = STRLIST_INIT;
	int n = list_folders(path, &cases) ? -1 : (int)cases.n;

	strlist_clear(&cases);
	return n;
}

/* One line of --where: what, and its folder under root (with its cases). */
static void print_where(const char *root, const char *what, const char *rel, bool cases)
{
	char *path = xasprintf("%s/%s", root, rel);
	struct stat st;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		printf("    %-15s %s (none)\n", what, rel);
	else if (cases)
		printf("    %-15s %s (%d)\n", what, rel, count_cases(path));
	else
		printf("    %-15s %s\n", what, rel);
	free(path);
}

static void print_material(const char *root, const char *lab)
{
	static const struct {
		const char *what, *fmt;
		bool cases;
	} where[] = {
		{"lab", "labs/%s", false},
		{"test suites", "labs/%s/tests", false},
		{"reference", "reference/%s", false},
		{"fixtures", "reference/%s/fixtures", true},
		{"corpus", "reference/%s/corpus", true},
		{"red team", "grader/t/redteam/%s", true},
		{"stub", "student_template/%s", false},
	};

	printf("  where:\n");
	for (size_t i = 0; i < sizeof(where) / sizeof(*where); i++) {
		char *rel = xasprintf(where[i].fmt, lab);
		print_where(root, where[i].what, rel, where[i].cases);
		free(rel);
	}
}

/* How the timed tests score: one line when they all score alike. */
static void print_timing_rules(const struct lab_config *cfg)
{
	const struct lab_timing *first = NULL;
	bool alike = true;

	for (size_t t = 0; t < cfg->ntimings; t++) {
		const struct lab_timing *lt = &cfg->timings[t];
		if (!lt->points)
			continue;
		if (!first)
			first = lt;
		alike &= lt->full_ratio == first->full_ratio && lt->zero_ratio == first->zero_ratio;
	}
	if (!first)
		return;
	if (alike) {
		printf("  timed on a GPU against the reference: all points up to %g times its time, "
		       "none from %g times\n", first->full_ratio, first->zero_ratio);
		return;
	}
	printf("  timed on a GPU, points by the ratio of times: all up to the first figure, "
	       "none from the second:");
	const char *sep = " ";
	for (size_t t = 0; t < cfg->ntimings; t++)
		if (cfg->timings[t].points) {
			printf("%s%s %g..%g", sep, cfg->timings[t].test, cfg->timings[t].full_ratio,
			       cfg->timings[t].zero_ratio);
			sep = ", ";
		}
	printf("\n");
}

int cmd_labs(int argc, char **argv)
{
	const struct toolchain *tc;
	struct strlist labs = STRLIST_INIT;
	bool where = false;
	int code = 0, c;

	while ((c = cmd_getopt(&labs_cmd, argc, argv)) >= 0) {
		if (c == 'w') {
			where = true;
		}
	}
	if (c != CMD_END)
		return cmd_stopped(c);
	tc = toolchain();
	if (optind < argc) {
		for (int i = optind; i < argc; i++) {
			if (!lab_exists(tc->root, argv[i])) {   /* it says which there are */
				strlist_clear(&labs);
				return EXIT_USAGE;
			}
			strlist_push(&labs, argv[i]);
		}
	} else if (config_list_labs(tc->root, &labs)) {
		return EXIT_INTERNAL;
	}
	for (size_t i = 0; i < labs.n; i++) {
		struct lab_config cfg;
		if (config_load(tc->root, labs.v[i], &cfg)) {
			code = EXIT_INTERNAL;
			continue;
		}
		printf("%s: %s (%g points", cfg.name, cfg.title ? cfg.title : "",
		       lab_max_points(&cfg, false));
		if (lab_max_points(&cfg, true) > lab_max_points(&cfg, false))
			printf(" + %g bonus", lab_max_points(&cfg, true) - lab_max_points(&cfg, false));
		printf(")\n  files: ");
		for (size_t f = 0; f < cfg.files.n; f++)
			printf("%s%s", f ? " " : "", cfg.files.v[f]);
		printf("\n");
		for (size_t p = 0; p < cfg.nparts; p++) {
			const struct lab_part *part = &cfg.parts[p];
			printf("  %-9s %s%s:", part->name, part->title ? part->title : "",
			       part->bonus ? " [bonus]" : "");
			for (size_t t = 0; t < part->ntests; t++)
				printf(" %s=%g", part->tests[t].name, part->tests[t].points);
			for (size_t t = 0; t < cfg.ntimings; t++)
				if (!strcmp(cfg.timings[t].part, part->name))
					printf(" %s=%g", cfg.timings[t].test, cfg.timings[t].points);
			for (size_t t = 0; t < cfg.nsectors; t++)
				if (!strcmp(cfg.sectors[t].part, part->name))
					printf(" %s=%g", cfg.sectors[t].name, cfg.sectors[t].points);
			printf("\n");
		}
		print_timing_rules(&cfg);
		if (where)
			print_material(tc->root, cfg.name);
		config_free(&cfg);
	}
	strlist_clear(&labs);
	return code;
}
