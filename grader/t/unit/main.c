/* The grader's unit tests: every suite in one Check runner. */
#include "unit.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

char *unit_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char *d = xasprintf("%s/cudalab-unit-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(d))
		ck_abort_msg("cannot create a temporary folder");
	return d;
}

const char *unit_root(void)
{
	const char *r = getenv("CUDALAB_ROOT");
	return r && *r ? r : ".";
}

int main(void)
{
	Suite *(*const suites[])(void) = {audit_suite,  config_suite, result_suite,  db_suite,
					  intake_suite, run_suite,    checklog_suite};
	SRunner *sr = srunner_create(NULL);
	int failed;

	for (size_t i = 0; i < ARRAY_SIZE(suites); i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
