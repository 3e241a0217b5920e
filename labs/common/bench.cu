/*
 * bench.cu - the timer (see bench.h): its runners and the memory it shares
 * with them, how one call is timed, when to stop sampling, the guard
 * against a submission that keeps the GPU busy, and the JSON-lines output.
 *
 * Must not: trust anything a runner answers beyond what the timer checks
 * itself: every time is between two events of the timer's own, every
 * output is poisoned before its call and checked after it, and every pair
 * of samples gets new inputs.
 */
#include "bench.h"
#include "gpu_uuid.h"
#include "harness-words.h"   /* CL_UNANSWERED */
#include "procfs.h"
#include "spawn.h"
#include "vmm.h"

#include <algorithm>
#include <string>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/wait.h>
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
/* Places of each timed output copied at the end of its call (bench.h). */
#define SNAP_POINTS 1024
/* Calls of the reference's timed alone per case, and empty calls. */
#define ALONE_SAMPLES 3
/* How much slower the reference may run beside the submission than alone,
 * before the case is measured again without the submission's runner. */
#define GUARD 0.02
/* The reference's calls in that second measurement: as many as its calls
 * between the submission's, within these. The median and spread of three
 * calls (ALONE_SAMPLES) are too rough to decide on: a spread of three can
 * come out near zero, and a 0.12 ms copy of the coalescing reference's was
 * once flagged at 3.1 % from the spread of three calls. */
#define GUARD_MIN_SAMPLES 8
#define GUARD_MAX_SAMPLES 24
/* A side's calls are timed less its empty call only where what is left is
 * at least this fraction of the empty call. */
#define EMPTY_RESOLVES 0.05
/* A case stops sampling once the relative standard error of the ratio of
 * its medians is under this (and it has min_samples pairs): the reference
 * timed against itself must stay within 0.5 % across gradings. */
#define TARGET_RSE 0.0015
/* A timed call of the submission is never ended past hope (--give-up) before
 * this many seconds: a first call may load its modules, and a kernel of
 * microseconds is mostly its round trip. A kernel that computed C on the
 * host took 5.3 s a call at 1024 and 30 s and more at 2048 (an H200). */
#define GIVE_UP_FLOOR 1.0
/* A request to the submission's runner between its calls, to map or unmap
 * the timer's memory, is answered within this many seconds (and within the
 * kernel's budget, --case-limit, where that is shorter), or the runner is
 * ended: a program that stopped itself after a call would otherwise hold
 * the timer, and the GPU with it, until the grader's limit on the whole
 * timer. An honest runner answers in milliseconds. */
#define MEMORY_REQUEST_LIMIT 5.0
/* A case whose timer and runners waited for a CPU (other programs holding
 * the machine's) for more than this share of its time is timed again, up
 * to BUSY_TRIES times in all; then it is the machine's failure ("busy"),
 * never the submission's: on a 16-CPU host under 24 busy loops the matmul
 * reference's k1 came out at 0.62 of itself, and its k4 was blamed for
 * keeping the GPU busy. */
#define BUSY_SHARE 0.05
#define BUSY_TRIES 3
/* ... and for more than this in all: the reference's few calls alone take
 * milliseconds, in which a few wake-ups' waits on an idle machine come to
 * more than BUSY_SHARE */
#define BUSY_MIN_WAIT 0.01
/* ... unless the submission's runner itself used more CPUs than this: its
 * one thread that polls the socket, and some of the driver's */
#define SUBMISSION_CPUS 1.5

