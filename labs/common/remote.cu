/*
 * remote.cu - the judge's end of the line to the runner (remote.h).
 *
 * Owns: starting this test process's runner (once per process: a lane's
 * tests share one, as they shared one CUDA context), the request and its
 * reply, and the few CUDA runtime calls the judge's own code makes
 * (cudaMalloc, cudaMemcpy, cudaMemset, cudaFree, cudaDeviceSynchronize,
 * cudaGetLastError, the errors' names), each of which the runner carries
 * out. The judge is linked with no CUDA runtime: it cannot touch a GPU,
 * and nothing it holds is in a process that runs the submission.
 *
 * How the runner starts is the grader's to say (--runner FILE, read by
 * cl_remote_configure): its argv (bubblewrap and its options, or the
 * runner alone), its folder, and files to open as given descriptors
 * (bubblewrap's options and its system-call filter). The runner gets its
 * end of the socket as descriptor CL_RUNNER_FD, /dev/null as its input, and
 * this process's output.
 *
 * Must not: read or write a device address (they are the runner's), or
 * trust a reply beyond its size.
 */
#include "cudalab.h"
#include "remote.h"
#include "spawn.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * Fails the test when cond is false. Not ck_assert: that marks a point in
 * Check's log when it holds, and these calls are made outside tests too
 * (the safety run asks after each test whether the context is lost).
 */
#define CL_REQUIRE(cond, ...)                 \
	do {                                  \
		if (!(cond))                  \
			ck_abort_msg(__VA_ARGS__); \
	} while (0)

static struct cl_recipe recipe;
static pid_t runner_pid, runner_owner;   /* the runner, and the process it serves */
static int runner_fd = -1;
static bool runner_fresh;   /* asked nothing yet but its context: no code of the
			     * submission's has run in it (constructors are refused) */

int cl_remote_configure(const char *path)
{
	return cl_recipe_read(path, &recipe);
}

