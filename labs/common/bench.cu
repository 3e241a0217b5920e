/*
 * bench.cu - the timing engine (see bench.h): how one launcher call is
 * timed, when to stop sampling, and the driver's JSON-lines output.
 *
 * Must not: trust anything the student's launcher leaves behind. Every timed
 * output is poisoned before the call and checked after it, every pair of
 * samples gets new input values in the same buffers, and the end event is
 * recorded only once the whole device is idle, so work left running on
 * another stream is still inside the measured time.
 */
#include "bench.h"
#include "gpu_uuid.h"

#include <algorithm>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <vector>

#define MAX_CASES 64
#define CEILING_SAMPLES 10
#define COPY_HALF_MIN ((size_t)256 << 20)
/*
 * The floor of a kernel's time: its FLOPs at the FP32 peak, or its bytes at
 * this many times the copy bandwidth measured at start-up, whichever is
 * longer. A kernel can move data a little faster than cudaMemcpy does; one
 * that does it faster than this did not do its work.
 */
#define FLOOR_COPY_MARGIN 1.25

struct bench_opts {
	const char *out;
	struct {
		const char *kernel;
		int size;
	} cases[MAX_CASES];
	int ncases;
	double cap;            /* seconds of sampling per case, at most */
	int min_samples, max_samples;
	double target_rse;     /* stop once both medians are this precise */
	uint64_t seed;
	char token[256];
	/*
	 * The grader's cache of the device's ceilings (grader/devcache.c):
	 * the copy bandwidth measured before on the GPU whose UUID is
	 * given_uuid (given_copy_gbs 0, given_uuid NULL: none given), and
	 * whether to leave the library's ceiling out (the grader has its
	 * times).
	 */
	double given_copy_gbs;
	const char *given_uuid;
	bool no_ceiling;
	/* measure the device and the ceilings only, and call no launcher: the
	 * grader's trusted measurement, for its cache */
	bool device_only;
};

static FILE *out_file;
static char token[256];

