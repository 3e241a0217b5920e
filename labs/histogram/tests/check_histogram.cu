/*
 * check_histogram.cu - correctness suite of the histogram lab
 * (docs/lab-authoring.md, "The test-suite API").
 *
 * One TCase per graded part of lab.conf (global, shared, coarse), each with
 *   exact   hand-made inputs: one element, values out of range, a thousand
 *           equal values (where a plain increment loses counts), every value
 *           once, text, a long run of one value;
 *   random  sizes from 1 to a million, most not multiples of the block, with
 *           a few hot values (many threads add to one bin at once) and out
 *           of range values among them;
 *   bounds  sizes around the block and the coarsening, in which no two
 *           elements of a block share a bin: the test the safety stage runs
 *           for parts 2 and 3 (see bounds_input);
 *   config  the launch: one kernel, its block and grid (and, on a GPU, the
 *           private histogram's shared memory).
 * Every input is made here from the run's seed and every expected count is
 * computed here, on the CPU: the runner gets the input and returns the
 * bins. Out of range values stay below HISTOGRAM_BINS + CL_GUARD, so a
 * kernel that counts them anyway writes into the guard canaries after
 * d_bins (reported as an out-of-bounds write), never far from every buffer.
 * The suite runs in the judge: it never dereferences a device address.
 */
#include "histogram.h"
#include "cudalab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t run_seed;

static void histogram_setup(uint64_t seed, const char *const *parts, size_t nparts)
{
	(void)parts, (void)nparts;
	run_seed = seed;
}

typedef void (*launcher_fn)(const unsigned int *d_in, int n, unsigned int *d_bins);

struct part {
	const char *name;        /* the launcher's name, for messages */
	launcher_fn fn;
	int per_block;           /* elements a block counts */
	bool private_bins;       /* the handout asks for a shared-memory histogram */
};

static const struct part part_global = {"histogram_global", histogram_global, HISTOGRAM_BLOCK,
					false};
static const struct part part_shared = {"histogram_shared", histogram_shared, HISTOGRAM_BLOCK,
					true};
static const struct part part_coarse = {"histogram_coarse", histogram_coarse,
					HISTOGRAM_BLOCK * HISTOGRAM_COARSEN, true};

/* An input: its values and what it is, for messages. */
struct input {
	unsigned int *v;
	int n;
	char label[64];
};

struct call {
	char what[160];       /* "histogram_global(n=1000, 1000 equal values)" */
	char cfg[160];        /* its launch configuration */
	const struct cl_ledger *ledger;
};

/*
 * One call of the launcher on a device copy of in and zeroed bins: fails the
 * test on what every lab forbids (cl_finish_call: errors, no launch, leaks)
 * and on a write outside d_in or d_bins (their guard canaries); the bins
 * come back into got.
 */
static void call_part(const struct part *p, const struct input *in, struct call *c,
		      unsigned int got[HISTOGRAM_BINS])
{
	struct cl_dbuf din, dbins;
	char msg[512];

	snprintf(c->what, sizeof(c->what), "%s(n=%d, %s)", p->name, in->n, in->label);
	cl_dbuf_alloc(&din, in->n);
	cl_dbuf_alloc(&dbins, HISTOGRAM_BINS);
	din.elem = "value";
	dbins.elem = "counter";
	cl_dbuf_upload(&din, (const float *)in->v);
	CL_CUDA_CHECK(cudaMemset(dbins.d, 0, HISTOGRAM_BINS * sizeof(unsigned int)));
	CL_CUDA_CHECK(cudaDeviceSynchronize());
	cl_ledger_begin();
	p->fn((const unsigned int *)din.d, in->n, (unsigned int *)dbins.d);
	c->ledger = cl_finish_call(c->what, "d_in or d_bins", 0, c->cfg, sizeof(c->cfg));
	if (cl_dbuf_check_guards(&dbins, "d_bins", msg, sizeof(msg)))
		ck_abort_msg("%s %s (launch: %s)\nhint: a value v >= HISTOGRAM_BINS is out of "
			     "range and counted nowhere: test v < HISTOGRAM_BINS before adding "
			     "to bin v (of d_bins, and of a histogram in shared memory)",
			     c->what, msg, c->cfg);
	if (cl_dbuf_check_guards(&din, "d_in", msg, sizeof(msg)))
		ck_abort_msg("%s %s (launch: %s)\nhint: d_in is only read", c->what, msg, c->cfg);
	cl_dbuf_download(&dbins, (float *)got);
	cl_dbuf_free(&din);
	cl_dbuf_free(&dbins);
}

