/*
 * bench_selftest.cu - a timer on the engine (labs/common/bench.cu) whose
 * "submission" is trusted test code (selftest_runner.cu, its runner, which
 * is also the reference's), to test the engine's own defences on a GPU
 * (grader/t/t4002-timing-engine.sh):
 *
 *   same     the submission's launcher is the reference's: the ratio is 1;
 *   stream   the launcher runs the same kernel on a stream that does not
 *            wait for the default stream, and returns at once: the ratio
 *            must still be 1, because the runner answers only once the
 *            whole device is idle;
 *   stale    the launcher does nothing after its first call: the engine's
 *            check of the timed output must say so;
 *   busy     the launcher leaves a thread that keeps the GPU busy between
 *            its calls: the guard must find the case disturbed;
 *   hang     the launcher's calls after its first never return: the case
 *            must end at its --case-limit, "timeout", the runner ended;
 *   stop     the launcher leaves a thread that stops its program (SIGSTOP)
 *            after each call has returned: the timer's next empty call is
 *            not answered, the case is "disturbed" within a second or so,
 *            and no case after it is timed.
 */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kernels[] = {"same", "stream", "stale", "busy", "hang", "stop", NULL};

struct ctx {
	size_t n;
	float *in, *out[2];
};

static void teardown(void *p)
{
	struct ctx *c = (struct ctx *)p;
	cl_bench_free(c->in);
	cl_bench_free(c->out[0]);
	cl_bench_free(c->out[1]);
	free(c);
}

static void *setup(const char *, int size, char *why, size_t len)
{
	struct ctx *c = (struct ctx *)calloc(1, sizeof(*c));

	c->n = (size_t)size * 1024;
	if (!(c->in = (float *)cl_bench_shared(c->n * sizeof(float),
					       CL_SHARE_REFERENCE | CL_SHARE_STUDENT)) ||
	    !(c->out[0] = (float *)cl_bench_shared(c->n * sizeof(float), CL_SHARE_REFERENCE)) ||
	    !(c->out[1] = (float *)cl_bench_shared(c->n * sizeof(float), CL_SHARE_STUDENT))) {
		snprintf(why, len, "cannot allocate for size %d", size);
		teardown(c);
		return NULL;
	}
	return c;
}

static void inputs(void *p, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	cl_bench_fill(c->in, c->n, seed);
}

static void poison(void *p, enum cl_who who, uint64_t)
{
	struct ctx *c = (struct ctx *)p;
	if (who != CL_CEILING)
		CL_BENCH_CHECK(cudaMemset(c->out[who], 0xff, c->n * sizeof(float)));
}

static void call(void *p, const char *kernel, enum cl_who who, struct cl_call *call)
{
	struct ctx *c = (struct ctx *)p;
	char name[64];

	snprintf(name, sizeof(name), "selftest_%s", who == CL_REFERENCE ? "same" : kernel);
	cl_bench_call(call, name, (const float *)cl_bench_at(c->in, who),
		      (float *)cl_bench_at(c->out[who], who), c->n);
}

static void output(void *p, enum cl_who who, const float **out, size_t *n)
{
	struct ctx *c = (struct ctx *)p;
	*out = c->out[who];
	*n = c->n;
}

static int verify(void *p, uint64_t seed, char *msg, size_t len)
{
	struct ctx *c = (struct ctx *)p;
	struct cl_mismatch m;

	cl_bench_compare(c->out[CL_STUDENT], c->out[CL_REFERENCE], c->n, 0.0f, &m);
	if (!m.count)
		return 0;
	snprintf(msg, len, "out[%llu] = %g, expected %g; %llu wrong", m.first, m.got, m.want,
		 m.count);
	return -1;
}

static double flop(const char *, int size)
{
	return 2.0 * 256 * size * 1024.0;
}

static double bytes(const char *, int size)
{
	return 2.0 * size * 1024.0 * sizeof(float);
}

static const struct cl_bench_lab lab = {
	"selftest", kernels, NULL, setup, teardown, inputs, poison, call, output, verify, flop, bytes,
	NULL, NULL,
};

int main(int argc, char **argv)
{
	return cl_bench_main(&lab, argc, argv);
}