void cl_bench_check(cudaError_t err, const char *expr, const char *file, int line)
{
	if (err == cudaSuccess)
		return;
	fprintf(stderr, "bench: %s failed at %s:%d: %s (%s)\n", expr, file, line,
		cudaGetErrorName(err), cudaGetErrorString(err));
	fflush(NULL);
	_exit(3);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------ JSON lines out */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/*
 * s as a JSON string, quotes included, into buf: 6 bytes for each byte of s
 * (\u00XX) and 3 more are always enough.
 */
static const char *json_quoted(char *buf, size_t len, const char *s)
{
	FILE *f = fmemopen(buf, len, "w");
	json_str(f, s);
	fclose(f);
	buf[len - 1] = '\0';
	return buf;
}

/* v with fmt, or null where it is not a finite number. */
static const char *json_num(char buf[32], const char *fmt, double v)
{
	if (isfinite(v))
		snprintf(buf, 32, fmt, v);
	else
		strcpy(buf, "null");
	return buf;
}

/*
 * Writes one line: {"token":..., "type": type, <fields>}. fields is a printf
 * format over pre-rendered pieces; the line is flushed at once, so a driver
 * that dies later still leaves what it measured.
 */
static void emit(const char *type, const char *fmt, ...)
{
	va_list ap;

	fputs("{\"token\":", out_file);
	json_str(out_file, token);
	fputs(",\"type\":", out_file);
	json_str(out_file, type);
	va_start(ap, fmt);
	vfprintf(out_file, fmt, ap);
	va_end(ap);
	fputs("}\n", out_file);
	fflush(out_file);
}

/* ------------------------------------------------------------- device */

struct device {
	int id;
	char name[256];
	char uuid[CL_GPU_UUID_LEN];   /* "" when the device gives none */
	int sms, cc_major, cc_minor;
	size_t l2_bytes;
	double clock_mhz;        /* the SM clock the device reports as its peak */
	double peak_gflops;      /* FP32, without tensor cores */
	double copy_gbs;         /* device-to-device copy, read + write */
	bool copy_given;         /* copy_gbs is the grader's, measured before on this GPU */
	void *flush;
	size_t flush_bytes;
	unsigned flush_value;
};

/* FP32 lanes per SM: 64 up to compute capability 8.0, 128 from 8.6 on. */
static int fp32_lanes(int major, int minor)
{
	if (major < 8 || (major == 8 && minor == 0))
		return 64;
	return 128;
}

/* ---- the SM clock at the time, from NVML when the driver has it */

typedef int (*nvml_fn0)(void);
typedef int (*nvml_by_pci)(const char *, void **);
typedef int (*nvml_clock)(void *, int, unsigned *);

static struct {
	void *dev;
	nvml_clock clock;
} nvml;

static void nvml_open(int device)
{
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	char bus[32];

	if (!h)
		return;
	nvml_fn0 init = (nvml_fn0)dlsym(h, "nvmlInit_v2");
	nvml_by_pci by_pci = (nvml_by_pci)dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
	nvml.clock = (nvml_clock)dlsym(h, "nvmlDeviceGetClockInfo");
	if (!init || !by_pci || !nvml.clock || init() != 0 ||
	    cudaDeviceGetPCIBusId(bus, sizeof(bus), device) != cudaSuccess ||
	    by_pci(bus, &nvml.dev) != 0)
		nvml.dev = NULL;
}

/* The SM clock now, in MHz, or NaN. */
static double sm_clock_mhz(void)
{
	unsigned mhz;
	return nvml.dev && nvml.clock(nvml.dev, 1 /* NVML_CLOCK_SM */, &mhz) == 0 ? mhz : NAN;
}

/*
 * The device-to-device copy bandwidth, read + write, in GB/s: one half of a
 * buffer into the other, best of 3 after a first copy. Each half is at least
 * COPY_HALF_MIN and several times the L2, so the copy runs from and to DRAM
 * (a copy the size of the L2 reads about 15 % slow on an H100).
 */
static double copy_bandwidth(const struct device *d)
{
	cudaEvent_t a, b;
	float ms, best = 0;
	size_t half = std::max(COPY_HALF_MIN, 4 * d->l2_bytes);
	void *copy;

	CL_BENCH_CHECK(cudaMalloc(&copy, 2 * half));
	CL_BENCH_CHECK(cudaMemset(copy, 0, 2 * half));
	CL_BENCH_CHECK(cudaEventCreate(&a));
	CL_BENCH_CHECK(cudaEventCreate(&b));
	for (int i = 0; i < 4; i++) {
		CL_BENCH_CHECK(cudaEventRecord(a));
		CL_BENCH_CHECK(cudaMemcpyAsync((char *)copy + half, copy, half,
					       cudaMemcpyDeviceToDevice));
		CL_BENCH_CHECK(cudaEventRecord(b));
		CL_BENCH_CHECK(cudaEventSynchronize(b));
		CL_BENCH_CHECK(cudaEventElapsedTime(&ms, a, b));
		if (i > 0 && (best == 0 || ms < best))
			best = ms;
	}
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	CL_BENCH_CHECK(cudaFree(copy));
	return best > 0 ? 2.0 * half / (best * 1e-3) / 1e9 : NAN;
}

/*
 * The device's properties, its L2 flush buffer, and its copy bandwidth:
 * measured, unless the grader gave it (given_gbs > 0) for this very GPU
 * (given_uuid, which must be this device's UUID: a number of another
 * device, or given where the device has no UUID, is never used).
 */
static void device_open(struct device *d, double given_gbs, const char *given_uuid)
{
	cudaDeviceProp p;
	int clock_khz = 0, l2 = 0;

	CL_BENCH_CHECK(cudaGetDevice(&d->id));
	CL_BENCH_CHECK(cudaGetDeviceProperties(&p, d->id));
	snprintf(d->name, sizeof(d->name), "%s", p.name);
	cl_gpu_uuid(&p.uuid, d->uuid);
	d->sms = p.multiProcessorCount;
	d->cc_major = p.major;
	d->cc_minor = p.minor;
	if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, d->id) != cudaSuccess)
		l2 = 0;
	d->l2_bytes = (size_t)l2;
	if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d->id) != cudaSuccess)
		clock_khz = 0;
	cudaGetLastError();
	d->clock_mhz = clock_khz ? clock_khz / 1e3 : NAN;
	d->peak_gflops = clock_khz ? (double)d->sms * fp32_lanes(p.major, p.minor) * 2.0 *
					     clock_khz / 1e6
				   : NAN;

	/* twice the L2, and never under 64 MiB, so nothing of the last call stays cached */
	d->flush_bytes = std::max((size_t)2 * d->l2_bytes, (size_t)64 << 20);
	CL_BENCH_CHECK(cudaMalloc(&d->flush, d->flush_bytes));
	CL_BENCH_CHECK(cudaMemset(d->flush, 0, d->flush_bytes));

	if (given_gbs > 0 && isfinite(given_gbs) && given_uuid && d->uuid[0] &&
	    !strcmp(given_uuid, d->uuid)) {
		d->copy_gbs = given_gbs;
		d->copy_given = true;
	} else {
		d->copy_gbs = copy_bandwidth(d);
	}
	nvml_open(d->id);
}

