/*
 * bench_scan.cu - the scan lab's timer, on the engine in labs/common/bench.cu
 * (docs/lab-authoring.md, "Timed kernels").
 *
 * Kernels (lab.conf's kernel = ...), size n floats:
 *   ks     the submission's scan_ks against the reference's;
 *   bk     scan_bk against the reference's;
 *   multi  scan_multi against the reference's (with a d_sums each).
 * A scan does no arithmetic worth counting, so each is rated by its
 * effective bandwidth: the least traffic any scan makes (every element read
 * once and written once) over the median time.
 *
 * The inputs telescope: in[i] = h(i + 1) - h(i), with h a hash of the
 * seed and the index into 0..7. Every partial sum of a range [a, b] is then
 * h(b + 1) - h(a), a whole number below 8 in magnitude: exact in float
 * whatever the order of the additions, so the submission's output must equal
 * the reference's bit for bit, and the exact value of any element is known
 * on the CPU at once (the spot checks).
 *
 * After every pair of timed calls the submission's output must equal the
 * reference's everywhere, and the exact result at a few places. The two
 * output buffers (and the two d_sums) change sides with every new input, so
 * where a buffer lies in DRAM favours neither side.
 */
#include "bench.h"
#include "scan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kernels[] = {"ks", "bk", "multi", NULL};

#define SPOT_CHECKS 16

enum kind { KS, BK, MULTI };

struct ctx {
	enum kind kind;
	int n;
	float *in, *buf[2], *sums[2];   /* device buffers, mapped in both runners */
	int flip;                       /* which output buffer is whose */
	uint64_t seed;
	bool seeded;
};

static enum kind kind_of(const char *kernel)
{
	return !strcmp(kernel, "ks") ? KS : !strcmp(kernel, "bk") ? BK : MULTI;
}

/* h(i): 0..7 from the seed and i, the same on the host and the device. */
__host__ __device__ static inline int tele(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (int)((z ^ (z >> 31)) >> 61);
}

__global__ void scan_bench_fill_kernel(float *d, size_t n, uint64_t seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		d[i] = (float)(tele(seed, i + 1) - tele(seed, i));
}

/* The exact scan of kind k at element i of the inputs of seed. */
static float exact_at(enum kind k, uint64_t seed, size_t i)
{
	size_t s = i / SCAN_SECTION * SCAN_SECTION;

	switch (k) {
	case KS:
		return (float)(tele(seed, i + 1) - tele(seed, s));
	case BK:
		return (float)(tele(seed, i) - tele(seed, s));
	default:
		return (float)(tele(seed, i + 1) - tele(seed, 0));
	}
}

static float *out_of(const struct ctx *c, enum cl_who who)
{
	return c->buf[(who == CL_STUDENT) ^ c->flip];
}

static float *sums_of(const struct ctx *c, enum cl_who who)
{
	return c->sums[(who == CL_STUDENT) ^ c->flip];
}

static void teardown(void *p)
{
	struct ctx *c = (struct ctx *)p;
	cl_bench_free(c->in);
	cl_bench_free(c->buf[0]);
	cl_bench_free(c->buf[1]);
	cl_bench_free(c->sums[0]);
	cl_bench_free(c->sums[1]);
	free(c);
}

static void *setup(const char *kernel, int size, char *why, size_t len)
{
	struct ctx *c = (struct ctx *)calloc(1, sizeof(*c));
	const unsigned both = CL_SHARE_REFERENCE | CL_SHARE_STUDENT;
	size_t bytes = (size_t)size * sizeof(float);
	size_t sbytes = (size_t)SCAN_SECTIONS((size_t)size) * sizeof(float);

	c->kind = kind_of(kernel);
	c->n = size;
	if (!(c->in = (float *)cl_bench_shared(bytes, both)) ||
	    !(c->buf[0] = (float *)cl_bench_shared(bytes, both)) ||
	    !(c->buf[1] = (float *)cl_bench_shared(bytes, both)) ||
	    (c->kind == MULTI && (!(c->sums[0] = (float *)cl_bench_shared(sbytes, both)) ||
				  !(c->sums[1] = (float *)cl_bench_shared(sbytes, both))))) {
		snprintf(why, len, "cannot allocate 3 x %d floats and the section sums", size);
		cudaGetLastError();
		teardown(c);
		return NULL;
	}
	return c;
}

static void inputs(void *p, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	scan_bench_fill_kernel<<<1024, 256>>>(c->in, c->n, seed);
	CL_BENCH_CHECK(cudaGetLastError());
}

/* NaN into who's output (and sums) before its call: a new input swaps the buffers. */
static void poison(void *p, enum cl_who who, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	if (!c->seeded || seed != c->seed)
		c->flip ^= 1;
	c->seed = seed;
	c->seeded = true;
	if (who == CL_CEILING)
		return;
	CL_BENCH_CHECK(cudaMemset(out_of(c, who), 0xff, c->n * sizeof(float)));
	if (c->kind == MULTI)
		CL_BENCH_CHECK(cudaMemset(sums_of(c, who), 0xff,
					  SCAN_SECTIONS((size_t)c->n) * sizeof(float)));
}

static void call(void *p, const char *kernel, enum cl_who who, struct cl_call *call)
{
	struct ctx *c = (struct ctx *)p;
	const float *in = (const float *)cl_bench_at(c->in, who);
	float *out = (float *)cl_bench_at(out_of(c, who), who);

	(void)kernel;
	switch (c->kind) {
	case KS:
		cl_bench_call(call, "scan_ks", in, out, c->n);
		break;
	case BK:
		cl_bench_call(call, "scan_bk", in, out, c->n);
		break;
	case MULTI:
		cl_bench_call(call, "scan_multi", in, out,
			      (float *)cl_bench_at(sums_of(c, who), who), c->n);
		break;
	}
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

	/* every partial sum is a small whole number: equal to the last bit */
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
		float want = exact_at(c->kind, seed, i), got;
		CL_BENCH_CHECK(cudaMemcpy(&got, out_of(c, CL_STUDENT) + i, sizeof(got),
					  cudaMemcpyDeviceToHost));
		if (memcmp(&got, &want, sizeof(got)) && !(got == 0.0f && want == 0.0f)) {
			snprintf(msg, len, "out[%zu] = %.9g, expected %.9g", i, got, want);
			return -1;
		}
	}
	return 0;
}

static double flop(const char *, int)
{
	return 0;   /* additions only: rated by bandwidth */
}

/* the least any scan moves: each element read once and written once */
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
