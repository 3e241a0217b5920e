/*
 * check_scan.cu - correctness suite of the scan lab.
 *
 * One TCase per graded part of lab.conf (ks, bk, multi), three tests each:
 *   exact   small whole numbers as inputs (all ones, then random ones from
 *           -3 to 3): every order of summation gives the exact answer, so
 *           the output must equal the CPU's scan bit for bit;
 *   random  real inputs against a double-precision scan on the CPU, with a
 *           tolerance that grows with the number of terms summed;
 *   config  the launch shape the part asks for, read from the launch ledger.
 * Sizes run from 1 to over a million, most not multiples of a section, and
 * include sizes spanning several sections (and, for scan_multi, more
 * sections than a block has threads). Every call gets a NaN-poisoned
 * output, guard canaries around each buffer (in, out, the sums), and is
 * checked for launch errors, leaks and a modified input.
 *
 * Every expected value is computed here, in the judge, from inputs made
 * from the run's seed; the runner only receives inputs and returns outputs.
 */
#include "cudalab.h"
#include "scan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t run_seed;

static void scan_setup(uint64_t seed, const char *const *parts, size_t nparts)
{
	(void)parts, (void)nparts;
	run_seed = seed;
}

/*
 * Sizes, ascending, so the first failure is the smallest. Around one
 * section (31 to 1025) and a few sections (2049, 5000), then many: 65537,
 * and on a GPU past SCAN_SECTION sections (1050001 elements are 1026
 * sections, 3000001 are 2930), where scan_multi's second launch has more
 * sums than a block has threads. On the CPU emulator, which runs every CUDA
 * thread itself, the largest is 1050001; the safety runs (compute-sanitizer,
 * the emulator's checks) stop at SAFETY_MAX_N.
 */
static const int gpu_sizes[] = {1,    2,    31,   32,    33,      511,     512,    513,
				1000, 1023, 1024, 1025,  2049,    5000,    65537,  1000003,
				1050001, 3000001};
static const int emu_sizes[] = {1,    2,    31,   32,    33,    511,  512,
				513,  1000, 1023, 1024,  1025,  2049, 5000,
				65537, 1050001};
#define SAFETY_MAX_N 5000

static const int *sizes_here(size_t *n)
{
	*n = cl_emulated ? COUNT(emu_sizes) : COUNT(gpu_sizes);
	return cl_emulated ? emu_sizes : gpu_sizes;
}

/* ------------------------------------------------------------ the parts */

/* What a part computes, or (for hints) what a wrong kernel may have. */
enum scan_kind {
	INCL_SECTIONS,      /* each section on its own, inclusive (scan_ks) */
	EXCL_SECTIONS,      /* each section on its own, exclusive (scan_bk) */
	INCL_ALL,           /* the whole array, inclusive (scan_multi) */
	EXCL_ALL,           /* the whole array, exclusive */
	INCL_OWN_CARRY,     /* each section plus the total of sections 0..b, its own too */
	INCL_SHIFTED_CARRY, /* each section plus the total of sections 0..b-2 */
};

enum part { PART_KS, PART_BK, PART_MULTI };

struct part_desc {
	const char *name;        /* the launcher */
	enum scan_kind kind;
};

static const struct part_desc parts[] = {
	{"scan_ks", INCL_SECTIONS},
	{"scan_bk", EXCL_SECTIONS},
	{"scan_multi", INCL_ALL},
};

enum set_kind { SET_ONES, SET_INTS, SET_RANDOM };

static const char *const set_names[] = {"all-ones", "small-integer", "random"};

/* The inputs of one call: n floats of kind k, from the run's seed. */
static float *make_inputs(enum set_kind k, int n)
{
	uint64_t s = run_seed ^ (0x5ca9000ull + (uint64_t)n * 3 + k) * 0x9e3779b97f4a7c15ull;
	float *x = (float *)malloc((size_t)n * sizeof(float));
	/* random: an offset and a scale of the run's, so the mean is never 0 and
	 * a lost carry shows at every size */
	double offset = 0.25 + 0.5 * cl_rand_unit(&s), scale = 0.5 + 0.5 * cl_rand_unit(&s);

	ck_assert(x != NULL);
	for (int i = 0; i < n; i++) {
		if (k == SET_ONES) {
			x[i] = 1.0f;
		} else if (k == SET_INTS) {
			/* -3..3 without 0: every partial sum is a whole number below 2^24 */
			int v = (int)(cl_rand_next(&s) % 6);
			x[i] = (float)(v < 3 ? v - 3 : v - 2);
		} else {
			x[i] = (float)(offset + scale * (2 * cl_rand_unit(&s) - 1));
		}
	}
	return x;
}

