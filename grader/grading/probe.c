/*
 * probe.c - the GPU probe's answers (probe.h).
 *
 * Owns: reading what the probe printed (key=value lines) and the driver's
 * version, and deciding from the probe alone whether a GPU is there or
 * lost. Must not: trust anything the submission printed.
 */
#include "probe.h"
#include "../../labs/common/harness-words.h"   /* CL_NO_CONTEXT: the harness's words */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROBE_TIMEOUT 60

void probe_spec(const struct grading *g, const char *argv[2], struct run_spec *spec)
{
	argv[0] = g->tc->probe;
	argv[1] = NULL;
	*spec = (struct run_spec){.argv = argv, .envp = (const char *const *)g->env,
				  .timeout = PROBE_TIMEOUT, .output_limit = 4096};
}

static char *probe_value(const char *out, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, n) && l[n] == '=')
			return xstrndup(l + n + 1, strcspn(l + n + 1, "\n"));
	return NULL;
}

char *parse_driver_version(const char *text)
{
	const char *p = text ? strstr(text, "Kernel Module") : NULL;

	for (; p && *p && *p != '\n'; p += strcspn(p, " \t\n")) {
		p += strspn(p, " \t");
		size_t n = strspn(p, "0123456789.");
		if (n && n == strcspn(p, " \t\n") && memchr(p, '.', n))
			return xstrndup(p, n);
	}
	return NULL;
}

/* The kernel driver's version, from /proc; NULL when there is none. */
static char *driver_version(void)
{
	char *text, *v;
	bool quiet = report_quiet;

	if (access("/proc/driver/nvidia/version", R_OK))
		return NULL;
	report_quiet = true;
	text = read_file("/proc/driver/nvidia/version", NULL);
	report_quiet = quiet;
	v = parse_driver_version(text);
	free(text);
	return v;
}

enum probe_answer { PROBE_GPU, PROBE_NO_GPU, PROBE_FAILED };

/*
 * What the probe run pr said: a GPU answered; or no GPU, with the CUDA error
 * it met in *why (NULL when it gave none); or the probe itself failed, with
 * how in *why.
 */
static enum probe_answer probe_answer(const struct run_spec *spec, const struct run_result *pr,
				      char **why)
{
	char *avail = pr->started && !pr->timed_out ? probe_value(pr->output, "available") : NULL;
	enum probe_answer a = !avail ? PROBE_FAILED : strcmp(avail, "1") ? PROBE_NO_GPU : PROBE_GPU;

	*why = NULL;
	if (a == PROBE_FAILED) {
		char *how = run_describe(spec, pr);
		*why = xasprintf("the GPU probe failed: %s", how);
		free(how);
	} else if (a == PROBE_NO_GPU) {
		*why = probe_value(pr->output, "reason");
	}
	free(avail);
	return a;
}

char *probe_explain(const char *reason, bool device_nodes, const char *driver)
{
	static const char insufficient[] = "cudaErrorInsufficientDriver";
	size_t n = strlen(insufficient);

	if (!reason)
		return NULL;
	/*
	 * The runtime says the driver "is insufficient" when there is no
	 * driver at all, which reads as "update your driver" on a machine with
	 * no GPU: the driver's device nodes tell the two apart.
	 */
	if (strncmp(reason, insufficient, n) || isalnum((unsigned char)reason[n]))
		return xstrdup(reason);
	if (!device_nodes)
		return xasprintf("no NVIDIA GPU or driver found on this machine (the CUDA runtime "
				 "said: %s)", reason);
	return xasprintf("the NVIDIA driver here (%s%s) cannot serve this CUDA runtime: it is older "
			 "than the runtime needs, or its library (libcuda) is missing (the CUDA "
			 "runtime said: %s)",
			 driver ? "version " : "version unknown", driver ? driver : "", reason);
}

/* The UUID the probe wrote, when it has the form gpu_uuid.h gives it; else NULL. */
static char *probe_uuid(const char *out)
{
	char *u = probe_value(out, "uuid");
	bool ok = u && strlen(u) == 40 && !strncmp(u, "GPU-", 4);

	for (size_t i = 4; ok && i < 40; i++)
		ok = i == 12 || i == 17 || i == 22 || i == 27 ? u[i] == '-'
							    : u[i] && strchr("0123456789abcdef", u[i]);
	if (!ok) {
		free(u);
		return NULL;
	}
	return u;
}

