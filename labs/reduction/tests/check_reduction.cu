/*
 * check_reduction.cu - correctness suite of the reduction lab.
 *
 * One TCase per launcher (interleaved, sequential, warp, atomic: the graded
 * parts of lab.conf), three tests each:
 *   exact   small whole numbers as inputs: every partial sum of every order
 *           of addition is a whole number far below 2^24, so exact in float,
 *           and the result must equal the CPU's to the last bit;
 *   random  real-valued inputs against a double-precision sum on the CPU,
 *           with the tolerance of docs/lab-authoring.md ("Tolerances for
 *           floating-point results"): for any order of summation of m
 *           floats the error is at most gamma_m * sum |x_i|, allowed as
 *           (m + 2) * 2^-24 * sum |x_i|, m the elements of a block for a
 *           partial sum, n for the whole sum;
 *   config  the launch: one kernel, blocks of REDUCTION_BLOCK threads,
 *           ceil(n / REDUCTION_BLOCK) of them.
 * Sizes run from 1 to a million, most of them not multiples of the block (or
 * of a warp), so the last block is partly past n.
 *
 * Every call gets a NaN-poisoned output, guard canaries around the input
 * and the output, and is checked for launch errors, leaks and a modified
 * input. The random set's tolerance grows with n; what it cannot see at
 * large n (one lost element among a million is within it) the exact set
 * sees at every n, with a tolerance of 0.
 *
 * Inputs and CPU sums are made once in the judge's main process (setup
 * below, CPU only) and shared by the forked tests; nothing of them ever
 * goes to the runner but the inputs.
 */
#include "cudalab.h"
#include "reduction.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK REDUCTION_BLOCK
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Sizes every launcher is tested on, ascending, so the first failure is the
 * smallest: one element, less than a warp, a warp and one past it, a block
 * and one either side, and many blocks with a partial last one. The same on
 * the CPU emulator, where a million takes well under a second.
 */
static const int sizes[] = {1, 2, 31, 32, 33, 255, 256, 257, 1000, 4099, 65537, 1000000};
/*
 * A safety run (under compute-sanitizer, whose racecheck slows with the
 * shared-memory traffic) stops here: 17 blocks, the last partly past n.
 */
#define SAFETY_MAX_N 4099
/* The config tests' size: 4 blocks, the last partly past n (3 if rounded down). */
#define CONFIG_N 1000

/* the sizes, and the config tests' where the list stops short of it */
#define MAX_SETS (COUNT(sizes) + 1)

enum set_kind { SET_EXACT, SET_RANDOM };

struct dataset {
	int n, nblocks;
	float *in;
	double *part;       /* each block's sum, in double */
	double *part_abs;   /* each block's sum of |x|, for its tolerance */
	double total, total_abs;
};

static struct dataset sets[2][MAX_SETS];
static int nsets;

typedef void (*launcher_fn)(const float *d_in, float *d_out, int n);

struct kernel {
	const char *name;
	launcher_fn fn;
	bool total;   /* writes the whole sum (one float), not a partial sum per block */
};

static const struct kernel kernels[] = {
	{"reduction_interleaved", reduction_interleaved, false},
	{"reduction_sequential", reduction_sequential, false},
	{"reduction_warp", reduction_warp, false},
	{"reduction_atomic", reduction_atomic, true},
};

static int blocks_for(int n)
{
	return (n + BLOCK - 1) / BLOCK;
}

/* ------------------------------------------------------- CPU-side setup */

static void make_set(struct dataset *ds, enum set_kind kind, int n, uint64_t seed)
{
	/* Random offset and scale: the mean is never zero and differs per run. */
	double offset = 0.25 + 0.5 * cl_rand_unit(&seed);
	double scale = 0.5 + 0.5 * cl_rand_unit(&seed);

	ds->n = n;
	ds->nblocks = blocks_for(n);
	ds->in = (float *)malloc((size_t)n * sizeof(float));
	ds->part = (double *)calloc(ds->nblocks, sizeof(double));
	ds->part_abs = (double *)calloc(ds->nblocks, sizeof(double));
	if (!ds->in || !ds->part || !ds->part_abs) {
		fprintf(stderr, "check_reduction: out of memory for n=%d\n", n);
		exit(3);
	}
	for (int i = 0; i < n; i++) {
		if (kind == SET_EXACT) {
			/* -2, -1, 1, 2, 3: never 0, a mean of 0.6, |any partial sum| <= 3n < 2^24 */
			static const float values[] = {-2, -1, 1, 2, 3};
			ds->in[i] = values[cl_rand_next(&seed) % 5];
		} else {
			ds->in[i] = (float)(offset + scale * (2 * cl_rand_unit(&seed) - 1));
		}
	}
	ds->total = ds->total_abs = 0;
	for (int i = 0; i < n; i++) {
		ds->part[i / BLOCK] += ds->in[i];
		ds->part_abs[i / BLOCK] += fabs((double)ds->in[i]);
	}
	for (int b = 0; b < ds->nblocks; b++) {
		ds->total += ds->part[b];
		ds->total_abs += ds->part_abs[b];
	}
}