/*
 * The scan of kind k of x in double precision, into want, and for each
 * element the sum of the magnitudes of the terms it may have been computed
 * from and how many there are (for the tolerance).
 */
static void cpu_scan(const float *x, int n, enum scan_kind k, double *want, double *abssum,
		     int *terms)
{
	double sec = 0, secabs = 0, all = 0, allabs = 0, carry = 0, prev_carry = 0, own = 0;
	int sec_len = 0;

	for (int i = 0; i < n; i++) {
		if (i % SCAN_SECTION == 0) {
			/* a new section: the totals of the ones before it */
			prev_carry = carry;
			carry = all;
			own = all;
			sec = secabs = 0;
			sec_len = 0;
			if (i + SCAN_SECTION <= n)
				for (int j = i; j < i + SCAN_SECTION; j++)
					own += x[j];
			else
				for (int j = i; j < n; j++)
					own += x[j];
		}
		double v = x[i];
		switch (k) {
		case INCL_SECTIONS:
			sec += v, secabs += fabs(v), sec_len++;
			want[i] = sec, abssum[i] = secabs, terms[i] = sec_len;
			break;
		case EXCL_SECTIONS:
			/* the magnitudes include x[i]: an exclusive scan made by
			 * subtracting x[i] from an inclusive one is correct too */
			want[i] = sec;
			sec += v, secabs += fabs(v), sec_len++;
			abssum[i] = secabs, terms[i] = sec_len + 1;
			break;
		case INCL_ALL:
			all += v, allabs += fabs(v);
			want[i] = all, abssum[i] = allabs, terms[i] = i + 1;
			continue;
		case EXCL_ALL:
			want[i] = all;
			all += v, allabs += fabs(v);
			abssum[i] = allabs, terms[i] = i + 2;
			continue;
		case INCL_OWN_CARRY:
			sec += v;
			want[i] = own + sec;
			abssum[i] = 0, terms[i] = 0;
			break;
		case INCL_SHIFTED_CARRY:
			sec += v;
			want[i] = prev_carry + sec;
			abssum[i] = 0, terms[i] = 0;
			break;
		}
		all += v, allabs += fabs(v);
	}
}

/* A bound on the rounding error of any order of summation of the terms
 * (docs/lab-authoring.md, "Tolerances"); 0 for whole-number inputs. */
static double tolerance(enum set_kind set, double abssum, int terms)
{
	if (set != SET_RANDOM)
		return 0.0;
	return (terms + 2) * ldexp(1.0, -24) * abssum;
}

static bool close_enough(float got, double want, double tol)
{
	return fabs((double)got - want) <= tol;   /* false for NaN */
}

/* ------------------------------------------------------------- one call */

struct call {
	enum part part;
	int n;
	enum set_kind set;
	char what[96];        /* "scan_ks(n=1000)" */
	char cfg[400];        /* every launch of the call */
	const struct cl_ledger *ledger;
};

/* Every launch of the ledger, "k<<<...>>>, k2<<<...>>>". */
static void launches_str(const struct cl_ledger *l, char *buf, size_t len)
{
	size_t w = 0;
	int shown = l->nlaunches < CL_MAX_LAUNCHES ? l->nlaunches : CL_MAX_LAUNCHES;

	buf[0] = '\0';
	if (!shown)
		snprintf(buf, len, "no launch");
	for (int i = 0; i < shown && w < len; i++) {
		char one[200];
		cl_launch_str(l, i, one, sizeof(one));
		w += snprintf(buf + w, len - w, "%s%s", i ? ", " : "", one);
	}
}

/*
 * Calls part p's launcher on a device copy of in (n floats), a poisoned out
 * and (scan_multi) a poisoned d_sums of SCAN_SECTIONS(n) floats. Fails the
 * test on what every lab forbids (cl_finish_call), a damaged canary of any
 * buffer and a changed input; out comes back into got (unless shape_only,
 * where only the launch is judged and got is not written).
 */
