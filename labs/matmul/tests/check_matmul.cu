/*
 * check_matmul.cu - correctness suite of the matmul lab.
 *
 * One TCase per kernel (k1..k5, the graded parts of lab.conf), three tests
 * each:
 *   exact   small-integer inputs; every summation order gives the exact
 *           answer, so C must equal the CPU product bit for bit;
 *   random  real-valued inputs against a double-precision CPU product, with
 *           a tolerance that grows with N;
 *   config  the launch configuration the kernel asks for (threads per block,
 *           number of blocks, shared memory), read from the launch ledger.
 * Every call gets NaN-poisoned output, guard canaries around A, B and C,
 * and is checked for launch errors, leaks and modified inputs.
 *
 * Inputs and CPU references are made once in the harness's main process
 * (setup below) and shared by the forked tests.
 */
#include "cudalab.h"
#include "matmul.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*launcher_fn)(const float *d_A, const float *d_B, float *d_C, int N);

/*
 * Sizes every kernel is tested on, ascending, so the first failure is the
 * smallest. The largest, a multiple of every block size of the lab. On the CPU
 * emulator, which runs every CUDA thread on the CPU, it is 544 (17 tiles of
 * 32), and N = 1000 is left out: the two largest sizes were four fifths of
 * the emulated suite's time, and what only a size that large shows (a
 * grid that stops at 1024 threads, say) is rare; a size that is not a
 * multiple of a tile is still tested, at 257. (Not 512: a column of a
 * power-of-two-wide float matrix strides CPU caches into a handful of sets.)
 */
static const int gpu_sizes[] = {1, 2, 7, 16, 31, 32, 33, 100, 257, 1000, 1024};
static const int emu_sizes[] = {1, 2, 7, 16, 31, 32, 33, 100, 257, 544};
/* Kernel 2 only runs on multiples of its block size. */
static const int gpu_k2_sizes[] = {MATMUL_K2_P, 2 * MATMUL_K2_P, 3 * MATMUL_K2_P, 1024};
static const int emu_k2_sizes[] = {MATMUL_K2_P, 2 * MATMUL_K2_P, 3 * MATMUL_K2_P, 544};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_SETS (COUNT(gpu_sizes) + COUNT(gpu_k2_sizes))

/* The sizes of kernel 2 (k2) or of the others, where the tests run. */
static const int *sizes_of(bool k2, size_t *n)
{
	if (k2) {
		*n = cl_emulated ? COUNT(emu_k2_sizes) : COUNT(gpu_k2_sizes);
		return cl_emulated ? emu_k2_sizes : gpu_k2_sizes;
	}
	*n = cl_emulated ? COUNT(emu_sizes) : COUNT(gpu_sizes);
	return cl_emulated ? emu_sizes : gpu_sizes;
}

struct dataset {
	int N;
	float *A, *B;
	double *ref;        /* the product in double precision */
	double *rnorm;      /* |row i of A|_2, for the tolerance */
	double *cnorm;      /* |column j of B|_2 */
};

enum set_kind { SET_EXACT, SET_RANDOM };

static struct dataset sets[2][MAX_SETS];
static int nsets;

struct kernel {
	const char *name;
	launcher_fn fn;
	bool k2;    /* multiples of its block size only */
};

static const struct kernel kernels[] = {
	{"matmul_k1", matmul_k1, false},
	{"matmul_k2", matmul_k2, true},
	{"matmul_k3", matmul_k3, false},
	{"matmul_k4", matmul_k4, false},
	{"matmul_k5", matmul_k5, false},
};

/* ------------------------------------------------------- CPU-side setup */

struct ref_job {
	const struct dataset *ds;
	int row0, row1;
};

/*
 * The reference product, i-k-j so the inner loop runs along rows. Built
 * with the vectoriser on (-O2 leaves this loop scalar): on the emulator it
 * was a quarter of the matmul suite's time.
 */
