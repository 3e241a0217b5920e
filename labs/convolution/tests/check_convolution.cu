/*
 * check_convolution.cu - correctness suite of the convolution lab
 * (docs/lab-authoring.md, "The test-suite API").
 *
 * One TCase per launcher (basic, const, tiled: the graded parts of
 * lab.conf), three tests each:
 *   exact   small-integer images and masks: every partial sum is a small
 *           whole number, so every order of summation gives the exact
 *           answer and out must equal the CPU result bit for bit;
 *   random  real-valued images and masks against a double-precision CPU
 *           result, with a tolerance that grows with the number of terms;
 *   config  the launch shape the part asks for, read from the launch ledger.
 * Images are width x height with widths and heights from 1 to over a
 * thousand, most not multiples of a block or tile, each with a mask radius
 * from 0 to CONV_MAX_RADIUS. Every call gets a NaN-filled output, guard
 * canaries around every device buffer, and is checked for launch errors,
 * leaks and modified inputs.
 *
 * The suite runs in the judge: inputs and CPU results are made once in the
 * setup hook (from the run's seed) and compared here; the runner only
 * receives inputs.
 */
#include "cudalab.h"
#include "convolution.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct conv_case {
	int w, h, r;
};

/*
 * Ascending, so the first failure is the smallest: a single pixel (with a
 * mask larger than the image), a row and a column, one block exactly
 * (16 x 16), sizes just past a block, rectangles both ways (a row and a
 * column swapped shows), several blocks, and a radius of 0 (a copy times the
 * one weight). On the CPU emulator, which runs every CUDA thread itself,
 * the two largest are left out and one of 300 x 211 stands for them.
 */