static const struct dataset *find_set(enum set_kind kind, int n)
{
	for (int i = 0; i < nsets; i++)
		if (sets[kind][i].n == n)
			return &sets[kind][i];
	ck_abort_msg("harness: no data set for n=%d", n);
	return NULL;
}

static void reduction_setup(uint64_t seed, const char *const *parts, size_t nparts)
{
	static const char *const all[] = {"interleaved", "sequential", "warp", "atomic"};
	bool any = false;
	for (size_t i = 0; i < COUNT(all); i++)
		any |= cl_part_wanted(all[i], parts, nparts) != 0;
	if (!any)
		return;
	for (size_t s = 0; s < COUNT(sizes); s++) {
		int n = sizes[s];
		if (cl_safety && n > SAFETY_MAX_N)
			break;
		make_set(&sets[SET_EXACT][nsets], SET_EXACT, n, seed ^ (0x1000u + n));
		make_set(&sets[SET_RANDOM][nsets], SET_RANDOM, n, (seed ^ (0x2000u + n)) * 31);
		nsets++;
	}
	/* the config tests' size, where the list above stopped short of it */
	bool have = false;
	for (int i = 0; i < nsets; i++)
		have |= sets[SET_EXACT][i].n == CONFIG_N;
	if (!have) {
		make_set(&sets[SET_EXACT][nsets], SET_EXACT, CONFIG_N, seed ^ 0x3000u);
		make_set(&sets[SET_RANDOM][nsets], SET_RANDOM, CONFIG_N, seed ^ 0x4000u);
		nsets++;
	}
}

/* ------------------------------------------------------------ comparison */

/* A bound on the rounding error of any order of summation of m floats whose
 * magnitudes add up to abs: gamma_m * abs, as (m + 2) * 2^-24 * abs. Zero
 * (exact equality) for the exact set. */
static double tolerance(enum set_kind kind, int m, double abs)
{
	return kind == SET_EXACT ? 0.0 : (m + 2) * ldexp(1.0, -24) * abs;
}

static bool close_enough(float got, double want, double tol)
{
	return fabs((double)got - want) <= tol;   /* false for NaN */
}

static bool unwritten(float v)
{
	return !memcmp(&v, &cl_poison_bits, sizeof(v));
}

/* The elements of block b, for messages. */
static int block_elems(const struct dataset *ds, int b)
{
	int first = b * BLOCK;
	return ds->n - first < BLOCK ? ds->n - first : BLOCK;
}

/*
 * Compares the partial sums with the CPU's. On a mismatch, writes into msg
 * the first wrong one, how many are wrong, and a hint where the pattern of
 * wrong ones says something, and returns -1.
 */
