/*
 * cmd-rewrite.c - `cudalab rewrite FILE`: the C++ the CPU emulator compiles
 * for a CUDA source file, on stdout. For students puzzled by an emulated
 * build, and for make, which builds the emulator's own tests with it.
 */
#include "cmd.h"
#include "rewrite.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_rewrite(int argc, char **argv)
{
	char *src, *out, *why, *copy;

	if (argc != 2 || argv[1][0] == '-') {
		bool help = argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"));
		fprintf(help ? stdout : stderr,
			"usage: cudalab rewrite FILE.cu\n\n"
			"Prints the C++ that the CPU emulator compiles for FILE.cu: each kernel launch\n"
			"k<<<grid, block>>>(args) becomes a call, each extern __shared__ array a pointer\n"
			"to the dynamic shared memory; every line stays where it was.\n");
		return help ? 0 : EXIT_USAGE;
	}
	src = read_file(argv[1], NULL);
	if (!src)
		return EXIT_USAGE;
	copy = xstrdup(argv[1]);
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