static const struct conv_case gpu_cases[] = {
	{1, 1, 1}, {1, 1, 3}, {7, 1, 2}, {1, 9, 1}, {5, 3, 3}, {16, 16, 1}, {17, 5, 2},
	{31, 33, 3}, {33, 31, 0}, {48, 64, 2}, {100, 37, 1}, {257, 130, 3}, {130, 257, 2},
	{1000, 999, 3}, {2048, 1031, 2},
};
static const struct conv_case emu_cases[] = {
	{1, 1, 1}, {1, 1, 3}, {7, 1, 2}, {1, 9, 1}, {5, 3, 3}, {16, 16, 1}, {17, 5, 2},
	{31, 33, 3}, {33, 31, 0}, {48, 64, 2}, {100, 37, 1}, {257, 130, 3}, {130, 257, 2},
	{300, 211, 3},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_CASES COUNT(gpu_cases)

static const struct conv_case *cases_of(size_t *n)
{
	*n = cl_emulated ? COUNT(emu_cases) : COUNT(gpu_cases);
	return cl_emulated ? emu_cases : gpu_cases;
}

enum set_kind { SET_EXACT, SET_RANDOM };

struct dataset {
	struct conv_case c;
	float *in, *mask;
	double *ref;     /* the convolution in double precision */
	double *absum;   /* sum of |mask * in| over each pixel's terms, for the tolerance */
};

static struct dataset sets[2][MAX_CASES];
static int nsets;
static uint64_t run_seed;

enum kernel_id { K_BASIC, K_CONST, K_TILED };

static const char *const kernel_names[] = {"conv_basic", "conv_const", "conv_tiled"};

/* ------------------------------------------------------- CPU-side setup */

static int mask_width(int r)
{
	return 2 * r + 1;
}

/* out = in (*) mask, ghost cells 0, into ref (and |terms| into absum when given). */
static void convolve(const float *in, const float *mask, int w, int h, int r, bool flip,
		     double *ref, double *absum)
{
	int mw = mask_width(r);

	for (int row = 0; row < h; row++)
		for (int col = 0; col < w; col++) {
			double s = 0, a = 0;
			for (int i = 0; i < mw; i++) {
				int y = row - r + i;
				if (y < 0 || y >= h)
					continue;
				for (int j = 0; j < mw; j++) {
					int x = col - r + j;
					if (x < 0 || x >= w)
						continue;
					double m = flip ? mask[(mw - 1 - i) * mw + (mw - 1 - j)]
							: mask[i * mw + j];
					double t = m * in[(size_t)y * w + x];
					s += t;
					a += fabs(t);
				}
			}
			ref[(size_t)row * w + col] = s;
			if (absum)
				absum[(size_t)row * w + col] = a;
		}
}

/* A nonzero small whole number: -3..3 without 0 (weights: -2..2 without 0). */
static float small_int(uint64_t *seed, int max)
{
	int v = (int)(cl_rand_next(seed) % (2 * max));
	return (float)(v < max ? v - max : v - max + 1);
}

static void make_set(struct dataset *ds, enum set_kind kind, struct conv_case c, uint64_t seed)
{
	size_t n = (size_t)c.w * c.h, nm = (size_t)mask_width(c.r) * mask_width(c.r);
	/* random offset and scale: the mean is never zero and differs per run */
	double offset = 0.25 + 0.5 * cl_rand_unit(&seed);
	double scale = 0.5 + 0.5 * cl_rand_unit(&seed);

	ds->c = c;
	ds->in = (float *)malloc(n * sizeof(float));
	ds->mask = (float *)malloc(nm * sizeof(float));
	ds->ref = (double *)malloc(n * sizeof(double));
	ds->absum = (double *)malloc(n * sizeof(double));
	if (!ds->in || !ds->mask || !ds->ref || !ds->absum) {
		fprintf(stderr, "check_convolution: out of memory for %d x %d\n", c.w, c.h);
		exit(3);
	}
	for (size_t i = 0; i < n; i++)
		ds->in[i] = kind == SET_EXACT ? small_int(&seed, 3)
					      : (float)(offset + scale * (2 * cl_rand_unit(&seed) - 1));
	for (size_t i = 0; i < nm; i++)
		ds->mask[i] = kind == SET_EXACT ? small_int(&seed, 2)
						: (float)((2 * cl_rand_unit(&seed) - 1) / nm);
	convolve(ds->in, ds->mask, c.w, c.h, c.r, false, ds->ref, ds->absum);
}

static void convolution_setup(uint64_t seed, const char *const *parts, size_t nparts)
{
	size_t n;
	const struct conv_case *cases = cases_of(&n);

	(void)parts, (void)nparts;
	run_seed = seed;
	for (size_t i = 0; i < n; i++) {
		const struct conv_case c = cases[i];
		if (cl_safety_too_big((long long)c.w * c.h))
			continue;
		uint64_t k = (uint64_t)c.w << 20 ^ (uint64_t)c.h << 4 ^ (uint64_t)c.r;
		make_set(&sets[SET_EXACT][nsets], SET_EXACT, c, seed ^ (0x1000u + k));
		make_set(&sets[SET_RANDOM][nsets], SET_RANDOM, c, (seed ^ (0x2000u + k)) * 31);
		nsets++;
	}
}

/* ------------------------------------------------------------ comparison */

/*
 * Tolerance of one pixel: a bound on the rounding error of any order of
 * summation of its (2r + 1)^2 float products, gamma_n * sum |mask * in|
 * (docs/lab-authoring.md, "Tolerances"). Zero for the exact set.
 */
static double tolerance(const struct dataset *ds, enum set_kind kind, size_t e)
{
	int n = mask_width(ds->c.r) * mask_width(ds->c.r);

	if (kind == SET_EXACT)
		return 0.0;
	return (n + 2) * ldexp(1.0, -24) * ds->absum[e];
}

static bool close_enough(float got, double want, double tol)
{
	return fabs((double)got - want) <= tol;   /* false for NaN */
}

static bool near_border(const struct conv_case *c, int row, int col)
{
	return row < c->r || row >= c->h - c->r || col < c->r || col >= c->w - c->r;
}

static bool near_tile_edge(int r, int row, int col)
{
	int y = row % CONV_TILE, x = col % CONV_TILE;
	return y < r || y >= CONV_TILE - r || x < r || x >= CONV_TILE - r;
}

/* Whether out is the convolution with the mask flipped (a true convolution). */
static bool is_flipped(const float *out, const struct dataset *ds, enum set_kind kind)
{
	const struct conv_case *c = &ds->c;
	size_t n = (size_t)c->w * c->h;
	double *flipped = (double *)malloc(n * sizeof(double));
	bool same = flipped != NULL;

	if (same)
		convolve(ds->in, ds->mask, c->w, c->h, c->r, true, flipped, NULL);
	for (size_t e = 0; same && e < n; e++)
		same = close_enough(out[e], flipped[e], tolerance(ds, kind, e));
	free(flipped);
	return same;
}

/*
 * Compares out with the CPU result. On a mismatch, writes into msg the
 * first wrong pixel, how many are wrong, and a hint where the pattern of
 * wrong pixels says something, and returns -1.
 */
static int compare(const float *out, const struct dataset *ds, enum set_kind kind, char *msg,
		   size_t len)
{
	const struct conv_case *c = &ds->c;
	size_t n = (size_t)c->w * c->h, nbad = 0, nnan = 0, nunwritten = 0;
	size_t nborder = 0, ntile = 0, first = 0;
	const char *hint = NULL;
	char buf[400];

	for (int row = 0; row < c->h; row++)
		for (int col = 0; col < c->w; col++) {
			size_t e = (size_t)row * c->w + col;
			if (close_enough(out[e], ds->ref[e], tolerance(ds, kind, e)))
				continue;
			if (!nbad++)
				first = e;
			nnan += isnan(out[e]) != 0;
			nunwritten += !memcmp(&out[e], &cl_poison_bits, sizeof(float));
			nborder += near_border(c, row, col);
			ntile += near_tile_edge(c->r, row, col);
		}
	if (!nbad)
		return 0;

	/* out is filled with NaN of bits cl_poison_bits before the call: a pixel
	 * that still has them was not written; any other NaN was computed from
	 * memory nothing had written (the inputs hold none) */
	if (nunwritten == n)
		hint = "no pixel of out was written (all still hold the NaN out was filled with): "
		       "the kernel did not run, or returned before storing its result";
	else if (nunwritten)
		snprintf(buf, sizeof(buf),
			 "%zu pixels were never written (they still hold the NaN out was filled "
			 "with): the grid must cover the whole image (round the number of blocks "
			 "up, in x and in y)", nunwritten),
			hint = buf;
	else if (nnan)
		snprintf(buf, sizeof(buf),
			 "%zu pixels are NaN, though the image and the mask hold none: the kernel "
			 "read memory nothing had written (shared memory is filled with NaN "
			 "before each launch: a tile element no thread loaded, or read before "
			 "the __syncthreads() that follows the loads)", nnan),
			hint = buf;
	else if (c->r > 0 && is_flipped(out, ds, kind))
		hint = "out is the convolution with the mask flipped: the contract's weight for "
		       "in[row - r + i][col - r + j] is mask[i * (2r + 1) + j], not flipped";
	else if (nborder == nbad && ntile == nbad && (c->w > CONV_TILE || c->h > CONV_TILE))
		/* a small image of several tiles: its border and its tiles' edges
		 * can be the same pixels (an image of one tile has no halo that is
		 * not ghost cells: the hint below) */
		snprintf(buf, sizeof(buf),
			 "every wrong pixel lies within r = %d of the image's border, and of the "
			 "edge of a %d x %d output tile: pixels outside the image (ghost cells) "
			 "count as 0, and a tile's edge pixels need its halo (the input cells "
			 "around the tile)", c->r, CONV_TILE, CONV_TILE),
			hint = buf;
	else if (nborder == nbad)
		snprintf(buf, sizeof(buf),
			 "every wrong pixel lies within r = %d of the image's border: pixels "
			 "outside the image (ghost cells) count as 0 (not the nearest pixel, not "
			 "the other side of the image)", c->r),
			hint = buf;
	else if (ntile == nbad)
		snprintf(buf, sizeof(buf),
			 "every wrong pixel lies within r = %d of the edge of a %d x %d output "
			 "tile: the halo (the input cells around a tile that the pixels at its "
			 "edge need) is missing or wrong", c->r, CONV_TILE,
			 CONV_TILE),
			hint = buf;

	char got[32];
	int w = snprintf(msg, len, "out[row %zu][col %zu] = %s, expected %.9g", first / c->w,
			 first % c->w, cl_fmt_float(out[first], got, sizeof(got)), ds->ref[first]);
	if (kind == SET_RANDOM)
		w += snprintf(msg + w, len - w, " (tolerance %.3g)", tolerance(ds, kind, first));
	w += snprintf(msg + w, len - w, "; %zu of %zu pixels wrong", nbad, n);
	if (hint)
		snprintf(msg + w, len - w, "\nhint: %s", hint);
	return -1;
}

/* ------------------------------------------------------------- one call */

/* Whether the device copy b still holds want, n floats; else fails the test. */
static void assert_unchanged(const char *what, const char *cfg, const char *name,
			     const struct cl_dbuf *b, const float *want, int w)
{
	float *h = (float *)malloc(b->n * sizeof(float));

	ck_assert(h != NULL);
	cl_dbuf_download(b, h);
	for (size_t e = 0; e < b->n; e++)
		if (memcmp(&h[e], &want[e], sizeof(float)))
			ck_abort_msg("%s modified its input %s: %s[%zu] (row %zu, col %zu) = %.9g, "
				     "was %.9g (launch: %s)", what, name, name, e, e / w, e % w,
				     h[e], want[e], cfg);
	free(h);
}

/*
 * Calls the launcher of kernel k once on in and mask (a w x h image, radius
 * r) into got, and checks what every call must leave as it found: the
 * canaries around every buffer and the inputs. With shape_only, only that
 * it launched and ran without an error (the config tests judge the launch,
 * not the values). Fails the test on the first problem found.
 */
static const struct cl_ledger *call_conv(enum kernel_id k, const float *in, const float *mask,
					 struct conv_case c, bool shape_only, float *got,
					 char *what, size_t wlen, char *cfg, size_t clen)
{
	size_t n = (size_t)c.w * c.h, nm = (size_t)mask_width(c.r) * mask_width(c.r);
	struct cl_dbuf din, dout, dmask;
	const struct cl_ledger *l;

	snprintf(what, wlen, "%s(width=%d, height=%d, r=%d)", kernel_names[k], c.w, c.h, c.r);
	cl_dbuf_alloc(&din, n);
	cl_dbuf_alloc(&dout, n);
	cl_dbuf_upload(&din, in);
	cl_dbuf_poison(&dout);
	if (k == K_BASIC) {
		cl_dbuf_alloc(&dmask, nm);
		cl_dbuf_upload(&dmask, mask);
	}
	CL_CUDA_CHECK(cudaDeviceSynchronize());

	cl_ledger_begin();
	switch (k) {
	case K_BASIC:
		conv_basic(din.d, dmask.d, dout.d, c.w, c.h, c.r);
		break;
	case K_CONST:
		conv_const(din.d, mask, dout.d, c.w, c.h, c.r);
		break;
	case K_TILED:
		conv_tiled(din.d, mask, dout.d, c.w, c.h, c.r);
		break;
	}
	l = cl_finish_call(what, k == K_BASIC ? "d_in, d_mask or d_out" : "d_in or d_out",
			   shape_only ? CL_CALL_IGNORE_LEAKS : 0, cfg, clen);
	if (!shape_only) {
		const char *hint = "threads outside the image must not write (row < height && "
				   "col < width), pixel (row, col) is out[row * width + col], and "
				   "the inputs are only read";
		cl_assert_guards_out_in(what, cfg, &dout, &din, hint);
		if (k == K_BASIC)
			cl_assert_guards_out_in(what, cfg, &dout, &dmask, hint);
		assert_unchanged(what, cfg, "d_in", &din, in, c.w);
		if (k == K_BASIC)
			assert_unchanged(what, cfg, "d_mask", &dmask, mask, mask_width(c.r));
		cl_dbuf_download(&dout, got);
	}
	cl_dbuf_free(&din);
	cl_dbuf_free(&dout);
	if (k == K_BASIC)
		cl_dbuf_free(&dmask);
	return l;
}

static void check_values(enum kernel_id k, enum set_kind kind)
{
	cl_device_init();
	for (int s = 0; s < nsets; s++) {
		const struct dataset *ds = &sets[kind][s];
		size_t n = (size_t)ds->c.w * ds->c.h;
		float *got = (float *)malloc(n * sizeof(float));
		char what[96], cfg[160], msg[1200];

		ck_assert(got != NULL);
		call_conv(k, ds->in, ds->mask, ds->c, false, got, what, sizeof(what), cfg,
			  sizeof(cfg));
		if (compare(got, ds, kind, msg, sizeof(msg)))
			ck_abort_msg("%s, %s inputs, launch %s: %s", what,
				     kind == SET_EXACT ? "small-integer" : "random", cfg, msg);
		free(got);
	}
}

/* --------------------------------------------------------- launch shape */

static long long ceil_div(long long n, long long d)
{
	return (n + d - 1) / d;
}

/*
 * One launch, on an image that is a multiple of no block (50 x 35, r = 2):
 * parts 1 and 2 in 2D blocks of CONV_BLOCK x CONV_BLOCK threads, as many as
 * cover the image; part 3 one block per CONV_TILE x CONV_TILE output tile,
 * each a 2D block of the input tile's size (CONV_TILE + 2r on a side).
 * Its shared memory is not judged: the CPU emulator cannot tell the size of
 * a kernel's static __shared__ arrays to the ledger (launch.cu), and a test
 * must judge alike on a GPU and emulated.
 */
static void check_config(enum kernel_id k)
{
	const struct conv_case c = {50, 35, 2};
	size_t n = (size_t)c.w * c.h;
	float *in = cl_random_floats(n, run_seed ^ 0xc0f1u);
	float *mask = cl_random_floats(25, run_seed ^ 0x3a5c);
	char what[96], cfg[160];

	ck_assert(in && mask);
	cl_device_init();
	const struct cl_ledger *l = call_conv(k, in, mask, c, true, NULL, what, sizeof(what), cfg,
					      sizeof(cfg));
	ck_assert_msg(l->nlaunches == 1, "%s launched %d kernels, expected exactly one (launch: %s)",
		      what, l->nlaunches, cfg);

	const struct cl_launch *la = &l->launch[0];
	long long blocks = cl_threads(la->grid);
	if (k != K_TILED) {
		long long want = ceil_div(c.w, CONV_BLOCK) * ceil_div(c.h, CONV_BLOCK);
		ck_assert_msg(la->block.x == CONV_BLOCK && la->block.y == CONV_BLOCK &&
			      la->block.z == 1 && blocks == want,
			      "%s launched %s, expected %lld blocks of %d x %d threads\nhint: "
			      "dim3 block(CONV_BLOCK, CONV_BLOCK), and a grid of ceil(width / "
			      "CONV_BLOCK) x ceil(height / CONV_BLOCK) blocks", what, cfg, want,
			      CONV_BLOCK, CONV_BLOCK);
	} else {
		int in_tile = CONV_TILE + 2 * c.r;
		long long want = ceil_div(c.w, CONV_TILE) * ceil_div(c.h, CONV_TILE);
		ck_assert_msg(la->block.x == (unsigned)in_tile && la->block.y == (unsigned)in_tile &&
			      la->block.z == 1 && blocks == want,
			      "%s launched %s, expected %lld blocks (one per %d x %d output tile) of "
			      "%d x %d threads (one per cell of the input tile, CONV_TILE + 2r on a "
			      "side)\nhint: dim3 block(CONV_TILE + 2 * r, CONV_TILE + 2 * r), and a "
			      "grid of ceil(width / CONV_TILE) x ceil(height / CONV_TILE) blocks",
			      what, cfg, want, CONV_TILE, CONV_TILE, in_tile, in_tile);
	}
	free(in);
	free(mask);
}

/* ---------------------------------------------------------------- tests */

#define KERNEL_TESTS(part, k)                                                                   \
	START_TEST(test_convolution_##part##_exact)                                              \
	{                                                                                        \
		check_values(k, SET_EXACT);                                                      \
	}                                                                                        \
	END_TEST                                                                                 \
	START_TEST(test_convolution_##part##_random)                                             \
	{                                                                                        \
		check_values(k, SET_RANDOM);                                                     \
	}                                                                                        \
	END_TEST                                                                                 \
	START_TEST(test_convolution_##part##_config)                                             \
	{                                                                                        \
		check_config(k);                                                                 \
	}                                                                                        \
	END_TEST

KERNEL_TESTS(basic, K_BASIC)
KERNEL_TESTS(const, K_CONST)
KERNEL_TESTS(tiled, K_TILED)

#define KERNEL_ENTRIES(part)                                                                    \
	{#part, test_convolution_##part##_exact}, {#part, test_convolution_##part##_random},     \
	{#part, test_convolution_##part##_config}

static const struct cl_test tests[] = {
	KERNEL_ENTRIES(basic), KERNEL_ENTRIES(const), KERNEL_ENTRIES(tiled),
};

int main(int argc, char **argv)
{
	static const struct cl_lab lab = {"convolution", tests, sizeof(tests) / sizeof(tests[0]),
					  convolution_setup};
	return cl_main(&lab, argc, argv);
}
