/*
 * safety-report.c - reading the safety stage's tools (safety.h).
 *
 * Owns: what one run of compute-sanitizer (or of the emulator's checking
 * build, which writes in the same form) printed: its reports, each a
 * finding of the test whose marker came before it, and which tests the run
 * went past. Pure: no I/O, no process, no result; safety.c runs the tools
 * and turns what this reads into verdicts.
 *
 * Must not: trust anything else in the output: the submission's own text
 * shares it, and only the tool's "=========" lines and the harness's
 * markers are read.
 */
#include "safety.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ parsing */

/* "matmul_k5_kernel(const float *, ...)+0xc0 in /w/x/matmul.cu:45" -> kernel, "matmul.cu:45" */
static void site(const char *s, char *kernel, size_t klen, char *where, size_t wlen)
{
	const char *in = strstr(s, " in ");
	size_t n;

	if (!strncmp(s, "void ", 5))   /* a template kernel's name has its return type */
		s += 5;
	n = strcspn(s, "(+ <");

	snprintf(kernel, klen, "%.*s", (int)n, s);
	if (in) {
		const char *file = in + 4, *slash = strrchr(file, '/');
		if (slash)
			file = slash + 1;
		snprintf(where, wlen, "%.*s", (int)strcspn(file, " \n"), file);
	} else {
		snprintf(where, wlen, "an unknown line");
	}
}

/* head and second hold a race's two accesses, whose names (a lambda in a
 * template of cooperative groups) run to a few hundred characters */
struct record {
	char head[2048], at[2048], by[128], what[256], near[256], second[2048];
};

static void add_finding(struct safety_output *out, const char *test, const char *tool,
			char *text)
{
	for (size_t i = 0; i < out->nfindings; i++)
		if (!strcmp(out->findings[i].test, test) && !strcmp(out->findings[i].tool, tool)) {
			out->findings[i].count++;
			free(text);
			return;
		}
	out->findings = xrealloc(out->findings, (out->nfindings + 1) * sizeof(*out->findings));
	out->findings[out->nfindings++] = (struct safety_finding){xstrdup(test), xstrdup(tool),
								   text, 1};
}

/* One finished report, in a student's words; NULL for what is not one. */
static char *describe(const struct record *r)
{
	char kernel[128], where[160], kernel2[128], where2[160];
	unsigned size = 0;
	char space[32] = "", access[16] = "";

	site(r->at, kernel, sizeof(kernel), where, sizeof(where));
	if (sscanf(r->head, "Invalid __%31[a-z]__ %15s of size %u", space, access, &size) == 3) {
		if (strstr(r->what, "is a __device__ variable"))
			return xasprintf("the host's code %s a __device__ variable by name (%u bytes at "
					 "%s): on a GPU the host reaches only its own copy of it, "
					 "never what a kernel wrote there (nvcc warns of it)\nhint: "
					 "copy it with cudaMemcpyFromSymbol or cudaMemcpyToSymbol",
					 !strcmp(access, "write") ? "wrote" : "read", size, where);
		if (strstr(r->what, "is host memory"))
			return xasprintf("host-memory %s of %u bytes at %s in kernel %s, %s: a "
					 "kernel on a GPU cannot reach host memory (there the kernel "
					 "faults, with an illegal address)\nhint: copy the host's "
					 "arrays into device memory (cudaMalloc, cudaMemcpy) and give "
					 "the kernel the device pointers", access, size, where, kernel,
					 *r->by ? r->by : "a thread");
		const char *kind = strstr(r->what, "misaligned") ? "misaligned"
				   : strstr(r->what, "out of bounds") ? "out-of-bounds" : "invalid";
		char near[200] = "";
		unsigned long dist, bytes;
		char side[16];
		if (sscanf(r->near, "and is %lu bytes %15s the nearest allocation at %*s of size %lu",
			   &dist, side, &bytes) == 3)
			snprintf(near, sizeof(near), " (%lu byte%s %s a %lu-byte buffer)", dist,
				 dist == 1 ? "" : "s",
				 !strcmp(side, "after") ? "past the end of" : "before the start of",
				 bytes);
		return xasprintf("%s %s of %u bytes of %s memory%s at %s in kernel %s, %s", kind,
				 access, size, space, near, where, kernel,
				 *r->by ? r->by : "a thread");
	}
	if (strstr(r->head, "Race reported between")) {
		const char *a = strstr(r->head, "between ") + 8, *b = r->second;
		char first[16] = "", second[16] = "";
		sscanf(a, "%15s", first);
		if (!strncmp(b, "and ", 4))
			b += 4;
		sscanf(b, "%15s", second);
		const char *at1 = strstr(a, " at "), *at2 = strstr(b, " at ");
		site(at1 ? at1 + 4 : a, kernel, sizeof(kernel), where, sizeof(where));
		site(at2 ? at2 + 4 : b, kernel2, sizeof(kernel2), where2, sizeof(where2));
		const char *hz = strchr(b, '[');
		return xasprintf("%sa data race on shared memory in kernel %s: a %s at %s and a %s "
				 "at %s by different threads with no barrier between them%s%.*s\n"
				 "hint: a thread may read what another wrote only after both "
				 "passed a __syncthreads() (within one warp, __syncwarp())",
				 !strncmp(r->head, "Warning", 7) ? "(possible) " : "", kernel,
				 first[0] ? first : "access", where, second[0] ? second : "access",
				 where2, hz ? " " : "", hz ? (int)strcspn(hz, "\n") : 0, hz ? hz : "");
	}
	if (strstr(r->head, "Barrier error"))
		return xasprintf("a barrier error (%s) at %s in kernel %s, %s\nhint: every thread "
				 "of the block must reach every __syncthreads(): guard the work, "
				 "not the barrier", strstr(r->head, "Divergent") ? "a __syncthreads() "
				 "some threads of a warp do not reach" : r->head, where, kernel,
				 *r->by ? r->by : "a thread");
	return NULL;
}