/* ------------------------------------------------------------ sampling */

struct stats {
	double median, spread, rse, min, max;
};

/*
 * Median, robust spread (1.4826 MAD / median: the coefficient of variation
 * for normal noise, but blind to a few outliers), and the relative standard
 * error of the median (1.2533 spread / sqrt(n)).
 */
static struct stats stats_of(const std::vector<double> &v)
{
	struct stats s = {NAN, NAN, NAN, NAN, NAN};
	std::vector<double> x(v), dev;
	size_t n = x.size();

	if (!n)
		return s;
	std::sort(x.begin(), x.end());
	s.min = x[0];
	s.max = x[n - 1];
	s.median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
	for (double t : x)
		dev.push_back(fabs(t - s.median));
	std::sort(dev.begin(), dev.end());
	double mad = n % 2 ? dev[n / 2] : (dev[n / 2 - 1] + dev[n / 2]) / 2;
	s.spread = s.median > 0 ? 1.4826 * mad / s.median : NAN;
	s.rse = 1.2533 * s.spread / sqrt((double)n);
	return s;
}

/* The rates are at the median; a kernel with no arithmetic has gflops null. */
static void stats_json(char *buf, size_t len, const struct stats *s, double flop, double bytes)
{
	char med[32], spr[32], rse[32], mn[32], mx[32], gf[32], gb[32];
	const struct {
		char *b;
		double v;
	} f[] = {{med, s->median},
		 {spr, s->spread},
		 {rse, s->rse},
		 {mn, s->min},
		 {mx, s->max},
		 {gf, flop > 0 ? flop / (s->median * 1e-3) / 1e9 : NAN},
		 {gb, bytes / (s->median * 1e-3) / 1e9}};

	for (const auto &e : f)
		json_num(e.b, "%.9g", e.v);
	snprintf(buf, len,
		 "{\"median_ms\":%s,\"spread\":%s,\"rse\":%s,\"min_ms\":%s,\"max_ms\":%s,"
		 "\"gflops\":%s,\"gbs\":%s}",
		 med, spr, rse, mn, mx, gf, gb);
}

struct timer {
	cudaEvent_t start, stop;
};

/*
 * One timed call of who's launcher: poison its output, flush the L2 (each
 * time with a new byte, so nothing can be skipped), wait for the device to be
 * idle, then the start event, the call, a device-wide synchronize and the end
 * event. The few microseconds of launch and synchronize inside the measured
 * time are the same for the submission and the reference. Returns the
 * milliseconds, or a negative number with the CUDA error in *err.
 */
static double time_call(const struct cl_bench_lab *lab, void *ctx, struct device *d,
			struct timer *t, const char *kernel, enum cl_who who, cudaError_t *err)
{
	float ms;

	lab->poison(ctx, who);
	CL_BENCH_CHECK(cudaMemsetAsync(d->flush, (int)(d->flush_value++ & 0xff), d->flush_bytes));
	/* idle before the start: work on another stream cannot begin before it */
	CL_BENCH_CHECK(cudaDeviceSynchronize());
	CL_BENCH_CHECK(cudaEventRecord(t->start));
	lab->call(ctx, kernel, who);
	*err = cudaGetLastError();
	cudaError_t s = cudaDeviceSynchronize();
	if (*err == cudaSuccess)
		*err = s;
	if (*err != cudaSuccess)
		return -1;
	CL_BENCH_CHECK(cudaEventRecord(t->stop));
	CL_BENCH_CHECK(cudaEventSynchronize(t->stop));
	CL_BENCH_CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
	return ms;
}

