/*
 * check_coalescing.cu - correctness suite of the coalescing lab.
 *
 * One TCase per graded part of lab.conf:
 *   scale      a * in with x along a row and with x down a column, on arrays
 *              from 1 x 1 to 1000 x 1000 that are not multiples of the
 *              block; every element exactly once, nothing outside (guard
 *              canaries); the block shape and the size of the grid;
 *   strided    out[i] = in[i * stride] for strides 1 to 32 and odd lengths;
 *   transpose  the naive and the tiled transpose on shapes that are not
 *              multiples of the tile; the tiled one's block, grid and tile
 *              in shared memory.
 * How fast each kernel is, and how it uses memory, is for the timing step
 * (tests/bench_coalescing.cu).
 */
#include "coalescing.h"
#include "cudalab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t run_seed;
static float scale_a;

static void coalescing_setup(uint64_t seed, const char *const *parts, size_t nparts)
{
	static const float factors[] = {1.5f, 2.5f, -0.75f, 3.0f, -1.25f};
	run_seed = seed;
	scale_a = factors[seed % (sizeof(factors) / sizeof(factors[0]))];
}

static int ceil_div(long long n, long long d)
{
	return (int)((n + d - 1) / d);
}

struct call {
	char what[128];       /* "coal_scale_rows(m=3, n=5, a=1.5)" */
	char cfg[160];        /* the launch configuration */
	const struct cl_ledger *ledger;
};

/*
 * Calls launch(d_in, d_out) on a device copy of in (nin floats) and a
 * poisoned out of nout floats, checks what cl_finish_call checks and the
 * guard canaries, and downloads out into got (when got is not NULL).
 */
template <typename Launch>
static void call_launcher(struct call *c, const float *in, size_t nin, size_t nout, float *got,
			  Launch launch)
{
	struct cl_dbuf din, dout;

	cl_dbuf_alloc(&din, nin);
	cl_dbuf_alloc(&dout, nout);
	cl_dbuf_upload(&din, in);
	cl_dbuf_poison(&dout);
	CL_CUDA_CHECK(cudaDeviceSynchronize());
	cl_ledger_begin();
	launch(din.d, dout.d);
	c->ledger = cl_finish_call(c->what, "in or out", 0, c->cfg, sizeof(c->cfg));
	cl_assert_guards_out_in(c->what, c->cfg, &dout, &din,
				"threads outside the array must not touch memory: test the row "
				"and the column against m and n first (the bounds check)");
	if (got)
		cl_dbuf_download(&dout, got);
	cl_dbuf_free(&din);
	cl_dbuf_free(&dout);
}

/*
 * The first wrong element of out (nout floats) against want(i), with a hint
 * from the pattern: nothing written, only the partial blocks at the edge
 * missing, or values from the wrong place.
 */
static void report_wrong(const struct call *c, const float *got, const float *want, size_t n,
			 const char *(*where)(size_t i, char *buf, size_t len),
			 const char *misplaced_hint)
{
	size_t nbad = 0, nunwritten = 0, nnan = 0, first = 0;

	for (size_t i = 0; i < n; i++)
		if (memcmp(&got[i], &want[i], sizeof(float))) {
			if (!nbad++)
				first = i;
			nunwritten += !memcmp(&got[i], &cl_poison_bits, sizeof(float));
			nnan += isnan(got[i]) != 0;
		}
	if (!nbad)
		return;
	char w[64], g[32];
	/* out holds the fill's NaN where nothing was written; another NaN was
	 * written, computed from a value no thread had written yet (the inputs
	 * hold none; shared memory is filled with NaN before each launch) */
	const char *hint = nunwritten == n ? "nothing was written (all still NaN): the kernel did "
					     "not run, or every thread failed its bounds test"
			   : nunwritten == nbad ? "some elements were never written (still NaN): the "
						  "grid must have a thread for every element (round "
						  "the block count up), and each thread must compute "
						  "the element it owns from its x and y"
			   : nnan > nunwritten ? "the kernel wrote NaN: it copied a value no thread had "
						 "written yet (shared memory holds NaN when a launch "
						 "begins), such as a tile element read before the "
						 "thread that loads it did so"
					       : misplaced_hint;
	ck_abort_msg("%s: out%s = %s, expected %.9g; %zu of %zu elements wrong (launch: %s)"
		     "\nhint: %s",
		     c->what, where(first, w, sizeof(w)), cl_fmt_float(got[first], g, sizeof(g)),
		     want[first], nbad, n, c->cfg, hint);
}

/* ------------------------------------------------------------------ scale */

static int where_cols;   /* the column count of the array being reported */

static const char *where_2d(size_t i, char *buf, size_t len)
{
	snprintf(buf, len, "[%zu][%zu]", i / where_cols, i % where_cols);
	return buf;
}

