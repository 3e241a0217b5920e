/*
 * profile.c - the profile step (docs/DESIGN.md "safety" and the coalescing lab):
 * after the correctness tests and the timing, the lab's profile driver
 * (labs/<lab>/tests/profile_<lab>.cu) calls each profiled launcher once.
 * On a GPU it runs under Nsight Compute, which counts the global load and
 * store requests of every kernel and the 32-byte sectors they touched; the
 * driver says how many kernels each call launched, so the kernels, profiled
 * in launch order, are attributed to their calls. On the CPU emulator's
 * trace runtime the driver counts them itself.
 *
 * Must not: trust the driver beyond its lines with this run's token, or
 * change the GPU's clocks (ncu runs with --clock-control none).
 */
#include "profile.h"

#include "grading.h"
#include "run.h"
#include "timing.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const profile_metrics[4] = {
	"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
};

static const struct lab_sectors *sectors_of(const struct lab_config *cfg,
					    const struct graded_test *t)
{
	for (size_t i = 0; i < cfg->nsectors; i++)
		if (!strcmp(cfg->sectors[i].part, t->part) && !strcmp(cfg->sectors[i].name, t->name))
			return &cfg->sectors[i];
	return NULL;
}

static bool pending(const struct graded_test *t)
{
	return t->kind == KIND_SECTORS && t->status == TEST_NOT_RUN && !t->message;
}

size_t profile_plan(const struct lab_config *cfg, struct result *r)
{
	size_t left = 0;

	for (size_t i = 0; i < r->ntests; i++) {
		struct graded_test *t = &r->tests[i];
		if (!pending(t))
			continue;
		if (!result_part_passed(r, t->part))
			result_set_verdict(t, TEST_FAIL,
				    xasprintf("not profiled: part %s must pass all its correctness "
					      "tests first", t->part));
		else if (r->mode == MODE_GPU || r->mode == MODE_EMULATED)
			left++;
		else
			result_set_verdict(t, TEST_NOT_RUN,
				    xstrdup("not run: counting memory requests needs a GPU or the "
					    "CPU emulator"));
	}
	(void)cfg;
	return left;
}

void profile_without_counters(const struct lab_config *cfg, struct result *r, const char *why)
{
	for (size_t i = 0; i < r->ntests; i++) {
		struct graded_test *t = &r->tests[i];
		const struct lab_sectors *ls = sectors_of(cfg, t);
		if (!pending(t) || !ls)
			continue;
		const struct graded_test *j = NULL;
		for (size_t k = 0; k < r->ntests && ls->judge; k++)
			if (!strcmp(r->tests[k].part, t->part) && !strcmp(r->tests[k].name, ls->judge))
				j = &r->tests[k];
		if (!j || j->status == TEST_NOT_RUN) {
			result_set_verdict(t, TEST_NOT_RUN, xasprintf("not run: %s", why));
			continue;
		}
		result_set_verdict(t, j->status == TEST_PASS ? TEST_PASS : TEST_FAIL,
			    xasprintf("no counters (%s): judged by %s alone, which %s", why,
				      ls->judge, j->status == TEST_PASS ? "passed" : "did not pass"));
	}
}

/* ------------------------------------------------------------ ncu's CSV */

/* The fields of one CSV line (quoted, "" for a quote), into f; how many. */
static size_t csv_fields(const char *line, size_t len, struct strlist *f)
{
	strlist_clear(f);
	for (size_t i = 0; i <= len;) {
		char *v = xmalloc(len + 1);
		size_t n = 0;
		if (i < len && line[i] == '"') {
			for (i++; i < len; i++) {
				if (line[i] == '"' && i + 1 < len && line[i + 1] == '"')
					v[n++] = line[i++];
				else if (line[i] == '"')
					break;
				else
					v[n++] = line[i];
			}
			i++;   /* the closing quote */
		}
		while (i < len && line[i] != ',')
			v[n++] = line[i++];
		v[n] = '\0';
		strlist_push(f, v);
		free(v);
		i++;
	}
	return f->n;
}

