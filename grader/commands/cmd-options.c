/*
 * cmd-options.c - one option table per command makes both its getopt loop
 * and its usage text (git's parse-options in miniature).
 *
 * Owns: reading a command's options from its tables (cmd_getopt), and
 * writing its usage from the same tables (cmd_usage): each option's names,
 * its argument and its help, aligned one way for every command; -h and
 * --help for every command.
 *
 * Must not: know any command's options, or what one of them does.
 */
#include "cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where every option's help begins: two spaces, the names, the padding. */
#define HELP_COLUMN 17

static const struct cmd_opt help_opt = {'h', "help", 'h', NULL, "this text", NULL};

/* cmd's options, its tables' in order and -h last, into a new array: how many. */
static size_t flatten(const struct cmd_spec *cmd, const struct cmd_opt ***all)
{
	size_t n = 0;

	*all = NULL;
	for (size_t t = 0; t < CMD_TABLES && cmd->opts[t]; t++)
		for (const struct cmd_opt *o = cmd->opts[t]; o->name; o++) {
			*all = xrealloc(*all, (n + 1) * sizeof(**all));
			(*all)[n++] = o;
		}
	*all = xrealloc(*all, (n + 1) * sizeof(**all));
	(*all)[n++] = &help_opt;
	return n;
}

void cmd_usage(const struct cmd_spec *cmd, FILE *out)
{
	const struct cmd_opt **all;
	size_t n = flatten(cmd, &all);

	fputs(cmd->synopsis, out);
	for (size_t i = 0; i < n; i++) {
		const struct cmd_opt *o = all[i];
		char label[64];
		if (!o->help)
			continue;
		if (o->label)
			snprintf(label, sizeof(label), "  %s", o->label);
		else if (o->letter)
			snprintf(label, sizeof(label), "  -%c, --%s%s%s", o->letter, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(label, sizeof(label), "  --%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		int pad = HELP_COLUMN - (int)strlen(label);
		fprintf(out, "%s%*s", label, pad >= 2 ? pad : 2, "");
		/* the help's later lines under its first */
		for (const char *h = o->help, *nl; *h; h = nl + 1) {
			nl = strchr(h, '\n');
			if (!nl) {
				fprintf(out, "%s\n", h);
				break;
			}
			fprintf(out, "%.*s\n%*s", (int)(nl - h), h, HELP_COLUMN, "");
		}
	}
	if (cmd->epilog)
		fputs(cmd->epilog, out);
	free(all);
}

int cmd_getopt(const struct cmd_spec *cmd, int argc, char **argv)
{
	/* getopt_long must see the same tables on every call for one command */
	static const struct cmd_spec *built;
	static struct option *longopts;
	static char shortopts[128];
	const struct cmd_opt **all;
	int c;

	if (built != cmd) {
		size_t n = flatten(cmd, &all), s = 0;
		free(longopts);
		longopts = xcalloc(n + 1, sizeof(*longopts));
		for (size_t i = 0; i < n; i++) {
			longopts[i] = (struct option){all[i]->name,
						      all[i]->arg ? required_argument : no_argument,
						      NULL, all[i]->key};
			if (all[i]->letter && s + 3 < sizeof(shortopts)) {
				shortopts[s++] = all[i]->letter;
				if (all[i]->arg)
					shortopts[s++] = ':';
			}
		}
		shortopts[s] = '\0';
		free(all);
		built = cmd;
	}
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c == 'h') {
		cmd_usage(cmd, stdout);
		return CMD_HELP;
	}
	if (c == '?' || c == ':') {
		cmd_usage(cmd, stderr);
		return CMD_BAD;
	}
	return c;
}

int cmd_bad_usage(const struct cmd_spec *cmd)
{
	cmd_usage(cmd, stderr);
	return EXIT_USAGE;
}

int cmd_stopped(int c)
{
	return c == CMD_HELP ? 0 : EXIT_USAGE;
}