__attribute__((optimize("O3"))) static void *ref_rows(void *arg)
{
	const struct ref_job *j = (const struct ref_job *)arg;
	const struct dataset *ds = j->ds;
	int N = ds->N;

	for (int i = j->row0; i < j->row1; i++) {
		double *c = ds->ref + (size_t)i * N;
		for (int x = 0; x < N; x++)
			c[x] = 0.0;
		for (int k = 0; k < N; k++) {
			double a = ds->A[(size_t)i * N + k];
			const float *b = ds->B + (size_t)k * N;
			for (int x = 0; x < N; x++)
				c[x] += a * b[x];
		}
	}
	return NULL;
}

static void reference_product(const struct dataset *ds)
{
	int nthreads = ds->N >= 128 ? cl_cpu_threads() : 1;
	pthread_t tid[16];
	struct ref_job jobs[16];

	for (int t = 0; t < nthreads; t++) {
		jobs[t].ds = ds;
		jobs[t].row0 = (int)((long)ds->N * t / nthreads);
		jobs[t].row1 = (int)((long)ds->N * (t + 1) / nthreads);
		if (nthreads == 1 || pthread_create(&tid[t], NULL, ref_rows, &jobs[t]))
			ref_rows(&jobs[t]), tid[t] = 0;
	}
	for (int t = 0; t < nthreads; t++)
		if (tid[t])
			pthread_join(tid[t], NULL);
}

static void make_set(struct dataset *ds, enum set_kind kind, int N, uint64_t seed)
{
	size_t n = (size_t)N * N;
	/* Random offset and scale: the mean is never zero and differs per run. */
	double offset = 0.25 + 0.5 * cl_rand_unit(&seed);
	double scale = 0.5 + 0.5 * cl_rand_unit(&seed);

	ds->N = N;
	ds->A = (float *)malloc(n * sizeof(float));
	ds->B = (float *)malloc(n * sizeof(float));
	ds->ref = (double *)malloc(n * sizeof(double));
	ds->rnorm = (double *)calloc(N, sizeof(double));
	ds->cnorm = (double *)calloc(N, sizeof(double));
	if (!ds->A || !ds->B || !ds->ref || !ds->rnorm || !ds->cnorm) {
		fprintf(stderr, "check_matmul: out of memory for N=%d\n", N);
		exit(3);
	}
	for (size_t i = 0; i < n; i++) {
		if (kind == SET_EXACT) {
			/* -3..3 without 0: |partial sums| <= 9 N, exact in float */
			int a = (int)(cl_rand_next(&seed) % 6), b = (int)(cl_rand_next(&seed) % 6);
			ds->A[i] = (float)(a < 3 ? a - 3 : a - 2);
			ds->B[i] = (float)(b < 3 ? b - 3 : b - 2);
		} else {
			ds->A[i] = (float)(offset + scale * (2 * cl_rand_unit(&seed) - 1));
			ds->B[i] = (float)(offset + scale * (2 * cl_rand_unit(&seed) - 1));
		}
	}
	for (int i = 0; i < N; i++)
		for (int k = 0; k < N; k++) {
			double a = ds->A[(size_t)i * N + k], b = ds->B[(size_t)i * N + k];
			ds->rnorm[i] += a * a;
			ds->cnorm[k] += b * b;
		}
	for (int i = 0; i < N; i++) {
		ds->rnorm[i] = sqrt(ds->rnorm[i]);
		ds->cnorm[i] = sqrt(ds->cnorm[i]);
	}
	reference_product(ds);
}

static const struct dataset *find_set(enum set_kind kind, int N)
{
	for (int i = 0; i < nsets; i++)
		if (sets[kind][i].N == N)
			return &sets[kind][i];
	ck_abort_msg("harness: no data set for N=%d", N);
	return NULL;
}

/*
 * A safety run (under compute-sanitizer, whose racecheck slows with the
 * work) stops at this size: every size below it that is not a multiple of
 * a block or tile (7, 31, 33, 100) and one that is (16, 32).
 */
#define SAFETY_MAX_N 100

