/* The grader's unit tests: every suite in one Check runner. */
#include "unit.h"
#include "config.h"
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

const char *unit_sqlite(const char *path, const char *sql, char *out, size_t len)
{
	char *cmd = xasprintf("sqlite3 '%s' \"%s\"", path, sql);
	FILE *p = popen(cmd, "r");

	ck_assert_msg(p != NULL, "cannot run: %s", cmd);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	ck_assert_msg(pclose(p) == 0, "failed: %s", cmd);
	free(cmd);
	return out;
}

int unit_parse_lab(const char *text, struct lab_config *cfg)
{
	char *dir = unit_tmpdir(), *path = xasprintf("%s/lab.conf", dir);
	int ret;

	ck_assert_int_eq(write_file_atomic(path, text, strlen(text)), 0);
	config_init(cfg);
	report_quiet = true;
	ret = config_parse(path, cfg) || config_validate(cfg, path) ? -1 : 0;
	report_quiet = false;
	remove_tree(dir);
	free(path);
	free(dir);
	return ret;
}

int main(void)
{
	Suite *(*const suites[])(void) = {audit_suite,  config_suite, result_suite,  db_suite,
					  intake_suite, run_suite,    checklog_suite, rewrite_suite,
					  timing_suite, profile_suite, scan_suite,   late_suite,
					  grading_suite, safety_suite, export_suite,
					  gpulock_suite, batch_suite, devcache_suite,
					  htmlreport_suite, similar_suite, util_suite,
					  toolfault_suite, includes_suite, options_suite,
					  expect_suite};
	SRunner *sr = srunner_create(NULL);
	int failed;

	for (size_t i = 0; i < ARRAY_SIZE(suites); i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