static int compare_partials(const float *got, const struct dataset *ds, enum set_kind kind,
			    char *msg, size_t len)
{
	int nb = ds->nblocks, first = -1, nbad = 0, nunwritten = 0, nnan = 0, tail = 0;
	char where[400], g[32];
	const char *hint = NULL;

	for (int b = 0; b < nb; b++) {
		double tol = tolerance(kind, block_elems(ds, b), ds->part_abs[b]);
		nunwritten += unwritten(got[b]);
		nnan += isnan(got[b]) != 0;
		if (!close_enough(got[b], ds->part[b], tol)) {
			nbad++;
			first = first < 0 ? b : first;
		}
	}
	if (!nbad)
		return 0;
	/* how many of the last partial sums in a row were never written */
	while (tail < nb && unwritten(got[nb - 1 - tail]))
		tail++;

	if (nunwritten == nb)
		hint = "no partial sum was written (all still hold the NaN d_partial was filled "
		       "with): the kernel did not run, or no thread stored its block's sum "
		       "(thread 0 writes d_partial[blockIdx.x] once the tree is done)";
	else if (tail && tail == nunwritten && tail == nbad)
		snprintf(where, sizeof(where),
			 "the last %d partial sum%s never written (still NaN): the grid has "
			 "%d block%s, it needs %d, one for each REDUCTION_BLOCK elements and one for "
			 "the %d left over: round the number of blocks up, "
			 "(n + REDUCTION_BLOCK - 1) / REDUCTION_BLOCK",
			 tail, tail == 1 ? " was" : "s were", nb - tail, nb - tail == 1 ? "" : "s",
			 nb, ds->n % BLOCK ? ds->n % BLOCK : BLOCK),
			hint = where;
	else if (nnan > nunwritten)
		snprintf(where, sizeof(where),
			 "%d partial sum%s NaN though the input holds none: the tree read shared "
			 "memory that no thread had written yet (shared memory is filled with NaN "
			 "before each launch): a missing __syncthreads() between the loads and the "
			 "tree or between two levels, or threads past n that leave their place empty",
			 nnan - nunwritten, nnan - nunwritten == 1 ? " is" : "s are"),
			hint = where;
	else if (nb > 1 && nbad == 1 && first == nb - 1 && ds->n % BLOCK)
		snprintf(where, sizeof(where),
			 "only the last block's sum is wrong, the block that is partly past n "
			 "(elements %d to %d, then %d threads with no element): those threads must "
			 "still take part in every step of the tree, adding 0 (put 0 in shared "
			 "memory for them), and reach every __syncthreads()",
			 first * BLOCK, ds->n - 1, BLOCK - ds->n % BLOCK),
			hint = where;
	else if (nunwritten)
		snprintf(where, sizeof(where),
			 "%d partial sums were never written (still NaN): each block's thread 0 "
			 "stores d_partial[blockIdx.x], and the grid needs one block for each "
			 "REDUCTION_BLOCK elements, rounded up", nunwritten),
			hint = where;
	else
		hint = "the partial sums are off: check which elements each level adds, that "
		       "each level starts only once the one before it is finished (a "
		       "__syncthreads() between them, reached by every thread of the block), "
		       "and that threads past n add 0";

	int w = snprintf(msg, len, "d_partial[%d] (the sum of elements %d to %d) = %s, expected "
			 "%.9g", first, first * BLOCK, first * BLOCK + block_elems(ds, first) - 1,
			 cl_fmt_float(got[first], g, sizeof(g)), ds->part[first]);
	if (kind == SET_RANDOM)
		w += snprintf(msg + w, len - w, " (tolerance %.3g)",
			      tolerance(kind, block_elems(ds, first), ds->part_abs[first]));
	w += snprintf(msg + w, len - w, "; %d of %d partial sums wrong", nbad, nb);
	snprintf(msg + w, len - w, "\nhint: %s", hint);
	return -1;
}

/* The same for the whole sum. */
static int compare_total(float got, const struct dataset *ds, enum set_kind kind, char *msg,
			 size_t len)
{
	double tol = tolerance(kind, ds->n, ds->total_abs);
	char where[400], g[32];
	const char *hint;

	if (close_enough(got, ds->total, tol))
		return 0;

	/* the sum of the whole blocks only: what a grid that rounds down gives */
	int whole = ds->n / BLOCK;
	double head = 0;
	for (int b = 0; b < whole; b++)
		head += ds->part[b];

	if (isnan(got))
		hint = "*d_sum is NaN: it held NaN before the call (the test fills it so: it "
		       "may hold anything), and adding to NaN gives NaN: set it to 0 "
		       "(cudaMemset) before the kernel adds to it. Else the kernel read shared "
		       "memory no thread had written, or no block added anything";
	else if (got == 0.0f)
		hint = "*d_sum is 0: it was cleared, but no block added its sum to it (thread 0 "
		       "of each block: atomicAdd(d_sum, the block's sum))";
	else if (ds->n % BLOCK && whole && close_enough(got, head, tol))
		snprintf(where, sizeof(where),
			 "this is the sum of the first %d elements only, leaving out the last %d: "
			 "the grid has %d block%s, it needs %d: round the number of blocks up",
			 whole * BLOCK, ds->n % BLOCK, whole, whole == 1 ? "" : "s", ds->nblocks),
			hint = where;
	else
		hint = "the sum is off: check each block's tree (a __syncthreads() between "
		       "levels, reached by every thread; 0 for threads past n), and that every "
		       "block adds its sum exactly once";

	int w = snprintf(msg, len, "*d_sum = %s, expected %.9g", cl_fmt_float(got, g, sizeof(g)),
			 ds->total);
	if (kind == SET_RANDOM)
		w += snprintf(msg + w, len - w, " (tolerance %.3g)", tol);
	snprintf(msg + w, len - w, "\nhint: %s", hint);
	return -1;
}