static void add_sizes(const int *sizes, size_t n, uint64_t seed)
{
	for (size_t s = 0; s < n; s++) {
		int N = sizes[s], have = 0;
		if (cl_safety && N > SAFETY_MAX_N)
			break;
		for (int i = 0; i < nsets; i++)
			have |= sets[SET_EXACT][i].N == N;
		if (have)
			continue;
		make_set(&sets[SET_EXACT][nsets], SET_EXACT, N, seed ^ (0x1000u + N));
		make_set(&sets[SET_RANDOM][nsets], SET_RANDOM, N, seed ^ (0x2000u + N) * 31);
		nsets++;
	}
}

static void matmul_setup(uint64_t seed, const char *const *parts, size_t nparts)
{
	static const char *const any_n[] = {"k1", "k3", "k4", "k5"};

	size_t n;
	const int *sizes;

	for (size_t i = 0; i < sizeof(any_n) / sizeof(any_n[0]); i++)
		if (cl_part_wanted(any_n[i], parts, nparts)) {
			sizes = sizes_of(false, &n);
			add_sizes(sizes, n, seed);
			break;
		}
	if (cl_part_wanted("k2", parts, nparts)) {
		sizes = sizes_of(true, &n);
		add_sizes(sizes, n, seed);
	}
}

/* ------------------------------------------------------------ comparison */

/* Tolerance of element (i, j): a bound on the rounding error of any order of
 * summation of N float products, gamma_N * sum_k |a_ik b_kj|, with the sum
 * bounded by Cauchy-Schwarz. Zero (exact equality) for the exact set. */
static double tolerance(const struct dataset *ds, enum set_kind kind, int i, int j)
{
	if (kind == SET_EXACT)
		return 0.0;
	return (ds->N + 2) * ldexp(1.0, -24) * ds->rnorm[i] * ds->cnorm[j];
}

static int close_enough(float got, double want, double tol)
{
	return fabs((double)got - want) <= tol;   /* false for NaN */
}

/* Whether every wrong element lies in the last, partial tile row or column
 * for a tile size T: the signature of a missing or wrong bounds check. */
static int wrong_only_at_edge(const unsigned char *bad, int N, int *edge)
{
	static const int tiles[] = {MATMUL_K2_P, MATMUL_K4_Q, MATMUL_TILE, 4, 8, 64};

	for (size_t t = 0; t < sizeof(tiles) / sizeof(tiles[0]); t++) {
		int T = tiles[t], e = N - N % T, ok = 1;
		if (N % T == 0 || N < T)
			continue;
		for (int i = 0; i < e && ok; i++)
			for (int j = 0; j < e && ok; j++)
				ok = !bad[(size_t)i * N + j];
		if (ok) {
			*edge = e;
			return 1;
		}
	}
	return 0;
}

/*
 * Compares C with the reference. On a mismatch, writes into msg the first
 * wrong element, how many are wrong, and a hint when the pattern of wrong
 * elements says something, and returns -1.
 */