struct bench_opts {
	const char *out;
	struct {
		const char *kernel;
		int size;
	} cases[MAX_CASES];
	int ncases;
	double cap;            /* seconds of sampling per case, at most */
	double case_limit;     /* seconds a case's calls of the submission may take in all (0: no limit) */
	double give_up;        /* a ratio past every point: a call slower than this ends (0: never) */
	int min_samples, max_samples;
	double target_rse;     /* stop once the ratio of the medians is this precise */
	uint64_t seed;
	char token[256];
	/*
	 * The grader's cache of the device's ceilings (grader/grading/devcache.c):
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
	const char *recipe[2];   /* the runners' recipes, by enum cl_who */
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

/* v as a JSON array of numbers, in order (a number that is not finite: null). */
static std::string json_array(const std::vector<double> &v)
{
	std::string a = "[";
	char num[32];

	for (size_t i = 0; i < v.size(); i++) {
		if (i)
			a += ',';
		a += json_num(num, "%.6g", v[i]);
	}
	return a + "]";
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

/* ------------------------------------------------------------- runners */

struct runner {
	struct cl_recipe recipe;
	pid_t pid;
	int fd;
	uint32_t seq;
	bool up;
};
static struct runner runners[2];   /* by enum cl_who */
static const char *const side_name[2] = {"the reference's runner", "the submission's program"};

/*
 * What the threads of pid (with children: and of the processes under it, a
 * runner's sandbox holding the runner) have had of the CPUs, added to
 * s[0], and waited for one, added to s[1], in seconds: each thread's
 * schedstat (on a CPU, on a run queue). A process that ended since is left
 * out; false when none can be read.
 */
static bool tree_sched(pid_t pid, bool children, double s[2])
{
	pid_t pids[64];
	int n = children ? cl_process_tree(pid, pids, 64) : (pids[0] = pid, 1);
	bool any = false;

	for (int k = 0; k < n; k++) {
		pid_t tids[CL_THREADS_MAX];
		int nt = cl_threads(pids[k], tids, CL_THREADS_MAX);
		for (int t = 0; t < nt; t++) {
			struct cl_schedstat st;
			if (cl_read_schedstat(pids[k], tids[t], &st)) {
				s[0] += st.ran;
				s[1] += st.waited;
				any = true;
			}
		}
	}
	return any;
}

/* What the timer and its runners have had of the CPUs and waited for them, in seconds. */
struct cpu_use {
	bool known;         /* false: schedstat cannot be read here */
	double waited;      /* the timer's and both runners' waits for a CPU */
	double submission;  /* the CPU time of the submission's runner and what it started */
};

static struct cpu_use cpu_use(void)
{
	struct cpu_use u = {};
	double self[2] = {0, 0};

	/* this process alone, not its children: its runners come next */
	u.known = tree_sched(getpid(), false, self);
	u.waited = self[1];
	for (int w = 0; w < 2; w++) {
		double r[2] = {0, 0};
		if (runners[w].up && runners[w].pid > 0 && tree_sched(runners[w].pid, true, r)) {
			u.waited += r[1];
			if (w == CL_STUDENT)
				u.submission = r[0];
		}
	}
	return u;
}

/*
 * Whether the CPUs were too busy between from and to, took seconds apart,
 * for times to mean anything (BUSY_SHARE, BUSY_MIN_WAIT), and what was
 * waited in *waited: not where the submission's own runner took more than
 * SUBMISSION_CPUS of them meanwhile (the wait may be of its making), nor
 * where schedstat cannot be read.
 */
static bool too_busy(const struct cpu_use *from, const struct cpu_use *to, double took,
		     double *waited)
{
	*waited = to->waited - from->waited;
	return from->known && to->known && *waited > BUSY_SHARE * took &&
	       *waited > BUSY_MIN_WAIT && to->submission - from->submission < SUBMISSION_CPUS * took;
}

/*
 * The seconds the submission's calls of the case being timed may take in
 * all (student_limit, 0: no limit) and have taken (student_spent); when
 * the call in flight must be done for that (student_deadline, now()'s
 * clock, 0: none): a reply of the submission's runner that has not come by
 * then never will in time, and its runner is ended (rpc_reply). And when
 * that call is past hope (call_deadline: its ratio to the reference's call
 * would be past give_up, where no lab gives a point), and how long a timed
 * call is given for that (give_up_after, 0: no limit).
 */
static double student_limit, student_spent, student_deadline, call_deadline, give_up_after;
/* Why the submission's runner was ended before its reply came, if it was. */
static enum { ON_TIME, LATE, PAST_HOPE } runner_late;
/*
 * Not "": the submission's runner did not answer a request between its
 * timed calls (an empty call, or mapping memory), and was ended; why. No
 * later case is timed then, nor is the runner started again: a program that
 * stops itself after each call would hold the GPU a second or more each
 * time, kernel after kernel. The seconds a memory request to it may take
 * (request_limit: MEMORY_REQUEST_LIMIT, or the case's budget if shorter).
 */
static char ended_between[512];
static double request_limit = MEMORY_REQUEST_LIMIT;

/* n bytes from fd, polling (a blocked read's wake-up would add to the times);
 * false with errno ETIMEDOUT once deadline (now()'s clock, 0: none) has passed. */
static bool spin_read(int fd, void *p, size_t n, double deadline)
{
	char *c = (char *)p;

	for (unsigned spins = 0; n; spins++) {
		ssize_t k = recv(fd, c, n, MSG_DONTWAIT);
		if (k > 0) {
			c += k;
			n -= (size_t)k;
		} else if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
			return false;
		} else if (deadline > 0 && !(spins & 1023) && now() > deadline) {
			errno = ETIMEDOUT;
			return false;
		}
	}
	return true;
}

/* Ends who's runner (SIGKILL), and says how it had ended into why. */
static void runner_stop(enum cl_who who, char *why, size_t len)
{
	struct runner *r = &runners[who];
	int st = 0;

	if (!r->up)
		return;
	r->up = false;
	close(r->fd);
	if (waitpid(r->pid, &st, WNOHANG) == 0) {
		kill(r->pid, SIGKILL);
		while (waitpid(r->pid, &st, 0) < 0 && errno == EINTR)
			;
		if (why)
			snprintf(why, len, "%s stopped answering", side_name[who]);
		return;
	}
	/* bubblewrap reports a signal as 128 + its number */
	int sig = WIFSIGNALED(st) ? WTERMSIG(st)
		  : WIFEXITED(st) && WEXITSTATUS(st) > 128 ? WEXITSTATUS(st) - 128 : 0;
	if (!why)
		return;
	if (sig)
		snprintf(why, len, "%s was killed by signal %d (%s)", side_name[who], sig,
			 strsignal(sig));
	else
		snprintf(why, len, "%s exited with status %d", side_name[who],
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/*
 * One request to who's runner and its reply (into *reply; the caller frees
 * it), with a descriptor after the request when pass_fd >= 0. false, with
 * why, when the runner ended (it is reaped) or answered out of turn or
 * with a failure.
 */
static bool rpc_send(enum cl_who who, uint32_t op, const struct cl_wire *payload, int pass_fd,
		     char *why, size_t len)
{
	struct runner *r = &runners[who];
	struct cl_header h = {op, ++r->seq, payload ? payload->len : 0};

	if (!r->up) {
		snprintf(why, len, "%s is not running", side_name[who]);
		return false;
	}
	if (!cl_io_all(r->fd, &h, sizeof(h), true) ||
	    (h.len && !cl_io_all(r->fd, payload->buf, h.len, true)) ||
	    (pass_fd >= 0 && !cl_send_fd(r->fd, pass_fd))) {
		runner_stop(who, why, len);
		return false;
	}
	return true;
}

/* Ends who's runner after spin_read failed, and says why: late, or how it ended. */
static void reply_failed(enum cl_who who, char *why, size_t len)
{
	if (errno != ETIMEDOUT) {
		runner_stop(who, why, len);
		return;
	}
	runner_stop(who, NULL, 0);
	runner_late = call_deadline > 0 && (!student_deadline || call_deadline < student_deadline)
			      ? PAST_HOPE : LATE;
	snprintf(why, len, "was ended before it answered");
}

/* The reply to the request rpc_send sent last (rpc); the submission's, by
 * student_deadline. */
static bool rpc_reply(enum cl_who who, struct cl_wire *reply, char *why, size_t len)
{
	struct runner *r = &runners[who];
	double deadline = who != CL_STUDENT ? 0
			  : !call_deadline ? student_deadline
			  : !student_deadline ? call_deadline
			  : std::min(student_deadline, call_deadline);
	struct cl_header h;

	*reply = (struct cl_wire){};
	if (!spin_read(r->fd, &h, sizeof(h), deadline)) {
		reply_failed(who, why, len);
		return false;
	}
	if (h.seq != r->seq || h.what != CL_REPLY_OK || h.len > CL_MAX_MESSAGE) {
		snprintf(why, len, "%s answered out of turn, or refused the request (%u)",
			 side_name[who], h.what);
		runner_stop(who, NULL, 0);
		return false;
	}
	cl_wire_add(reply, NULL, 0);
	if (h.len) {
		reply->buf = (unsigned char *)malloc(h.len);
		if (!reply->buf || !spin_read(r->fd, reply->buf, h.len, deadline)) {
			reply_failed(who, why, len);
			return false;
		}
		reply->len = reply->cap = h.len;
	}
	return true;
}

static bool rpc(enum cl_who who, uint32_t op, const struct cl_wire *payload, int pass_fd,
		struct cl_wire *reply, char *why, size_t len)
{
	*reply = (struct cl_wire){};
	return rpc_send(who, op, payload, pass_fd, why, len) && rpc_reply(who, reply, why, len);
}

/*
 * Starts who's runner from its recipe and sends its first requests (hello,
 * then init: its CUDA context), without waiting for their answers, so that
 * both runners and the timer make their contexts at once
 * (runner_ready waits): true, or false with why.
 */
static bool runner_launch(enum cl_who who, char *why, size_t len)
{
	struct runner *r = &runners[who];
	struct cl_wire w = {};

	r->pid = cl_spawn(&r->recipe, &r->fd);
	if (r->pid < 0) {
		snprintf(why, len, "cannot start %s: %s", side_name[who], strerror(errno));
		return false;
	}
	r->up = true;
	r->seq = 0;
	if (!cl_hello_send(r->fd)) {
		runner_stop(who, why, len);
		return false;
	}
	cl_put_i32(&w, CL_INIT_SPIN);
	bool ok = rpc_send(who, CL_OP_INIT, &w, -1, why, len);
	cl_wire_free(&w);
	return ok;
}

/* The answers to runner_launch's requests: true, or false with why. */
static bool runner_ready(enum cl_who who, char *why, size_t len)
{
	struct runner *r = &runners[who];
	struct cl_wire reply;

	if (!cl_hello_answered(r->fd)) {
		runner_stop(who, why, len);
		return false;
	}
	bool ok = rpc_reply(who, &reply, why, len);
	if (ok) {
		struct cl_reader rd = {reply.buf, reply.len, false};
		cudaError_t e = (cudaError_t)cl_get_i32(&rd);
		if (e != cudaSuccess) {
			snprintf(why, len, "%s has no CUDA device: %s", side_name[who],
				 cudaGetErrorName(e));
			runner_stop(who, NULL, 0);
			ok = false;
		}
	}
	cl_wire_free(&reply);
	return ok;
}

/* ----------------------------------------- memory shared with the runners */

struct shared {
	void *p;
	size_t bytes;              /* mapped: a multiple of the granularity */
	CUmemGenericAllocationHandle handle;
	int fd;
	unsigned share;
	void *at[2];               /* by enum cl_who; NULL: not mapped there */
};
static std::vector<struct shared> shared;
static int device_id;
static bool importing_fatal;   /* a failed import is the grader's (before any submission code) */

/*
 * A request about the timer's memory to who's runner (rpc): the
 * submission's is answered within request_limit, or its runner is ended
 * and ended_between says so.
 */
static bool memory_request(enum cl_who who, uint32_t op, const struct cl_wire *payload,
			   int pass_fd, struct cl_wire *reply, char *why, size_t len)
{
	if (who != CL_STUDENT)
		return rpc(who, op, payload, pass_fd, reply, why, len);
	runner_late = ON_TIME;
	call_deadline = now() + request_limit;
	bool ok = rpc(who, op, payload, pass_fd, reply, why, len);
	call_deadline = 0;
	if (!ok && runner_late != ON_TIME)
		snprintf(ended_between, sizeof(ended_between),
			 CL_UNANSWERED "a request to %s the timer's "
			 "memory within %g s, between its timed calls: it was ended there, and "
			 "no kernel after it is timed",
			 op == CL_OP_IMPORT ? "map" : "unmap", request_limit);
	runner_late = ON_TIME;
	return ok;
}

/* Maps s into who's runner: 0, or -1 (the runner failed, and is ended). */
static int share_with(struct shared *s, enum cl_who who)
{
	struct cl_wire w = {}, reply;
	char why[256];

	cl_put_u64(&w, s->bytes);
	bool ok = memory_request(who, CL_OP_IMPORT, &w, s->fd, &reply, why, sizeof(why));
	cl_wire_free(&w);
	if (ok) {
		struct cl_reader r = {reply.buf, reply.len, false};
		int e = cl_get_i32(&r);
		s->at[who] = (void *)(uintptr_t)cl_get_u64(&r);
		ok = !e && !r.bad && s->at[who];
		if (!ok)
			snprintf(why, sizeof(why), "%s could not map the timer's memory (CUDA driver "
				 "error %d)", side_name[who], e);
	}
	cl_wire_free(&reply);
	if (ok)
		return 0;
	fprintf(stderr, "bench: %s\n", why);
	if (who == CL_REFERENCE || importing_fatal) {
		fflush(NULL);
		_exit(3);
	}
	runner_stop(who, NULL, 0);
	return -1;
}

void *cl_bench_shared(size_t bytes, unsigned share)
{
	const struct cl_vmm_api *v = cl_vmm();
	CUmemAllocationProp prop = cl_vmm_prop(device_id);
	struct shared s = {};
	size_t g = 0;
	CUdeviceptr at;

	if (!v || v->granularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) || !g)
		return NULL;
	s.bytes = (bytes + g - 1) / g * g;
	s.share = share;
	s.fd = -1;
	if (v->create(&s.handle, s.bytes, &prop, 0))
		return NULL;
	if (cl_vmm_map(s.handle, s.bytes, device_id, &at) ||
	    v->export_fd(&s.fd, s.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)) {
		v->release(s.handle);
		return NULL;
	}
	s.p = (void *)at;
	for (int w = 0; w < 2; w++)
		if ((share >> w & 1) && runners[w].up)
			share_with(&s, (enum cl_who)w);
	shared.push_back(s);
	return s.p;
}

static struct shared *shared_of(const void *p)
{
	for (auto &s : shared)
		if (s.p == p)
			return &s;
	return NULL;
}

void *cl_bench_at(const void *p, enum cl_who who)
{
	struct shared *s = shared_of(p);
	return s && who < 2 ? s->at[who] : NULL;
}

void cl_bench_free(void *p)
{
	struct shared *s = shared_of(p);

	if (!s)
		return;
	for (int w = 0; w < 2; w++)
		if (s->at[w] && runners[w].up) {
			struct cl_wire m = {}, reply;
			char why[256];
			cl_put_u64(&m, (uintptr_t)s->at[w]);
			cl_put_u64(&m, s->bytes);
			memory_request((enum cl_who)w, CL_OP_UNMAP, &m, -1, &reply, why,
				       sizeof(why));
			cl_wire_free(&m);
			cl_wire_free(&reply);
		}
	cl_vmm_unmap((CUdeviceptr)s->p, s->bytes);
	cl_vmm()->release(s->handle);
	close(s->fd);
	shared.erase(shared.begin() + (s - shared.data()));
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
	cudaEvent_t start, filled, end;
	float *snap[3];        /* the copies at the end of the latest call of each side
				* (by enum cl_who), and of empty calls */
	uint64_t key[2];       /* which places they are of */
	bool snapped[2];
	uint64_t keys;         /* where keys come from: the timer's alone */
};

__host__ __device__ static uint64_t mix(uint64_t s, uint64_t i)
{
	uint64_t z = s ^ (i * 0xd1b54a32d192ed03ULL);
	z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
	return z ^ (z >> 29);
}

__device__ static size_t snap_place(uint64_t key, int i, size_t n)
{
	return (size_t)(mix(key, (uint64_t)i + 1) % n);
}

__global__ void snap_kernel(const float *out, size_t n, uint64_t key, float *snap)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < SNAP_POINTS)
		snap[i] = out[snap_place(key, i, n)];
}