/* ------------------------------------------------------------- one call */

/*
 * The call of launcher k on data set ds, its ledger open: in holds the
 * inputs, out is poisoned, what names the call ("reduction_warp(n=31)").
 */
static void make_call(const struct kernel *k, const struct dataset *ds, struct cl_dbuf *in,
		      struct cl_dbuf *out, char *what, size_t len)
{
	cl_dbuf_alloc(in, ds->n);
	cl_dbuf_alloc(out, k->total ? 1 : ds->nblocks);
	cl_dbuf_upload(in, ds->in);
	cl_dbuf_poison(out);
	CL_CUDA_CHECK(cudaDeviceSynchronize());

	snprintf(what, len, "%s(n=%d)", k->name, ds->n);
	cl_ledger_begin();
	k->fn(in->d, out->d, ds->n);
}

/*
 * Calls launcher k once on data set ds and checks everything about the
 * call. Fails the test (ending this process) on the first problem found.
 */
static void check_call(const struct kernel *k, const struct dataset *ds, enum set_kind kind)
{
	int n = ds->n;
	struct cl_dbuf in, out;
	char cfg[160], what[96], msg[1200];
	const char *outname = k->total ? "d_sum" : "d_partial";
	float *h = (float *)malloc((size_t)n * sizeof(float));

	ck_assert(h != NULL);
	make_call(k, ds, &in, &out, what, sizeof(what));
	cl_finish_call(what, k->total ? "d_in or d_sum" : "d_in or d_partial", 0, cfg, sizeof(cfg));

	snprintf(msg, sizeof(msg), "threads past n must not touch memory (test i < n before "
		 "reading d_in[i]), and only %s%s is written", outname,
		 k->total ? "[0]" : "[0 .. ceil(n / REDUCTION_BLOCK) - 1]");
	cl_assert_guards_out_in(what, cfg, &out, &in, msg);

	cl_dbuf_download(&in, h);
	for (int i = 0; i < n; i++)
		if (memcmp(&h[i], &ds->in[i], sizeof(float)))
			ck_abort_msg("%s modified its input: d_in[%d] = %.9g, was %.9g (launch: %s)\n"
				     "hint: d_in is only read: add up in shared memory (or registers), "
				     "never in d_in", what, i, h[i], ds->in[i], cfg);

	cl_dbuf_download(&out, h);
	int bad = k->total ? compare_total(h[0], ds, kind, msg, sizeof(msg))
			   : compare_partials(h, ds, kind, msg, sizeof(msg));
	if (bad)
		ck_abort_msg("%s(n=%d, %s inputs, launch %s): %s", k->name, n,
			     kind == SET_EXACT ? "small-integer" : "random", cfg, msg);
	cl_dbuf_free(&in);
	cl_dbuf_free(&out);
	free(h);
}

/* Whether err is a fault of a kernel that ran, not of its launch. */
static bool kernel_fault(cudaError_t err)
{
	switch (err) {
	case cudaErrorIllegalAddress:
	case cudaErrorAssert:
	case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction:
	case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc:
	case cudaErrorLaunchFailure:
		return true;
	default:
		return false;
	}
}

/*
 * Calls launcher k once on data set ds for its launch alone: what it
 * launched, or the test fails where it launched nothing or its launch was
 * refused. A kernel that faults once running is not this test's to judge
 * (exact and random fail it, naming the fault): a GPU reports some faults
 * only under compute-sanitizer, the emulator stops at them in a plain run,
 * and the launch shape is the same either way. Its context then lost, the
 * buffers are left to the process's end.
 */