/* Waits for the runner to end: its wait status. */
static int runner_reap(void)
{
	int st = 0;

	close(runner_fd);
	runner_fd = -1;
	while (waitpid(runner_pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

/* This process ends as a runner that ended with wait status st did. */
static void mirror(int st)
{
	int sig = 0, code = 0;

	if (WIFSIGNALED(st))
		sig = WTERMSIG(st);
	else if (WIFEXITED(st) && WEXITSTATUS(st) > 128 && WEXITSTATUS(st) < 128 + 65)
		sig = WEXITSTATUS(st) - 128;
	else if (WIFEXITED(st))
		code = WEXITSTATUS(st);
	fflush(NULL);
	if (sig) {
		sigset_t all;
		sigfillset(&all);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		signal(sig, SIG_DFL);
		raise(sig);
		code = 128 + sig;   /* a signal that does not end a process */
	}
	_exit(code);
}

/*
 * The runner ended instead of answering: this process ends as it did (the
 * same signal, or the same exit status), so that the harness and Check see
 * what they saw when the submission ran in the test's own process. A
 * runner in bubblewrap is reported by bubblewrap: a signal as 128 + its
 * number.
 */
static void runner_gone(void)
{
	mirror(runner_reap());
}

static bool send_all(const void *p, size_t n)
{
	return cl_io_all(runner_fd, (void *)p, n, true);
}

static bool recv_all(void *p, size_t n)
{
	return cl_io_all(runner_fd, p, n, false);
}

/* Starts a runner: 0, or -1 with errno (EAGAIN: no process can be made now). */
static int spawn(void)
{
	pid_t pid = cl_spawn(&recipe, &runner_fd);

	if (pid < 0)
		return -1;
	runner_pid = pid;
	runner_owner = getpid();
	runner_fresh = true;
	return 0;
}

/* A number read from file dir/name, or -1 (no file, or "max"). */
static long cgroup_number(const char *dir, const char *name)
{
	char path[4200];
	long v = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "re");
	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/*
 * Waits, up to 10 s, while this process's pids cgroup (the grader's limit
 * on the test binary's processes) is over three quarters full. A test that
 * ran out of time may leave processes going for a while (a fork bomb's,
 * its sandbox being torn down): a runner started among them could not
 * make the processes and threads it needs, a failure that is not this
 * test's. Without a pids cgroup, or one with no limit, no wait.
 */
static void wait_for_room(void)
{
	char line[4096], dir[4096] = "";
	FILE *f = fopen("/proc/self/cgroup", "re");

	while (f && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		line[strcspn(line, "\n")] = '\0';
		*c2 = '\0';
		if (strstr(c1 + 1, "pids")) {   /* v1: the pids hierarchy */
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup/pids%s", c2 + 1);
			break;
		}
		if (!strcmp(line, "0") && c1[1] == '\0')   /* v2: the unified one */
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s", c2 + 1);
	}
	if (f)
		fclose(f);
	long max = *dir ? cgroup_number(dir, "pids.max") : -1;
	for (int i = 0; max > 0 && i < 500; i++) {
		long now = cgroup_number(dir, "pids.current");
		if (now < 0 || now <= max * 3 / 4)
			return;
		usleep(20000);
	}
}

/*
 * This process's runner, started when it has none (a fork has its
 * parent's: not its own). A runner that cannot start for want of
 * processes (another test's fork bomb, its sandbox not yet torn down) is
 * tried again for a while: that is no fault of this test's. One that dies
 * of a signal before it answers, or still cannot start after that, ends
 * this process as it ended.
 */
static void runner_begin(void)
{
	double waited = 0;

	if (runner_fd >= 0 && runner_owner == getpid())
		return;
	if (runner_fd >= 0)
		close(runner_fd);
	runner_fd = -1;
	CL_REQUIRE(recipe.argv[0] != NULL, "harness: no runner to run the submission (--runner)");
	wait_for_room();
	for (;; usleep(20000), waited += 0.02) {
		if (spawn() < 0) {
			CL_REQUIRE(errno == EAGAIN && waited < 10, "harness: cannot start the "
				   "submission's program: %s", strerror(errno));
			continue;
		}
		if (cl_hello(runner_fd))
			break;
		int st = runner_reap();
		if (!WIFEXITED(st) || WEXITSTATUS(st) > 128 || waited >= 10)
			mirror(st);
	}
	static bool ends_with_exit;
	if (!ends_with_exit)   /* Check's fork mode ends a failed test with exit() */
		ends_with_exit = !atexit(cl_remote_end);
}

struct cl_request_times cl_request_times;

static double monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The same, its time (a new runner's start, or nothing) in cl_request_times.start. */
static void runner_start(void)
{
	double t0 = monotonic();

	runner_begin();
	cl_request_times.start += monotonic() - t0;
}

void cl_remote_end(void)
{
	if (runner_fd < 0 || runner_owner != getpid())
		return;
	close(runner_fd);   /* the runner's loop ends at this */
	runner_fd = -1;
	for (int i = 0; i < 2000; i++) {   /* it ends within a millisecond or two */
		pid_t p = waitpid(runner_pid, NULL, WNOHANG);
		if (p == runner_pid || (p < 0 && errno != EINTR))
			return;
		usleep(1000);
	}
	kill(runner_pid, SIGKILL);   /* busy after 2 s: ended */
	while (waitpid(runner_pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Adds the time since t0 to op's share of cl_request_times. */
static void request_took(uint32_t op, double t0)
{
	double dt = monotonic() - t0;

	if (op == CL_OP_INIT)
		cl_request_times.start += dt;
	else if (op == CL_OP_CALL)
		cl_request_times.calls += dt;
	else
		cl_request_times.requests += dt;
}

/* exchange's request and reply, to the runner it has started. */
static const char *exchange_with_runner(uint32_t op, const struct cl_wire *payload,
					struct cl_wire *reply, bool *gone)
{
	static uint32_t seq;
	struct cl_header h = {op, ++seq, payload ? payload->len : 0};

	*gone = false;
	*reply = (struct cl_wire){};
	if (op != CL_OP_INIT)
		runner_fresh = false;
	if (!send_all(&h, sizeof(h)) || (h.len && !send_all(payload->buf, h.len)) ||
	    !recv_all(&h, sizeof(h))) {
		*gone = true;
		return "the submission's program ended";
	}
	/* a reply out of turn: something of the submission's wrote on the line */
	if (h.seq != seq)
		return "the submission's process wrote on the line between the test and the "
		       "program that runs the submission (its descriptor 3): this test cannot "
		       "be judged\nhint: the submission must not write to descriptors it did "
		       "not open";
	if (h.len > CL_MAX_MESSAGE)
		return "harness: the submission's program answered more bytes at once than any "
		       "request asks for";
	if (h.len) {
		reply->buf = (unsigned char *)malloc(h.len + 1);
		if (!reply->buf)
			return "harness: out of memory";
		reply->cap = h.len + 1;
		if (!recv_all(reply->buf, h.len)) {
			*gone = true;
			return "the submission's program ended";
		}
		reply->len = h.len;
		reply->buf[h.len] = '\0';
	}
	if (h.what == CL_REPLY_ABORT) {
		const char *text = reply->buf ? (const char *)reply->buf : "";
		static char relabeled[512];
		if (strncmp(text, CL_NO_CONTEXT, strlen(CL_NO_CONTEXT)))
			return text;
		/* the runner's text, not the machine's failure (cl_device_init) */
		snprintf(relabeled, sizeof(relabeled), "the submission's program wrote: %s", text);
		return relabeled;
	}
	if (h.what != CL_REPLY_OK)
		return "harness: the submission's program does not know a request of the test";
	return NULL;
}

/*
 * Why a request failed, or NULL; *gone when the runner ended. A request
 * made outside a test (quiet) cannot fail one: its caller is told instead.
 * Its time goes to cl_request_times.
 */
static const char *exchange(uint32_t op, const struct cl_wire *payload, struct cl_wire *reply,
			    bool *gone)
{
	runner_start();
	double t0 = monotonic();
	const char *why = exchange_with_runner(op, payload, reply, gone);
	request_took(op, t0);
	return why;
}

void cl_rpc(uint32_t op, const struct cl_wire *payload, struct cl_wire *reply)
{
	bool gone;
	const char *why = exchange(op, payload, reply, &gone);

	if (gone)
		runner_gone();
	if (why)
		ck_abort_msg("%s", why);
}

/*
 * The same, outside a test: false (the runner ended, or is ended here, as
 * one that no longer follows the line) instead of failing a test.
 */
static bool rpc_quiet(uint32_t op, struct cl_wire *reply)
{
	bool gone;

	if (!exchange(op, NULL, reply, &gone))
		return true;
	cl_wire_free(reply);
	if (!gone)
		kill(runner_pid, SIGKILL);
	cl_remote_end();
	return false;
}

void cl_rpc_call(const char *name, const struct cl_wire *args, struct cl_wire *reply)
{
	struct cl_wire w = {};

	cl_put_str(&w, name);
	cl_wire_add(&w, args->buf, args->len);
	cl_rpc(CL_OP_CALL, &w, reply);
	cl_wire_free(&w);
}

/* A request whose reply is a cudaError_t (and maybe more, into *rest). */
static cudaError_t rpc_err(uint32_t op, const struct cl_wire *payload, struct cl_wire *rest)
{
	struct cl_wire reply;

	cl_rpc(op, payload, &reply);
	struct cl_reader r = {reply.buf, reply.len, false};
	cudaError_t err = (cudaError_t)cl_get_i32(&r);
	if (rest) {
		*rest = (struct cl_wire){};
		cl_wire_add(rest, r.p, r.left);
	}
	cl_wire_free(&reply);
	return err;
}

/* ------------------------------------------------- the judge's CUDA calls */

extern "C" cudaError_t cudaMalloc(void **p, size_t n)
{
	struct cl_wire w = {}, rest;
	cl_put_u64(&w, n);
	cudaError_t err = rpc_err(CL_OP_MALLOC, &w, &rest);
	struct cl_reader r = {rest.buf, rest.len, false};
	*p = (void *)(uintptr_t)cl_get_u64(&r);
	cl_wire_free(&w);
	cl_wire_free(&rest);
	return err;
}

extern "C" cudaError_t cudaFree(void *p)
{
	struct cl_wire w = {};
	cl_put_u64(&w, (uintptr_t)p);
	cudaError_t err = rpc_err(CL_OP_FREE, &w, NULL);
	cl_wire_free(&w);
	return err;
}

extern "C" cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	struct cl_wire w = {}, rest = {};
	cudaError_t err;

	switch (kind) {
	case cudaMemcpyHostToHost:
		memmove(dst, src, n);
		return cudaSuccess;
	case cudaMemcpyHostToDevice:
		cl_put_u64(&w, (uintptr_t)dst);
		cl_wire_add(&w, src, n);
		err = rpc_err(CL_OP_TO_DEVICE, &w, NULL);
		break;
	case cudaMemcpyDeviceToHost:
		cl_put_u64(&w, (uintptr_t)src);
		cl_put_u64(&w, n);
		err = rpc_err(CL_OP_TO_HOST, &w, &rest);
		if (err == cudaSuccess) {
			CL_REQUIRE(rest.len == n, "harness: the submission's program sent %zu bytes "
				      "for a copy of %zu", rest.len, n);
			memcpy(dst, rest.buf, n);
		}
		break;
	case cudaMemcpyDeviceToDevice:
		cl_put_u64(&w, (uintptr_t)dst);
		cl_put_u64(&w, (uintptr_t)src);
		cl_put_u64(&w, n);
		err = rpc_err(CL_OP_ON_DEVICE, &w, NULL);
		break;
	default:
		/* the judge always says which way: it cannot tell the addresses apart */
		return cudaErrorInvalidMemcpyDirection;
	}
	cl_wire_free(&w);
	cl_wire_free(&rest);
	return err;
}

extern "C" cudaError_t cudaMemset(void *p, int value, size_t n)
{
	struct cl_wire w = {};
	cl_put_u64(&w, (uintptr_t)p);
	cl_put_i32(&w, value);
	cl_put_u64(&w, n);
	cudaError_t err = rpc_err(CL_OP_MEMSET, &w, NULL);
	cl_wire_free(&w);
	return err;
}

extern "C" cudaError_t cudaDeviceSynchronize(void)
{
	return rpc_err(CL_OP_SYNC, NULL, NULL);
}

extern "C" cudaError_t cudaGetLastError(void)
{
	return rpc_err(CL_OP_LAST_ERROR, NULL, NULL);
}

/* The names and texts of errors, as the runner's CUDA (or the emulator) gives them. */
#define MAX_ERROR_TEXTS 32
static struct {
	int err;
	char name[64], text[192];
} texts[MAX_ERROR_TEXTS];
static int ntexts;

static int error_text(cudaError_t err)
{
	for (int i = 0; i < ntexts; i++)
		if (texts[i].err == (int)err)
			return i;
	int i = ntexts < MAX_ERROR_TEXTS ? ntexts++ : MAX_ERROR_TEXTS - 1;
	texts[i].err = (int)err;
	snprintf(texts[i].name, sizeof(texts[i].name), "cudaError %d", (int)err);
	snprintf(texts[i].text, sizeof(texts[i].text), "CUDA error %d", (int)err);
	if (runner_fd >= 0 && runner_owner == getpid()) {
		struct cl_wire w = {}, reply;
		cl_put_i32(&w, (int32_t)err);
		cl_rpc(CL_OP_ERROR_TEXT, &w, &reply);
		struct cl_reader r = {reply.buf, reply.len, false};
		cl_get_str(&r, texts[i].name, sizeof(texts[i].name));
		cl_get_str(&r, texts[i].text, sizeof(texts[i].text));
		cl_wire_free(&w);
		cl_wire_free(&reply);
	}
	return i;
}

extern "C" const char *cudaGetErrorName(cudaError_t err)
{
	return err == cudaSuccess ? "cudaSuccess" : texts[error_text(err)].name;
}

extern "C" const char *cudaGetErrorString(cudaError_t err)
{
	return err == cudaSuccess ? "no error" : texts[error_text(err)].text;
}

/* ------------------------------------------------------ the ledger, remote */

void cl_ledger_begin(void)
{
	struct cl_wire reply;
	cl_rpc(CL_OP_LEDGER_BEGIN, NULL, &reply);
	cl_wire_free(&reply);
}

void cl_ledger_fail_malloc(int nth)
{
	struct cl_wire w = {}, reply;
	cl_put_i32(&w, nth);
	cl_rpc(CL_OP_FAIL_MALLOC, &w, &reply);
	cl_wire_free(&w);
	cl_wire_free(&reply);
}

const struct cl_ledger *cl_ledger_end(void)
{
	static struct cl_ledger l;
	struct cl_wire reply;

	cl_rpc(CL_OP_LEDGER_END, NULL, &reply);
	struct cl_reader r = {reply.buf, reply.len, false};
	cl_read(&r, &l, sizeof(l));
	cl_wire_free(&reply);
	/* the runner's word, kept within bounds */
	if (l.nlaunches < 0)
		l.nlaunches = 0;
	if (l.nallocs < 0)
		l.nallocs = 0;
	if (l.frees_unknown < 0)
		l.frees_unknown = 0;
	if (l.pitched_allocs < 0)
		l.pitched_allocs = 0;
	for (int i = 0; i < CL_MAX_LAUNCHES; i++)
		l.launch[i].kernel[sizeof(l.launch[i].kernel) - 1] = '\0';
	return &l;
}

/* ----------------------------------------------------------- the context */

int cl_shared_poison;
int cl_device_oom;

void cl_device_init(void)
{
	static pid_t made_in;   /* a lane runs many tests in the context it made once */
	struct cl_wire w = {};

	if (made_in == getpid())
		return;
	cl_put_i32(&w, cl_shared_poison ? CL_INIT_SHARED_POISON : 0);
	runner_start();
	bool fresh = runner_fresh;
	cudaError_t err = rpc_err(CL_OP_INIT, &w, NULL);
	cl_wire_free(&w);
	if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
		ck_abort_msg("no CUDA device: %s (%s)", cudaGetErrorName(err),
			     cudaGetErrorString(err));
	/* A context a new runner could not make, before any code of the
	 * submission's ran in it, is the machine's failure: the grader reads
	 * these words (probe.c) and does not grade the run. */
	if (err != cudaSuccess && fresh)
		ck_abort_msg(CL_NO_CONTEXT "%s (%s)", cudaGetErrorName(err),
			     cudaGetErrorString(err));
	CL_CUDA_CHECK(err);
	made_in = getpid();
}

bool cl_context_lost(void)
{
	struct cl_wire reply;
	if (runner_fd < 0 || runner_owner != getpid())
		return false;   /* no runner: no context to lose */
	if (!rpc_quiet(CL_OP_CONTEXT_LOST, &reply))
		return true;   /* no runner to go on with */
	bool lost = reply.len && reply.buf[0];
	cl_wire_free(&reply);
	return lost;
}

const char *cl_error_detail(void)
{
	static char detail[4096];
	struct cl_wire reply;

	cl_rpc(CL_OP_ERROR_DETAIL, NULL, &reply);
	struct cl_reader r = {reply.buf, reply.len, false};
	cl_get_str(&r, detail, sizeof(detail));
	cl_wire_free(&reply);
	return detail[0] ? detail : NULL;
}

void cl_remote_out_of_memory(void)
{
	struct cl_wire reply;

	if (runner_fd < 0 || runner_owner != getpid() || !rpc_quiet(CL_OP_OUT_OF_MEMORY, &reply))
		return;
	if (reply.len && reply.buf[0])
		cl_device_oom = 1;
	cl_wire_free(&reply);
}
