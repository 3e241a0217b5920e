/* Unit tests of db.c: storing runs, regrades, and a writer killed mid-run. */
#include "db.h"
#include "unit.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct lab_config cfg;
static char *dir, *path;

static void setup(void)
{
	struct strbuf text = STRBUF_INIT;

	/* 60 tests, so that a run takes a while to store and a kill lands inside it */
	strbuf_addstr(&text, "[lab]\nname = demo\nfiles = a.cu\n[part p]\n");
	for (int i = 0; i < 60; i++)   /* ten a line: inih's lines are short */
		strbuf_addf(&text, "%s t%d:1%s", i % 10 ? "" : "tests =", i, i % 10 == 9 ? "\n" : "");
	ck_assert_int_eq(unit_parse_lab(text.buf, &cfg), 0);
	strbuf_release(&text);
	dir = unit_tmpdir();
	path = xasprintf("%s/gradebook.db", dir);
}

static void teardown(void)
{
	config_free(&cfg);
	remove_tree(dir);
	free(dir);
	free(path);
}

static void make_result(struct result *r, const char *student, const char *file_hash, int passed)
{
	result_init(r, &cfg);
	r->student = xstrdup(student);
	r->started_at = xstrdup("2026-11-22T00:00:00Z");
	r->build = BUILD_OK;
	r->mode = MODE_GPU;
	r->nfiles = 1;
	r->files = xcalloc(1, sizeof(*r->files));
	r->files[0].name = xstrdup("a.cu");
	snprintf(r->files[0].sha256, sizeof(r->files[0].sha256), "%s", file_hash);
	for (size_t i = 0; i < r->ntests; i++)
		r->tests[i].status = (int)i < passed ? TEST_PASS : TEST_FAIL;
	r->tests[0].message = xstrdup("it's a 'quote' and a \"double\"");
	result_finish(r);
}

/*
 * Changes the gradebook at path with sql (the sqlite3 shell: an older
 * version's tables and user_version), then opens it: the grader brings it up
 * to the latest version, whose references all hold.
 */
static struct db *migrated(const char *sql)
{
	char out[256], *problem = NULL;

	unit_sqlite(path, sql, out, sizeof(out));
	struct db *db = db_open(path, unit_root());
	ck_assert_ptr_nonnull(db);
	ck_assert_int_eq(db_schema_version(db), 6);
	ck_assert_msg(db_verify(db, &problem) == 0, "%s", problem);
	return db;
}