/* The headers of the toolkit's cooperative groups (CUDA 13.0: include/
 * cooperative_groups.h and include/cooperative_groups/, details/ too). */
static const char *const cg_headers[] = {
	"cooperative_groups.h", "memcpy_async.h", "reduce.h", "scan.h", "async.h",
	"coalesced_reduce.h", "coalesced_scan.h", "driver_abi.h", "functional.h", "helpers.h",
	"info.h", "invoke.h", "memory.h", "partitioning.h", "sync.h"};

bool safety_toolkit_race(const char *access, const struct strlist *own)
{
	const char *in = access ? strstr(access, " in ") : NULL;
	if (!in || !memmem(access, (size_t)(in - access), "cooperative_groups::", 20))
		return false;
	char *file = xstrndup(in + 4, strcspn(in + 4, " \n")), *colon = strrchr(file, ':');
	if (colon)
		*colon = '\0';   /* the line */
	const char *slash = strrchr(file, '/'), *base = slash ? slash + 1 : file;
	bool toolkit = false;
	for (size_t i = 0; i < sizeof(cg_headers) / sizeof(cg_headers[0]); i++)
		toolkit |= !strcmp(base, cg_headers[i]);
	if (slash && !strstr(file, "/cooperative_groups/") && strcmp(base, "cooperative_groups.h"))
		toolkit = false;
	for (size_t i = 0; own && i < own->n && toolkit; i++) {
		const char *o = strrchr(own->v[i], '/');
		toolkit = strcmp(base, o ? o + 1 : own->v[i]) != 0;
	}
	free(file);
	return toolkit;
}

/* Both accesses of a race report are the toolkit's cooperative groups'. */
static bool toolkit_race(const struct record *r, const struct strlist *own)
{
	const char *a = strstr(r->head, "Race reported between ");
	const char *at1 = a ? strstr(a, " at ") : NULL;
	const char *at2 = strstr(r->second, " at ");
	return at1 && at2 && safety_toolkit_race(at1, own) && safety_toolkit_race(at2, own);
}

/* The tool a report is of, by what it reports (the emulator's checks make all three kinds). */
static const char *tool_of(const struct record *r)
{
	return !strncmp(r->head, "Invalid ", 8) ? "memcheck"
	       : strstr(r->head, "Race reported") ? "racecheck" : "synccheck";
}

/* A finished report r of test's: a finding of tool's (NULL: told by its
 * kind), or counted as the toolkit's race, or nothing (not a report). */
static void end_report(struct safety_output *out, const char *test, const char *tool,
		       const struct record *r, const struct strlist *own)
{
	if (toolkit_race(r, own)) {
		out->toolkit_races++;
		return;
	}
	char *text = describe(r);
	if (text)
		add_finding(out, test, tool ? tool : tool_of(r), text);
}