static long field_index(const struct strlist *header, const char *name)
{
	for (size_t i = 0; i < header->n; i++)
		if (!strcmp(header->v[i], name))
			return (long)i;
	return -1;
}

long profile_read_ncu_csv(const char *text, unsigned long long (**counts)[4], char **why)
{
	struct strlist header = STRLIST_INIT, f = STRLIST_INIT;
	long id_col = -1, name_col = -1, value_col = -1, n = 0;

	*counts = NULL;
	*why = NULL;
	for (const char *l = text; l && *l;) {
		size_t len = strcspn(l, "\n");
		const char *line = l;
		l += len + (l[len] == '\n');
		if (len && line[len - 1] == '\r')
			len--;
		if (!len || line[0] != '"') {
			/* ncu's own messages: an error says why nothing was counted */
			if (!*why && !strncmp(line, "==ERROR==", 9))
				*why = xasprintf("Nsight Compute: %.*s", (int)(len > 300 ? 300 : len),
						 line + 10);
			continue;
		}
		if (id_col < 0) {
			csv_fields(line, len, &header);
			id_col = field_index(&header, "ID");
			name_col = field_index(&header, "Metric Name");
			value_col = field_index(&header, "Metric Value");
			if (id_col < 0 || name_col < 0 || value_col < 0) {
				free(*why);
				*why = xstrdup("Nsight Compute's CSV has no ID, Metric Name or "
					       "Metric Value column");
				n = -1;
				break;
			}
			continue;
		}
		if (csv_fields(line, len, &f) <= (size_t)value_col)
			continue;
		long id = atol(f.v[id_col]);
		int m = -1;
		for (int k = 0; k < 4; k++)
			if (!strcmp(f.v[name_col], profile_metrics[k]))
				m = k;
		if (m < 0 || id < 0 || id > 1000000)
			continue;
		if (id >= n) {
			*counts = xrealloc(*counts, (id + 1) * sizeof(**counts));
			memset(*counts + n, 0, (id + 1 - n) * sizeof(**counts));
			n = id + 1;
		}
		char digits[64];
		size_t d = 0;
		for (const char *c = f.v[value_col]; *c && d + 1 < sizeof(digits); c++)
			if (*c != ',')   /* thousands separators */
				digits[d++] = *c;
		digits[d] = '\0';
		(*counts)[id][m] = strtoull(digits, NULL, 10);
	}
	strlist_clear(&header);
	strlist_clear(&f);
	if (n <= 0 && !*why)
		*why = xstrdup("Nsight Compute profiled no kernel");
	return n > 0 ? n : -1;
}

/* ------------------------------------------------------------- scoring */

static double per_request(unsigned long long sectors, unsigned long long requests)
{
	return requests ? (double)sectors / requests : NAN;
}

static void score(const struct lab_sectors *ls, struct graded_test *t)
{
	const struct sectors_measure *m = t->sectors;
	double ld = per_request(m->load_sectors, m->load_requests);
	double st = per_request(m->store_sectors, m->store_requests);
	bool ok = (!ls->max_load || !(ld > ls->max_load)) && (!ls->max_store || !(st > ls->max_store));
	char a[32], b[32];

	snprintf(a, sizeof(a), isfinite(ld) ? "%.2f" : "no", ld);
	snprintf(b, sizeof(b), isfinite(st) ? "%.2f" : "no", st);
	char *figures = xasprintf("%s: global loads %s and stores %s sectors per request (%s: "
				  "%llu load and %llu store requests)",
				  m->call, a, b, m->source, m->load_requests, m->store_requests);
	if (ok) {
		result_set_verdict(t, TEST_PASS, figures);
		return;
	}
	result_set_verdict(t, TEST_FAIL,
		    xasprintf("%s\nat most %g for loads and %g for stores here: a warp whose 32 "
			      "threads read 32 consecutive floats needs 4 sectors of 32 bytes, one "
			      "whose threads are far apart needs 32\nhint: consecutive threads "
			      "(threadIdx.x) should touch consecutive addresses",
			      figures, ls->max_load, ls->max_store));
	free(figures);
}