/* The call, and its bins held to the counts of in, computed here. */
static void check_part(const struct part *p, const struct input *in)
{
	unsigned int got[HISTOGRAM_BINS], want[HISTOGRAM_BINS] = {0};
	long long out_of_range = 0, want_sum = 0, got_sum = 0;
	struct call c;

	for (int i = 0; i < in->n; i++) {
		if (in->v[i] < HISTOGRAM_BINS)
			want[in->v[i]]++;
		else
			out_of_range++;
	}
	call_part(p, in, &c, got);

	int wrong = 0, first = -1;
	bool short_only = true, garbage = false, zero = true;
	for (int b = 0; b < HISTOGRAM_BINS; b++) {
		want_sum += want[b];
		got_sum += got[b];
		zero &= got[b] == 0;
		if (got[b] == want[b])
			continue;
		wrong++;
		first = first < 0 ? b : first;
		short_only &= got[b] < want[b];
		garbage |= got[b] > (unsigned int)in->n;
	}
	if (!wrong)
		return;

	const char *hint;
	if (zero)
		hint = "nothing was counted: every bin is still 0";
	else if (garbage)
		hint = p->private_bins
			       ? "a count larger than n: the private histogram was not all zero "
				 "when counting began: zero every counter of the __shared__ array, "
				 "then __syncthreads(), before the first atomicAdd on it"
			       : "a count larger than n: d_bins starts at zero; add 1 per element "
				 "with atomicAdd, nothing else";
	else if (out_of_range && got_sum == want_sum + out_of_range)
		hint = "the values >= HISTOGRAM_BINS were counted (in some bin): they are "
		       "out of range and counted nowhere";
	else if (short_only)
		hint = p->private_bins
			       ? "counts were lost: threads that add to one counter at the same "
				 "time need atomicAdd (in shared memory too), and a block may add "
				 "its private histogram to d_bins only after all of its threads "
				 "counted (__syncthreads() between counting and merging)"
			       : "counts were lost: threads that add to one bin at the same time "
				 "need atomicAdd; bins[v]++ (a load, an add, a store) lets two "
				 "threads store the same new count";
	else if (got_sum > want_sum)
		hint = "some elements were counted more than once: each element belongs to "
		       "exactly one thread";
	else
		hint = "d_bins[v] is the number of elements equal to v";
	ck_abort_msg("%s: d_bins[%d] = %u, expected %u; %d of %d bins wrong, %lld counted in "
		     "all, expected %lld (launch: %s)\nhint: %s",
		     c.what, first, got[first], want[first], wrong, HISTOGRAM_BINS, got_sum,
		     want_sum, c.cfg, hint);
}

static struct input *input_new(int n, const char *label)
{
	struct input *in = (struct input *)malloc(sizeof(*in));
	ck_assert(in != NULL);
	in->v = (unsigned int *)malloc((size_t)n * sizeof(unsigned int));
	ck_assert(in->v != NULL);
	in->n = n;
	snprintf(in->label, sizeof(in->label), "%s", label);
	return in;
}

static void input_free(struct input *in)
{
	free(in->v);
	free(in);
}

/* ------------------------------------------------------------- exact */

/* Out of range values the tests use: above the bins, within the guard after them. */
#define OUT_OF_RANGE_MAX (HISTOGRAM_BINS + 4000)