START_TEST(test_db_creates_schema_and_stores_runs)
{
	struct db *db = db_open(path, unit_root());
	struct result r;
	struct run_summary *runs;
	size_t n;
	long long id1, id2, id3;
	char *json, *problem;

	ck_assert_ptr_nonnull(db);
	ck_assert_int_eq(db_schema_version(db), 6);
	make_result(&r, "ada", "aa", 60);
	ck_assert_int_eq(db_store_run(db, &r, &id1), 0);
	result_release(&r);
	/* a regrade of the same files appends a run and keeps the first */
	make_result(&r, "ada", "aa", 30);
	ck_assert_int_eq(db_store_run(db, &r, &id2), 0);
	result_release(&r);
	make_result(&r, "bob", "bb", 10);
	ck_assert_int_eq(db_store_run(db, &r, &id3), 0);
	result_release(&r);
	ck_assert(id1 < id2 && id2 < id3);

	ck_assert_int_eq(db_list_runs(db, "ada", NULL, 10, &runs, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(runs[0].id, id2);          /* newest first */
	ck_assert_double_eq(runs[0].score, 30);
	ck_assert_double_eq(runs[1].score, 60);
	ck_assert_str_eq(runs[1].status, "complete");
	db_free_runs(runs, n);
	ck_assert_int_eq(db_list_runs(db, NULL, "demo", 1, &runs, &n), 0);
	ck_assert_uint_eq(n, 1);
	db_free_runs(runs, n);

	/* a listed run's score reads as the result's: emulated, two tests wait for a GPU */
	make_result(&r, "cy", "cc", 50);
	r.mode = MODE_EMULATED;
	r.tests[58].status = r.tests[59].status = TEST_NOT_RUN;
	result_finish(&r);
	ck_assert_int_eq(db_store_run(db, &r, &id3), 0);
	struct score_view view = result_score_view(&r);
	char want[SCORE_TEXT_MAX], got[SCORE_TEXT_MAX];
	score_text(want, &view);
	ck_assert_str_eq(want, "50 / 60, 2 more pending a GPU run");
	result_release(&r);
	ck_assert_int_eq(db_list_runs(db, "cy", NULL, 10, &runs, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_double_eq(runs[0].pending, 2);
	view = run_score_view(&runs[0]);
	ck_assert_str_eq(score_text(got, &view), want);
	db_free_runs(runs, n);

	ck_assert_int_eq(db_run_json(db, id1, &json), 0);
	ck_assert_ptr_nonnull(strstr(json, "\"student\":\"ada\""));
	free(json);
	report_quiet = true;
	ck_assert_int_eq(db_run_json(db, 999, &json), -1);
	report_quiet = false;
	ck_assert_int_eq(db_verify(db, &problem), 0);
	db_close(db);

	/* reopening an up-to-date gradebook changes nothing */
	db = db_open(path, unit_root());
	ck_assert_ptr_nonnull(db);
	ck_assert_int_eq(db_list_runs(db, NULL, NULL, 50, &runs, &n), 0);
	ck_assert_uint_eq(n, 4);
	db_free_runs(runs, n);
	db_close(db);
}
END_TEST

/* A version 1 gradebook is brought up to date, its runs kept. */
START_TEST(test_db_migrates_version_1)
{
	struct db *db = db_open(path, unit_root());
	struct result r;
	struct run_summary *runs;
	size_t n;
	long long id;

	make_result(&r, "ada", "aa", 60);
	ck_assert_int_eq(db_store_run(db, &r, &id), 0);
	result_release(&r);
	db_close(db);
	/* back to what version 1 had */
	db = migrated("DROP TABLE timings; ALTER TABLE test_results DROP COLUMN kind; "
		      "ALTER TABLE runs DROP COLUMN mode; PRAGMA user_version = 1");
	ck_assert_int_eq(db_list_runs(db, NULL, NULL, 10, &runs, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(runs[0].mode, "gpu");
	ck_assert_double_eq(runs[0].score, 60);
	db_free_runs(runs, n);
	db_close(db);
}
END_TEST

/*
 * Version 4 rebuilds runs, which test_results and timings refer to: the rows,
 * their ids and the references survive, and a 'cpu' run can be stored.
 */
START_TEST(test_db_migrates_version_3)
{
	struct db *db = db_open(path, unit_root());
	struct result r;
	struct run_summary *runs;
	size_t n;
	long long id1, id2, id3;
	char *problem = NULL;

	make_result(&r, "ada", "aa", 60);
	ck_assert_int_eq(db_store_run(db, &r, &id1), 0);
	result_release(&r);
	make_result(&r, "bob", "bb", 7);
	ck_assert_int_eq(db_store_run(db, &r, &id2), 0);
	result_release(&r);
	db_close(db);
	db = migrated("PRAGMA user_version = 3");
	ck_assert_int_eq(db_list_runs(db, NULL, NULL, 10, &runs, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(runs[0].id, id2);
	ck_assert_double_eq(runs[0].score, 7);
	ck_assert_int_eq(runs[1].id, id1);
	db_free_runs(runs, n);
	make_result(&r, "cy", "cc", 60);
	r.mode = MODE_CPU;
	result_finish(&r);
	ck_assert_int_eq(r.state, RUN_COMPLETE);   /* a lab that needs no GPU grades on the CPU */
	ck_assert_int_eq(db_store_run(db, &r, &id3), 0);
	result_release(&r);
	ck_assert_int_eq(db_list_runs(db, "cy", NULL, 10, &runs, &n), 0);
	ck_assert_str_eq(runs[0].mode, "cpu");
	db_free_runs(runs, n);
	ck_assert_int_eq(db_verify(db, &problem), 0);
	db_close(db);
}
END_TEST

/*
 * Version 5 rebuilds timings with the test's name as its key: a version 4
 * row keeps its values, named time@SIZE after the part's kernel. Version 6
 * adds the submission time and lateness to runs: an older run was on time.
 */
START_TEST(test_db_migrates_version_4_timings)
{
	struct db *db = db_open(path, unit_root());
	struct result r;
	long long id;
	char out[256] = "";

	make_result(&r, "ada", "aa", 60);
	ck_assert_int_eq(db_store_run(db, &r, &id), 0);
	result_release(&r);
	db_close(db);
	char *sql = xasprintf(
		"DROP TABLE timings; CREATE TABLE timings (run_id INTEGER NOT NULL "
		"REFERENCES runs(id), part TEXT NOT NULL, size INTEGER NOT NULL, samples INTEGER "
		"NOT NULL, capped INTEGER NOT NULL, student_ms REAL, reference_ms REAL, ratio REAL, "
		"student_spread REAL, reference_spread REAL, student_gflops REAL, reference_gflops "
		"REAL, floor_ms REAL, sm_clock_mhz REAL, flagged INTEGER NOT NULL, PRIMARY KEY "
		"(run_id, part, size)); INSERT INTO timings VALUES (%lld, 'k4', 2048, 12, 0, 2.6, "
		"2.5, 1.04, 0.01, 0.01, 6600, 6870, 0.3, 1980, 0); ALTER TABLE runs DROP COLUMN "
		"submitted_at; ALTER TABLE runs DROP COLUMN submitted_from; ALTER TABLE runs DROP "
		"COLUMN late_days; ALTER TABLE runs DROP COLUMN late_penalty; "
		"PRAGMA user_version = 4",
		id);
	db = migrated(sql);
	free(sql);
	db_close(db);
	unit_sqlite(path, "SELECT part, name, kernel, size, ratio, student_gflops, "
		    "quote(student_gbs), quote(baseline) FROM timings", out, sizeof(out));
	ck_assert_str_eq(out, "k4|time@2048|k4|2048|1.04|6600.0|NULL|NULL\n");
	unit_sqlite(path, "SELECT score, quote(submitted_at), late_days, late_penalty FROM runs",
		    out, sizeof(out));
	ck_assert_str_eq(out, "60.0|NULL|0|0.0\n");
}
END_TEST

START_TEST(test_db_refuses_a_newer_schema)
{
	struct db *db = db_open(path, unit_root());
	char out[64];

	db_close(db);
	unit_sqlite(path, "PRAGMA user_version = 99", out, sizeof(out));
	report_quiet = true;
	ck_assert_ptr_null(db_open(path, unit_root()));
	report_quiet = false;
}
END_TEST

/*
 * A writer killed at random moments, mid-transaction or not, never leaves a
 * partial run and never loses a run it had committed.
 */
START_TEST(test_db_survives_a_killed_writer)
{
	long long committed[4096];
	size_t ncommitted = 0;

	srand((unsigned)time(NULL));
	for (int round = 0; round < 8; round++) {
		int fds[2];
		ck_assert_int_eq(pipe(fds), 0);
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			close(fds[0]);
			struct db *db = db_open(path, unit_root());
			for (int i = 0; db; i++) {
				struct result r;
				long long id;
				char hash[16];
				snprintf(hash, sizeof(hash), "h%d", i % 7);
				make_result(&r, i % 2 ? "ada" : "bob", hash, i % 60);
				if (db_store_run(db, &r, &id))
					_exit(1);
				result_release(&r);
				if (write(fds[1], &id, sizeof(id)) != sizeof(id))
					_exit(1);
			}
			_exit(1);
		}
		close(fds[1]);
		usleep(20000 + rand() % 120000);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		long long id;
		while (read(fds[0], &id, sizeof(id)) == sizeof(id) && ncommitted < ARRAY_SIZE(committed))
			committed[ncommitted++] = id;
		close(fds[0]);

		struct db *db = db_open(path, unit_root());
		char *problem = NULL;
		ck_assert_ptr_nonnull(db);
		ck_assert_msg(db_verify(db, &problem) == 0, "round %d: %s", round, problem);
		for (size_t i = 0; i < ncommitted; i++) {
			char *json;
			ck_assert_msg(db_run_json(db, committed[i], &json) == 0,
				      "round %d: committed run %lld is lost", round, committed[i]);
			free(json);
		}
		db_close(db);
	}
	ck_assert_uint_gt(ncommitted, 8);
}
END_TEST

/* A file that is something else is refused whole, and left as it was. */
START_TEST(test_db_refuses_what_is_no_gradebook)
{
	static const char text[] = "student,score\nada,43\n";
	char out[256];
	size_t len;

	ck_assert_int_eq(write_file_atomic(path, text, strlen(text)), 0);
	report_quiet = true;
	ck_assert_ptr_null(db_open(path, unit_root()));
	char *now = read_file(path, &len);
	ck_assert_str_eq(now, text);
	free(now);
	ck_assert_int_eq(unlink(path), 0);

	/* another program's SQLite database: no tables of the gradebook added to it */
	unit_sqlite(path, "CREATE TABLE grades(student, score)", out, sizeof(out));
	ck_assert_ptr_null(db_open(path, unit_root()));
	ck_assert_ptr_null(db_open(dir, unit_root()));   /* a folder */
	report_quiet = false;
	ck_assert_str_eq(unit_sqlite(path, "SELECT group_concat(name) FROM sqlite_master", out,
				     sizeof(out)), "grades\n");

	/* an empty file is a new gradebook */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(write_file_atomic(path, "", 0), 0);
	struct db *db = db_open(path, unit_root());
	ck_assert_ptr_nonnull(db);
	ck_assert_int_eq(db_check_writable(db), 0);
	db_close(db);
}
END_TEST

Suite *db_suite(void)
{
	Suite *s = suite_create("db");
	TCase *tc = tcase_create("db");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_db_creates_schema_and_stores_runs);
	tcase_add_test(tc, test_db_migrates_version_1);
	tcase_add_test(tc, test_db_migrates_version_3);
	tcase_add_test(tc, test_db_migrates_version_4_timings);
	tcase_add_test(tc, test_db_refuses_a_newer_schema);
	tcase_add_test(tc, test_db_survives_a_killed_writer);
	tcase_add_test(tc, test_db_refuses_what_is_no_gradebook);
	suite_add_tcase(s, tc);
	return s;
}