/* ------------------------------------------------------------- running */


/* The driver's line for call, or NULL; borrowed from lines. */
static json_t *call_line(json_t *lines, const char *call)
{
	size_t i;
	json_t *o;
	json_array_foreach(lines, i, o)
	{
		json_t *name = json_object_get(o, "name");
		if (json_is_string(name) && !strcmp(json_string_value(name), call))
			return o;
	}
	return NULL;
}

static unsigned long long count_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) && json_integer_value(v) > 0 ? (unsigned long long)json_integer_value(v)
							       : 0;
}

/*
 * What the run said: the driver's call lines (with the token), and whether
 * it got its device (if not, why, in *device_why). A call that is missing
 * says by itself where the driver stopped.
 */
static json_t *read_lines(const char *text, const char *token, bool *device_ok,
			  char **device_why)
{
	json_t *calls = json_array(), *o;
	const char *ty;

	*device_ok = false;
	while ((o = driver_next_line(&text, token, &ty))) {
		if (!strcmp(ty, "device")) {
			json_t *st = json_object_get(o, "status"), *msg = json_object_get(o, "message");
			*device_ok = json_is_string(st) && !strcmp(json_string_value(st), "ok");
			if (!*device_ok && json_is_string(msg) && !*device_why)
				*device_why = xstrdup(json_string_value(msg));
		} else if (!strcmp(ty, "call")) {
			json_array_append(calls, o);
		}
		json_decref(o);
	}
	return calls;
}

int profile_run(const struct lab_config *cfg, const char *workdir, const char *binary,
		const char *ncu, const char *const *env, const struct sandbox *sb,
		struct result *r)
{
	struct strlist argv = STRLIST_INIT;
	char token[33];
	struct run_result res;
	json_t *calls = NULL;
	unsigned long long(*kernels)[4] = NULL;
	char *out, *log = NULL, *text = NULL, *input = NULL, *why = NULL, *device_why = NULL;
	bool device_ok;
	int ret;

