/*
 * cmd-rewrite.c - `cudalab rewrite FILE`: the C++ the CPU emulator compiles
 * for a CUDA source file, on stdout. For students puzzled by an emulated
 * build, and for make, which builds the emulator's own tests with it.
 */
#include "cmd.h"
#include "rewrite.h"

#include <getopt.h>   /* optind */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cmd_spec rewrite_cmd = {
	.synopsis = "usage: cudalab rewrite FILE.cu\n"
		    "\n"
		    "Prints the C++ that the CPU emulator compiles for FILE.cu: each kernel launch\n"
		    "k<<<grid, block>>>(args) becomes a call, each extern __shared__ array a pointer\n"
		    "to the dynamic shared memory; every line stays where it was.\n"
		    "\n",
};

int cmd_rewrite(int argc, char **argv)
{
	char *src, *out, *why, *copy;
	int c = cmd_getopt(&rewrite_cmd, argc, argv);

	if (c != CMD_END)   /* it has no option of its own */
		return c < 0 ? cmd_stopped(c) : EXIT_USAGE;
	if (argc - optind != 1)
		return cmd_bad_usage(&rewrite_cmd);
	const char *file = argv[optind];
	src = read_file(file, NULL);
	if (!src)
		return EXIT_USAGE;
	copy = xstrdup(file);
	out = rewrite_cuda(src, basename(copy), &why);
	free(copy);
	free(src);
	if (!out) {
		error("%s", why);
		free(why);
		return 1;
	}
	fputs(out, stdout);
	free(out);
	return 0;
}