static void run_exact(const struct part *p)
{
	static const char text[] = "It was the best of times, it was the worst of times; "
				   "see the lazy dog jump over 3 quick brown foxes!\n";
	static const unsigned int mixed[] = {3, 3, 3, 256, 255, 0, OUT_OF_RANGE_MAX - 1};
	struct input *in;

	cl_device_init();

	in = input_new(1, "one value, 0");
	in->v[0] = 0;
	check_part(p, in);
	input_free(in);

	in = input_new(1, "one value, 255");
	in->v[0] = 255;
	check_part(p, in);
	input_free(in);

	in = input_new(1, "one value, 256: out of range");
	in->v[0] = 256;
	check_part(p, in);
	input_free(in);

	in = input_new(7, "3 3 3 256 255 0 4255");
	memcpy(in->v, mixed, sizeof(mixed));
	check_part(p, in);
	input_free(in);

	in = input_new(1000, "1000 equal values, 42");
	for (int i = 0; i < in->n; i++)
		in->v[i] = 42;
	check_part(p, in);
	input_free(in);

	in = input_new(4099, "7 and every tenth 300");
	for (int i = 0; i < in->n; i++)
		in->v[i] = i % 10 ? 7 : 300;
	check_part(p, in);
	input_free(in);

	in = input_new(512, "0 to 511 once each");
	for (int i = 0; i < in->n; i++)
		in->v[i] = (unsigned int)i;
	check_part(p, in);
	input_free(in);

	in = input_new(3001, "the bytes of a text");
	for (int i = 0; i < in->n; i++)
		in->v[i] = (unsigned char)text[i % (sizeof(text) - 1)];
	check_part(p, in);
	input_free(in);

	in = input_new(65537, "(7 * i) % 300");
	for (int i = 0; i < in->n; i++)
		in->v[i] = (unsigned int)(7LL * i % 300);
	check_part(p, in);
	input_free(in);

	if (!cl_safety_too_big(300001)) {
		in = input_new(300001, "300001 equal values, 200");
		for (int i = 0; i < in->n; i++)
			in->v[i] = 200;
		check_part(p, in);
		input_free(in);
	}
}

/* ------------------------------------------------------------ random */

static const int sizes[] = {1, 2, 31, 255, 257, 1000, 4099, 8193, 65537, 1000000};

/*
 * n values from seed: a hot value (40 %), eight warm ones (30 %), any bin
 * (25 %), out of range (5 %): many threads of a block and of the grid add to
 * the same few bins at once.
 */
static struct input *random_input(int n, uint64_t seed)
{
	struct input *in = input_new(n, "random values, a few of them frequent");
	uint64_t s = seed;
	unsigned int hot = (unsigned int)(cl_rand_next(&s) % HISTOGRAM_BINS), warm[8];

	for (int k = 0; k < 8; k++)
		warm[k] = (unsigned int)(cl_rand_next(&s) % HISTOGRAM_BINS);
	for (int i = 0; i < n; i++) {
		uint64_t r = cl_rand_next(&s);
		unsigned int pick = (unsigned int)(r % 100), x = (unsigned int)(r >> 32);
		if (pick < 40)
			in->v[i] = hot;
		else if (pick < 70)
			in->v[i] = warm[x % 8];
		else if (pick < 95)
			in->v[i] = x % HISTOGRAM_BINS;
		else
			in->v[i] = HISTOGRAM_BINS + x % (OUT_OF_RANGE_MAX - HISTOGRAM_BINS);
	}
	return in;
}

static void run_random(const struct part *p)
{
	cl_device_init();
	for (int n : sizes) {
		if (cl_safety_too_big(n))   /* compute-sanitizer slows with the work */
			continue;
		struct input *in = random_input(n, run_seed ^ (uint64_t)n * 0x9e3779b97f4a7c15ULL);
		check_part(p, in);
		input_free(in);
	}
}

/* ------------------------------------------------------------ bounds */

static const int bounds_sizes[] = {1, 255, 257, 1000, 8191, 8193, 20000};

/*
 * Sizes around the block and the coarsening, for the safety stage (memcheck
 * with buffers of their exact size: a read past the end of d_in shows only
 * there). No two elements of a block's share a bin: among the per_block
 * elements of a block, one in every per_block / HISTOGRAM_BINS is in range,
 * each with a value of its own, and of those every fifth is out of range
 * instead. Two atomicAdd on one shared counter are no race, but the
 * emulator's racecheck reports them as one; with no bin shared, it still
 * sees a merge that reads a counter before the block's barrier.
 */
static struct input *bounds_input(int n, int per_block)
{
	struct input *in = input_new(n, "no bin shared within a block");
	int stride = per_block / HISTOGRAM_BINS;

	for (int i = 0; i < n; i++) {
		int j = i % per_block, k = j / stride;
		if (j % stride || k % 5 == 4)
			in->v[i] = HISTOGRAM_BINS + (unsigned int)(13 * i % 4000);
		else
			in->v[i] = (unsigned int)(7 * k + 3) % HISTOGRAM_BINS;
	}
	return in;
}