void probe_read(const struct run_spec *spec, const struct run_result *pr, struct gpu_info *gpu)
{
	enum probe_answer a;
	char *why;

	gpu->runtime = probe_value(pr->output ? pr->output : "", "runtime");
	a = probe_answer(spec, pr, &why);
	if (a == PROBE_NO_GPU) {
		char *driver = driver_version();
		gpu->reason = probe_explain(why, !access("/dev/nvidiactl", F_OK), driver);
		free(driver);
		free(why);
	} else {
		gpu->reason = why;
	}
	if (a == PROBE_GPU) {
		gpu->available = true;
		gpu->name = probe_value(pr->output, "name");
		gpu->cc = probe_value(pr->output, "cc");
		gpu->uuid = probe_uuid(pr->output);
		char *clock = probe_value(pr->output, "clock_mhz");
		gpu->clock_mhz = clock ? strtod(clock, NULL) : 0;
		if (!(gpu->clock_mhz > 0))
			gpu->clock_mhz = 0;
		free(clock);
		gpu->driver = driver_version();
		if (!gpu->driver)
			gpu->driver = probe_value(pr->output, "driver_api");
	}
}

int probe_gpu(const char *probe, const char *gpu, struct gpu_info *info)
{
	const char *argv[] = {probe, NULL};
	char **env = grading_gpu_env(gpu);
	struct run_spec spec = {.argv = argv, .envp = (const char *const *)env,
				.timeout = PROBE_TIMEOUT, .output_limit = 4096};
	struct run_result pr;
	int ret;

	memset(info, 0, sizeof(*info));
	ret = run_one(&spec, &pr);
	if (!ret) {
		probe_read(&spec, &pr, info);
		run_result_release(&pr);
	}
	grading_free_env(env);
	return ret;
}

void gpu_info_release(struct gpu_info *info)
{
	free(info->name);
	free(info->cc);
	free(info->runtime);
	free(info->driver);
	free(info->reason);
	free(info->uuid);
	memset(info, 0, sizeof(*info));
}

int probe_gpu_still_there(const struct grading *g)
{
	const struct result *r = g->r;
	const char *refused = NULL;   /* the harness's words, after CL_NO_CONTEXT */
	bool suspect = false;

	if (r->mode != MODE_GPU)
		return 0;
	for (size_t i = 0; i < r->ntests; i++) {
		const struct graded_test *t = &r->tests[i];
		suspect |= t->status == TEST_CRASH || t->status == TEST_TIMEOUT ||
			   (t->message && strstr(t->message, "cudaError"));
		if (!refused && t->message && !strncmp(t->message, CL_NO_CONTEXT, strlen(CL_NO_CONTEXT)))
			refused = t->message + strlen(CL_NO_CONTEXT);
	}
	if (refused)
		return error("the GPU (%s) gave a new program no context during the grading (%s): "
			     "a fault of the machine, not of the submission, which is not graded",
			     r->gpu.name, refused);
	if (!suspect)
		return 0;
	const char *argv[2];
	struct run_spec spec;
	struct run_result pr;

	probe_spec(g, argv, &spec);
	if (run_one(&spec, &pr))
		return -1;
	/* the errors of a device that is gone or broken; not "out of memory",
	 * which another grading's memory on the GPU can cause */
	static const char *const gone[] = {
		"cudaErrorNoDevice",		"cudaErrorInsufficientDriver",
		"cudaErrorDevicesUnavailable",	"cudaErrorSystemNotReady",
		"cudaErrorSystemDriverMismatch", "cudaErrorInitializationError",
		"cudaErrorECCUncorrectable",	"cudaErrorUnknown",
	};
	char *why;
	enum probe_answer a = probe_answer(&spec, &pr, &why);
	bool lost = a == PROBE_FAILED;
	for (size_t i = 0; a == PROBE_NO_GPU && !lost && why && i < ARRAY_SIZE(gone); i++) {
		size_t n = strlen(gone[i]);
		lost = !strncmp(why, gone[i], n) && !isalnum((unsigned char)why[n]);
	}
	int ret = 0;
	if (lost)
		ret = error("the GPU (%s) stopped answering during the grading: %s; a fault of the "
			    "machine, not of the submission, which is not graded", r->gpu.name,
			    why ? why : "no reason given");
	free(why);
	run_result_release(&pr);
	return ret;
}