static void run_scale(bool rows, int m, int n, bool values, struct call *c)
{
	size_t count = (size_t)m * n;
	float *in = cl_random_floats(count, run_seed ^ (count * 31 + m));
	float *want = (float *)malloc(count * sizeof(float));
	float *got = (float *)malloc(count * sizeof(float));

	ck_assert(want && got);
	snprintf(c->what, sizeof(c->what), "%s(m=%d, n=%d, a=%g)",
		 rows ? "coal_scale_rows" : "coal_scale_cols", m, n, scale_a);
	call_launcher(c, in, count, count, values ? got : NULL, [=](const float *i, float *o) {
		(rows ? coal_scale_rows : coal_scale_cols)(i, o, m, n, scale_a);
	});
	if (values) {
		for (size_t i = 0; i < count; i++)
			want[i] = scale_a * in[i];
		where_cols = n;
		report_wrong(c, got, want, count, where_2d,
			     "an element holds a value that belongs elsewhere: element (row, col) "
			     "is at [row * n + col]");
	}
	free(in);
	free(want);
	free(got);
}

static const int scale_shapes[][2] = {{1, 1},   {1, 1000}, {1000, 1},   {33, 65},
				      {62, 76}, {8, 32},   {257, 129},  {1000, 1000}};

START_TEST(test_coalescing_scale_rows)
{
	struct call c;
	cl_device_init();
	for (const auto &s : scale_shapes)
		if (!cl_safety_too_big((long long)s[0] * s[1]))
			run_scale(true, s[0], s[1], true, &c);
}
END_TEST

START_TEST(test_coalescing_scale_cols)
{
	struct call c;
	cl_device_init();
	for (const auto &s : scale_shapes)
		if (!cl_safety_too_big((long long)s[0] * s[1]))
			run_scale(false, s[0], s[1], true, &c);
}
END_TEST

/*
 * One launch of COAL_BLOCK_X x COAL_BLOCK_Y blocks, as many as cover the
 * array and no more. Which way the grid is turned is not checked here: that
 * is what the timing step measures.
 */
static void check_scale_config(bool rows)
{
	const int m = 100, n = 300;
	struct call c;

	run_scale(rows, m, n, false, &c);
	const struct cl_launch *l = &c.ledger->launch[0];
	int along = rows ? n : m, down = rows ? m : n;
	long long blocks = (long long)ceil_div(along, COAL_BLOCK_X) * ceil_div(down, COAL_BLOCK_Y);
	long long turned = (long long)ceil_div(down, COAL_BLOCK_X) * ceil_div(along, COAL_BLOCK_Y);
	ck_assert_msg(c.ledger->nlaunches == 1,
		      "%s launched %d kernels, expected one (launch: %s)", c.what,
		      c.ledger->nlaunches, c.cfg);
	ck_assert_msg(l->block.x == COAL_BLOCK_X && l->block.y == COAL_BLOCK_Y && l->block.z == 1,
		      "%s launched %s, expected blocks of (%d,%d,1)\nhint: coalescing.h fixes the "
		      "block: dim3 block(COAL_BLOCK_X, COAL_BLOCK_Y)",
		      c.what, c.cfg, COAL_BLOCK_X, COAL_BLOCK_Y);
	ck_assert_msg(cl_threads(l->grid) == blocks || cl_threads(l->grid) == turned,
		      "%s launched %s: %lld blocks, expected %lld\nhint: x covers the %d %s "
		      "(ceil(%d / %d) = %d blocks) and y the %d %s (ceil(%d / %d) = %d)",
		      c.what, c.cfg, cl_threads(l->grid), blocks, along,
		      rows ? "columns" : "rows", along, COAL_BLOCK_X, ceil_div(along, COAL_BLOCK_X),
		      down, rows ? "rows" : "columns", down, COAL_BLOCK_Y,
		      ceil_div(down, COAL_BLOCK_Y));
}

START_TEST(test_coalescing_scale_config)
{
	cl_device_init();
	check_scale_config(true);
	check_scale_config(false);
}
END_TEST

/* ---------------------------------------------------------------- strided */

static const char *where_1d(size_t i, char *buf, size_t len)
{
	snprintf(buf, len, "[%zu]", i);
	return buf;
}

static void run_strided(int n, int stride)
{
	size_t nin = (size_t)n * stride;
	float *in = cl_random_floats(nin, run_seed ^ (nin * 7 + stride));
	float *want = (float *)malloc(n * sizeof(float)), *got = (float *)malloc(n * sizeof(float));
	struct call c;

	ck_assert(want && got);
	snprintf(c.what, sizeof(c.what), "coal_copy_strided(n=%d, stride=%d)", n, stride);
	call_launcher(&c, in, nin, n, got,
		      [=](const float *i, float *o) { coal_copy_strided(i, o, n, stride); });
	for (int i = 0; i < n; i++)
		want[i] = in[(size_t)i * stride];
	report_wrong(&c, got, want, n, where_1d,
		     stride > 1 && !memcmp(got, in, sizeof(float))
			     ? "out[i] must be in[i * stride], not in[i]"
			     : "an element holds a value from the wrong place: out[i] = in[i * "
			       "stride]");
	free(in);
	free(want);
	free(got);
}