static uint64_t mix(uint64_t s, uint64_t i)
{
	uint64_t z = s ^ (i * 0xd1b54a32d192ed03ULL);
	z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
	return z ^ (z >> 29);
}

/*
 * Times the student's side of kernel and the other (the reference's, unless
 * the lab labels it) at one size, and writes the case's line.
 */
static void bench_case(const struct cl_bench_lab *lab, const struct bench_opts *o,
		       struct device *d, struct timer *t, void *ctx, const char *kernel, int size,
		       uint64_t case_seed)
{
	std::vector<double> ms[2];
	char msg[1024] = "", sj[2][512], head[512];
	const char *status = "ok";
	double t0 = now(), clock0 = sm_clock_mhz(), flop = lab->flop(kernel, size);
	double bytes = lab->bytes(kernel, size);
	bool capped = false;
	cudaError_t err = cudaSuccess;

	/* warm-up: loads both kernels' modules and checks the first outputs */
	lab->inputs(ctx, case_seed);
	for (int w = 0; w < 2 && err == cudaSuccess; w++)
		time_call(lab, ctx, d, t, kernel, (enum cl_who)w, &err);
	if (err != cudaSuccess) {
		status = "error";
		snprintf(msg, sizeof(msg), "the warm-up call failed: %s (%s)",
			 cudaGetErrorName(err), cudaGetErrorString(err));
	} else if (lab->verify(ctx, case_seed, msg, sizeof(msg))) {
		status = "wrong";
		char m[1024];
		snprintf(m, sizeof(m), "the warm-up call: %s", msg);
		strcpy(msg, m);
	}

	for (int pair = 0; !strcmp(status, "ok") && pair < o->max_samples; pair++) {
		uint64_t seed = mix(case_seed, (uint64_t)pair + 1);
		lab->inputs(ctx, seed);
		/* A B then B A: neither side always runs right after the flush of the other */
		for (int k = 0; k < 2; k++) {
			enum cl_who w = (enum cl_who)((pair + k) & 1);
			double v = time_call(lab, ctx, d, t, kernel, w, &err);
			if (v < 0) {
				status = "error";
				const char *l = lab->label ? lab->label(kernel, w) : NULL;
				snprintf(msg, sizeof(msg), "timed call %d of %s failed: %s (%s)",
					 pair + 1,
					 l ? l : w == CL_STUDENT ? "the submission" : "the reference",
					 cudaGetErrorName(err), cudaGetErrorString(err));
				break;
			}
			ms[w].push_back(v);
		}
		if (!strcmp(status, "ok") && lab->verify(ctx, seed, msg, sizeof(msg))) {
			char m[1024];
			status = "wrong";
			snprintf(m, sizeof(m), "timed call %d: %s", pair + 1, msg);
			strcpy(msg, m);
		}
		if (strcmp(status, "ok"))
			break;
		int n = pair + 1;
		struct stats a = stats_of(ms[0]), b = stats_of(ms[1]);
		if (n >= o->min_samples && a.rse < o->target_rse && b.rse < o->target_rse)
			break;
		if (now() - t0 >= o->cap && n >= 3) {
			capped = true;
			break;
		}
	}

	struct stats st[2] = {stats_of(ms[0]), stats_of(ms[1])};
	for (int w = 0; w < 2; w++)
		stats_json(sj[w], sizeof(sj[w]), &st[w], flop, bytes);
	double floor_ms = std::max(flop / (d->peak_gflops * 1e9),
				   bytes / (FLOOR_COPY_MARGIN * d->copy_gbs * 1e9)) * 1e3;
	snprintf(head, sizeof(head), ",\"kernel\":\"%s\",\"size\":%d,\"status\":\"%s\"",
		 kernel, size, status);
	double clock1 = sm_clock_mhz(), ratio = st[1].median / st[0].median;
	char num[4][32], m[6 * sizeof(msg) + 3], who[2][200];
	for (int w = 0; w < 2; w++) {
		const char *l = lab->label ? lab->label(kernel, (enum cl_who)w) : NULL;
		if (l)
			json_quoted(who[w], sizeof(who[w]), l);
		else
			strcpy(who[w], "null");
	}
	emit("case",
	     "%s,\"message\":%s,\"samples\":%zu,\"capped\":%s,\"student\":%s,\"reference\":%s,"
	     "\"subject\":%s,\"baseline\":%s,\"ratio\":%s,\"flop\":%.17g,\"bytes\":%.17g,"
	     "\"floor_ms\":%s,\"sm_clock_mhz\":[%s,%s],\"seconds\":%.3f",
	     head, json_quoted(m, sizeof(m), msg), ms[1].size(), capped ? "true" : "false", sj[1],
	     sj[0], who[CL_STUDENT], who[CL_REFERENCE], json_num(num[0], "%.9g", ratio), flop,
	     bytes, json_num(num[1], "%.9g", floor_ms), json_num(num[2], "%.0f", clock0),
	     json_num(num[3], "%.0f", clock1), now() - t0);
	if (!strcmp(status, "error")) {
		fflush(NULL);   /* _exit: nothing of the submission's runs after it (cl_bench_main) */
		_exit(4);   /* a failed launch may have left the context unusable */
	}
}

