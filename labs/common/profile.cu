/*
 * profile.cu - the profile driver's engine (see profile.h): each call once,
 * between cl_ledger_begin and cl_ledger_end, and one line for it.
 *
 * On the CPU emulator's trace runtime, cudaemu_trace_take() gives the
 * call's load and store requests and the 32-byte sectors they touched; on a
 * GPU the counts come from Nsight Compute, which profiles the kernels in
 * launch order, so each line says how many kernels its call launched.
 */
#include "cudalab.h"
#include "profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef CUDAEMU
extern "C" int cudaemu_trace_take(unsigned long long out[4]);
#endif

static void usage(const char *lab)
{
	fprintf(stderr,
		"usage: profile_%s --out FILE [--call NAME]...\n"
		"Calls each named launcher of the submission once (all when none is named)\n"
		"and writes one JSON line per call. Standard input gives 'token=T'.\n",
		lab);
}

/* A CUDA error's text as a JSON string's content: it never holds quotes or
 * control characters, but a backslash is escaped all the same. */
static void put_text(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
}

static bool wanted(const char *name, char **names, int n)
{
	if (!n)
		return true;
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static int profile_main(const struct cl_profile_lab *lab, int argc, char **argv)
{
	const char *out_path = NULL;
	char **names = (char **)calloc(argc, sizeof(char *)), token[300] = "", line[300],
	     why[512] = "";
	int nnames = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc) {
			usage(lab->name);
			return 2;
		}
		if (!strcmp(argv[i], "--out")) {
			out_path = argv[++i];
		} else if (!strcmp(argv[i], "--call")) {
			bool known = false;
			for (size_t c = 0; c < lab->ncalls; c++)
				known |= !strcmp(lab->calls[c].name, argv[i + 1]);
			if (!known) {
				fprintf(stderr, "profile_%s: no call '%s'\n", lab->name, argv[i + 1]);
				return 2;
			}
			names[nnames++] = argv[++i];
		} else {
			usage(lab->name);
			return 2;
		}
	}
	if (!out_path) {
		usage(lab->name);
		return 2;
	}
	while (fgets(line, sizeof(line), stdin))
		if (!strncmp(line, "token=", 6)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(token, sizeof(token), "%s", line + 6);
		}
	if (strspn(token, "0123456789abcdef") != strlen(token)) {
		fprintf(stderr, "profile_%s: the token must be hexadecimal\n", lab->name);
		return 2;
	}
	FILE *out = fopen(out_path, "w");
	if (!out) {
		fprintf(stderr, "profile_%s: cannot write '%s': %s\n", lab->name, out_path,
			strerror(errno));
		return 3;
	}
	void *ctx = lab->setup(why, sizeof(why));
	if (!ctx) {
		fprintf(out, "{\"token\":\"%s\",\"type\":\"device\",\"status\":\"unavailable\","
			"\"message\":\"", token);
		put_text(out, why);
		fputs("\"}\n", out);
		fclose(out);
		return 3;
	}
	fprintf(out, "{\"token\":\"%s\",\"type\":\"device\",\"status\":\"ok\"}\n", token);
	fflush(out);

	for (size_t c = 0; c < lab->ncalls; c++) {
		const struct cl_profile_call *call = &lab->calls[c];
		unsigned long long counts[4] = {0, 0, 0, 0};
		if (!wanted(call->name, names, nnames))
			continue;
		cudaDeviceSynchronize();   /* idle before the call: setup left nothing running */
#ifdef CUDAEMU
		cudaemu_trace_take(counts);   /* nothing before the call counts */
#endif
		cl_ledger_begin();
		call->run(ctx);
		cudaError_t err = cudaGetLastError(), s = cudaDeviceSynchronize();
		const struct cl_ledger *l = cl_ledger_end();
		if (err == cudaSuccess)
			err = s;
		int traced = -1;
#ifdef CUDAEMU
		traced = cudaemu_trace_take(counts);
#endif
		fprintf(out, "{\"token\":\"%s\",\"type\":\"call\",\"name\":\"%s\",\"status\":\"%s\","
			"\"launches\":%d", token, call->name, err == cudaSuccess ? "ok" : "error",
			l->nlaunches);
		if (err != cudaSuccess) {
			fputs(",\"message\":\"", out);
			put_text(out, cudaGetErrorName(err));
			fputs(": ", out);
			put_text(out, cudaGetErrorString(err));
			fputc('"', out);
		}
		if (!traced)
			fprintf(out, ",\"trace\":{\"load_requests\":%llu,\"load_sectors\":%llu,"
				"\"store_requests\":%llu,\"store_sectors\":%llu}",
				counts[0], counts[1], counts[2], counts[3]);
		fputs("}\n", out);
		fflush(out);
		if (err != cudaSuccess)
			break;   /* the context may be unusable now */
	}
	lab->teardown(ctx);
	fprintf(out, "{\"token\":\"%s\",\"type\":\"end\"}\n", token);
	fclose(out);
	free(names);
	return 0;
}

/* Ends with _exit(), as the test harness does (cl_main): nothing of the submission's after its calls. */
int cl_profile_main(const struct cl_profile_lab *lab, int argc, char **argv)
{
	int status = profile_main(lab, argc, argv);

	fflush(NULL);
	_exit(status);
}
