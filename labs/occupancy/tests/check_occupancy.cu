/*
 * check_occupancy.cu - correctness suite of the occupancy lab.
 *
 * The answer for every case comes from NVIDIA's occupancy calculator,
 * cuda_occupancy.h from the CUDA Toolkit (header-only, runs on the host),
 * never from a table typed in here. Part calculator:
 *   edges    every combination of edge values (1 and 1024 threads, sizes
 *            not multiples of 32, 0 to 255 registers, 0 to the largest
 *            shared memory and one byte more) on five GPUs;
 *   random   thousands of random configurations, from this run's seed;
 *   limits   the limiting factors reported with the answer.
 * Part questions: the student's own six questions (occ_lab.h makes them
 * from the name the grader passes as "student=ID"), against answers.txt.
 * The suite calls no CUDA: it runs the same with and without a GPU.
 */
#include "cudalab.h"
#include "occ_lab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t run_seed;

static const char *limit_names(unsigned l, char *buf, size_t len)
{
	static const char *const names[] = {"warps", "registers", "shared memory", "block slots"};
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < 4; i++)
		if (l & (1u << i))
			n += snprintf(buf + n, len - n, "%s%s", n ? " and " : "", names[i]);
	if (!n)
		snprintf(buf, len, "nothing");
	return buf;
}

static const char *limit_value(int v, char *buf, size_t len)
{
	if (v == 2147483647)
		snprintf(buf, len, "no limit");
	else
		snprintf(buf, len, "%d", v);
	return buf;
}

/* One case: the student's answer against the oracle's; with_limits also the factors. */
static void check_case(const struct occ_device *d, int threads, int regs, size_t smem,
		       bool with_limits)
{
	struct occ_expected e = occ_lab_oracle(d, threads, regs, smem);
	unsigned limits = 0xdead;

	if (!e.ok)
		ck_abort_msg("harness: cuda_occupancy.h refused %s, %d threads, %d registers, %zu "
			     "bytes", d->name, threads, regs, smem);
	int got = occ_blocks_per_sm(d, threads, regs, smem, &limits);
	char a[64], b[64], w[16], r[16], s[16], k[16];

	if (got == e.blocks && (!with_limits || limits == e.limits))
		return;
	ck_abort_msg("%s, blocks of %d threads, %d registers per thread, %zu bytes of shared "
		     "memory per block: you said %d block%s per SM (limited by %s), expected %d "
		     "(limited by %s)\nthe limits: warps allow %s, registers %s, shared memory %s, "
		     "block slots %s%s",
		     d->name, threads, regs, smem, got, got == 1 ? "" : "s",
		     limit_names(limits, a, sizeof(a)), e.blocks, limit_names(e.limits, b, sizeof(b)),
		     limit_value(e.by_warps, w, sizeof(w)), limit_value(e.by_regs, r, sizeof(r)),
		     limit_value(e.by_smem, s, sizeof(s)), limit_value(e.by_blocks, k, sizeof(k)),
		     got < 0 ? "\nhint: a negative count: occ_blocks_per_sm is not written yet"
		     : got == e.blocks ? "\nhint: the number is right; the limits are every one "
					 "that equals it"
				       : "");
}

static void check_edges(bool with_limits)
{
	static const int threads[] = {1, 31, 32, 33, 64, 96, 100, 128, 192, 256, 320, 384, 512,
				      640, 768, 1000, 1024, 1025};
	static const int regs[] = {0, 1, 16, 24, 32, 33, 40, 48, 64, 65, 72, 96, 128, 168, 255};

	for (size_t i = 0; i < OCC_LAB_NDEVICES; i++) {
		const struct occ_device *d = &occ_lab_devices[i];
		const size_t smem[] = {0, 1, 1024, 4000, 12288, 48 * 1024, 48 * 1024 + 1, 70000,
				       d->smem_per_block - 1, d->smem_per_block,
				       d->smem_per_block + 1};
		for (int t : threads)
			for (int r : regs)
				for (size_t s : smem)
					check_case(d, t, r, s, with_limits);
	}
}

START_TEST(test_occupancy_calculator_edges)
{
	check_edges(false);
}
END_TEST

START_TEST(test_occupancy_calculator_random)
{
	uint64_t s = run_seed ^ 0x0cc0cc0cc0ULL;

	for (int i = 0; i < 20000; i++) {
		const struct occ_device *d = &occ_lab_devices[cl_rand_next(&s) % OCC_LAB_NDEVICES];
		int threads = 1 + (int)(cl_rand_next(&s) % 1024);
		int regs = (int)(cl_rand_next(&s) % 256);
		/* small sizes often, up to the block limit now and then */
		size_t smem = cl_rand_next(&s) % 4 ? (size_t)(cl_rand_next(&s) % 16384)
						    : (size_t)(cl_rand_next(&s) % (d->smem_per_block + 1));
		check_case(d, threads, regs, smem, false);
	}
}
END_TEST

START_TEST(test_occupancy_calculator_limits)
{
	check_edges(true);
}
END_TEST

/* ------------------------------------------------------------ questions */

/*
 * The hint for a wrong answer: hint, unless answers.txt says whose sheet it
 * answers ("student = ID") and that is not the student graded. Then every
 * answer is for other numbers (a copy of another student's sheet, or the
 * reference's answers graded under another name), and that is what to say.
 */
