/*
 * cmd-labs.c - `cudalab labs`: the labs of this checkout, their parts and points.
 */
#include "cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

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
	int code = 0;

	if (argc > 1) {
		bool help = !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help");
		fprintf(help ? stdout : stderr,
			"usage: cudalab labs\n\nLists the labs, with each graded part, its tests "
			"and their points.\n");
		return help ? 0 : EXIT_USAGE;
	}
	tc = toolchain();
	if (config_list_labs(tc->root, &labs))
		return EXIT_INTERNAL;
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
		config_free(&cfg);
	}
	strlist_clear(&labs);
	return code;
}
