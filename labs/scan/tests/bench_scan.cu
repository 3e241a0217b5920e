/*
 * bench_scan.cu - the scan lab's timer, on the engine in labs/common/bench.cu
 * (docs/lab-authoring.md, "Timed kernels"). FILL IN: your timed kernels.
 *
 * Kernels (lab.conf's kernel = ...), size n floats:
 *   scale  the submission's scan_scale against the reference's.
 * It only moves data, so it is rated by its effective bandwidth: the bytes it
 * must move (each element read once and written once) over the median time.
 * After every pair of timed calls the submission's output must equal the
 * reference's everywhere, and the exact result at a few places computed on
 * the CPU. The two output buffers change sides with every new input, so
 * where a buffer lies in DRAM favours neither side.
 */
#include "bench.h"
#include "scan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kernels[] = {"scale", NULL};

#define SPOT_CHECKS 16

struct ctx {
	int n;
	float a;
	float *in, *buf[2];   /* device buffers, mapped in both runners */
	int flip;             /* which output buffer is whose */
	uint64_t seed;
	bool seeded;
};

static float *out_of(const struct ctx *c, enum cl_who who)
{
	return c->buf[(who == CL_STUDENT) ^ c->flip];
}

static void teardown(void *p)
{
	struct ctx *c = (struct ctx *)p;
	cl_bench_free(c->in);
	cl_bench_free(c->buf[0]);
	cl_bench_free(c->buf[1]);
	free(c);
}

static void *setup(const char *kernel, int size, char *why, size_t len)
{
	struct ctx *c = (struct ctx *)calloc(1, sizeof(*c));
	const unsigned both = CL_SHARE_REFERENCE | CL_SHARE_STUDENT;
	size_t bytes = (size_t)size * sizeof(float);

	(void)kernel;
	c->n = size;
	if (!(c->in = (float *)cl_bench_shared(bytes, both)) ||
	    !(c->buf[0] = (float *)cl_bench_shared(bytes, both)) ||
	    !(c->buf[1] = (float *)cl_bench_shared(bytes, both))) {
		snprintf(why, len, "cannot allocate 3 x %d floats", size);
		cudaGetLastError();
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

/* a * x is one rounding on both sides: exact */
static float factor(uint64_t seed)
{
	return 0.5f + (float)(seed % 16) * 0.25f;
}

/* NaN into who's output before its call: a new input swaps the buffers. */
static void poison(void *p, enum cl_who who, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	if (!c->seeded || seed != c->seed)
		c->flip ^= 1;
	c->a = factor(seed);
	c->seed = seed;
	c->seeded = true;
	if (who != CL_CEILING)
		CL_BENCH_CHECK(cudaMemset(out_of(c, who), 0xff, c->n * sizeof(float)));
}

static void call(void *p, const char *kernel, enum cl_who who, struct cl_call *call)
{
	struct ctx *c = (struct ctx *)p;
	(void)kernel;
	cl_bench_call(call, "scan_scale", (const float *)cl_bench_at(c->in, who),
		      (float *)cl_bench_at(out_of(c, who), who), c->n, c->a);
}

static void output(void *p, enum cl_who who, const float **out, size_t *n)
{
	struct ctx *c = (struct ctx *)p;
	*out = out_of(c, who);
	*n = c->n;
}

static int verify(void *p, uint64_t seed, char *msg, size_t len)
{
	struct ctx *c = (struct ctx *)p;
	struct cl_mismatch m;

	cl_bench_compare(out_of(c, CL_STUDENT), out_of(c, CL_REFERENCE), c->n, 0.0f, &m);
	if (m.count) {
		snprintf(msg, len, "out[%llu] = %.9g, the reference has %.9g; %llu of %d elements "
			 "differ", m.first, m.got, m.want, m.count, c->n);
		return -1;
	}
	/* the exact result at a few places, so the check does not rest on the reference */
	uint64_t s = seed ^ 0x2545f4914f6cdd1dULL;
	for (int t = 0; t < SPOT_CHECKS; t++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t i = (size_t)((s >> 16) % c->n);
		float want = c->a * cl_bench_value(seed, i), got;
		CL_BENCH_CHECK(cudaMemcpy(&got, out_of(c, CL_STUDENT) + i, sizeof(got),
					  cudaMemcpyDeviceToHost));
		if (memcmp(&got, &want, sizeof(got))) {
			snprintf(msg, len, "out[%zu] = %.9g, expected %.9g", i, got, want);
			return -1;
		}
	}
	return 0;
}

static double flop(const char *, int)
{
	return 0;   /* data movement only: rated by bandwidth */
}

/* each element read once and written once */
static double bytes(const char *, int size)
{
	return 2.0 * size * sizeof(float);
}

static const struct cl_bench_lab lab = {
	"scan", kernels, NULL, setup, teardown, inputs, poison, call, output, verify, flop,
	bytes, NULL, NULL,
};

int main(int argc, char **argv)
{
	return cl_bench_main(&lab, argc, argv);
}
