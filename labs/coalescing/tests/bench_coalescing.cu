/*
 * bench_coalescing.cu - the coalescing lab's timer, on the engine in
 * labs/common/bench.cu. Every kernel only moves data, so each is rated by
 * its effective bandwidth: the bytes it must move (every element read once
 * and written once) over the median time.
 *
 * Kernels (lab.conf's kernel = ...), size N for N x N arrays or n floats:
 *   scale_rows       the submission's coal_scale_rows against the reference's;
 *   rows_vs_cols     the submission's coal_scale_rows against the reference's
 *                    coal_scale_cols: the same work, mapped the other way (a
 *                    baseline of the submission's own could be slowed on
 *                    purpose);
 *   stride1..32      coal_copy_strided at that stride, against the reference;
 *   transpose_naive, transpose_tiled
 *                    against the reference's.
 * After every pair of timed calls, the submission's output must equal the
 * other side's everywhere and the exact result at a few places computed on
 * the CPU. The two output buffers change sides with every pair: where a
 * buffer lies in DRAM shows in the time of a kernel whose writes are
 * scattered (the naive transpose's differed by 4 % on an H100). So both
 * runners map both: the submission's call comes first on every new input,
 * so the reference's output of that input does not exist while it runs.
 */
#include "bench.h"
#include "coalescing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kernels[] = {"scale_rows",      "rows_vs_cols",   "stride1",
				      "stride2",         "stride4",        "stride8",
				      "stride16",        "stride32",       "transpose_naive",
				      "transpose_tiled", NULL};

#define SPOT_CHECKS 16

enum shape { SCALE, STRIDED, TRANSPOSE };

struct ctx {
	const char *kernel;
	enum shape shape;
	int size;              /* N, or n for the strided copy */
	int stride;
	size_t nin, nout;      /* floats */
	float a;
	float *in, *buf[2];
	int flip;              /* which buffer is whose: changes with every pair */
	uint64_t seed;         /* the inputs' now */
	bool seeded;
};

/* who's output buffer now. */
static float *out_of(const struct ctx *c, enum cl_who who)
{
	return c->buf[(who == CL_STUDENT) ^ c->flip];
}

static enum shape shape_of(const char *kernel)
{
	if (!kernel)
		return SCALE;
	if (!strncmp(kernel, "stride", 6))
		return STRIDED;
	if (!strncmp(kernel, "transpose", 9))
		return TRANSPOSE;
	return SCALE;
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

	c->kernel = kernel;
	c->shape = shape_of(kernel);
	c->size = size;
	c->stride = c->shape == STRIDED ? atoi(kernel + 6) : 1;
	c->nout = c->shape == STRIDED ? (size_t)size : (size_t)size * size;
	c->nin = c->nout * c->stride;
	if (!(c->in = (float *)cl_bench_shared(c->nin * sizeof(float), both)) ||
	    !(c->buf[0] = (float *)cl_bench_shared(c->nout * sizeof(float), both)) ||
	    !(c->buf[1] = (float *)cl_bench_shared(c->nout * sizeof(float), both))) {
		snprintf(why, len, "cannot allocate %zu + 2 x %zu floats for %s at %d", c->nin,
			 c->nout, kernel, size);
		cudaGetLastError();
		teardown(c);
		return NULL;
	}
	return c;
}

static float factor(uint64_t seed)
{
	return 0.5f + (float)(seed % 16) * 0.25f;   /* exact: a * x is one rounding */
}

static void inputs(void *p, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	cl_bench_fill(c->in, c->nin, seed);
}

/* The first of a call: a new input is a new pair of calls, and the output buffers change sides. */
static void poison(void *p, enum cl_who who, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	if (!c->seeded || seed != c->seed)
		c->flip ^= 1;
	c->a = factor(seed);
	c->seed = seed;
	c->seeded = true;
	if (who != CL_CEILING)
		CL_BENCH_CHECK(cudaMemset(out_of(c, who), 0xff, c->nout * sizeof(float)));
}

