/*
 * check_occupancy_key.cu - the occupancy lab's answer checks: the student's
 * own six questions (occ_questions.h makes them from the name the grader
 * passes as "student=ID") against answers.txt, each answer computed by
 * cuda_occupancy.h (occ_key.h).
 *
 * In tests/hidden/: the course's grading runs these tests (they join the
 * suite of check_occupancy.cu through cl_hidden_tests); a student's handout
 * has not got them, and its run says their points are graded later
 * (lab.conf: [part questions] visibility).
 */
#include "cudalab.h"
#include "occ_key.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	struct occ_answer a = occ_lab_key(x);
	occ_lab_config(x, cfg, sizeof(cfg));
	if (k == OCC_Q_LIMIT) {
		const char *got = cl_answer(key);
		unsigned bit = 0;
		for (int i = 0; i < 4; i++)
			if (!strcmp(got, occ_limit_words[i]))
				bit = 1u << i;
		ck_assert_msg(bit, "answers.txt: '%s' has '%s'; the answer is one of warps, "
			      "registers, shared_memory or blocks", key, got);
		ck_assert_msg(bit == (unsigned)a.answer, "%s = %s is not right for question %d "
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
		right = fabs(v - a.answer) <= OCC_PERCENT_TOLERANCE;
		snprintf(why, sizeof(why), " (within %.1f points)", OCC_PERCENT_TOLERANCE);
		snprintf(hint, sizeof(hint), "here the limit is %s; occupancy is the warps "
			 "resident per SM over the most an SM can hold",
			 occ_limit_words[__builtin_ctz(a.e.limits)]);
		if (!right)
			ck_abort_msg("%s = %s is not right%s for question %d (%s)\nhint: %s", key,
				     got, why, k + 1, cfg, question_hint(hint, other, sizeof(other)));
		return;
	}
	long long got = cl_answer_int(key);
	if (k == OCC_Q_BEST) {
		ck_assert_msg(got == (long long)a.answer, "%s = %lld is not right for question %d "
			      "(%s; block sizes %d, %d, %d, %d)\nhint: %s", key, got, k + 1, cfg,
			      x->sizes[0], x->sizes[1], x->sizes[2], x->sizes[3],
			      question_hint("for each size, the blocks per SM times its warps per "
					    "block: the most warps wins", other, sizeof(other)));
	} else {
		snprintf(hint, sizeof(hint), "here the limit is %s",
			 occ_limit_words[__builtin_ctz(a.e.limits)]);
		ck_assert_msg(got == (long long)a.answer, "%s = %lld is not right for question %d "
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

extern const struct cl_test cl_hidden_tests[] = {
	{"questions", test_occupancy_questions_threads},
	{"questions", test_occupancy_questions_blocks},
	{"questions", test_occupancy_questions_warps},
	{"questions", test_occupancy_questions_occupancy},
	{"questions", test_occupancy_questions_limit},
	{"questions", test_occupancy_questions_best},
};
extern const size_t cl_hidden_ntests = sizeof(cl_hidden_tests) / sizeof(cl_hidden_tests[0]);