static const struct cl_ledger *launch_only(const struct kernel *k, const struct dataset *ds,
					   char *cfg, size_t len)
{
	struct cl_dbuf in, out;
	char what[96];

	make_call(k, ds, &in, &out, what, sizeof(what));
	cudaError_t launch_err = cudaGetLastError();
	cudaError_t sync_err = cudaDeviceSynchronize();
	const struct cl_ledger *l = cl_ledger_end();
	cudaError_t err = launch_err != cudaSuccess ? launch_err : sync_err;

	cl_launch_str(l, 0, cfg, len);
	if (l->frees_unknown)
		ck_abort_msg("%s called cudaFree on %d pointer%s it did not allocate\nhint: d_in "
			     "and %s belong to the caller: never free them", what, l->frees_unknown,
			     l->frees_unknown == 1 ? "" : "s", k->total ? "d_sum" : "d_partial");
	if (err != cudaSuccess && !kernel_fault(err))
		ck_abort_msg("%s: %s %s: %s (launch: %s)%s", what,
			     launch_err != cudaSuccess ? "the launch failed with"
						       : "the kernel failed with",
			     cudaGetErrorName(err), cudaGetErrorString(err), cfg,
			     err == cudaErrorInvalidConfiguration || err == cudaErrorInvalidValue
				     ? "\nhint: a block has more than 1024 threads, or a grid or "
				       "block dimension is 0 or too large"
				     : "");
	if (!l->nlaunches)
		ck_abort_msg("%s launched no kernel\nhint: the launcher must launch its kernel "
			     "with <<<grid, block>>>", what);
	if (!kernel_fault(err)) {
		cl_dbuf_free(&in);
		cl_dbuf_free(&out);
	}
	return l;
}

static void check_values(int kernel, enum set_kind kind)
{
	cl_device_init();
	for (size_t s = 0; s < COUNT(sizes) && !(cl_safety && sizes[s] > SAFETY_MAX_N); s++)
		check_call(&kernels[kernel], find_set(kind, sizes[s]), kind);
}

/* One launch of ceil(n / REDUCTION_BLOCK) blocks of REDUCTION_BLOCK threads. */
static void check_config(int kernel)
{
	const struct kernel *k = &kernels[kernel];
	const int n = CONFIG_N;
	long long want_blocks = blocks_for(n);
	char cfg[160];

	cl_device_init();
	const struct cl_ledger *l = launch_only(k, find_set(SET_EXACT, n), cfg, sizeof(cfg));
	ck_assert_msg(l->nlaunches == 1, "%s(n=%d) launched %d kernels, expected exactly one%s",
		      k->name, n, l->nlaunches,
		      k->total ? "\nhint: set *d_sum to 0 with cudaMemset, which launches no "
				 "kernel, then one launch adds everything up" : "");

	const struct cl_launch *c = &l->launch[0];
	long long threads = cl_threads(c->block), blocks = cl_threads(c->grid);
	ck_assert_msg(threads == BLOCK && blocks == want_blocks,
		      "%s(n=%d) launched %lld block%s of %lld threads (%s), expected %lld blocks of "
		      "%d threads\nhint: one thread per element, blocks of REDUCTION_BLOCK "
		      "threads, (n + REDUCTION_BLOCK - 1) / REDUCTION_BLOCK of them (rounded up, "
		      "so the last block covers the %d elements left over)",
		      k->name, n, blocks, blocks == 1 ? "" : "s", threads, cfg, want_blocks, BLOCK,
		      n % BLOCK);
}

/* ---------------------------------------------------------------- tests */

#define PART_TESTS(part, idx)                                                                   \
	START_TEST(test_reduction_##part##_exact)                                                \
	{                                                                                        \
		check_values(idx, SET_EXACT);                                                    \
	}                                                                                        \
	END_TEST                                                                                 \
	START_TEST(test_reduction_##part##_random)                                               \
	{                                                                                        \
		check_values(idx, SET_RANDOM);                                                   \
	}                                                                                        \
	END_TEST                                                                                 \
	START_TEST(test_reduction_##part##_config)                                               \
	{                                                                                        \
		check_config(idx);                                                               \
	}                                                                                        \
	END_TEST

PART_TESTS(interleaved, 0)
PART_TESTS(sequential, 1)
PART_TESTS(warp, 2)
PART_TESTS(atomic, 3)

#define PART_ENTRIES(part)                                                                      \
	{#part, test_reduction_##part##_exact}, {#part, test_reduction_##part##_random},        \
	{#part, test_reduction_##part##_config}

static const struct cl_test tests[] = {
	PART_ENTRIES(interleaved), PART_ENTRIES(sequential), PART_ENTRIES(warp),
	PART_ENTRIES(atomic),
};

int main(int argc, char **argv)
{
	static const struct cl_lab lab = {"reduction", tests, COUNT(tests), reduction_setup};
	return cl_main(&lab, argc, argv);
}
