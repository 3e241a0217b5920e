/*
 * bench_histogram.cu - the histogram lab's timer, on the engine in
 * labs/common/bench.cu (docs/lab-authoring.md, "Timed kernels").
 *
 * Kernels (lab.conf's kernel = ...), size n values (a power of 2, at least
 * SEGMENTS): global, shared and coarse, each the submission's
 * histogram_<kernel> against the reference's. They do no arithmetic, so
 * they are rated by bandwidth: the n values each reads once, over the
 * median time.
 *
 * The inputs are made on the device by the timer's kernel, inside each
 * call's window (the engine's rule), so they must be cheap to make and
 * their histogram cheap to know: the values are SEGMENTS runs of equal
 * values, each value drawn from the seed (hot ones, warm ones, any bin,
 * out of range: as the tests' random inputs), and element i holds the value
 * of position (A * i + B) mod n of those runs, A odd (a bijection), so
 * that equal values are spread over the whole input. The exact histogram
 * is then the length of each run added to its value's bin: SEGMENTS steps
 * on the CPU, with no pass over the data. After every pair of timed calls
 * the submission's bins must equal the exact ones (a failure quotes the
 * reference's bin beside them). d_bins must be zero when a launcher is
 * called: poison zeroes them, for each side's call.
 */
#include "bench.h"
#include "histogram.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kernels[] = {"global", "shared", "coarse", NULL};

#define SEGMENTS 4096

struct ctx {
	const char *kernel;
	int n;
	unsigned int *in, *bins[2];   /* device buffers, mapped in both runners */
	int flip;                     /* which bins buffer is whose */
	uint64_t seed;
	bool seeded;
};

__host__ __device__ static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The value of run k of seed's input (the tests' mix of hot, warm, any, out of range). */
__host__ __device__ static inline unsigned int segment_value(uint64_t seed, unsigned int k)
{
	uint64_t h = mix64(seed + (k + 1) * 0x9e3779b97f4a7c15ULL);
	unsigned int pick = (unsigned int)(h % 100), x = (unsigned int)(h >> 32);
	unsigned int hot = (unsigned int)(mix64(seed ^ 0x51) % HISTOGRAM_BINS);
	if (pick < 40)
		return hot;
	if (pick < 70)
		return (unsigned int)(mix64(seed ^ (0x77 + x % 8)) % HISTOGRAM_BINS);
	if (pick < 95)
		return x % HISTOGRAM_BINS;
	return HISTOGRAM_BINS + x % 4000;
}

/* The odd multiplier and the offset of seed's permutation. */
__host__ __device__ static inline void permutation(uint64_t seed, unsigned int *a, unsigned int *b)
{
	uint64_t h = mix64(seed ^ 0xa5a5a5a5ULL);
	*a = (unsigned int)h | 1u;
	*b = (unsigned int)(h >> 32);
}

__global__ void fill_kernel(unsigned int *in, int n, uint64_t seed)
{
	unsigned int a, b, mask = (unsigned int)n - 1, shift = 0;
	permutation(seed, &a, &b);
	while ((SEGMENTS << shift) < n)
		shift++;
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
	     i += (long long)gridDim.x * blockDim.x) {
		unsigned int j = ((unsigned int)i * a + b) & mask;
		in[i] = segment_value(seed, j >> shift);
	}
}

static unsigned int *bins_of(const struct ctx *c, enum cl_who who)
{
	return c->bins[(who == CL_STUDENT) ^ c->flip];
}

static void teardown(void *p)
{
	struct ctx *c = (struct ctx *)p;
	cl_bench_free(c->in);
	cl_bench_free(c->bins[0]);
	cl_bench_free(c->bins[1]);
	free(c);
}