void safety_parse(const char *output, const char *tool, const char *token,
		  const struct strlist *own, struct safety_output *out)
{
	struct record rec;
	const char *line = output;
	char *test = NULL;
	bool open = false;
	/* the harness's markers, with the grader's token: the runner writes into
	 * the same stream, and no line of its counts as one */
	char *start = xasprintf("@@cudalab-safety:%s ", token);
	char *done = xasprintf("@@cudalab-safety-end:%s", token);
	char *lost = xasprintf("@@cudalab-safety-lost:%s", token);
	size_t start_len = strlen(start);

	memset(out, 0, sizeof(*out));
	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *l = xstrndup(line, len);
		const char *body = l + strspn(l, "= ");
		bool report = !strncmp(l, "=========", 9);

		if (report && (!strncmp(body, "COMPUTE-SANITIZER", 17) ||
			       !strncmp(body, "CUDALAB-EMULATOR", 16))) {
			out->banner = true;
		} else if (!strncmp(l, start, start_len) || !strcmp(l, done) || !strcmp(l, lost) ||
			   (report && !*body) ||
			   (report && open && (!strncmp(body, "Invalid ", 8) ||
					       strstr(body, "Race reported") ||
					       strstr(body, "Barrier error")))) {
			/* the end of a report: a blank report line, the next one or test */
			if (open && test)
				end_report(out, test, tool, &rec, own);
			open = false;
			if (!strncmp(l, start, start_len)) {
				free(test);
				test = xstrdup(l + start_len);
				strlist_push(&out->started, test);
				out->closed = false;
			} else if (!strcmp(l, done)) {
				out->ended = out->closed = true;
			} else if (!strcmp(l, lost)) {
				out->closed = out->lost = true;
			}
		}
		if (report && *body && !open &&
		    (!strncmp(body, "Invalid ", 8) || strstr(body, "Race reported") ||
		     strstr(body, "Barrier error"))) {
			memset(&rec, 0, sizeof(rec));
			snprintf(rec.head, sizeof(rec.head), "%s", body);
			if (strstr(body, "Race reported") && strstr(body, " at "))
				snprintf(rec.at, sizeof(rec.at), "%s", strstr(body, " at ") + 4);
			open = true;
		} else if (report && open && !strncmp(body, "at ", 3) && !*rec.at) {
			snprintf(rec.at, sizeof(rec.at), "%s", body + 3);
		} else if (report && open && !strncmp(body, "by thread ", 10)) {
			unsigned tx, ty, tz, bx, by, bz;
			if (sscanf(body, "by thread (%u,%u,%u) in block (%u,%u,%u)", &tx, &ty, &tz, &bx,
				   &by, &bz) == 6)
				snprintf(rec.by, sizeof(rec.by), "thread (%u,%u,%u) of block (%u,%u,%u)",
					 tx, ty, tz, bx, by, bz);
		} else if (report && open && (!strncmp(body, "Access to ", 10) ||
					      !strncmp(body, "Address ", 8))) {
			snprintf(rec.what, sizeof(rec.what), "%s", body);
		} else if (report && open && !strncmp(body, "and is ", 7)) {
			snprintf(rec.near, sizeof(rec.near), "%s", body);
		} else if (report && open && !strncmp(body, "and ", 4)) {
			snprintf(rec.second, sizeof(rec.second), "%s", body);
		}
		free(l);
		line = end ? end + 1 : NULL;
	}
	if (open && test)
		end_report(out, test, tool, &rec, own);
	out->last = test;
	free(start);
	free(done);
	free(lost);
}

void safety_output_release(struct safety_output *out)
{
	for (size_t i = 0; i < out->nfindings; i++) {
		free(out->findings[i].test);
		free(out->findings[i].tool);
		free(out->findings[i].text);
	}
	free(out->findings);
	free(out->last);
	strlist_clear(&out->started);
	memset(out, 0, sizeof(*out));
}

bool safety_lost_unexplained(const struct safety_output *o)
{
	if (!o->lost || !o->started.n)
		return false;
	for (size_t i = 0; i < o->nfindings; i++)
		if (o->findings[i].test && !strcmp(o->findings[i].test, o->started.v[o->started.n - 1]))
			return false;
	return true;
}

const char *safety_covered(const struct strlist *left, const struct safety_output *o,
			  bool clean, struct strlist *again)
{
	const char *stuck = NULL, *verdict = NULL;

	*again = (struct strlist)STRLIST_INIT;
	if (o->started.n && (!(o->closed && clean) || safety_lost_unexplained(o)))
		stuck = o->started.v[o->started.n - 1];
	for (size_t t = 0; t < left->n; t++) {
		const char *test = left->v[t];
		if (stuck && !strcmp(test, stuck)) {
			if (t > 0)   /* again, first, alone: what ran before it may be to blame */
				strlist_push(again, test);
			else
				verdict = test;
		} else if (!strlist_has(&o->started, test)) {
			strlist_push(again, test);   /* not reached */
		}
	}
	return verdict;
}

