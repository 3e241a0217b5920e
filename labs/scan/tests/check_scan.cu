/*
 * check_scan.cu - correctness suite of the scan lab (docs/lab-authoring.md,
 * "The test-suite API").
 *
 * One TCase per graded part of lab.conf, each test START_TEST(test_<lab>_<part>_<test>):
 *   scale  exact   a * in on lengths that are not multiples of the block;
 *                  every element exactly once, nothing outside (guard canaries);
 *          config  the block and the size of the grid.
 * The suite runs in the judge: it allocates, copies and launches through the
 * CUDA calls it always makes, and never dereferences a device address.
 * FILL IN: your parts' tests.
 */
#include "scan.h"
#include "cudalab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t run_seed;
static float scale_a;

/* Once, before any test forks: the run's seed (CPU work only, never CUDA,
 * and never an assertion: no test is running yet). */
static void scan_setup(uint64_t seed, const char *const *parts, size_t nparts)
{
	static const float factors[] = {1.5f, 2.5f, -0.75f, 3.0f};
	(void)parts, (void)nparts;
	run_seed = seed;
	scale_a = factors[seed % (sizeof(factors) / sizeof(factors[0]))];
}

struct call {
	char what[96];        /* "scan_scale(n=1000, a=1.5)", for messages */
	char cfg[160];        /* its launch configuration */
	const struct cl_ledger *ledger;
};

/*
 * One call of the launcher on a device copy of in (n floats) and a poisoned
 * out: fails the test on what every lab forbids (cl_finish_call: errors, no
 * launch, leaks) and on a write or read outside the arrays (their guard
 * canaries); out comes back into got.
 */
static void call_scale(struct call *c, const float *in, int n, float *got)
{
	struct cl_dbuf din, dout;

	snprintf(c->what, sizeof(c->what), "scan_scale(n=%d, a=%g)", n, scale_a);
	cl_dbuf_alloc(&din, n);
	cl_dbuf_alloc(&dout, n);
	cl_dbuf_upload(&din, in);
	cl_dbuf_poison(&dout);
	CL_CUDA_CHECK(cudaDeviceSynchronize());
	cl_ledger_begin();
	scan_scale(din.d, dout.d, n, scale_a);
	c->ledger = cl_finish_call(c->what, "d_in or d_out", 0, c->cfg, sizeof(c->cfg));
	cl_assert_guards_out_in(c->what, c->cfg, &dout, &din,
				"threads past n must not touch memory: test i < n first");
	cl_dbuf_download(&dout, got);
	cl_dbuf_free(&din);
	cl_dbuf_free(&dout);
}

static const int lengths[] = {1, 31, 255, 257, 1000, 4099, 65537, 1000000};

START_TEST(test_scan_scale_exact)
{
	cl_device_init();
	for (int n : lengths) {
		if (cl_safety_too_big(n))   /* compute-sanitizer slows with the work */
			continue;
		struct call c;
		float *in = cl_random_floats(n, run_seed ^ (uint64_t)n);
		float *got = (float *)malloc(n * sizeof(float));
		ck_assert(got);
		call_scale(&c, in, n, got);
		int bad = 0, first = -1, unwritten = 0;
		for (int i = 0; i < n; i++)
			if (got[i] != scale_a * in[i]) {   /* NaN too: never equal */
				first = first < 0 ? i : first;
				bad++;
				unwritten += !memcmp(&got[i], &cl_poison_bits, sizeof(float));
			}
		if (bad) {
			char g[32];
			ck_abort_msg("%s: out[%d] = %s, expected %.9g; %d of %d elements wrong "
				     "(launch: %s)\nhint: %s",
				     c.what, first, cl_fmt_float(got[first], g, sizeof(g)),
				     scale_a * in[first], bad, n, c.cfg,
				     unwritten == bad ? "some elements were never written (still "
							"NaN): the grid needs a thread for every "
							"element (round the block count up)"
						      : "out[i] is a * in[i]");
		}
		free(in);
		free(got);
	}
}
END_TEST

/* One launch of SCAN_BLOCK-thread blocks, as many as cover n and no more. */
START_TEST(test_scan_scale_config)
{
	const int n = 10000;
	struct call c;
	float *in = cl_random_floats(n, run_seed), *got = (float *)malloc(n * sizeof(float));

	ck_assert(got);
	cl_device_init();
	call_scale(&c, in, n, got);
	const struct cl_launch *l = &c.ledger->launch[0];
	long long blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
	ck_assert_msg(c.ledger->nlaunches == 1, "%s launched %d kernels, expected one (launch: %s)",
		      c.what, c.ledger->nlaunches, c.cfg);
	ck_assert_msg(cl_threads(l->block) == SCAN_BLOCK && cl_threads(l->grid) == blocks,
		      "%s launched %s, expected %lld blocks of %d threads\nhint: "
		      "(n + SCAN_BLOCK - 1) / SCAN_BLOCK blocks of SCAN_BLOCK",
		      c.what, c.cfg, blocks, SCAN_BLOCK);
	free(in);
	free(got);
}
END_TEST

static const struct cl_test tests[] = {
	{"scale", test_scan_scale_exact},
	{"scale", test_scan_scale_config},
};

int main(int argc, char **argv)
{
	static const struct cl_lab lab = {"scan", tests, sizeof(tests) / sizeof(tests[0]),
					  scan_setup};
	return cl_main(&lab, argc, argv);
}