static int compare(const float *C, const struct dataset *ds, enum set_kind kind, char *msg,
		   size_t len)
{
	int N = ds->N, fi = -1, fj = -1, edge;
	size_t n = (size_t)N * N, nbad = 0, nnan = 0, nunwritten = 0, nzero = 0, ntransposed = 0;
	unsigned char *bad = (unsigned char *)calloc(n, 1);
	const char *hint = NULL;
	char where[320];

	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			size_t e = (size_t)i * N + j;
			float c = C[e];
			nnan += isnan(c) != 0;
			nunwritten += !memcmp(&c, &cl_poison_bits, sizeof(c));
			nzero += c == 0.0f;
			if (!close_enough(c, ds->ref[e], tolerance(ds, kind, i, j))) {
				bad[e] = 1;
				if (!nbad++)
					fi = i, fj = j;
			}
		}
	if (!nbad) {
		free(bad);
		return 0;
	}
	/* only for a hint: a walk down the reference's columns, slow at N = 1024 */
	for (int i = 0; i < N && ntransposed == (size_t)i * N; i++)
		for (int j = 0; j < N; j++)
			ntransposed += close_enough(C[(size_t)i * N + j], ds->ref[(size_t)j * N + i],
						    tolerance(ds, kind, j, i));
	/* C is filled with NaN of bits cl_poison_bits before the call: an element
	 * that still has them was not written; a NaN of other bits was computed,
	 * and with A and B free of NaN, from memory nothing had written */
	if (nunwritten == n)
		hint = "no element of C was written (all still hold the NaN C was filled with): "
		       "the kernel did not run, or returned before storing its result";
	else if (nnan > nunwritten && nnan == n)
		hint = "every element of C the kernel stored is NaN, though A and B hold no NaN: "
		       "it read memory nothing had written: C itself (filled with NaN before the "
		       "call: add up in a local variable, then store once), shared memory (filled "
		       "with NaN before each launch), or memory outside A and B";
	else if (nzero == n)
		hint = "C is all zeros: the kernel ran but never added anything up";
	else if (N > 1 && ntransposed == n)
		hint = "C is the transpose of A*B: row and column are swapped "
		       "(C[row][col] is C[row * N + col])";
	else if (wrong_only_at_edge(bad, N, &edge))
		snprintf(where, sizeof(where),
			 "only the last partial tile is wrong (row or column >= %d): look at what "
			 "the threads at the edge of the matrix do differently: their bounds "
			 "tests, a grid that must round up, a __syncthreads() some of them skip",
			 edge),
			hint = where;
	else if (nunwritten)
		snprintf(where, sizeof(where),
			 "%zu elements were never written (they still hold the NaN C was filled "
			 "with): the grid does not cover all of C (round the number of blocks up)",
			 nunwritten),
			hint = where;
	else if (nnan)
		snprintf(where, sizeof(where),
			 "%zu elements are NaN, though A and B hold no NaN: the kernel read memory "
			 "nothing had written (C itself, shared memory, or outside A and B)", nnan),
			hint = where;

	char got[32];
	int w = snprintf(msg, len, "C[%d][%d] = %s, expected %.9g", fi, fj,
			 cl_fmt_float(C[(size_t)fi * N + fj], got, sizeof(got)),
			 ds->ref[(size_t)fi * N + fj]);
	if (kind == SET_RANDOM)
		w += snprintf(msg + w, len - w, " (tolerance %.3g)", tolerance(ds, kind, fi, fj));
	w += snprintf(msg + w, len - w, "; %zu of %zu elements wrong", nbad, n);
	if (hint)
		snprintf(msg + w, len - w, "\nhint: %s", hint);
	free(bad);
	return -1;
}

/* ------------------------------------------------------------- one call */

/* What one call left behind: canaries, inputs, and C. */
static void check_result(const struct kernel *k, const struct dataset *ds, enum set_kind kind,
			 const char *cfg, const struct cl_dbuf *Ap,
			 const struct cl_dbuf *Bp, const struct cl_dbuf *Cp, float *h)
{
	const struct cl_dbuf &A = *Ap, &B = *Bp, &C = *Cp;
	int N = ds->N;
	size_t n = (size_t)N * N;
	char msg[1024];

	if (cl_dbuf_check_guards(&C, "C", msg, sizeof(msg)) ||
	    cl_dbuf_check_guards(&A, "A", msg, sizeof(msg)) ||
	    cl_dbuf_check_guards(&B, "B", msg, sizeof(msg)))
		ck_abort_msg("%s(N=%d) %s (launch: %s)\nhint: threads outside the matrix must not "
			     "write (row < N && col < N), element (row, col) of C is C[row * N + col], "
			     "and A and B are only read", k->name, N, msg, cfg);

	const struct {
		const char *name;
		const struct cl_dbuf *buf;
		const float *want;
	} inputs[] = {{"A", &A, ds->A}, {"B", &B, ds->B}};
	for (int b = 0; b < 2; b++) {
		cl_dbuf_download(inputs[b].buf, h);
		for (size_t e = 0; e < n; e++)
			if (memcmp(&h[e], &inputs[b].want[e], sizeof(float)))
				ck_abort_msg("%s(N=%d) modified its input %s: %s[%zu][%zu] = %.9g, was "
					     "%.9g (launch: %s)", k->name, N, inputs[b].name,
					     inputs[b].name, e / N, e % N, h[e], inputs[b].want[e], cfg);
	}

	cl_dbuf_download(&C, h);
	if (compare(h, ds, kind, msg, sizeof(msg)))
		ck_abort_msg("%s(N=%d, %s inputs, launch %s): %s", k->name, N,
			     kind == SET_EXACT ? "small-integer" : "random", cfg, msg);
}