static void *setup(const char *kernel, int size, char *why, size_t len)
{
	const unsigned both = CL_SHARE_REFERENCE | CL_SHARE_STUDENT;
	const size_t bins = HISTOGRAM_BINS * sizeof(unsigned int);

	if (size < SEGMENTS || (size & (size - 1))) {
		snprintf(why, len, "size %d is not a power of 2 of at least %d", size, SEGMENTS);
		return NULL;
	}
	struct ctx *c = (struct ctx *)calloc(1, sizeof(*c));
	c->kernel = kernel;
	c->n = size;
	if (!(c->in = (unsigned int *)cl_bench_shared((size_t)size * sizeof(unsigned int), both)) ||
	    !(c->bins[0] = (unsigned int *)cl_bench_shared(bins, both)) ||
	    !(c->bins[1] = (unsigned int *)cl_bench_shared(bins, both))) {
		snprintf(why, len, "cannot allocate %d values and 2 x %d bins", size,
			 HISTOGRAM_BINS);
		cudaGetLastError();
		teardown(c);
		return NULL;
	}
	return c;
}

static void inputs(void *p, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	fill_kernel<<<1024, 256>>>(c->in, c->n, seed);
	CL_BENCH_CHECK(cudaGetLastError());
}

/* Zero bins for who's call (the contract's), a new input swapping the buffers. */
static void poison(void *p, enum cl_who who, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	if (!c->seeded || seed != c->seed)
		c->flip ^= 1;
	c->seed = seed;
	c->seeded = true;
	if (who != CL_CEILING)
		CL_BENCH_CHECK(cudaMemset(bins_of(c, who), 0, HISTOGRAM_BINS * sizeof(unsigned int)));
}

static void call(void *p, const char *kernel, enum cl_who who, struct cl_call *call)
{
	struct ctx *c = (struct ctx *)p;
	char name[64];
	snprintf(name, sizeof(name), "histogram_%s", kernel);
	cl_bench_call(call, name, (const unsigned int *)cl_bench_at(c->in, who), c->n,
		      (unsigned int *)cl_bench_at(bins_of(c, who), who));
}

/* The bins, as the engine's copies see them: words. */
static void output(void *p, enum cl_who who, const float **out, size_t *n)
{
	struct ctx *c = (struct ctx *)p;
	*out = (const float *)bins_of(c, who);
	*n = HISTOGRAM_BINS;
}

/* The exact histogram of seed's input of n values: run lengths, by value. */
static void exact_bins(uint64_t seed, int n, unsigned int want[HISTOGRAM_BINS])
{
	memset(want, 0, HISTOGRAM_BINS * sizeof(unsigned int));
	for (unsigned int k = 0; k < SEGMENTS; k++) {
		unsigned int v = segment_value(seed, k);
		if (v < HISTOGRAM_BINS)
			want[v] += (unsigned int)(n / SEGMENTS);
	}
}

static int verify(void *p, uint64_t seed, char *msg, size_t len)
{
	struct ctx *c = (struct ctx *)p;
	unsigned int want[HISTOGRAM_BINS], got[HISTOGRAM_BINS], ref[HISTOGRAM_BINS];

	exact_bins(seed, c->n, want);
	CL_BENCH_CHECK(cudaMemcpy(got, bins_of(c, CL_STUDENT), sizeof(got), cudaMemcpyDeviceToHost));
	CL_BENCH_CHECK(cudaMemcpy(ref, bins_of(c, CL_REFERENCE), sizeof(ref),
				  cudaMemcpyDeviceToHost));
	for (int b = 0; b < HISTOGRAM_BINS; b++)
		if (got[b] != want[b]) {
			snprintf(msg, len, "d_bins[%d] = %u, expected %u (the reference's: %u)", b,
				 got[b], want[b], ref[b]);
			return -1;
		}
	return 0;
}

static double flop(const char *, int)
{
	return 0;   /* counting only: rated by bandwidth */
}

/* each value read once; the bins are noise beside them */
static double bytes(const char *, int size)
{
	return (double)size * sizeof(unsigned int);
}

static const struct cl_bench_lab lab = {
	"histogram", kernels, NULL, setup, teardown, inputs, poison, call, output, verify, flop,
	bytes, NULL, NULL,
};

int main(int argc, char **argv)
{
	return cl_bench_main(&lab, argc, argv);
}