static void call_part(struct call *c, const float *in, float *got, bool shape_only)
{
	const struct part_desc *d = &parts[c->part];
	int n = c->n, nsums = SCAN_SECTIONS(n);
	struct cl_dbuf din, dout, dsums;
	char msg[512];

	snprintf(c->what, sizeof(c->what), "%s(n=%d)", d->name, n);
	cl_dbuf_alloc(&din, n);
	cl_dbuf_alloc(&dout, n);
	cl_dbuf_alloc(&dsums, nsums);
	cl_dbuf_upload(&din, in);
	cl_dbuf_poison(&dout);
	cl_dbuf_poison(&dsums);
	CL_CUDA_CHECK(cudaDeviceSynchronize());
	cl_ledger_begin();
	switch (c->part) {
	case PART_KS:
		scan_ks(din.d, dout.d, n);
		break;
	case PART_BK:
		scan_bk(din.d, dout.d, n);
		break;
	case PART_MULTI:
		scan_multi(din.d, dout.d, dsums.d, n);
		break;
	}
	c->ledger = cl_finish_call(c->what, c->part == PART_MULTI ? "d_in, d_out or d_sums"
								   : "d_in or d_out",
				   shape_only ? CL_CALL_IGNORE_LEAKS : 0, c->cfg, sizeof(c->cfg));
	launches_str(c->ledger, c->cfg, sizeof(c->cfg));
	if (!shape_only) {
		cl_assert_guards_out_in(c->what, c->cfg, &dout, &din,
					"threads past n must not touch memory: test the index "
					"against n before loading or storing (load 0 instead)");
		if (cl_dbuf_check_guards(&dsums, "d_sums", msg, sizeof(msg)))
			ck_abort_msg("%s %s (launch: %s)\nhint: d_sums has SCAN_SECTIONS(n) = %d "
				     "floats, one per section", c->what, msg, c->cfg, nsums);
		cl_dbuf_download(&din, got);
		for (int i = 0; i < n; i++)
			if (memcmp(&got[i], &in[i], sizeof(float)))
				ck_abort_msg("%s modified its input: d_in[%d] = %.9g, was %.9g "
					     "(launch: %s)\nhint: d_in is only read; scan into d_out",
					     c->what, i, got[i], in[i], c->cfg);
		cl_dbuf_download(&dout, got);
	}
	cl_dbuf_free(&din);
	cl_dbuf_free(&dout);
	cl_dbuf_free(&dsums);
}

/* ------------------------------------------------------------ comparison */

struct expected {
	double *want, *abssum;
	int *terms;
};

static void expected_alloc(struct expected *e, int n)
{
	e->want = (double *)malloc((size_t)n * sizeof(double));
	e->abssum = (double *)malloc((size_t)n * sizeof(double));
	e->terms = (int *)malloc((size_t)n * sizeof(int));
	ck_assert(e->want && e->abssum && e->terms);
}

static void expected_free(struct expected *e)
{
	free(e->want);
	free(e->abssum);
	free(e->terms);
}

/*
 * Whether got is the scan of kind k of x (for a hint): within the tolerance
 * of the right answer's element (for whole numbers: exactly).
 */
static bool looks_like(const float *got, const float *x, int n, enum scan_kind k,
		       enum set_kind set, const struct expected *right)
{
	struct expected alt;
	bool same = true;

	expected_alloc(&alt, n);
	cpu_scan(x, n, k, alt.want, alt.abssum, alt.terms);
	for (int i = 0; i < n && same; i++)
		same = close_enough(got[i], alt.want[i],
				    tolerance(set, right->abssum[i], right->terms[i]));
	expected_free(&alt);
	return same;
}

/* "out[1030] (section 1, element 6)" */
static const char *where(int i, char *buf, size_t len)
{
	if (i < SCAN_SECTION)
		snprintf(buf, len, "out[%d]", i);
	else
		snprintf(buf, len, "out[%d] (section %d, its element %d)", i, i / SCAN_SECTION,
			 i % SCAN_SECTION);
	return buf;
}