static void run_bounds(const struct part *p)
{
	cl_device_init();
	for (int n : bounds_sizes) {
		struct input *in = bounds_input(n, p->per_block);
		check_part(p, in);
		input_free(in);
	}
}

/* ------------------------------------------------------------ config */

/* One launch of HISTOGRAM_BLOCK-thread blocks, as many as the part asks for. */
static void run_config(const struct part *p)
{
	const int n = 100000;
	struct input *in = input_new(n, "values in range");
	unsigned int got[HISTOGRAM_BINS];
	struct call c;
	uint64_t s = run_seed;

	for (int i = 0; i < n; i++)
		in->v[i] = (unsigned int)(cl_rand_next(&s) % HISTOGRAM_BINS);
	cl_device_init();
	call_part(p, in, &c, got);
	input_free(in);
	const struct cl_launch *l = &c.ledger->launch[0];
	long long blocks = (n + p->per_block - 1) / p->per_block;
	ck_assert_msg(c.ledger->nlaunches == 1, "%s launched %d kernels, expected one (launch: %s)",
		      c.what, c.ledger->nlaunches, c.cfg);
	ck_assert_msg(cl_threads(l->block) == HISTOGRAM_BLOCK && cl_threads(l->grid) == blocks,
		      "%s launched %s, expected %lld blocks of %d threads\nhint: %s", c.what,
		      c.cfg, blocks, HISTOGRAM_BLOCK,
		      p->per_block == HISTOGRAM_BLOCK
			      ? "(n + HISTOGRAM_BLOCK - 1) / HISTOGRAM_BLOCK blocks of "
				"HISTOGRAM_BLOCK threads: one thread per element"
			      : "one block per HISTOGRAM_BLOCK * HISTOGRAM_COARSEN elements, "
				"rounded up: each thread counts HISTOGRAM_COARSEN of them");
	/* the private histogram: on a GPU, where the kernel's static shared memory is known */
	size_t need = HISTOGRAM_BINS * sizeof(unsigned int);
	if (p->private_bins && l->static_smem != (size_t)-1)
		ck_assert_msg(l->static_smem + l->dyn_smem >= need,
			      "%s launched a kernel with %zu bytes of shared memory a block, "
			      "expected at least %zu (launch: %s)\nhint: each block counts into a "
			      "private histogram of HISTOGRAM_BINS counters in shared memory, "
			      "then adds it to d_bins",
			      c.what, l->static_smem + l->dyn_smem, need, c.cfg);
}

START_TEST(test_histogram_global_exact) { run_exact(&part_global); }
END_TEST
START_TEST(test_histogram_global_random) { run_random(&part_global); }
END_TEST
START_TEST(test_histogram_global_bounds) { run_bounds(&part_global); }
END_TEST
START_TEST(test_histogram_global_config) { run_config(&part_global); }
END_TEST
START_TEST(test_histogram_shared_exact) { run_exact(&part_shared); }
END_TEST
START_TEST(test_histogram_shared_random) { run_random(&part_shared); }
END_TEST
START_TEST(test_histogram_shared_bounds) { run_bounds(&part_shared); }
END_TEST
START_TEST(test_histogram_shared_config) { run_config(&part_shared); }
END_TEST
START_TEST(test_histogram_coarse_exact) { run_exact(&part_coarse); }
END_TEST
START_TEST(test_histogram_coarse_random) { run_random(&part_coarse); }
END_TEST
START_TEST(test_histogram_coarse_bounds) { run_bounds(&part_coarse); }
END_TEST
START_TEST(test_histogram_coarse_config) { run_config(&part_coarse); }
END_TEST

static const struct cl_test tests[] = {
	{"global", test_histogram_global_exact},
	{"global", test_histogram_global_random},
	{"global", test_histogram_global_bounds},
	{"global", test_histogram_global_config},
	{"shared", test_histogram_shared_exact},
	{"shared", test_histogram_shared_random},
	{"shared", test_histogram_shared_bounds},
	{"shared", test_histogram_shared_config},
	{"coarse", test_histogram_coarse_exact},
	{"coarse", test_histogram_coarse_random},
	{"coarse", test_histogram_coarse_bounds},
	{"coarse", test_histogram_coarse_config},
};

int main(int argc, char **argv)
{
	static const struct cl_lab lab = {"histogram", tests, sizeof(tests) / sizeof(tests[0]),
					  histogram_setup};
	return cl_main(&lab, argc, argv);
}