/* The informative ceiling (a vendor library) at one size: the median of a few calls. */
static void bench_ceiling(const struct cl_bench_lab *lab, struct device *d, struct timer *t,
			  void *ctx, int size, uint64_t seed)
{
	std::vector<double> ms;
	cudaError_t err;

	lab->inputs(ctx, seed);
	for (int i = 0; i <= CEILING_SAMPLES; i++) {
		double v = time_call(lab, ctx, d, t, NULL, CL_CEILING, &err);
		if (v < 0) {
			char m[256];
			snprintf(m, sizeof(m), "\"%s failed: %s\"", lab->ceiling_name,
				 cudaGetErrorName(err));
			emit("ceiling", ",\"name\":\"%s\",\"size\":%d,\"status\":\"error\",\"message\":%s",
			     lab->ceiling_name, size, m);
			fflush(NULL);
			_exit(4);
		}
		if (i)   /* the first call loads the library's kernels */
			ms.push_back(v);
	}
	struct stats s = stats_of(ms);
	char sj[512];
	stats_json(sj, sizeof(sj), &s, lab->flop(NULL, size), lab->bytes(NULL, size));
	emit("ceiling", ",\"name\":\"%s\",\"size\":%d,\"status\":\"ok\",\"timing\":%s",
	     lab->ceiling_name, size, sj);
}

/* ------------------------------------------------------------- main */

static void usage(const char *lab)
{
	fprintf(stderr,
		"usage: bench_%s --out FILE [--case KERNEL:SIZE]... [--cap SECONDS]\n"
		"       [--min-samples N] [--max-samples N] [--target-rse FRACTION]\n"
		"       [--copy-gbs GBS --uuid UUID] [--no-ceiling] [--device-only]\n"
		"Times the submission's launchers against the reference's, interleaved.\n"
		"Standard input gives 'seed=N' and 'token=T'. --out -: standard output.\n"
		"--copy-gbs GBS --uuid UUID: the copy bandwidth measured before on the GPU\n"
		"whose UUID is UUID, used instead of measuring it again on that GPU;\n"
		"--no-ceiling: no library ceiling; --device-only: the device and the\n"
		"ceiling at each case's size only, no launcher called.\n",
		lab);
}