/* The first place (of SNAP_POINTS) where out no longer holds the copy, or -1. */
__global__ void snap_check_kernel(const float *out, size_t n, uint64_t key, const float *snap,
				  int *first)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < SNAP_POINTS &&
	    __float_as_uint(snap[i]) != __float_as_uint(out[snap_place(key, i, n)]))
		atomicMin(first, i);
}

/* The request of who's call of kernel (NULL: the empty call) into *w. */
static void timed_request(const struct cl_bench_lab *lab, void *ctx, const char *kernel,
			  enum cl_who who, struct cl_wire *w)
{
	struct cl_call c = {};

	if (kernel)
		lab->call(ctx, kernel, who, &c);
	cl_put_str(w, kernel ? c.name : "");
	cl_wire_add(w, c.args.buf, c.args.len);
	cl_wire_free(&c.args);
}

/* What a timed call came to. */
enum outcome { CALL_OK, CALL_FAILED, CALL_RUNNER_ENDED, CALL_LATE, CALL_PAST_HOPE };

/*
 * One timed call of who's side of kernel, on new inputs from seed
 * (bench.h): its milliseconds from before the inputs are written to after
 * the copy of the output into *ms. kernel NULL: the empty call, which
 * writes inputs but does not poison the output (a lab may count its calls
 * by the seeds it is told to poison for). CALL_FAILED: the
 * launcher's CUDA error, in msg; CALL_RUNNER_ENDED: how, in msg;
 * CALL_LATE: the submission's reply had not come by student_deadline,
 * and its runner is ended; CALL_PAST_HOPE: nor within give_up_after of
 * the request (an empty call: nor within that or GIVE_UP_FLOOR, whichever
 * is longer).
 */