START_TEST(test_coalescing_strided_exact)
{
	static const int lengths[] = {1, 31, 1000, 4097, 100003};
	static const int strides[] = {1, 2, 3, 4, 7, 8, 16, 32};
	cl_device_init();
	for (int n : lengths)
		for (int s : strides)
			if (!cl_safety_too_big((long long)n * s))
				run_strided(n, s);
}
END_TEST

/* -------------------------------------------------------------- transpose */

static void run_transpose(bool tiled, int m, int n, bool values, struct call *c)
{
	size_t count = (size_t)m * n;
	float *in = cl_random_floats(count, run_seed ^ (count * 13 + n));
	float *want = (float *)malloc(count * sizeof(float));
	float *got = (float *)malloc(count * sizeof(float));

	ck_assert(want && got);
	snprintf(c->what, sizeof(c->what), "%s(m=%d, n=%d)",
		 tiled ? "coal_transpose_tiled" : "coal_transpose_naive", m, n);
	call_launcher(c, in, count, count, values ? got : NULL, [=](const float *i, float *o) {
		(tiled ? coal_transpose_tiled : coal_transpose_naive)(i, o, m, n);
	});
	if (values) {
		for (int r = 0; r < m; r++)
			for (int col = 0; col < n; col++)
				want[(size_t)col * m + r] = in[(size_t)r * n + col];
		where_cols = m;   /* out is n rows of m */
		bool copied = m > 1 && n > 1 && !memcmp(got, in, count * sizeof(float));
		report_wrong(c, got, want, count, where_2d,
			     copied ? "out is a copy of in: out[col * m + row] = in[row * n + col]"
				    : tiled ? "an element holds a value that belongs elsewhere: the "
					      "tile is read as tile[threadIdx.y + j][threadIdx.x] and "
					      "written out from tile[threadIdx.x][threadIdx.y + j], "
					      "with the block's row and column offsets swapped"
					    : "an element holds a value that belongs elsewhere: out "
					      "has n rows of m, out[col * m + row] = in[row * n + col]");
	}
	free(in);
	free(want);
	free(got);
}

static const int transpose_shapes[][2] = {{1, 1},   {1, 1000}, {1000, 1},  {33, 65}, {31, 17},
					  {64, 64}, {32, 96},  {257, 513}, {1000, 999}};

START_TEST(test_coalescing_transpose_naive)
{
	struct call c;
	cl_device_init();
	for (const auto &s : transpose_shapes)
		if (!cl_safety_too_big((long long)s[0] * s[1]))
			run_transpose(false, s[0], s[1], true, &c);
}
END_TEST

START_TEST(test_coalescing_transpose_tiled)
{
	struct call c;
	cl_device_init();
	for (const auto &s : transpose_shapes)
		if (!cl_safety_too_big((long long)s[0] * s[1]))
			run_transpose(true, s[0], s[1], true, &c);
}
END_TEST

START_TEST(test_coalescing_transpose_config)
{
	const int m = 100, n = 300;
	struct call c;

	cl_device_init();
	run_transpose(true, m, n, false, &c);
	const struct cl_launch *l = &c.ledger->launch[0];
	long long blocks = (long long)ceil_div(m, COAL_TILE) * ceil_div(n, COAL_TILE);
	ck_assert_msg(c.ledger->nlaunches == 1,
		      "%s launched %d kernels, expected one (launch: %s)", c.what,
		      c.ledger->nlaunches, c.cfg);
	ck_assert_msg(l->block.x == COAL_TILE && l->block.y == COAL_TILE_ROWS && l->block.z == 1 &&
			      cl_threads(l->grid) == blocks,
		      "%s launched %s, expected %lld blocks of (%d,%d,1), one per %d x %d tile"
		      "\nhint: the grid is ceil(n / COAL_TILE) x ceil(m / COAL_TILE) blocks; each "
		      "thread moves COAL_TILE / COAL_TILE_ROWS elements of its tile",
		      c.what, c.cfg, blocks, COAL_TILE, COAL_TILE_ROWS, COAL_TILE, COAL_TILE);
	size_t tile = (size_t)COAL_TILE * COAL_TILE * sizeof(float);
	if (l->static_smem != (size_t)-1)   /* not known on the CPU */
		ck_assert_msg(l->static_smem + l->dyn_smem >= tile,
			      "%s uses %zu bytes of shared memory per block, less than one %d x %d "
			      "tile of floats (%zu bytes)\nhint: __shared__ float "
			      "tile[COAL_TILE][COAL_TILE + 1];",
			      c.what, l->static_smem + l->dyn_smem, COAL_TILE, COAL_TILE, tile);
}
END_TEST

static const struct cl_test tests[] = {
	{"scale", test_coalescing_scale_rows},
	{"scale", test_coalescing_scale_cols},
	{"scale", test_coalescing_scale_config},
	{"strided", test_coalescing_strided_exact},
	{"transpose", test_coalescing_transpose_naive},
	{"transpose", test_coalescing_transpose_tiled},
	{"transpose", test_coalescing_transpose_config},
};

int main(int argc, char **argv)
{
	static const struct cl_lab lab = {"coalescing", tests, sizeof(tests) / sizeof(tests[0]),
					  coalescing_setup};
	return cl_main(&lab, argc, argv);
}