static const char *question_hint(const char *hint, char *buf, size_t len)
{
	const char *whose = cl_answer_given("student");

	if (!whose || !strcmp(whose, cl_student))
		return hint;
	snprintf(buf, len, "answers.txt answers the questions of student '%s' (its line "
		 "'student = %s'), but this run grades '%s', whose questions have other numbers: "
		 "`cudalab questions occupancy --student %s` prints them", whose, whose, cl_student,
		 cl_student);
	return buf;
}

/* The student's own question k against their answers.txt. */
static void check_question(enum occ_kind k)
{
	struct occ_question q[OCC_NQUESTIONS];
	const struct occ_question *x = &q[k];
	const char *key = occ_q_keys[k];
	char cfg[256], why[160] = "", hint[512], other[768];
	bool right;

	occ_lab_questions(cl_student, q);
	occ_lab_config(x, cfg, sizeof(cfg));
	if (k == OCC_Q_LIMIT) {
		const char *got = cl_answer(key);
		unsigned bit = 0;
		for (int i = 0; i < 4; i++)
			if (!strcmp(got, occ_limit_words[i]))
				bit = 1u << i;
		ck_assert_msg(bit, "answers.txt: '%s' has '%s'; the answer is one of warps, "
			      "registers, shared_memory or blocks", key, got);
		ck_assert_msg(bit == (unsigned)x->answer, "%s = %s is not right for question %d "
			      "(%s)\nhint: %s", key, got, k + 1, cfg,
			      question_hint("work out how many blocks each of the four limits "
					    "allows; the one that allows the fewest is the answer",
					    other, sizeof(other)));
		return;
	}
	if (k == OCC_Q_OCCUPANCY) {
		const char *got = cl_answer(key);
		char *end;
		double v = strtod(got, &end);
		ck_assert_msg(end != got && (!*end || !strcmp(end, "%")), "answers.txt: '%s' has "
			      "'%s', which is not a number", key, got);
		right = fabs(v - x->answer) <= OCC_PERCENT_TOLERANCE;
		snprintf(why, sizeof(why), " (within %.1f points)", OCC_PERCENT_TOLERANCE);
		snprintf(hint, sizeof(hint), "here the limit is %s; occupancy is the warps "
			 "resident per SM over the most an SM can hold",
			 occ_limit_words[__builtin_ctz(x->e.limits)]);
		if (!right)
			ck_abort_msg("%s = %s is not right%s for question %d (%s)\nhint: %s", key,
				     got, why, k + 1, cfg, question_hint(hint, other, sizeof(other)));
		return;
	}
	long long got = cl_answer_int(key);
	if (k == OCC_Q_BEST) {
		ck_assert_msg(got == (long long)x->answer, "%s = %lld is not right for question %d "
			      "(%s; block sizes %d, %d, %d, %d)\nhint: %s", key, got, k + 1, cfg,
			      x->sizes[0], x->sizes[1], x->sizes[2], x->sizes[3],
			      question_hint("for each size, the blocks per SM times its warps per "
					    "block: the most warps wins", other, sizeof(other)));
	} else {
		snprintf(hint, sizeof(hint), "here the limit is %s",
			 occ_limit_words[__builtin_ctz(x->e.limits)]);
		ck_assert_msg(got == (long long)x->answer, "%s = %lld is not right for question %d "
			      "(%s)\nhint: %s", key, got, k + 1, cfg,
			      question_hint(hint, other, sizeof(other)));
	}
}

#define QUESTION_TEST(name, kind)                                                                \
	START_TEST(test_occupancy_questions_##name)                                              \
	{                                                                                        \
		check_question(kind);                                                            \
	}                                                                                        \
	END_TEST

QUESTION_TEST(threads, OCC_Q_THREADS)
QUESTION_TEST(blocks, OCC_Q_BLOCKS)
QUESTION_TEST(warps, OCC_Q_WARPS)
QUESTION_TEST(occupancy, OCC_Q_OCCUPANCY)
QUESTION_TEST(limit, OCC_Q_LIMIT)
QUESTION_TEST(best, OCC_Q_BEST)

static void occupancy_setup(uint64_t seed, const char *const *parts, size_t nparts)
{
	char msg[256];

	run_seed = seed;
	if (occ_lab_check_devices(msg, sizeof(msg))) {
		fprintf(stderr, "check_occupancy: %s\n", msg);
		exit(3);
	}
}

static const struct cl_test tests[] = {
	{"calculator", test_occupancy_calculator_edges},
	{"calculator", test_occupancy_calculator_random},
	{"calculator", test_occupancy_calculator_limits},
	{"questions", test_occupancy_questions_threads},
	{"questions", test_occupancy_questions_blocks},
	{"questions", test_occupancy_questions_warps},
	{"questions", test_occupancy_questions_occupancy},
	{"questions", test_occupancy_questions_limit},
	{"questions", test_occupancy_questions_best},
};

int main(int argc, char **argv)
{
	static const struct cl_lab lab = {"occupancy", tests, sizeof(tests) / sizeof(tests[0]),
					  occupancy_setup};
	return cl_main(&lab, argc, argv);
}