static enum outcome time_call(const struct cl_bench_lab *lab, void *ctx, struct device *d,
			      struct timer *t, const char *kernel, enum cl_who who, uint64_t seed,
			      double *ms, char *msg, size_t len)
{
	struct cl_wire w = {}, reply;
	const float *out;
	size_t n;
	float elapsed;

	if (kernel)
		lab->poison(ctx, who, seed);
	CL_BENCH_CHECK(cudaMemsetAsync(d->flush, (int)(d->flush_value++ & 0xff), d->flush_bytes));
	timed_request(lab, ctx, kernel, who, &w);
	/*
	 * The inputs are written inside the window, after the start in the
	 * timer's stream: a runner that watched for them and computed ahead
	 * would do it inside its own time. Written before the start, they sat
	 * in shared memory while the start event waited for a GPU that work of
	 * the submission's could keep busy. An empty call writes inputs too
	 * (of no pair's), so that what it takes off has the same writing in it.
	 * The request goes out once they are written: the runner's kernels are
	 * in another context, which nothing orders after the timer's stream.
	 */
	CL_BENCH_CHECK(cudaEventRecord(t->start));
	lab->inputs(ctx, seed);
	CL_BENCH_CHECK(cudaEventRecord(t->filled));
	CL_BENCH_CHECK(cudaEventSynchronize(t->filled));
	double asked = now();
	if (who == CL_STUDENT && student_limit > 0)
		student_deadline = asked + std::max(0.0, student_limit - student_spent);
	/* a timed call past hope; an empty call, which runs no code of the
	 * submission's, is past hope as soon as a timed one could be */
	call_deadline = who != CL_STUDENT ? 0
			: !kernel ? asked + std::max(GIVE_UP_FLOOR, give_up_after)
			: give_up_after > 0 ? asked + give_up_after : 0;
	bool answered = rpc(who, CL_OP_TIMED, &w, -1, &reply, msg, len);
	if (who == CL_STUDENT)
		student_spent += now() - asked;
	call_deadline = student_deadline = 0;
	cl_wire_free(&w);
	if (!answered) {
		if (who == CL_REFERENCE) {
			fprintf(stderr, "bench: %s\n", msg);
			fflush(NULL);
			_exit(3);
		}
		return runner_late == LATE ? CALL_LATE
		       : runner_late == PAST_HOPE ? CALL_PAST_HOPE : CALL_RUNNER_ENDED;
	}
	struct cl_reader r = {reply.buf, reply.len, false};
	cudaError_t err = (cudaError_t)cl_get_i32(&r);
	cl_wire_free(&reply);
	lab->output(ctx, who, &out, &n);
	/* an empty call copies as much, into a place of its own */
	uint64_t key = mix(t->keys, seed);
	t->keys = mix(t->keys, 0x5bd1e995);
	snap_kernel<<<(SNAP_POINTS + 255) / 256, 256>>>(out, n, key,
							 kernel ? t->snap[who] : t->snap[2]);
	CL_BENCH_CHECK(cudaEventRecord(t->end));
	CL_BENCH_CHECK(cudaEventSynchronize(t->end));
	if (kernel) {
		t->key[who] = key;
		t->snapped[who] = true;
	}
	if (err != cudaSuccess) {
		snprintf(msg, len, "%s (%s)", cudaGetErrorName(err), cudaGetErrorString(err));
		return CALL_FAILED;
	}
	CL_BENCH_CHECK(cudaEventElapsedTime(&elapsed, t->start, t->end));
	*ms = elapsed;
	return CALL_OK;
}

/* Whether who's output still holds what was copied at the end of its call; else msg. */
static bool still_as_copied(const struct cl_bench_lab *lab, void *ctx, struct timer *t,
			    enum cl_who who, char *msg, size_t len)
{
	static int *d_first;
	int first = SNAP_POINTS;
	const float *out;
	size_t n;

	if (!t->snapped[who])
		return true;
	if (!d_first)
		CL_BENCH_CHECK(cudaMalloc(&d_first, sizeof(int)));
	lab->output(ctx, who, &out, &n);
	CL_BENCH_CHECK(cudaMemcpy(d_first, &first, sizeof(int), cudaMemcpyHostToDevice));
	snap_check_kernel<<<(SNAP_POINTS + 255) / 256, 256>>>(out, n, t->key[who], t->snap[who],
							      d_first);
	CL_BENCH_CHECK(cudaGetLastError());
	CL_BENCH_CHECK(cudaMemcpy(&first, d_first, sizeof(int), cudaMemcpyDeviceToHost));
	if (first >= SNAP_POINTS)
		return true;
	float was;
	CL_BENCH_CHECK(cudaMemcpy(&was, t->snap[who] + first, sizeof(float), cudaMemcpyDeviceToHost));
	snprintf(msg, len, "an element of the output changed after the call had returned (it was "
		 "%g when the call returned)", was);
	return false;
}

