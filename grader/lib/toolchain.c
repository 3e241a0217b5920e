/*
 * toolchain.c - reads build/toolchain.conf (toolchain.h).
 *
 * Owns: the file's format and the defaults of keys it lacks. Must not run
 * any of the tools it names.
 */
#include "toolchain.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int toolchain_handler(void *user, const char *section, const char *key, const char *value)
{
	struct toolchain *tc = user;
	char **field = !strcmp(key, "root")         ? &tc->root
		       : !strcmp(key, "build")      ? &tc->build
		       : !strcmp(key, "nvcc")       ? &tc->nvcc
		       : !strcmp(key, "cxx")        ? &tc->cxx
		       : !strcmp(key, "nm")         ? &tc->nm
		       : !strcmp(key, "readelf")    ? &tc->readelf
		       : !strcmp(key, "objdump")    ? &tc->objdump
		       : !strcmp(key, "objcopy")    ? &tc->objcopy
		       : !strcmp(key, "nvcc_flags") ? &tc->nvcc_flags
		       : !strcmp(key, "probe")      ? &tc->probe
		       : !strcmp(key, "emu_cxxflags") ? &tc->emu_cxxflags
		       : !strcmp(key, "emu_asan_cxxflags") ? &tc->emu_asan_cxxflags
		       : !strcmp(key, "emu_trace_cxxflags") ? &tc->emu_trace_cxxflags
		       : !strcmp(key, "ncu")        ? &tc->ncu
						    : NULL;
	if (!field)
		return 1;  /* newer keys from a newer Makefile are harmless */
	free(*field);
	*field = xstrdup(value);
	return 1;
}

int toolchain_load(const char *build_dir, struct toolchain *tc)
{
	char *path = xasprintf("%s/toolchain.conf", build_dir);
	int ret;

	memset(tc, 0, sizeof(*tc));
	/*
	 * Read line by line here, not with inih: its lines are at most 200
	 * bytes, and the emulator's flags hold the checkout's path, which can
	 * be longer than that in a deep folder.
	 */
	char *text = read_file(path, NULL);
	if (!text) {
		error("cannot read '%s': run make first", path);
		free(path);
		return -1;
	}
	ret = 0;
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line += strspn(line, " \t");
		if (!*line || *line == ';' || *line == '#' || *line == '[')
			continue;
		char *eq = strchr(line, '='), *end;
		if (!eq) {
			ret = error("%s: '%s' is not 'key = value': run make again", path, line);
			break;
		}
		for (end = eq; end > line && (end[-1] == ' ' || end[-1] == '\t'); end--)
			;
		*end = '\0';
		char *value = eq + 1 + strspn(eq + 1, " \t");
		for (end = value + strlen(value); end > value && strchr(" \t\r", end[-1]); end--)
			;
		*end = '\0';
		toolchain_handler(tc, "toolchain", line, value);
	}
	free(text);
	free(path);
	if (ret)
		return -1;
	/*
	 * A build folder copied or moved with its checkout (cp -a) still names
	 * the old one's paths: its cudalab would grade, and write new labs,
	 * there. The folder the file was written for must be this one.
	 */
	struct stat was, is;
	if (tc->build && (stat(tc->build, &was) || stat(build_dir, &is) || was.st_dev != is.st_dev ||
			  was.st_ino != is.st_ino))
		return error("%s/toolchain.conf was written for the build folder '%s', not this "
			     "one (a copy or a move of a checkout): run make in this checkout",
			     build_dir, tc->build);
	free(tc->build);
	tc->build = xstrdup(build_dir);
	if (!tc->root || !tc->nvcc || !tc->probe)
		return error("%s/toolchain.conf is incomplete: run make again", build_dir);
	if (!tc->cxx)
		tc->cxx = xstrdup("g++");
	if (!tc->nm)
		tc->nm = xstrdup("nm");
	if (!tc->readelf)
		tc->readelf = xstrdup("readelf");
	if (!tc->objdump)
		tc->objdump = xstrdup("objdump");
	if (!tc->objcopy)
		tc->objcopy = xstrdup("objcopy");
	if (!tc->nvcc_flags)
		tc->nvcc_flags = xstrdup("");
	return 0;
}

void toolchain_free(struct toolchain *tc)
{
	free(tc->root);
	free(tc->build);
	free(tc->nvcc);
	free(tc->cxx);
	free(tc->nm);
	free(tc->readelf);
	free(tc->objdump);
	free(tc->objcopy);
	free(tc->nvcc_flags);
	free(tc->probe);
	free(tc->emu_cxxflags);
	free(tc->emu_asan_cxxflags);
	free(tc->emu_trace_cxxflags);
	free(tc->ncu);
	memset(tc, 0, sizeof(*tc));
}
