/*
 * bench_convolution.cu - the convolution lab's timer, on the engine in
 * labs/common/bench.cu (docs/lab-authoring.md, "Timed kernels").
 *
 * Kernels (lab.conf's kernel = ...), each the submission's launcher against
 * the reference's of the same part, on a size x size image with a 7 x 7 mask
 * (r = CONV_MAX_RADIUS):
 *   basic  conv_basic, the mask in device memory (both runners see it);
 *   const  conv_const, the mask from the host, travelling with each call;
 *   tiled  conv_tiled, the same.
 * Rated in FLOP/s: two per weight and pixel. The image and the mask are new
 * for every pair of calls (24 random bits in [-1, 1), written by the timer's
 * kernel; the host's copy of the mask from the same function); each runner
 * sees its own output only. After each pair the submission's output must
 * match the reference's everywhere and the exact convolution, computed on the
 * CPU, at a few places, borders among them.
 */
#include "bench.h"
#include "convolution.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kernel_names[] = {"basic", "const", "tiled", NULL};

#define R CONV_MAX_RADIUS
#define MW CONV_MAX_WIDTH
#define SPOT_CHECKS 8
#define SEED_MASK 0x5851f42d4c957f2dULL

struct ctx {
	int n;                  /* the image is n x n */
	float *in, *d_mask;     /* both runners' */
	float *out[2];          /* by enum cl_who: reference, student */
	float h_mask[MW * MW];  /* the host's copy of this pair's mask */
};

static void teardown(void *p)
{
	struct ctx *c = (struct ctx *)p;
	cl_bench_free(c->in);
	cl_bench_free(c->d_mask);
	cl_bench_free(c->out[CL_REFERENCE]);
	cl_bench_free(c->out[CL_STUDENT]);
	free(c);
}

static void *setup(const char *, int size, char *why, size_t len)
{
	struct ctx *c = (struct ctx *)calloc(1, sizeof(*c));
	size_t bytes = (size_t)size * size * sizeof(float);
	const unsigned both = CL_SHARE_REFERENCE | CL_SHARE_STUDENT;

	c->n = size;
	if (!(c->in = (float *)cl_bench_shared(bytes, both)) ||
	    !(c->d_mask = (float *)cl_bench_shared(MW * MW * sizeof(float), both)) ||
	    !(c->out[CL_REFERENCE] = (float *)cl_bench_shared(bytes, CL_SHARE_REFERENCE)) ||
	    !(c->out[CL_STUDENT] = (float *)cl_bench_shared(bytes, CL_SHARE_STUDENT))) {
		snprintf(why, len, "cannot allocate 3 x %zu bytes for a %d x %d image", bytes,
			 size, size);
		cudaGetLastError();
		teardown(c);
		return NULL;
	}
	return c;
}

/* The host's copy of seed's mask, which parts 2 and 3 send with the call. */
static void host_mask(struct ctx *c, uint64_t seed)
{
	for (int i = 0; i < MW * MW; i++)
		c->h_mask[i] = cl_bench_value(seed ^ SEED_MASK, i);
}

static void inputs(void *p, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;

	cl_bench_fill(c->in, (size_t)c->n * c->n, seed);
	cl_bench_fill(c->d_mask, MW * MW, seed ^ SEED_MASK);
	host_mask(c, seed);
}

/*
 * Before each timed call of a kernel, with the seed its inputs will come
 * from: the request, which carries the host's mask, is made before the
 * window opens and inputs() runs inside it, so the mask of this call's
 * seed is made here.
 */
static void poison(void *p, enum cl_who who, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	if (who != CL_CEILING) {
		CL_BENCH_CHECK(cudaMemset(c->out[who], 0xff, (size_t)c->n * c->n * sizeof(float)));
		host_mask(c, seed);
	}
}

