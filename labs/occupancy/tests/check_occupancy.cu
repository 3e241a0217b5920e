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
 * Part questions: format, answers.txt as the answer checks read it (a line
 * per question, each answer of its kind). The answers to the student's own
 * questions are checked by the course's tests (tests/hidden/, not in a
 * student's handout): a student's run says their points are graded later.
 * The suite calls no CUDA: it runs the same with and without a GPU.
 */
#include "cudalab.h"
#include "occ_lab.h"
#include "occ_questions.h"

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
 * answers.txt as the answer checks will read it: each question's line, once,
 * with an answer of the right kind. Which answers are right is not checked
 * here: those checks are the course's (tests/hidden/), graded later.
 */
static void check_answer_format(void)
{
	FILE *f = fopen("answers.txt", "r");
	char line[512];
	int seen[OCC_NQUESTIONS] = {0}, lineno = 0;

	ck_assert_msg(f, "cannot open answers.txt: it must be in the submission");
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t"), *v, *end;
		size_t n;
		int k;

		lineno++;
		if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
			continue;
		n = strcspn(p, " \t=\r\n");
		v = p + n + strspn(p + n, " \t");
		if (*v != '=') {
			fclose(f);
			ck_abort_msg("answers.txt line %d: '%.*s' is not 'name = answer'", lineno,
				     (int)strcspn(p, "\r\n"), p);
		}
		v += 1 + strspn(v + 1, " \t");
		v[strcspn(v, "\r\n#")] = '\0';
		for (end = v + strlen(v); end > v && (end[-1] == ' ' || end[-1] == '\t');)
			*--end = '\0';
		if (n == 7 && !strncmp(p, "student", 7))
			continue;
		for (k = 0; k < OCC_NQUESTIONS; k++)
			if (strlen(occ_q_keys[k]) == n && !strncmp(p, occ_q_keys[k], n))
				break;
		if (k == OCC_NQUESTIONS) {
			fclose(f);
			ck_abort_msg("answers.txt line %d: no question is named '%.*s'; the names are "
				     "student, threads_per_sm, blocks_per_sm, warps_per_sm, "
				     "occupancy_percent, limiting_resource and best_block_size", lineno,
				     (int)n, p);
		}
		if (seen[k]++) {
			fclose(f);
			ck_abort_msg("answers.txt line %d: '%s' again: answer each question once", lineno,
				     occ_q_keys[k]);
		}
		if (!*v) {
			fclose(f);
			ck_abort_msg("answers.txt line %d: no answer yet for '%s'", lineno, occ_q_keys[k]);
		}
		bool ok = true;
		if (k == OCC_Q_LIMIT) {
			ok = false;
			for (int w = 0; w < 4; w++)
				ok |= !strcmp(v, occ_limit_words[w]);
		} else if (k == OCC_Q_OCCUPANCY) {
			strtod(v, &end);
			ok = end != v && (!*end || !strcmp(end, "%"));
		} else {
			strtoll(v, &end, 10);
			ok = end != v && !*end;
		}
		if (!ok) {
			fclose(f);
			ck_abort_msg("answers.txt line %d: %s = %s: the answer must be %s", lineno,
				     occ_q_keys[k], v,
				     k == OCC_Q_LIMIT ? "one of warps, registers, shared_memory or blocks"
				     : k == OCC_Q_OCCUPANCY ? "a number (a percentage; '%' may follow)"
							    : "a whole number");
		}
	}
	fclose(f);
	for (int k = 0; k < OCC_NQUESTIONS; k++)
		ck_assert_msg(seen[k], "answers.txt has no line '%s = ...'", occ_q_keys[k]);
	/* a sheet for another name: every answer is checked against this
	 * student's numbers, so it is said here, where it is seen in time */
	const char *whose = cl_answer_given("student");
	ck_assert_msg(!whose || !strcmp(whose, cl_student),
		      "answers.txt is the sheet of '%s' (its line 'student = %s'), but this run "
		      "grades '%s', whose questions have other numbers: the answers will be checked "
		      "against those. `cudalab questions occupancy --student %s` prints them; if the "
		      "course grades you as '%s', test under that name (make test LAB=occupancy "
		      "STUDENT=%s)",
		      whose, whose, cl_student, cl_student, whose, whose);
}

START_TEST(test_occupancy_questions_format)
{
	check_answer_format();
}
END_TEST

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
	{"questions", test_occupancy_questions_format},
	/* the answers themselves: tests/hidden/check_occupancy_key.cu (cl_hidden_tests) */
};

int main(int argc, char **argv)
{
	static const struct cl_lab lab = {"occupancy", tests, sizeof(tests) / sizeof(tests[0]),
					  occupancy_setup};
	return cl_main(&lab, argc, argv);
}