/*
 * The reference's side of kernel alone, n calls (and, when empty is not
 * NULL, n empty calls of each runner: the loop both runners start with,
 * before any code of the submission's has run): before the submission's
 * first call, or after its runner has been ended.
 */
static void reference_alone(const struct cl_bench_lab *lab, void *ctx, struct device *d,
			    struct timer *t, const char *kernel, uint64_t seed, int n,
			    std::vector<double> *calls, std::vector<double> empty[2])
{
	char msg[512];
	double ms;

	for (int i = -1; i < n; i++) {   /* -1: a warm-up, not kept */
		for (int w = 0; empty && w < 2; w++) {
			enum cl_who who = (enum cl_who)((i + w) & 1);
			if (time_call(lab, ctx, d, t, NULL, who, mix(seed, 3 * i + w + 5), &ms, msg,
				      sizeof(msg)) != CALL_OK) {
				fprintf(stderr, "bench: an empty call of %s failed: %s\n",
					side_name[who], msg);
				fflush(NULL);
				_exit(3);
			}
			if (i >= 0)
				empty[who].push_back(ms);
		}
		if (time_call(lab, ctx, d, t, kernel, CL_REFERENCE, mix(seed, 3 * i + 7), &ms, msg,
			      sizeof(msg)) != CALL_OK) {
			fprintf(stderr, "bench: the reference's %s failed: %s\n", kernel, msg);
			fflush(NULL);
			_exit(3);
		}
		if (i >= 0)
			calls->push_back(ms);
	}
}

/*
 * Whether a's median is more than GUARD slower than b's, and by more than
 * three standard errors of their difference: a few microseconds of a short
 * kernel are the noise of its round trip, not a submission's doing.
 */
static bool slower(const struct stats *a, const struct stats *b)
{
	double ea = a->rse * a->median, eb = b->rse * b->median;
	return a->median > b->median * (1 + GUARD) + 3 * sqrt(ea * ea + eb * eb);
}

/* What was measured of one case before the submission's first call. */
struct alone {
	double empty_ms[2];          /* an empty call of each runner: round trip and copy */
	double off_ms;               /* the median of both runners' empty calls: taken off each call */
	struct stats reference;      /* the reference's calls, less off_ms */
	char busy[256];              /* not "": the machine was too busy to measure them */
};

/*
 * Times the student's side of kernel and the other (the reference's, unless
 * the lab labels it) at one size, and writes the case's line. A pair of
 * calls has inputs of its own: the submission's timed call first, then the
 * reference's timed call on the same inputs (filled again inside its own
 * window), whose output checks the submission's. The submission's call is
 * always first, so its runner meets a pair's inputs only inside its own
 * window; and each side's call comes right after the other side's.
 * False, with nothing written, when the timer and the runners waited for a
 * CPU for more than BUSY_SHARE of the case's time and this is not the
 * last_try: the caller times it again. On the last try such a case is
 * written "busy", the machine's failure.
 */