static void call(void *p, const char *kernel, enum cl_who who, struct cl_call *call)
{
	struct ctx *c = (struct ctx *)p;
	const float *in = (const float *)cl_bench_at(c->in, who);
	float *out = (float *)cl_bench_at(c->out[who], who);

	if (!strcmp(kernel, "basic")) {
		cl_bench_call(call, "conv_basic", in, (const float *)cl_bench_at(c->d_mask, who), out,
			      c->n, c->n, R);
		return;
	}
	/* as calls_convolution.cu sends them: d_in, d_out, width, height, r, the weights */
	cl_bench_call(call, !strcmp(kernel, "const") ? "conv_const" : "conv_tiled", in, out, c->n,
		      c->n, R);
	cl_wire_add(&call->args, c->h_mask, sizeof(c->h_mask));
}

static void output(void *p, enum cl_who who, const float **out, size_t *n)
{
	struct ctx *c = (struct ctx *)p;
	*out = c->out[who];
	*n = (size_t)c->n * c->n;
}

/*
 * Any two float sums of a pixel's 49 products (weights and pixels in
 * [-1, 1)) lie within twice gamma_51 * 49 of each other.
 */
static float tolerance(void)
{
	return (float)(2.0 * (MW * MW + 2) * ldexp(1.0, -24) * MW * MW);
}

static double exact_at(uint64_t seed, int n, int row, int col)
{
	double s = 0;
	for (int i = 0; i < MW; i++)
		for (int j = 0; j < MW; j++) {
			int y = row - R + i, x = col - R + j;
			if (y >= 0 && y < n && x >= 0 && x < n)
				s += (double)cl_bench_value(seed ^ SEED_MASK, i * MW + j) *
				     cl_bench_value(seed, (uint64_t)y * n + x);
		}
	return s;
}

static int verify(void *p, uint64_t seed, char *msg, size_t len)
{
	struct ctx *c = (struct ctx *)p;
	int n = c->n;
	struct cl_mismatch m;
	float tol = tolerance();

	cl_bench_compare(c->out[CL_STUDENT], c->out[CL_REFERENCE], (size_t)n * n, tol, &m);
	if (m.count) {
		snprintf(msg, len, "out[row %llu][col %llu] = %g, the reference's result has %.7g; "
			 "%llu of %zu pixels differ%s", m.first / n, m.first % n, m.got, m.want,
			 m.count, (size_t)n * n,
			 isnan(m.got) ? "\nhint: still NaN, so this call did not write it: each "
					"call must compute the whole image from the inputs it is "
					"given now" : "");
		return -1;
	}
	/* the exact result at a few places, corners and random ones, so the
	 * check does not rest on the reference alone */
	uint64_t s = seed ^ 0x2545f4914f6cdd1dULL;
	for (int t = 0; t < SPOT_CHECKS; t++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		int row = t < 2 ? (t ? n - 1 : 0) : (int)((s >> 33) % n);
		int col = t < 2 ? (t ? n - 1 : 0) : (int)((s >> 13) % n);
		double want = exact_at(seed, n, row, col);
		float got;
		CL_BENCH_CHECK(cudaMemcpy(&got, c->out[CL_STUDENT] + (size_t)row * n + col,
					  sizeof(got), cudaMemcpyDeviceToHost));
		if (!(fabs(got - want) <= tol)) {
			snprintf(msg, len, "out[row %d][col %d] = %g, the exact convolution is %.7g",
				 row, col, got, want);
			return -1;
		}
	}
	return 0;
}

/* a multiply and an add per weight and pixel */
static double flop(const char *, int n)
{
	return 2.0 * MW * MW * (double)n * n;
}

/* the image read once and the output written once: what no kernel can avoid */
static double bytes(const char *, int n)
{
	return 2.0 * n * (double)n * sizeof(float);
}

static const struct cl_bench_lab lab = {
	"convolution", kernel_names, NULL, setup, teardown, inputs, poison, call, output, verify,
	flop, bytes, NULL, NULL,
};

int main(int argc, char **argv)
{
	return cl_bench_main(&lab, argc, argv);
}