static int parse_args(const struct cl_bench_lab *lab, int argc, char **argv,
		      struct bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cap = 1.0;
	o->min_samples = 10;
	o->max_samples = 200;
	o->target_rse = 0.005;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--no-ceiling")) {
			o->no_ceiling = true;
			continue;
		}
		if (!strcmp(a, "--device-only")) {
			o->device_only = true;
			continue;
		}
		if (!v)
			return -1;
		i++;
		if (!strcmp(a, "--out")) {
			o->out = v;
		} else if (!strcmp(a, "--case")) {
			const char *colon = strchr(v, ':');
			if (!colon || o->ncases == MAX_CASES)
				return -1;
			o->cases[o->ncases].kernel = strndup(v, colon - v);
			o->cases[o->ncases].size = atoi(colon + 1);
			if (o->cases[o->ncases].size < 1)
				return -1;
			bool known = false;
			for (const char *const *k = lab->kernels; *k; k++)
				known |= !strcmp(*k, o->cases[o->ncases].kernel);
			if (!known) {
				fprintf(stderr, "bench_%s: no kernel '%s' to time\n", lab->name,
					o->cases[o->ncases].kernel);
				return -1;
			}
			o->ncases++;
		} else if (!strcmp(a, "--cap")) {
			o->cap = atof(v);
		} else if (!strcmp(a, "--min-samples")) {
			o->min_samples = atoi(v);
		} else if (!strcmp(a, "--max-samples")) {
			o->max_samples = atoi(v);
		} else if (!strcmp(a, "--target-rse")) {
			o->target_rse = atof(v);
		} else if (!strcmp(a, "--copy-gbs")) {
			o->given_copy_gbs = atof(v);
		} else if (!strcmp(a, "--uuid")) {
			o->given_uuid = v;
		} else {
			return -1;
		}
	}
	if (!o->out || o->cap <= 0 || o->min_samples < 1 || o->max_samples < o->min_samples ||
	    (o->given_copy_gbs != 0) != (o->given_uuid != NULL) ||
	    (o->device_only && (o->no_ceiling || o->given_uuid)))
		return -1;

	char line[256];
	bool have_seed = false;
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long s;
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "seed=%llu", &s) == 1)
			o->seed = s, have_seed = true;
		else if (!strncmp(line, "token=", 6))
			snprintf(o->token, sizeof(o->token), "%s", line + 6);
	}
	if (!have_seed) {
		fprintf(stderr, "bench_%s: no 'seed=N' on standard input\n", lab->name);
		return -1;
	}
	return 0;
}

static int bench_main(const struct cl_bench_lab *lab, int argc, char **argv)
{
	struct bench_opts o;
	struct device d = {};
	struct timer t;
	char why[512] = "";

	if (parse_args(lab, argc, argv, &o)) {
		usage(lab->name);
		return 2;
	}
	snprintf(token, sizeof(token), "%s", o.token);
	out_file = strcmp(o.out, "-") ? fopen(o.out, "w") : stdout;
	if (!out_file) {
		fprintf(stderr, "bench_%s: cannot write '%s': %s\n", lab->name, o.out,
			strerror(errno));
		return 3;
	}

	cudaError_t e = cudaFree(0);
	if (e != cudaSuccess) {
		char m[512];
		snprintf(m, sizeof(m), "\"no CUDA device: %s\"", cudaGetErrorString(e));
		emit("device", ",\"status\":\"unavailable\",\"message\":%s", m);
		return 3;
	}
	device_open(&d, o.given_copy_gbs, o.given_uuid);
	CL_BENCH_CHECK(cudaEventCreate(&t.start));
	CL_BENCH_CHECK(cudaEventCreate(&t.stop));
	{
		char name[6 * sizeof(d.name) + 3], uuid[CL_GPU_UUID_LEN + 2], num[4][32];
		if (d.uuid[0])
			snprintf(uuid, sizeof(uuid), "\"%s\"", d.uuid);
		else
			strcpy(uuid, "null");
		/* a given copy bandwidth is written back exactly; a measured one, as before */
		emit("device",
		     ",\"status\":\"ok\",\"name\":%s,\"uuid\":%s,\"cc\":\"%d.%d\",\"sms\":%d,"
		     "\"l2_bytes\":%zu,\"flush_bytes\":%zu,\"clock_mhz\":%s,\"peak_gflops\":%s,"
		     "\"copy_gbs\":%s,\"copy_gbs_from\":\"%s\",\"sm_clock_mhz\":%s",
		     json_quoted(name, sizeof(name), d.name), uuid, d.cc_major, d.cc_minor, d.sms,
		     d.l2_bytes, d.flush_bytes, json_num(num[0], "%.6g", d.clock_mhz),
		     json_num(num[1], "%.6g", d.peak_gflops),
		     json_num(num[2], d.copy_given ? "%.17g" : "%.6g", d.copy_gbs),
		     d.copy_given ? "given" : "measured", json_num(num[3], "%.6g", sm_clock_mhz()));
	}

	bool ceiling_ok = false;
	if (lab->ceiling_init && !o.no_ceiling) {
		char m[6 * sizeof(why) + 3];
		ceiling_ok = !lab->ceiling_init(why, sizeof(why));
		if (!ceiling_ok)
			emit("ceiling", ",\"name\":\"%s\",\"status\":\"unavailable\",\"message\":%s",
			     lab->ceiling_name, json_quoted(m, sizeof(m), why));
	}

	/* one case's buffers at a time; the ceiling once per size */
	std::vector<int> ceiling_sizes;
	if (o.device_only) {
		/*
		 * The grader's trusted measurement: the ceiling at each size on
		 * the buffers of its first case, as a grading measures it, and
		 * no launcher called (this driver is linked with the reference
		 * on both sides: no submission's code is in this process).
		 */
		for (int c = 0; ceiling_ok && c < o.ncases; c++) {
			int size = o.cases[c].size;
			if (std::find(ceiling_sizes.begin(), ceiling_sizes.end(), size) !=
			    ceiling_sizes.end())
				continue;
			ceiling_sizes.push_back(size);
			void *ctx = lab->setup(o.cases[c].kernel, size, why, sizeof(why));
			if (!ctx) {
				fprintf(stderr, "bench_%s: %s\n", lab->name, why);
				return 3;
			}
			bench_ceiling(lab, &d, &t, ctx, size, mix(o.seed, 7));
			lab->teardown(ctx);
		}
		emit("end", "");
		fclose(out_file);
		return 0;
	}
	for (int c = 0; c < o.ncases; c++) {
		const char *kernel = o.cases[c].kernel;
		int size = o.cases[c].size;
		void *ctx = lab->setup(kernel, size, why, sizeof(why));
		if (!ctx) {
			fprintf(stderr, "bench_%s: %s\n", lab->name, why);
			return 3;
		}
		bench_case(lab, &o, &d, &t, ctx, kernel, size, mix(o.seed, (uint64_t)c + 1000));
		if (ceiling_ok && std::find(ceiling_sizes.begin(), ceiling_sizes.end(), size) ==
					  ceiling_sizes.end()) {
			ceiling_sizes.push_back(size);
			bench_ceiling(lab, &d, &t, ctx, size, mix(o.seed, 7));
		}
		lab->teardown(ctx);
	}
	emit("end", "");
	fclose(out_file);
	return 0;
}