static bool bench_case(const struct cl_bench_lab *lab, const struct bench_opts *o,
		       struct device *d, struct timer *t, void *ctx, const char *kernel, int size,
		       uint64_t case_seed, const struct alone *alone, bool last_try)
{
	std::vector<double> ms[2], raw[2];   /* less the empty call, and as timed */
	std::vector<double> empty[2];        /* each side's empty call before its timed one */
	char msg[1024] = "", sj[3][512], head[512], why[512];
	const char *status = "ok";
	double t0 = now(), clock0 = sm_clock_mhz(), flop = lab->flop(kernel, size);
	double bytes = lab->bytes(kernel, size), guard_now = NAN;
	bool capped = false, off = true;
	struct cpu_use use0 = cpu_use();

	bool ended_here = false;   /* ended_between was set in this case */

	if (alone->busy[0]) {   /* the reference alone could not be measured: nor can this */
		status = "busy";
		snprintf(msg, sizeof(msg), "%s", alone->busy);
	} else if (ended_between[0]) {   /* the submission's runner is gone for good */
		status = "disturbed";
		snprintf(msg, sizeof(msg), "%s", ended_between);
	}
	/* the submission's calls of this case, the warm-up and the empty calls
	 * included, take so long in all, or the case ends there */
	student_limit = o->case_limit;
	student_spent = 0;
	runner_late = ON_TIME;
	/*
	 * and each timed call of the submission is ended once its ratio to the
	 * reference's call would be past give_up: it could score nothing. Never
	 * under GIVE_UP_FLOOR: a first call may load modules, and a short
	 * kernel's round trip is most of its time.
	 */
	double reference_call = alone->reference.median + alone->off_ms;
	give_up_after = o->give_up > 0 && reference_call > 0
				? std::max(GIVE_UP_FLOOR, o->give_up * reference_call / 1e3) : 0;
	t->snapped[0] = t->snapped[1] = false;
	for (int pair = 0; !strcmp(status, "ok") && pair <= o->max_samples; pair++) {
		double v[2];
		uint64_t seed = mix(case_seed, (uint64_t)pair + 1);
		const char *which = !pair ? "a warm-up" : "timed";

		for (int k = 0; k < 2; k++) {
			enum cl_who w = k ? CL_REFERENCE : CL_STUDENT;
			double e;
			/* the side's empty call just before, on inputs of no pair's */
			enum outcome out = time_call(lab, ctx, d, t, NULL, w, mix(seed, 0xe), &e,
						     why, sizeof(why));
			if (out == CALL_OK && pair)
				empty[w].push_back(e);
			if (out == CALL_PAST_HOPE) {   /* the submission's: it ran none of its code */
				snprintf(ended_between, sizeof(ended_between),
					 CL_UNANSWERED "an empty call (a "
					 "request between its timed calls, which runs none of its "
					 "code) within %.3g s, before call %d (%s) of %s at size %d: "
					 "it was ended there, and no kernel after it is timed",
					 std::max(GIVE_UP_FLOOR, give_up_after), pair + 1, which,
					 kernel, size);
				ended_here = true;
				status = "disturbed";
				snprintf(msg, sizeof(msg), "%s", ended_between);
				break;
			}
			if (out == CALL_OK)
				out = time_call(lab, ctx, d, t, kernel, w, seed, &v[w], why,
						sizeof(why));
			if (out == CALL_OK)
				continue;
			if (w == CL_REFERENCE) {   /* the grader's, never the student's */
				fprintf(stderr, "bench: the reference's %s failed: %s\n", kernel, why);
				fflush(NULL);
				_exit(3);
			}
			const char *l = lab->label ? lab->label(kernel, CL_STUDENT) : NULL;
			status = out == CALL_LATE ? "timeout" : out == CALL_PAST_HOPE ? "slow" : "error";
			const char *lb = lab->label ? lab->label(kernel, CL_REFERENCE) : NULL;
			if (out == CALL_PAST_HOPE)
				snprintf(msg, sizeof(msg),
					 "call %d of %s (%s) was not done after %.3g s, more than %g "
					 "times %s (%.3g ms a call): it was ended there",
					 pair + 1, l ? l : "the submission", which, give_up_after,
					 o->give_up, lb ? lb : "the reference's kernel", reference_call);
			else if (out == CALL_LATE)
				snprintf(msg, sizeof(msg),
					 "call %d of %s (%s) was not done within the %g s that a "
					 "timed kernel's calls may take in all (its warm-up, its "
					 "samples and the empty calls between them); %s takes "
					 "%.3g ms a call",
					 pair + 1, l ? l : "the submission", which, student_limit,
					 lb ? lb : "the reference's kernel", reference_call);
			else
				snprintf(msg, sizeof(msg), "call %d of %s (%s) %s: %s", pair + 1,
					 l ? l : "the submission", which,
					 out == CALL_FAILED ? "failed" : "did not end", why);
			break;
		}
		if (strcmp(status, "ok"))
			break;
		/* the submission's output, checked against the reference's of the same
		 * inputs, the exact result, and what it held at the end of its call */
		char m[900];
		if (lab->verify(ctx, seed, m, sizeof(m)) ||
		    !still_as_copied(lab, ctx, t, CL_STUDENT, m, sizeof(m))) {
			status = "wrong";
			snprintf(msg, sizeof(msg), "call %d (%s): %s", pair + 1, which, m);
			break;
		}
		if (!pair)
			continue;   /* the warm-up: loads both kernels' modules */
		/* each side's time less its empty call: what is left is its kernels */
		for (int w = 0; w < 2; w++) {
			raw[w].push_back(v[w]);
			ms[w].push_back(v[w] - alone->off_ms);
		}
		/* the ratio's relative standard error, from both medians' */
		int n = pair;
		struct stats a = stats_of(ms[0]), b = stats_of(ms[1]);
		if (n >= o->min_samples && hypot(a.rse, b.rse) < o->target_rse)
			break;
		if (now() - t0 >= o->cap && n >= 3) {
			capped = true;
			break;
		}
	}

	student_limit = give_up_after = 0;
	/*
	 * Where a side's calls came to little more than its empty call (or
	 * less: a machine busier while the empty calls were timed), what is
	 * left is the noise of the round trip, not a time: then neither side
	 * has its empty call taken off, and their ratio leans toward 1.
	 */
	for (int w = 0; w < 2 && !ms[w].empty(); w++)
		off &= stats_of(ms[w]).median > EMPTY_RESOLVES * alone->off_ms;
	if (!off)
		for (int w = 0; w < 2; w++)
			ms[w] = raw[w];
	struct stats st[2] = {stats_of(ms[0]), stats_of(ms[1])};
	/*
	 * The guard: the reference slower beside the submission than alone.
	 * Measured again with the submission's runner ended: when it is then
	 * as fast as it was alone, the difference was the submission's.
	 */
	struct stats before = alone->reference;
	before.median += off ? 0 : alone->off_ms;
	bool suspect = !strcmp(status, "ok") && slower(&st[0], &before);
	if (suspect) {
		std::vector<double> again;
		int n_again = std::min(std::max((int)ms[0].size(), GUARD_MIN_SAMPLES), GUARD_MAX_SAMPLES);
		runner_stop(CL_STUDENT, NULL, 0);
		reference_alone(lab, ctx, d, t, kernel, mix(case_seed, 99), n_again, &again, NULL);
		for (double &x : again)
			x -= off ? alone->off_ms : 0;
		struct stats now_alone = stats_of(again);
		guard_now = now_alone.median;
		if (slower(&st[0], &now_alone)) {
			status = "disturbed";
			snprintf(msg, sizeof(msg),
				 "the reference's calls took %.1f %% longer between the submission's "
				 "calls (%.4f ms) than with the submission's program ended (%.4f ms): "
				 "the submission's code kept the GPU busy after its calls returned",
				 100 * (st[0].median / guard_now - 1), st[0].median, guard_now);
		}
	}
	/*
	 * A machine too busy for the times to mean anything: again, else its
	 * failure. Not where the submission's own runner took more than
	 * SUBMISSION_CPUS of the CPUs meanwhile: then the wait may be of its
	 * making, and its times stand.
	 */
	struct cpu_use use1 = cpu_use();
	double took = now() - t0, waited;
	if (too_busy(&use0, &use1, took, &waited) &&
	    (!strcmp(status, "ok") || !strcmp(status, "disturbed"))) {
		if (!last_try) {
			/* a runner that did not answer on so busy a machine is
			 * given its next try (it is started again) */
			if (ended_here)
				ended_between[0] = '\0';
			return false;
		}
		status = "busy";
		snprintf(msg, sizeof(msg),
			 "the machine's CPUs were busy with other work: the timer and the two runners "
			 "waited %.3f s for a CPU in the %.3f s this kernel was timed (at most %.0f %% "
			 "is taken as fair), on each of %d tries",
			 waited, took, 100 * BUSY_SHARE, BUSY_TRIES);
	}
	for (int w = 0; w < 2; w++)
		stats_json(sj[w], sizeof(sj[w]), &st[w], flop, bytes);
	stats_json(sj[2], sizeof(sj[2]), &alone->reference, flop, bytes);
	double floor_ms = std::max(flop / (d->peak_gflops * 1e9),
				   bytes / (FLOOR_COPY_MARGIN * d->copy_gbs * 1e9)) * 1e3;
	snprintf(head, sizeof(head), ",\"kernel\":\"%s\",\"size\":%d,\"status\":\"%s\"",
		 kernel, size, status);
	double clock1 = sm_clock_mhz(), ratio = st[1].median / st[0].median;
	char num[7][32], m[6 * sizeof(msg) + 3], who[2][200];
	for (int w = 0; w < 2; w++) {
		const char *l = lab->label ? lab->label(kernel, (enum cl_who)w) : NULL;
		if (l)
			json_quoted(who[w], sizeof(who[w]), l);
		else
			strcpy(who[w], "null");
	}
	emit("case",
	     "%s,\"message\":%s,\"samples\":%zu,\"capped\":%s,\"student\":%s,\"reference\":%s,"
	     "\"reference_alone\":%s,\"empty_call_ms\":{\"student\":%s,\"reference\":%s},"
	     "\"reference_again_ms\":%s,"
	     "\"subject\":%s,\"baseline\":%s,\"ratio\":%s,\"flop\":%.17g,\"bytes\":%.17g,"
	     "\"floor_ms\":%s,\"sm_clock_mhz\":[%s,%s],\"seconds\":%.3f,"
	     "\"raw_ms\":{\"student\":%s,\"reference\":%s,\"empty_student\":%s,"
	     "\"empty_reference\":%s}",
	     head, json_quoted(m, sizeof(m), msg), ms[1].size(), capped ? "true" : "false", sj[1],
	     sj[0], sj[2], json_num(num[4], "%.9g", alone->empty_ms[CL_STUDENT]),
	     json_num(num[6], "%.9g", alone->empty_ms[CL_REFERENCE]),
	     json_num(num[5], "%.9g", guard_now), who[CL_STUDENT], who[CL_REFERENCE],
	     json_num(num[0], "%.9g", ratio), flop, bytes, json_num(num[1], "%.9g", floor_ms),
	     json_num(num[2], "%.0f", clock0), json_num(num[3], "%.0f", clock1), now() - t0,
	     json_array(raw[CL_STUDENT]).c_str(), json_array(raw[CL_REFERENCE]).c_str(),
	     json_array(empty[CL_STUDENT]).c_str(), json_array(empty[CL_REFERENCE]).c_str());
	if (!strcmp(status, "error") || !strcmp(status, "timeout") || !strcmp(status, "slow")) {
		fflush(NULL);
		_exit(4);   /* the submission's program is gone, or its context unusable */
	}
	return true;
}