/*
 * Calls kernel k once on data set ds and checks everything about the call,
 * or with shape_only only that it launched and ran without an error (the
 * config tests judge the launch, not the values). Fails the test (ending
 * this process) on the first problem found.
 */
static void check_call(const struct kernel *k, const struct dataset *ds, enum set_kind kind,
		       bool shape_only, const struct cl_ledger **ledger_out)
{
	int N = ds->N;
	size_t n = (size_t)N * N;
	struct cl_dbuf A, B, C;
	char cfg[160], what[96];
	float *h = (float *)malloc(n * sizeof(float));

	ck_assert(h != NULL);
	cl_dbuf_alloc(&A, n);
	cl_dbuf_alloc(&B, n);
	cl_dbuf_alloc(&C, n);
	cl_dbuf_upload(&A, ds->A);
	cl_dbuf_upload(&B, ds->B);
	cl_dbuf_poison(&C);
	CL_CUDA_CHECK(cudaDeviceSynchronize());

	snprintf(what, sizeof(what), "%s(N=%d)", k->name, N);
	cl_ledger_begin();
	k->fn(A.d, B.d, C.d, N);
	const struct cl_ledger *l = cl_finish_call(
		what, "A, B or C", shape_only ? CL_CALL_LAUNCH_ONLY : 0, cfg, sizeof(cfg));
	*ledger_out = l;
	if (!shape_only)
		check_result(k, ds, kind, cfg, &A, &B, &C, h);
	cl_dbuf_free(&A);
	cl_dbuf_free(&B);
	cl_dbuf_free(&C);
	free(h);
}

static void check_values(int kernel, enum set_kind kind)
{
	const struct kernel *k = &kernels[kernel];
	const struct cl_ledger *l;

	cl_device_init();
	size_t nsizes;
	const int *sizes = sizes_of(k->k2, &nsizes);
	for (size_t s = 0; s < nsizes && !(cl_safety && sizes[s] > SAFETY_MAX_N); s++)
		check_call(k, find_set(kind, sizes[s]), kind, false, &l);
}

/* --------------------------------------------------------- launch shape */

static long long ceil_div(long long n, long long d)
{
	return (n + d - 1) / d;
}

/*
 * The configuration each kernel is defined by: threads per block and number
 * of blocks for an N x N matrix, and for kernel 5 the shared memory.
 */
