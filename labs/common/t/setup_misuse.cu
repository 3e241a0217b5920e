/*
 * setup_misuse.cu - a lab's harness whose setup hook asserts, as a lab
 * author might by mistake (a helper that calls ck_assert, called from
 * setup): the harness must say what happened and where, and write
 * CL_SETUP_ENDED_FILE for the grader (grader/t/t2002-run-machine-failures.sh).
 */
#include "cudalab.h"

START_TEST(test_misuse_part_any)
{
	ck_assert_int_eq(1, 1);
}
END_TEST

static void misuse_setup(uint64_t seed, const char *const *parts, size_t nparts)
{
	(void)parts;
	(void)nparts;
	ck_assert_msg(seed == 0, "the inputs of seed %llu are not ready", (unsigned long long)seed);
}

int main(int argc, char **argv)
{
	static const struct cl_test tests[] = {{"part", test_misuse_part_any}};
	static const struct cl_lab lab = {"misuse", tests, 1, misuse_setup};
	return cl_main(&lab, argc, argv);
}