static void call(void *p, const char *kernel, enum cl_who who, struct cl_call *call)
{
	struct ctx *c = (struct ctx *)p;
	const float *in = (const float *)cl_bench_at(c->in, who);
	float *out = (float *)cl_bench_at(out_of(c, who), who);
	int N = c->size;

	if (!strcmp(kernel, "scale_rows") || (!strcmp(kernel, "rows_vs_cols") && who == CL_STUDENT))
		cl_bench_call(call, "coal_scale_rows", in, out, N, N, c->a);
	else if (!strcmp(kernel, "rows_vs_cols"))
		cl_bench_call(call, "coal_scale_cols", in, out, N, N, c->a);
	else if (c->shape == STRIDED)
		cl_bench_call(call, "coal_copy_strided", in, out, N, c->stride);
	else if (!strcmp(kernel, "transpose_naive"))
		cl_bench_call(call, "coal_transpose_naive", in, out, N, N);
	else if (!strcmp(kernel, "transpose_tiled"))
		cl_bench_call(call, "coal_transpose_tiled", in, out, N, N);
}

static void output(void *p, enum cl_who who, const float **out, size_t *n)
{
	struct ctx *c = (struct ctx *)p;
	*out = out_of(c, who);
	*n = c->nout;
}

static const char *label(const char *kernel, enum cl_who who)
{
	if (strcmp(kernel, "rows_vs_cols"))
		return NULL;
	return who == CL_STUDENT ? "your coal_scale_rows" : "the reference's coal_scale_cols";
}

/* Where out[i] comes from in in, and what it must be. */
static float expected(const struct ctx *c, uint64_t seed, size_t i, size_t *from)
{
	size_t N = (size_t)c->size;
	if (c->shape == STRIDED)
		*from = i * c->stride;
	else if (c->shape == TRANSPOSE)
		*from = (i % N) * N + i / N;   /* out[col][row] = in[row][col] */
	else
		*from = i;
	float v = cl_bench_value(seed, *from);
	return c->shape == SCALE ? c->a * v : v;
}

static void where(const struct ctx *c, size_t i, char *buf, size_t len)
{
	if (c->shape == STRIDED)
		snprintf(buf, len, "out[%zu]", i);
	else
		snprintf(buf, len, "out[%zu][%zu]", i / c->size, i % c->size);
}

static int verify(void *p, uint64_t seed, char *msg, size_t len)
{
	struct ctx *c = (struct ctx *)p;
	struct cl_mismatch m;
	char w[64], g[32];
	const char *other = label(c->kernel, CL_REFERENCE);

	cl_bench_compare(out_of(c, CL_STUDENT), out_of(c, CL_REFERENCE), c->nout, 0.0f, &m);
	if (m.count) {
		where(c, m.first, w, sizeof(w));
		snprintf(g, sizeof(g), isnan(m.got) ? "NaN" : "%.9g", m.got);
		int n = snprintf(msg, len, "%s = %s, %s has %.9g; %llu of %zu elements differ", w, g,
				 other ? other : "the reference", m.want, m.count, c->nout);
		if (isnan(m.got))
			snprintf(msg + n, len - n, "\nhint: still NaN, so this call did not write "
				 "it: each call must compute all of out from the input it is "
				 "given now");
		return -1;
	}
	/* the exact result at a few places, so the check does not rest on the other side */
	uint64_t s = seed ^ 0x2545f4914f6cdd1dULL;
	for (int t = 0; t < SPOT_CHECKS; t++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t i = (size_t)((s >> 16) % c->nout), from;
		float want = expected(c, seed, i, &from), got;
		CL_BENCH_CHECK(cudaMemcpy(&got, out_of(c, CL_STUDENT) + i, sizeof(got),
					  cudaMemcpyDeviceToHost));
		if (memcmp(&got, &want, sizeof(got))) {
			where(c, i, w, sizeof(w));
			snprintf(msg, len, "%s = %.9g, expected %.9g (from in[%zu])", w, got, want,
				 from);
			return -1;
		}
	}
	return 0;
}

static double flop(const char *, int)
{
	return 0;   /* data movement only: rated by bandwidth */
}

/* Each element of out written once and its source read once. */
static double bytes(const char *kernel, int size)
{
	double n = shape_of(kernel) == STRIDED ? size : (double)size * size;
	return 2.0 * n * sizeof(float);
}

static const struct cl_bench_lab lab = {
	"coalescing", kernels, NULL, setup, teardown, inputs, poison, call, output, verify, flop,
	bytes, NULL, label,
};

int main(int argc, char **argv)
{
	return cl_bench_main(&lab, argc, argv);
}