/*
 * Whether every section from the one of first on is right up to a
 * constant of its own (the carry a section got is wrong, its scan right).
 */
static bool off_by_a_constant(const float *got, const struct expected *right, enum set_kind set,
			      int n, int first)
{
	for (int s = first / SCAN_SECTION * SCAN_SECTION; s < n; s += SCAN_SECTION) {
		int e = s + SCAN_SECTION < n ? s + SCAN_SECTION : n;
		double d = (double)got[s] - right->want[s];
		for (int i = s + 1; i < e; i++) {
			double tol = tolerance(set, right->abssum[i], right->terms[i]) +
				     fabs(right->want[i]) * ldexp(1.0, -22);
			if (!(fabs((double)got[i] - d - right->want[i]) <= tol))
				return false;
		}
	}
	return true;
}

/*
 * What the pattern of wrong elements says, or NULL. bad[i] marks the wrong
 * elements; the counts are of all n.
 */
static const char *hint_for(const struct call *c, const float *got, const float *x,
			    const struct expected *right, const unsigned char *bad, int nbad,
			    int nunwritten, int nnan, int first, char *buf, size_t len)
{
	int n = c->n, last_start = (n - 1) / SCAN_SECTION * SCAN_SECTION;

	if (nunwritten == n)
		return "no element of d_out was written (all still hold the NaN it was filled "
		       "with): the kernel did not run, or returned before storing";
	if (c->part == PART_BK && looks_like(got, x, n, INCL_SECTIONS, c->set, right))
		return "this is an inclusive scan, and scan_bk asks for an exclusive one: out[i] "
		       "is the sum of the elements before i in its section, not counting in[i], "
		       "and the first element of every section is 0 (in Brent-Kung, clear the "
		       "last element between the up-sweep and the down-sweep)";
	if (c->part != PART_BK && n > 1 &&
	    looks_like(got, x, n, c->part == PART_KS ? EXCL_SECTIONS : EXCL_ALL, c->set, right))
		return "this is an exclusive scan, and an inclusive one is asked: out[i] "
		       "counts in[i] too";
	if (c->part == PART_MULTI && looks_like(got, x, n, INCL_OWN_CARRY, c->set, right))
		return "each section got the total of the sections up to and including itself "
		       "(section 0 its own total too): section b must get that of sections 0 "
		       "to b - 1 only (the inclusive scan of the sums at b - 1; nothing for "
		       "section 0)";
	if (c->part == PART_MULTI && n > SCAN_SECTION) {
		if (looks_like(got, x, n, INCL_SECTIONS, c->set, right))
			return "each section is scanned on its own: the totals of the sections "
			       "before it were never added (the second and third launches: scan "
			       "d_sums, then add d_sums[b - 1] to section b)";
		if (looks_like(got, x, n, INCL_SHIFTED_CARRY, c->set, right))
			return "each section got the total of the sections 0 to b - 2: one "
			       "section short (the inclusive scan of the sums at b - 1, or the "
			       "exclusive one at b)";
		if (first >= SCAN_SECTION * SCAN_SECTION)
			return "everything is right up to section SCAN_SECTION, and wrong after "
			       "it: the second launch must scan every sum, SCAN_SECTIONS(n) of "
			       "them, which may be more than its block has threads (walk through "
			       "them a block's worth at a time, carrying the running total)";
		if (first % SCAN_SECTION == 0 && nunwritten == 0 && nnan == 0 &&
		    off_by_a_constant(got, right, c->set, n, first))
			return "section 0 is right, and each later section is off by a constant: "
			       "the carry it got is wrong (the scan of d_sums, or the element of "
			       "d_sums added to each section)";
	}
	bool only_last = n > SCAN_SECTION && n % SCAN_SECTION && first >= last_start;
	if (only_last) {
		snprintf(buf, len, "only the last, partial section (from out[%d]) is wrong: the "
			 "threads past n must still take part in every step, with 0 (the "
			 "identity) as their value, and must not store", last_start);
		return buf;
	}
	if (nunwritten) {
		snprintf(buf, len, "%d elements were never written (they still hold the NaN "
			 "d_out was filled with): a block per section, %s", nunwritten,
			 c->part == PART_BK ? "each thread storing two elements of its section"
					    : "each thread storing its element when it is below n");
		return buf;
	}
	if (nnan)
		return "some elements are NaN, though the input holds none: the kernel read "
		       "memory nothing had written (shared memory past what the block loaded, "
		       "the output before writing it, or past the end of d_in)";
	(void)bad, (void)nbad;
	if (c->part == PART_KS)
		return "wrong values inside a section: in each step every thread must read its "
		       "two values before any thread of the block overwrites them (a second "
		       "buffer, or a __syncthreads() between the read and the write), all "
		       "threads must finish a step before the next begins, and with two "
		       "buffers every thread writes the other buffer at every step (those "
		       "below the stride copy their value across)";
	if (c->part == PART_BK)
		return "wrong values inside a section: check the index each thread works on at "
		       "each level of the up-sweep and the down-sweep, and the __syncthreads() "
		       "between levels";
	return NULL;
}