	random_token(token);
	out = xasprintf("%s/profile-%s.jsonl", workdir, token);
	if (ncu)
		log = xasprintf("%s/ncu-%s.csv", workdir, token);
	/* its outputs: the only files it may write that outlive its sandbox */
	const char *writable[] = {out, log, NULL};
	for (int i = 0; writable[i]; i++)
		if (write_file_atomic(writable[i], "", 0) || sandbox_own(sb, writable[i])) {
			ret = error("cannot make the profile driver's output file");
			goto out;
		}
	if (ncu) {
		strlist_push(&argv, ncu);
		strlist_push(&argv, "--csv");
		strlist_push(&argv, "--print-units");
		strlist_push(&argv, "base");
		strlist_push(&argv, "--clock-control");
		strlist_push(&argv, "none");   /* the GPU's clocks are left as they are */
		strlist_push(&argv, "--log-file");
		strlist_push(&argv, log);
		strlist_push(&argv, "--metrics");
		strlist_pushf(&argv, "%s,%s,%s,%s", profile_metrics[0], profile_metrics[1],
			      profile_metrics[2], profile_metrics[3]);
	}
	strlist_push(&argv, binary);
	strlist_push(&argv, "--out");
	strlist_push(&argv, out);
	for (size_t i = 0; i < r->ntests; i++)
		if (pending(&r->tests[i]))
			strlist_push(&argv, "--call"), strlist_push(&argv, r->tests[i].sectors->call);
	input = xasprintf("token=%s\n", token);
	struct run_spec spec = {
		.argv = (const char *const *)argv.v,
		.envp = env,
		.cwd = workdir,
		.input = input,
		.timeout = cfg->run_timeout * (ncu ? 1 : cfg->emulation_slowdown),
		.sandbox = sb,
		.writable = writable,
	};
	lab_run_limits(cfg, ncu ? 1 : cfg->emulation_slowdown, &spec);
	progress("counting the memory requests of %s ...",
		 ncu ? "the kernels with Nsight Compute" : "the kernels on the CPU emulator");
	ret = run_one(&spec, &res);
	if (ret)
		goto out;
	if (!res.started) {
		ret = error("cannot run the profile driver: %s", res.output);
		goto out;
	}
	text = access(out, R_OK) ? NULL : read_file(out, NULL);
	calls = read_lines(text, token, &device_ok, &device_why);
	char *fate = run_describe(&spec, &res);
	long nkernels = 0;
	if (ncu) {
		char *csv = log && !access(log, R_OK) ? read_file(log, NULL) : NULL;
		nkernels = profile_read_ncu_csv(csv ? csv : "", &kernels, &why);
		free(csv);
	}
	if (!device_ok) {
		char *w = xasprintf("the profile driver %s before its first call%s%s",
				    fate, device_why ? ": " : "", device_why ? device_why : "");
		profile_without_counters(cfg, r, w);
		free(w);
		goto done;
	}
	/* each call's kernels, in launch order */
	size_t i;
	json_t *o;
	long next = 0;
	json_array_foreach(calls, i, o)
	{
		long k = (long)count_of(o, "launches");
		json_object_set_new(o, "first_kernel", json_integer(next));
		next += k;
	}
	if (ncu && nkernels != next) {
		/* what ncu said names the submission's kernels */
		char *w = why ? visible_str(why, false)
			      : xasprintf("Nsight Compute profiled %ld kernels, the calls "
					  "launched %ld", nkernels, next);
		profile_without_counters(cfg, r, w);
		free(w);
		goto done;
	}
	for (size_t t = 0; t < r->ntests; t++) {
		struct graded_test *g = &r->tests[t];
		const struct lab_sectors *ls = sectors_of(cfg, g);
		if (!pending(g) || !ls)
			continue;
		struct sectors_measure *m = g->sectors;
		json_t *line = call_line(calls, m->call), *trace = json_object_get(line, "trace");
		json_t *status = json_object_get(line, "status"), *msg = json_object_get(line, "message");
		if (!line) {
			result_set_verdict(g, res.timed_out ? TEST_TIMEOUT : TEST_CRASH,
				    xasprintf("the profile driver %s before calling %s", fate, m->call));
			continue;
		}
		if (!json_is_string(status) || strcmp(json_string_value(status), "ok")) {
			result_set_verdict(g, TEST_CRASH,
				    xasprintf("%s failed when profiled: %s", m->call,
					      json_is_string(msg) ? json_string_value(msg) : "?"));
			continue;
		}
		if (ncu) {
			long first = (long)json_integer_value(json_object_get(line, "first_kernel"));
			long k = (long)count_of(line, "launches");
			for (long j = first; j < first + k; j++) {
				m->load_requests += kernels[j][0];
				m->load_sectors += kernels[j][1];
				m->store_requests += kernels[j][2];
				m->store_sectors += kernels[j][3];
			}
			m->source = "Nsight Compute";
		} else if (json_is_object(trace)) {
			m->load_requests = count_of(trace, "load_requests");
			m->load_sectors = count_of(trace, "load_sectors");
			m->store_requests = count_of(trace, "store_requests");
			m->store_sectors = count_of(trace, "store_sectors");
			m->source = "the emulator's trace";
		} else {
			result_set_verdict(g, TEST_NOT_RUN,
				    xstrdup("not run: the emulator's runtime is not the trace runtime"));
			continue;
		}
		m->measured = true;
		score(ls, g);
	}
done:
	free(fate);
	run_result_release(&res);
out:
	json_decref(calls);
	free(kernels);
	free(text);
	free(input);
	free(out);
	free(log);
	free(why);
	free(device_why);
	strlist_clear(&argv);
	return ret;
}