static void check_config(int kernel)
{
	const struct kernel *k = &kernels[kernel];
	const struct cl_ledger *l;
	int N = kernel == 1 ? 2 * MATMUL_K2_P : 33;
	long long want_threads, want_blocks;
	const char *rule;
	char cfg[160];

	switch (kernel) {
	case 0:
		want_threads = 1, want_blocks = (long long)N * N;
		rule = "one thread per block, one block per element of C";
		break;
	case 1:
		want_threads = MATMUL_K2_P, want_blocks = (long long)N * N / MATMUL_K2_P;
		rule = "MATMUL_K2_P threads per block, N / MATMUL_K2_P blocks per row of C";
		break;
	case 2:
		want_threads = MATMUL_K2_P, want_blocks = ceil_div(N, MATMUL_K2_P) * N;
		rule = "MATMUL_K2_P threads per block, ceil(N / MATMUL_K2_P) blocks per row of C";
		break;
	case 3:
		want_threads = MATMUL_K4_P * MATMUL_K4_Q;
		want_blocks = ceil_div(N, MATMUL_K4_P) * ceil_div(N, MATMUL_K4_Q);
		rule = "blocks of MATMUL_K4_P x MATMUL_K4_Q threads, enough to cover C";
		break;
	default:
		want_threads = MATMUL_TILE * MATMUL_TILE;
		want_blocks = ceil_div(N, MATMUL_TILE) * ceil_div(N, MATMUL_TILE);
		rule = "blocks of MATMUL_TILE x MATMUL_TILE threads, one per tile of C";
		break;
	}

	cl_device_init();
	check_call(k, find_set(SET_EXACT, N), SET_EXACT, true, &l);
	cl_launch_str(l, 0, cfg, sizeof(cfg));
	ck_assert_msg(l->nlaunches == 1, "%s(N=%d) launched %d kernels, expected exactly one",
		      k->name, N, l->nlaunches);

	const struct cl_launch *c = &l->launch[0];
	long long threads = cl_threads(c->block), blocks = cl_threads(c->grid);
	ck_assert_msg(threads == want_threads && blocks == want_blocks,
		      "%s(N=%d) launched %lld blocks of %lld threads (%s), expected %lld blocks of "
		      "%lld threads\nhint: %s", k->name, N, blocks, threads, cfg, want_blocks,
		      want_threads, rule);
	if (kernel == 3)
		ck_assert_msg(c->block.z == 1 &&
			      ((c->block.x == MATMUL_K4_P && c->block.y == MATMUL_K4_Q) ||
			       (c->block.x == MATMUL_K4_Q && c->block.y == MATMUL_K4_P)),
			      "%s(N=%d) used a block of (%u,%u,%u), expected a 2D block of %d x %d "
			      "threads", k->name, N, c->block.x, c->block.y, c->block.z,
			      MATMUL_K4_P, MATMUL_K4_Q);
	if (kernel == 4 && c->static_smem != (size_t)-1) {
		size_t smem = c->static_smem + c->dyn_smem;
		size_t want = 2 * MATMUL_TILE * MATMUL_TILE * sizeof(float);
		ck_assert_msg(smem >= want,
			      "%s(N=%d) uses %zu bytes of shared memory per block, expected at "
			      "least %zu (a tile of A and a tile of B)", k->name, N, smem, want);
	}
}

/* ---------------------------------------------------------------- tests */

#define KERNEL_TESTS(k, idx)                                                                    \
	START_TEST(test_matmul_##k##_exact)                                                      \
	{                                                                                        \
		check_values(idx, SET_EXACT);                                                    \
	}                                                                                        \
	END_TEST                                                                                 \
	START_TEST(test_matmul_##k##_random)                                                     \
	{                                                                                        \
		check_values(idx, SET_RANDOM);                                                   \
	}                                                                                        \
	END_TEST                                                                                 \
	START_TEST(test_matmul_##k##_config)                                                     \
	{                                                                                        \
		check_config(idx);                                                               \
	}                                                                                        \
	END_TEST

KERNEL_TESTS(k1, 0)
KERNEL_TESTS(k2, 1)
KERNEL_TESTS(k3, 2)
KERNEL_TESTS(k4, 3)
KERNEL_TESTS(k5, 4)

#define KERNEL_ENTRIES(k)                                                                       \
	{#k, test_matmul_##k##_exact}, {#k, test_matmul_##k##_random},                          \
	{#k, test_matmul_##k##_config}

static const struct cl_test tests[] = {
	KERNEL_ENTRIES(k1), KERNEL_ENTRIES(k2), KERNEL_ENTRIES(k3),
	KERNEL_ENTRIES(k4), KERNEL_ENTRIES(k5),
};

int main(int argc, char **argv)
{
	static const struct cl_lab lab = {"matmul", tests, sizeof(tests) / sizeof(tests[0]),
					  matmul_setup};
	return cl_main(&lab, argc, argv);
}