/* Compares got with the scan the part asks for; fails the test on a mismatch. */
static void check_values(const struct call *c, const float *got, const float *x)
{
	int n = c->n, nbad = 0, nunwritten = 0, nnan = 0, first = -1;
	struct expected right;
	unsigned char *bad = (unsigned char *)calloc(n, 1);

	ck_assert(bad != NULL);
	expected_alloc(&right, n);
	cpu_scan(x, n, parts[c->part].kind, right.want, right.abssum, right.terms);
	for (int i = 0; i < n; i++) {
		double tol = tolerance(c->set, right.abssum[i], right.terms[i]);
		if (close_enough(got[i], right.want[i], tol))
			continue;
		bad[i] = 1;
		if (!nbad++)
			first = i;
		nunwritten += !memcmp(&got[i], &cl_poison_bits, sizeof(float));
		nnan += isnan(got[i]) && memcmp(&got[i], &cl_poison_bits, sizeof(float));
	}
	if (nbad) {
		char g[32], w[96], hb[400], tol[64] = "";
		const char *hint = hint_for(c, got, x, &right, bad, nbad, nunwritten, nnan, first,
					    hb, sizeof(hb));
		if (c->set == SET_RANDOM)
			snprintf(tol, sizeof(tol), " (tolerance %.3g)",
				 tolerance(c->set, right.abssum[first], right.terms[first]));
		ck_abort_msg("%s, %s inputs: %s = %s, expected %.9g%s; %d of %d elements wrong "
			     "(launch: %s)%s%s",
			     c->what, set_names[c->set], where(first, w, sizeof(w)),
			     cl_fmt_float(got[first], g, sizeof(g)), right.want[first], tol, nbad,
			     n, c->cfg, hint ? "\nhint: " : "", hint ? hint : "");
	}
	expected_free(&right);
	free(bad);
}

/* Part p on every size of this run, with inputs of each kind in sets. */
static void check_part(enum part p, const enum set_kind *sets, size_t nsets)
{
	size_t nsizes;
	const int *sizes = sizes_here(&nsizes);

	cl_device_init();
	for (size_t s = 0; s < nsizes; s++) {
		int n = sizes[s];
		if (cl_safety && n > SAFETY_MAX_N)
			break;
		for (size_t k = 0; k < nsets; k++) {
			struct call c = {};
			c.part = p, c.n = n, c.set = sets[k];
			float *x = make_inputs(sets[k], n);
			float *got = (float *)malloc((size_t)n * sizeof(float));
			ck_assert(got != NULL);
			call_part(&c, x, got, false);
			check_values(&c, got, x);
			free(x);
			free(got);
		}
	}
}

static void check_exact(enum part p)
{
	static const enum set_kind sets[] = {SET_ONES, SET_INTS};
	check_part(p, sets, COUNT(sets));
}

static void check_random(enum part p)
{
	static const enum set_kind sets[] = {SET_RANDOM};
	check_part(p, sets, COUNT(sets));
}

/* --------------------------------------------------------- launch shape */