/* The informative ceiling (a vendor library), in this process: the median of a few calls. */
static void bench_ceiling(const struct cl_bench_lab *lab, struct device *d, struct timer *t,
			  void *ctx, int size, uint64_t seed)
{
	std::vector<double> ms;

	lab->inputs(ctx, seed);
	for (int i = 0; i <= CEILING_SAMPLES; i++) {
		struct cl_call c = {};
		float v;
		CL_BENCH_CHECK(cudaMemsetAsync(d->flush, (int)(d->flush_value++ & 0xff),
					       d->flush_bytes));
		CL_BENCH_CHECK(cudaDeviceSynchronize());
		CL_BENCH_CHECK(cudaEventRecord(t->start));
		lab->call(ctx, NULL, CL_CEILING, &c);
		cudaError_t err = cudaGetLastError();
		cudaError_t s = cudaDeviceSynchronize();
		if (err == cudaSuccess)
			err = s;
		if (err != cudaSuccess) {
			char m[256];
			snprintf(m, sizeof(m), "\"%s failed: %s\"", lab->ceiling_name,
				 cudaGetErrorName(err));
			emit("ceiling", ",\"name\":\"%s\",\"size\":%d,\"status\":\"error\",\"message\":%s",
			     lab->ceiling_name, size, m);
			fflush(NULL);
			_exit(4);
		}
		CL_BENCH_CHECK(cudaEventRecord(t->end));
		CL_BENCH_CHECK(cudaEventSynchronize(t->end));
		CL_BENCH_CHECK(cudaEventElapsedTime(&v, t->start, t->end));
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
		"usage: timer (%s) --out FILE --runner RECIPE --reference RECIPE\n"
		"       [--case KERNEL:SIZE]... [--cap SECONDS] [--case-limit SECONDS]\n"
		"       [--give-up RATIO]\n"
		"       [--min-samples N] [--max-samples N] [--target-rse FRACTION]\n"
		"       [--copy-gbs GBS --uuid UUID] [--no-ceiling] [--device-only]\n"
		"Times the submission's launchers against the reference's, interleaved,\n"
		"each in a runner of its own started from its recipe (the grader's).\n"
		"Standard input gives 'seed=N' and 'token=T'. --out -: standard output.\n"
		"--copy-gbs GBS --uuid UUID: the copy bandwidth measured before on the GPU\n"
		"whose UUID is UUID, used instead of measuring it again on that GPU;\n"
		"--case-limit SECONDS: a case whose submission's calls are not done\n"
		"within SECONDS in all ends there (\"timeout\"), its runner ended;\n"
		"--give-up RATIO: so does a case whose submission's call takes RATIO\n"
		"times the reference's call, and at least a second (\"slow\");\n"
		"--no-ceiling: no library ceiling; --device-only: the device and the\n"
		"ceiling at each case's size only, no launcher called.\n",
		lab);
}