/* ------------------------------------------------------ device helpers */

__global__ void cl_bench_fill_kernel(float *d, size_t n, uint64_t seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		d[i] = cl_bench_value(seed, i);
}

void cl_bench_fill(float *d, size_t n, uint64_t seed)
{
	cl_bench_fill_kernel<<<1024, 256>>>(d, n, seed);
	CL_BENCH_CHECK(cudaGetLastError());
}

__global__ void cl_bench_compare_kernel(const float *got, const float *want, size_t n,
					float tol, struct cl_mismatch *m)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		float g = got[i], w = want[i];
		if (!(fabsf(g - w) <= tol)) {   /* NaN compares false: never equal */
			atomicAdd(&m->count, 1ULL);
			atomicMin(&m->first, (unsigned long long)i);
		}
	}
}

void cl_bench_compare(const float *got, const float *want, size_t n, float tol,
		      struct cl_mismatch *out)
{
	static struct cl_mismatch *d_m;
	struct cl_mismatch init = {0, ~0ULL, 0, 0};

	if (!d_m)
		CL_BENCH_CHECK(cudaMalloc(&d_m, sizeof(*d_m)));
	CL_BENCH_CHECK(cudaMemcpy(d_m, &init, sizeof(init), cudaMemcpyHostToDevice));
	cl_bench_compare_kernel<<<1024, 256>>>(got, want, n, tol, d_m);
	CL_BENCH_CHECK(cudaGetLastError());
	CL_BENCH_CHECK(cudaMemcpy(out, d_m, sizeof(*out), cudaMemcpyDeviceToHost));
	if (out->count) {
		CL_BENCH_CHECK(cudaMemcpy(&out->got, got + out->first, sizeof(float),
					  cudaMemcpyDeviceToHost));
		CL_BENCH_CHECK(cudaMemcpy(&out->want, want + out->first, sizeof(float),
					  cudaMemcpyDeviceToHost));
	}
}

/*
 * The driver ends with _exit() once its lines are written, as the test
 * harness does (cl_main): no atexit() handler or static destructor of the
 * submission's runs after its timed calls, to hold the driver past its time.
 */
int cl_bench_main(const struct cl_bench_lab *lab, int argc, char **argv)
{
	int status = bench_main(lab, argc, argv);

	fflush(NULL);
	_exit(status);
}