static void expect_launch(const struct call *c, int i, long long blocks, long long threads,
			  long long threads2, const char *rule)
{
	const struct cl_launch *l = &c->ledger->launch[i];
	long long b = cl_threads(l->grid), t = cl_threads(l->block);
	char which[32] = "";

	if (c->ledger->nlaunches > 1)
		snprintf(which, sizeof(which), "launch %d: ", i + 1);
	ck_assert_msg(b == blocks && (threads < 0 || t == threads || t == threads2),
		      "%s: %s%lld block%s of %lld threads, expected %lld block%s%s (launches: "
		      "%s)\nhint: %s",
		      c->what, which, b, b == 1 ? "" : "s", t, blocks, blocks == 1 ? "" : "s",
		      threads < 0 ? "" : threads2 != threads ? " of SCAN_KS_THREADS or "
							       "SCAN_BK_THREADS threads"
				 : threads == SCAN_KS_THREADS ? " of SCAN_KS_THREADS threads"
							      : " of SCAN_BK_THREADS threads",
		      c->cfg, rule);
}

static void check_config(enum part p)
{
	const int n = 5000;   /* five sections, the last partial */
	const long long sections = SCAN_SECTIONS(n);
	struct call c = {};
	float *x = make_inputs(SET_INTS, n), *got = (float *)malloc(n * sizeof(float));

	ck_assert(got != NULL);
	cl_device_init();
	c.part = p, c.n = n, c.set = SET_INTS;
	call_part(&c, x, got, true);
	int want_launches = p == PART_MULTI ? 3 : 1;
	ck_assert_msg(c.ledger->nlaunches == want_launches,
		      "%s launched %d kernel%s, expected %s (launches: %s)%s", c.what,
		      c.ledger->nlaunches, c.ledger->nlaunches == 1 ? "" : "s",
		      p == PART_MULTI ? "three: scan the sections, scan their sums, add the "
					"carries"
				      : "one",
		      c.cfg,
		      p == PART_MULTI ? "\nhint: always three launches, even when n fits in "
					"one section"
				      : "");
	switch (p) {
	case PART_KS:
		expect_launch(&c, 0, sections, SCAN_KS_THREADS, SCAN_KS_THREADS,
			      "a block per section, SCAN_SECTIONS(n), and a thread per element "
			      "of a section, SCAN_KS_THREADS");
		break;
	case PART_BK:
		expect_launch(&c, 0, sections, SCAN_BK_THREADS, SCAN_BK_THREADS,
			      "a block per section, SCAN_SECTIONS(n), and a thread per two "
			      "elements of a section, SCAN_BK_THREADS");
		break;
	case PART_MULTI:
		expect_launch(&c, 0, sections, SCAN_KS_THREADS, SCAN_BK_THREADS,
			      "the first launch scans the sections: a block per section, "
			      "SCAN_SECTIONS(n), of SCAN_KS_THREADS threads (Kogge-Stone) or "
			      "SCAN_BK_THREADS (Brent-Kung)");
		expect_launch(&c, 1, 1, -1, -1,
			      "the second launch scans the section totals in d_sums with a "
			      "single block");
		expect_launch(&c, 2, sections, -1, -1,
			      "the third launch has a block per section, SCAN_SECTIONS(n): "
			      "block b adds the total of the sections before it to section b");
		break;
	}
	free(x);
	free(got);
}

/* ---------------------------------------------------------------- tests */

#define PART_TESTS(name, p)                                                                     \
	START_TEST(test_scan_##name##_exact)                                                     \
	{                                                                                        \
		check_exact(p);                                                                  \
	}                                                                                        \
	END_TEST                                                                                 \
	START_TEST(test_scan_##name##_random)                                                    \
	{                                                                                        \
		check_random(p);                                                                 \
	}                                                                                        \
	END_TEST                                                                                 \
	START_TEST(test_scan_##name##_config)                                                    \
	{                                                                                        \
		check_config(p);                                                                 \
	}                                                                                        \
	END_TEST

PART_TESTS(ks, PART_KS)
PART_TESTS(bk, PART_BK)
PART_TESTS(multi, PART_MULTI)

#define PART_ENTRIES(name)                                                                      \
	{#name, test_scan_##name##_exact}, {#name, test_scan_##name##_random},                  \
	{#name, test_scan_##name##_config}

static const struct cl_test tests[] = {
	PART_ENTRIES(ks),
	PART_ENTRIES(bk),
	PART_ENTRIES(multi),
};

int main(int argc, char **argv)
{
	static const struct cl_lab lab = {"scan", tests, COUNT(tests), scan_setup};
	return cl_main(&lab, argc, argv);
}