static int parse_args(const struct cl_bench_lab *lab, int argc, char **argv,
		      struct bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cap = 1.0;
	o->min_samples = 6;
	o->max_samples = 200;
	o->target_rse = TARGET_RSE;
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
		} else if (!strcmp(a, "--runner")) {
			o->recipe[CL_STUDENT] = v;
		} else if (!strcmp(a, "--reference")) {
			o->recipe[CL_REFERENCE] = v;
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
		} else if (!strcmp(a, "--case-limit")) {
			o->case_limit = atof(v);
		} else if (!strcmp(a, "--give-up")) {
			o->give_up = atof(v);
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
	if (!o->out || o->cap <= 0 || !(o->case_limit >= 0) || !(o->give_up >= 0) ||
	    (!o->device_only && (!o->recipe[0] || !o->recipe[1])) || o->min_samples < 1 || o->max_samples < o->min_samples ||
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

/*
 * Starts who's runner again, and waits for it: true, or false with why.
 * The memory its earlier runner had mapped is mapped into the new one (a
 * case timed again after its runner was ended, by the guard or a call that
 * did not answer, needs the case's buffers there); a failure to map ends
 * it, as any failed request does.
 */
static bool runner_start(enum cl_who who, char *why, size_t len)
{
	if (!runner_launch(who, why, len) || !runner_ready(who, why, len))
		return false;
	for (auto &s : shared) {
		s.at[who] = NULL;
		if ((s.share >> who & 1) && runners[who].up)
			share_with(&s, who);
	}
	return true;
}

/*
 * The submission's runner, started again where it was ended (runner_start),
 * except once it left a request unanswered (ended_between): false, with
 * why, when it cannot be started.
 */
static bool student_again(char *why, size_t len)
{
	return runners[CL_STUDENT].up || ended_between[0] || runner_start(CL_STUDENT, why, len);
}

/* Starts both runners from their recipes (runner_launch): true, or false with why. */
static bool runners_launch(const struct bench_opts *o, char *why, size_t len)
{
	for (int w = 0; w < 2; w++)
		if (cl_recipe_read(o->recipe[w], &runners[w].recipe)) {
			snprintf(why, len, "cannot read the recipe '%s'", o->recipe[w]);
			return false;
		}
	return runner_launch(CL_REFERENCE, why, len) && runner_launch(CL_STUDENT, why, len);
}

static int bench_main(const struct cl_bench_lab *lab, int argc, char **argv)
{
	struct bench_opts o;
	struct device d = {};
	struct timer t = {};
	char why[512] = "";

	if (parse_args(lab, argc, argv, &o)) {
		usage(lab->name);
		return 2;
	}
	snprintf(token, sizeof(token), "%s", o.token);
	out_file = strcmp(o.out, "-") ? fopen(o.out, "w") : stdout;
	if (!out_file) {
		fprintf(stderr, "timer (%s): cannot write '%s': %s\n", lab->name, o.out,
			strerror(errno));
		return 3;
	}

	/* the timer waits for its events by spinning: a blocked wait's wake-up
	 * would add its own microseconds to every time */
	bool launched = o.device_only || runners_launch(&o, why, sizeof(why));
	cudaSetDeviceFlags(cudaDeviceScheduleSpin);
	cudaError_t e = cudaFree(0);
	if (e == cudaSuccess)
		e = cudaGetDevice(&device_id);
	if (launched && !o.device_only)
		launched = runner_ready(CL_REFERENCE, why, sizeof(why)) &&
			   runner_ready(CL_STUDENT, why, sizeof(why));
	if (e != cudaSuccess || !launched) {
		char m[6 * sizeof(why) + 3];
		if (e != cudaSuccess)
			snprintf(why, sizeof(why), "no CUDA device: %s", cudaGetErrorString(e));
		emit("device", ",\"status\":\"unavailable\",\"message\":%s",
		     json_quoted(m, sizeof(m), why));
		return 3;
	}
	device_open(&d, o.given_copy_gbs, o.given_uuid);
	CL_BENCH_CHECK(cudaEventCreate(&t.start));
	CL_BENCH_CHECK(cudaEventCreate(&t.filled));
	CL_BENCH_CHECK(cudaEventCreate(&t.end));
	for (int w = 0; w < 3; w++)
		CL_BENCH_CHECK(cudaMalloc(&t.snap[w], SNAP_POINTS * sizeof(float)));
	{
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		t.keys = mix(o.seed ^ (uint64_t)getpid() << 40, (uint64_t)ts.tv_nsec ^ ts.tv_sec);
	}
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
		 * no runner started.
		 */
		for (int c = 0; ceiling_ok && c < o.ncases; c++) {
			int size = o.cases[c].size;
			if (std::find(ceiling_sizes.begin(), ceiling_sizes.end(), size) !=
			    ceiling_sizes.end())
				continue;
			ceiling_sizes.push_back(size);
			void *ctx = lab->setup(o.cases[c].kernel, size, why, sizeof(why));
			if (!ctx) {
				fprintf(stderr, "timer (%s): %s\n", lab->name, why);
				return 3;
			}
			bench_ceiling(lab, &d, &t, ctx, size, mix(o.seed, 7));
			lab->teardown(ctx);
		}
		emit("end", "");
		fclose(out_file);
		return 0;
	}

	/*
	 * First the reference alone, every case, while the submission's runner
	 * has run none of its code: what an empty call costs, and the
	 * reference's times that the guard holds the rest to.
	 */
	std::vector<struct alone> alone(o.ncases);
	double alone_from = now();
	importing_fatal = true;
	for (int c = 0; c < o.ncases; c++) {
		std::vector<double> calls, empty[2];
		void *ctx = lab->setup(o.cases[c].kernel, o.cases[c].size, why, sizeof(why));
		if (!ctx) {
			fprintf(stderr, "timer (%s): %s\n", lab->name, why);
			return 3;
		}
		/* as a case beside the submission is: again on a busy machine, up to
		 * BUSY_TRIES times, then the case is "busy" (bench_case) */
		alone[c].busy[0] = '\0';
		for (int try_ = 1; try_ <= BUSY_TRIES; try_++) {
			struct cpu_use use0 = cpu_use(), use1;
			double from = now(), waited;
			calls.clear();
			empty[0].clear();
			empty[1].clear();
			reference_alone(lab, ctx, &d, &t, o.cases[c].kernel,
					mix(o.seed, (uint64_t)c + 2000), ALONE_SAMPLES, &calls, empty);
			use1 = cpu_use();
			if (!too_busy(&use0, &use1, now() - from, &waited))
				break;
			if (try_ == BUSY_TRIES)
				snprintf(alone[c].busy, sizeof(alone[c].busy),
					 "the machine's CPUs were busy with other work: the timer and "
					 "the two runners waited %.3f s for a CPU in the %.3f s the "
					 "reference was timed alone (at most %.0f %% is taken as "
					 "fair), on each of %d tries",
					 waited, now() - from, 100 * BUSY_SHARE, BUSY_TRIES);
		}
		std::vector<double> both(empty[0]);
		both.insert(both.end(), empty[1].begin(), empty[1].end());
		for (int w = 0; w < 2; w++)
			alone[c].empty_ms[w] = stats_of(empty[w]).median;
		alone[c].off_ms = stats_of(both).median;
		for (double &x : calls)
			x -= alone[c].off_ms;
		alone[c].reference = stats_of(calls);
		lab->teardown(ctx);
	}
	importing_fatal = false;
	double alone_seconds = now() - alone_from;
	if (o.case_limit > 0)
		request_limit = std::min(MEMORY_REQUEST_LIMIT, o.case_limit);

	for (int c = 0; c < o.ncases; c++) {
		const char *kernel = o.cases[c].kernel;
		int size = o.cases[c].size;
		if (!student_again(why, sizeof(why))) {
			fprintf(stderr, "timer (%s): %s\n", lab->name, why);
			return 3;
		}
		void *ctx = lab->setup(kernel, size, why, sizeof(why));
		if (!ctx) {
			fprintf(stderr, "timer (%s): %s\n", lab->name, why);
			return 3;
		}
		for (int try_ = 1; !bench_case(lab, &o, &d, &t, ctx, kernel, size,
					       mix(o.seed, (uint64_t)c + 1000), &alone[c],
					       try_ == BUSY_TRIES); try_++)
			if (!student_again(why, sizeof(why))) {
				fprintf(stderr, "timer (%s): %s\n", lab->name, why);
				return 3;
			}
		if (ceiling_ok && std::find(ceiling_sizes.begin(), ceiling_sizes.end(), size) ==
					  ceiling_sizes.end()) {
			ceiling_sizes.push_back(size);
			bench_ceiling(lab, &d, &t, ctx, size, mix(o.seed, 7));
		}
		lab->teardown(ctx);
	}
	emit("end", ",\"reference_alone_seconds\":%.3f", alone_seconds);
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
