/*
 * Unit tests of db.c: storing runs and result documents, regrades,
 * migrations, and a writer killed mid-run.
 */
#include "db.h"
#include "unit.h"

#include <fcntl.h>
#include <math.h>
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

	/* every older version has no file_contents (version 8) */
	unit_sqlite(path, "DROP TABLE IF EXISTS file_contents", out, sizeof(out));
	unit_sqlite(path, sql, out, sizeof(out));
	struct db *db = db_open(path, unit_root());
	ck_assert_ptr_nonnull(db);
	ck_assert_int_eq(db_schema_version(db), 8);
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
	ck_assert_int_eq(db_schema_version(db), 8);
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
	ck_assert_double_eq(runs[0].view.pending, 2);
	view = run_score_view(&runs[0]);
	ck_assert_str_eq(score_text(got, &view), want);
	db_free_runs(runs, n);

	/* a held-back test is graded later, in the gradebook as in the result */
	make_result(&r, "cz", "cc", 50);
	r.mode = MODE_EMULATED;
	r.tests[58].status = r.tests[59].status = TEST_NOT_RUN;
	r.tests[59].held_back = true;
	result_finish(&r);
	ck_assert_int_eq(db_store_run(db, &r, &id3), 0);
	view = result_score_view(&r);
	score_text(want, &view);
	ck_assert_str_eq(want, "50 / 60, 1 more pending a GPU run, 1 more graded later");
	result_release(&r);
	ck_assert_int_eq(db_list_runs(db, "cz", NULL, 10, &runs, &n), 0);
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
	ck_assert_uint_eq(n, 5);
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
		"DROP INDEX runs_by_origin; ALTER TABLE runs DROP COLUMN origin; "
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

/*
 * A lab with a timed kernel, a profiled launcher and a deadline: results
 * with every kind of row and value a gradebook holds.
 */
#define RICH_LAB                                                                                   \
	"[lab]\nname = rich\ntitle = Rich lab\nfiles = a.cu b.cu\n[part a]\ntests = x:3 y:2\n"   \
	"[timing t]\npart = a\nsize = 1024\npoints = 2\n"                                         \
	"[sectors s]\npart = a\ncall = rows\npoints = 1\nmax_load = 4.5\nmax_store = 4.5\n"     \
	"[deadline]\ndue = 2026-12-04 23:59 +01:00\npenalty_per_day = 10\n"

static void add_file(struct result *r, const char *name, char fill, size_t size)
{
	r->files = xrealloc(r->files, (r->nfiles + 1) * sizeof(*r->files));
	struct intake_file *f = &r->files[r->nfiles++];
	*f = (struct intake_file){.name = xstrdup(name)};
	memset(f->sha256, fill, 64);
	f->sha256[64] = '\0';
	f->size = size;
}

/*
 * The three shapes of run: graded on a GPU, a kernel timed (some of its
 * numbers not measured), late; refused at intake, no student told, no GPU,
 * no submission time; emulated, the timing not run, the first one's files.
 */
static void rich_result(struct result *r, const struct lab_config *lab, int which)
{
	result_init(r, lab);
	r->started_at = xstrdup(which == 2 ? "2026-12-06T09:30:00Z" : "2026-12-06T08:00:00Z");
	r->seconds = 12.125 + which;
	r->submission = xstrdup("/subs/ada");
	add_file(r, "a.cu", 'a', 1200);
	add_file(r, "b.cu", 'b', 34);
	if (which == 0) {
		r->student = xstrdup("ada");
		r->host = xstrdup("gpu1");
		r->gpu.available = true;
		r->gpu.name = xstrdup("NVIDIA H100 80GB HBM3");
		r->gpu.cc = xstrdup("90");
		r->gpu.driver = xstrdup("580.65.06");
		r->gpu.runtime = xstrdup("13.0");
		r->mode = MODE_GPU;
		r->build = BUILD_OK;
		result_find(r, "a", "x")->status = TEST_PASS;
		result_find(r, "a", "x")->seconds = 0.1;   /* not exact in binary */
		result_find(r, "a", "y")->status = TEST_FAIL;
		result_set_verdict(result_find(r, "a", "y"), TEST_FAIL,
				   xstrdup("C[3][5] = 2.5, expected 3 (it's \"wrong\") \xc3\xbc"));
		result_find(r, "a", "s")->status = TEST_PASS;
		struct graded_test *t = result_find(r, "a", "t");
		t->status = TEST_PASS;
		t->points = 1.3333333333333333;
		t->seconds = 2.5;
		struct timing_measure *m = t->timing;
		m->measured = true;
		m->samples = 12;
		m->capped = true;
		m->student_ms = 0.30000000000000004;
		m->reference_ms = 0.2;
		m->ratio = m->student_ms / m->reference_ms;
		m->student_spread = 0.01;
		m->reference_spread = 0.02;
		m->student_gflops = m->reference_gflops = NAN;   /* no arithmetic */
		m->student_gbs = 1234.5;
		m->reference_gbs = 2345.25;
		m->floor_ms = NAN;
		m->sm_clock_mhz = 1980;
		m->subject = xstrdup("your rows");
		r->timing.ran = true;
		r->submitted_at = 1796457600;   /* 2026-12-05T08:00:00Z: a day late */
		r->submitted_from = xstrdup("--submitted-at");
	} else if (which == 1) {
		r->gpu.runtime = xstrdup("13.0");
		r->gpu.reason = xstrdup("cudaErrorNoDevice: no CUDA-capable device is detected");
		r->build = BUILD_REFUSED;
		r->build_message = xstrdup("missing file 'b.cu'");
		result_mark_not_run(r, "not run: the submission was not built");
	} else {
		r->student = xstrdup("ada");
		r->host = xstrdup("ci");
		r->mode = MODE_EMULATED;
		r->build = BUILD_OK;
		result_find(r, "a", "x")->status = TEST_PASS;
		result_find(r, "a", "y")->status = TEST_CRASH;
		result_find(r, "a", "y")->seconds = 0.25;
		r->timing.reason = xstrdup("timing needs a GPU");
		result_mark_not_run(r, "not run: timing needs a GPU");
	}
	result_finish(r);
	result_judge_late(r, &lab->deadline);
}

/*
 * Every row of every table of the gradebook at path, as text, ids replaced
 * by what they stand for (a run by its place in the order runs were
 * stored); runs.origin aside. Each table's columns are counted first, so a
 * column added to the schema is added here too.
 */
static char *all_rows(const char *db_path)
{
	static const char *const tables[] = {
		"SELECT (SELECT count(*) FROM pragma_table_info('students')) || ' ' || "
		"(SELECT count(*) FROM pragma_table_info('labs')) || ' ' || "
		"(SELECT count(*) FROM pragma_table_info('submissions')) || ' ' || "
		"(SELECT count(*) FROM pragma_table_info('submission_files')) || ' ' || "
		"(SELECT count(*) FROM pragma_table_info('runs')) || ' ' || "
		"(SELECT count(*) FROM pragma_table_info('test_results')) || ' ' || "
		"(SELECT count(*) FROM pragma_table_info('timings'))",
		"SELECT quote(name) FROM students ORDER BY 1",
		"SELECT quote(name), quote(title) FROM labs ORDER BY 1",
		"SELECT quote(st.name), quote(l.name), quote(b.files_hash), quote(b.first_seen) "
		"FROM submissions b JOIN students st ON st.id = b.student_id "
		"JOIN labs l ON l.id = b.lab_id ORDER BY 1, 2, 3",
		"SELECT quote(st.name), quote(l.name), quote(b.files_hash), quote(f.name), "
		"quote(f.sha256), quote(f.bytes) FROM submission_files f "
		"JOIN submissions b ON b.id = f.submission_id JOIN students st ON st.id = b.student_id "
		"JOIN labs l ON l.id = b.lab_id ORDER BY 1, 2, 3, 4",
		"SELECT (SELECT count(*) FROM runs o WHERE o.id <= r.id), quote(st.name), "
		"quote(l.name), quote(b.files_hash), quote(r.lab_version), quote(r.started_at), "
		"quote(r.seconds), quote(r.host), quote(r.mode), quote(r.gpu), quote(r.driver), "
		"quote(r.cuda_runtime), quote(r.build), quote(r.status), quote(r.score), "
		"quote(r.max_score), quote(r.bonus_score), quote(r.exit_code), quote(r.n_tests), "
		"quote(r.submitted_at), quote(r.submitted_from), quote(r.late_days), "
		"quote(r.late_penalty), quote(r.result_json) FROM runs r "
		"JOIN submissions b ON b.id = r.submission_id JOIN students st ON st.id = b.student_id "
		"JOIN labs l ON l.id = b.lab_id ORDER BY 1",
		"SELECT (SELECT count(*) FROM runs o WHERE o.id <= t.run_id), quote(part), quote(name), "
		"quote(status), quote(points), quote(max_points), quote(bonus), quote(message), "
		"quote(seconds), quote(kind) FROM test_results t ORDER BY 1, 2, 3",
		"SELECT (SELECT count(*) FROM runs o WHERE o.id <= t.run_id), quote(part), quote(name), "
		"quote(kernel), quote(size), quote(samples), quote(capped), quote(student_ms), "
		"quote(reference_ms), quote(ratio), quote(student_spread), quote(reference_spread), "
		"quote(student_gflops), quote(reference_gflops), quote(floor_ms), quote(sm_clock_mhz), "
		"quote(flagged), quote(student_gbs), quote(reference_gbs), quote(subject), "
		"quote(baseline) FROM timings t ORDER BY 1, 2, 3",
	};
	struct strbuf sb = STRBUF_INIT;
	size_t len = 1 << 20;
	char *out = xmalloc(len);

	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		unit_sqlite(db_path, tables[i], out, len);
		ck_assert_uint_lt(strlen(out), len - 1);
		strbuf_addf(&sb, "-- %zu\n%s", i, out);
	}
	free(out);
	return strbuf_detach(&sb);
}

/* The first line where a and b differ, for a failure message. */
static char *first_difference(const char *a, const char *b)
{
	size_t line = 1, i = 0, start = 0;

	while (a[i] && a[i] == b[i]) {
		if (a[i++] == '\n') {
			line++;
			start = i;
		}
	}
	return xasprintf("line %zu: %.300s\n    vs: %.300s", line, a + start, b + start);
}

/*
 * One inserter: a run stored from a result, its document read back from
 * the gradebook and stored into a second one, and the pretty document a
 * --json file holds stored into a third, give the same rows in every
 * table, every column. The columns' values are those a run always had.
 */
START_TEST(test_db_stores_a_document_as_the_run_it_was)
{
	struct lab_config lab;
	struct result r;
	char *second = xasprintf("%s/second.db", dir), *third = xasprintf("%s/third.db", dir);
	struct db *a = db_open(path, unit_root()), *b = db_open(second, unit_root()),
		  *c = db_open(third, unit_root());
	char out[4096];

	ck_assert_int_eq(unit_parse_lab(RICH_LAB, &lab), 0);
	ck_assert(a && b && c);
	for (int which = 0; which < 3; which++) {
		long long id, id_b, id_c;
		char *text, *pretty, *origin;
		json_t *doc;

		rich_result(&r, &lab, which);
		ck_assert_int_eq(db_store_run(a, &r, &id), 0);
		pretty = result_to_json(&r, true);
		/* result_json: the document's compact text, as it always was */
		char *compact = result_to_json(&r, false);
		result_release(&r);

		ck_assert_int_eq(db_run_json(a, id, &text), 0);
		char *why = first_difference(text, compact);
		ck_assert_msg(!strcmp(text, compact), "result_json is not the document's text: %s",
			      why);
		free(why);
		free(compact);
		doc = json_loads(text, 0, NULL);
		ck_assert_ptr_nonnull(doc);
		origin = xasprintf("sha256:%064d", which);
		ck_assert_int_eq(db_store_doc(b, doc, origin, &id_b), 0);
		json_decref(doc);
		free(text);

		doc = json_loads(pretty, 0, NULL);
		ck_assert_ptr_nonnull(doc);
		ck_assert_int_eq(db_store_doc(c, doc, NULL, &id_c), 0);
		json_decref(doc);
		free(pretty);
		free(origin);
	}
	db_close(a);
	db_close(b);
	db_close(c);

	char *rows_a = all_rows(path), *rows_b = all_rows(second), *rows_c = all_rows(third);
	char *why = first_difference(rows_a, rows_b);
	ck_assert_msg(!strcmp(rows_a, rows_b), "read back and stored again: %s", why);
	free(why);
	why = first_difference(rows_a, rows_c);
	ck_assert_msg(!strcmp(rows_a, rows_c), "stored from the --json text: %s", why);
	free(why);

	/* what the rows hold: the values a run always had */
	ck_assert_ptr_nonnull(strstr(rows_a, "-- 0\n2 3 5 4 23 10 21\n"));
	unit_sqlite(path, "SELECT st.name, r.mode, r.gpu, quote(r.driver), quote(r.cuda_runtime), "
		    "r.build, r.status, r.exit_code, r.n_tests, quote(r.host), "
		    "quote(r.submitted_at), quote(r.submitted_from), r.late_days, "
		    "round(r.late_penalty, 6), "
		    "quote(r.origin) FROM runs r JOIN submissions b ON b.id = r.submission_id "
		    "JOIN students st ON st.id = b.student_id ORDER BY r.id",
		    out, sizeof(out));
	ck_assert_str_eq(out,
		"ada|gpu|NVIDIA H100 80GB HBM3|'580.65.06'|'13.0'|ok|complete|1|4|'gpu1'|"
		"'2026-12-05T08:00:00Z'|'--submitted-at'|1|0.533333|NULL\n"
		"unknown|none|none|NULL|'13.0'|refused|not-built|3|4|NULL|NULL|NULL|0|0.0|NULL\n"
		"ada|emulated|none|NULL|NULL|ok|incomplete|4|4|'ci'|NULL|NULL|0|0.0|NULL\n");
	/* one submission of ada's two runs; its hash over the files' names and hashes */
	unit_sqlite(path, "SELECT count(*), group_concat(files_hash) FROM submissions", out,
		    sizeof(out));
	struct intake_file files[2] = {{.name = "a.cu"}, {.name = "b.cu"}};
	memset(files[0].sha256, 'a', 64);
	memset(files[1].sha256, 'b', 64);
	char hash[65], want[160];
	db_files_hash(files, 2, hash);
	snprintf(want, sizeof(want), "2|%s,%s\n", hash, hash);
	ck_assert_str_eq(out, want);
	/* a timings row only for the kernel measured; what was not measured is NULL */
	unit_sqlite(path, "SELECT run_id, name, kernel, samples, capped, quote(student_gflops), "
		    "quote(floor_ms), student_gbs, subject, quote(baseline) FROM timings", out,
		    sizeof(out));
	ck_assert_str_eq(out, "1|t|t|12|1|NULL|NULL|1234.5|your rows|NULL\n");
	unit_sqlite(path, "SELECT name, quote(seconds), quote(message) FROM test_results "
		    "WHERE run_id = 3 ORDER BY name", out, sizeof(out));
	ck_assert_str_eq(out, "s|NULL|'not run: timing needs a GPU'\n"
			      "t|NULL|'not run: timing needs a GPU'\n"
			      "x|NULL|NULL\n"
			      "y|0.25|NULL\n");
	unit_sqlite(second, "SELECT group_concat(origin, ' ') FROM runs", out, sizeof(out));
	ck_assert_str_eq(out, "sha256:0000000000000000000000000000000000000000000000000000000000000000 "
			      "sha256:0000000000000000000000000000000000000000000000000000000000000001 "
			      "sha256:0000000000000000000000000000000000000000000000000000000000000002\n");
	free(rows_a);
	free(rows_b);
	free(rows_c);
	free(second);
	free(third);
	config_free(&lab);
}
END_TEST

/* What stderr gets while fn runs: the error a refused document gets. */
static char *stderr_of(int (*fn)(struct db *, json_t *), struct db *db, json_t *doc, int *ret)
{
	char *file = xasprintf("%s/stderr", dir);
	int saved = dup(2), fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert(saved >= 0 && fd >= 0);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	*ret = fn(db, doc);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char *text = read_file(file, NULL);
	free(file);
	return text;
}

static int store_from_spool(struct db *db, json_t *doc)
{
	long long id = 0;
	int ret = db_store_doc(db, doc, "sha256:spool", &id);
	ck_assert_int_eq(id, -1);
	return ret;
}

/*
 * A document stored once per origin: again, it is the run already there.
 * What is no result document of this schema, or lacks a field the
 * gradebook needs, is refused, the field named, and nothing is stored.
 */
START_TEST(test_db_stores_a_document_once_and_refuses_others)
{
	static const struct {
		const char *json, *error;
	} bad[] = {
		{"[1, 2]", "the result document from sha256:spool is not a cudalab result "
			   "document (it has no \"schema\": \"cudalab-result/1\")"},
		{"{\"lab\": \"demo\"}", "is not a cudalab result document"},
		{"{\"schema\": \"cudalab-result/2\"}", "the result document from sha256:spool is "
			"of schema 'cudalab-result/2', which this cudalab does not store (it stores "
			"cudalab-result/1)"},
		{"{\"schema\": \"cudalab-result/1\"}", "the result document from sha256:spool "
			"lacks lab (a string), which the gradebook needs"},
	};
	struct db *db = db_open(path, unit_root());
	struct result r;
	long long id, again, plain;
	char *text, *err, out[256];
	json_t *doc;
	int ret;

	ck_assert_ptr_nonnull(db);
	make_result(&r, "ada", "aa", 60);
	doc = result_document(&r);
	result_release(&r);
	ck_assert_int_eq(db_store_doc(db, doc, "sha256:one", &id), 0);
	ck_assert_int_eq(db_store_doc(db, doc, "sha256:one", &again), 1);
	ck_assert_int_eq(again, id);
	/* runs with no origin are never taken for one another */
	ck_assert_int_eq(db_store_doc(db, doc, NULL, &plain), 0);
	ck_assert_int_eq(db_store_doc(db, doc, NULL, &again), 0);
	ck_assert_int_eq(again, plain + 1);
	unit_sqlite(path, "SELECT count(*), count(origin) FROM runs", out, sizeof(out));
	ck_assert_str_eq(out, "3|1\n");

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		json_t *b = json_loads(bad[i].json, 0, NULL);
		ck_assert_ptr_nonnull(b);
		err = stderr_of(store_from_spool, db, b, &ret);
		ck_assert_int_eq(ret, -1);
		ck_assert_msg(strstr(err, bad[i].error), "%s: %s", bad[i].json, err);
		free(err);
		json_decref(b);
	}

	/* a field the gradebook needs, missing or of another type, deep in the document */
	static const struct {
		const char *path, *key, *value, *error;
	} broken[] = {
		{"", "lab", NULL, "lacks lab (a string)"},
		{"", "score", "\"60\"", "lacks score (a number)"},
		{"", "exit_code", "1.5", "lacks exit_code (a whole number)"},
		{"", "tests", "{}", "lacks tests (an array)"},
		{"gpu", "name", NULL, "lacks gpu.name (a string)"},
		{"build", "status", "null", "lacks build.status (a string)"},
		{"tests", "points", NULL, "lacks tests[59].points (a number)"},
		{"tests", "bonus", "0", "lacks tests[59].bonus (true or false)"},
		{"tests", "message", "7", "lacks tests[59].message (a string or null)"},
		{"files", "bytes", NULL, "lacks files[0].bytes (a whole number)"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(broken); i++) {
		json_t *copy = json_deep_copy(doc), *o = copy;
		if (!strcmp(broken[i].path, "tests") || !strcmp(broken[i].path, "files")) {
			json_t *a = json_object_get(copy, broken[i].path);
			o = json_array_get(a, json_array_size(a) - 1);
		} else if (*broken[i].path) {
			o = json_object_get(copy, broken[i].path);
		}
		if (broken[i].value)
			json_object_set_new(o, broken[i].key, json_loads(broken[i].value,
									  JSON_DECODE_ANY, NULL));
		else
			json_object_del(o, broken[i].key);
		err = stderr_of(store_from_spool, db, copy, &ret);
		ck_assert_int_eq(ret, -1);
		ck_assert_msg(strstr(err, broken[i].error) && strstr(err, "nothing was stored"),
			      "%s.%s: %s", broken[i].path, broken[i].key, err);
		free(err);
		json_decref(copy);
	}

	/* a timed kernel measured, without what the timings row needs */
	struct lab_config lab;
	ck_assert_int_eq(unit_parse_lab(RICH_LAB, &lab), 0);
	rich_result(&r, &lab, 0);
	json_t *timed = result_document(&r);
	result_release(&r);
	config_free(&lab);
	json_t *t = json_array_get(json_object_get(timed, "tests"), 2);
	ck_assert_str_eq(json_string_value(json_object_get(t, "kind")), "timing");
	json_object_del(json_object_get(t, "timing"), "samples");
	err = stderr_of(store_from_spool, db, timed, &ret);
	ck_assert_int_eq(ret, -1);
	ck_assert_msg(strstr(err, "lacks tests[2].timing.samples (a whole number)"), "%s", err);
	free(err);
	json_decref(timed);

	/* none of them left a row, nor a half run */
	unit_sqlite(path, "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM labs), "
		    "(SELECT count(*) FROM students), (SELECT count(*) FROM test_results)",
		    out, sizeof(out));
	ck_assert_str_eq(out, "3|1|1|180\n");
	ck_assert_int_eq(db_verify(db, &text), 0);
	json_decref(doc);
	db_close(db);
}
END_TEST

/*
 * Version 7 adds runs.origin: a version 6 gradebook's runs are kept, with
 * none, and it becomes what a new gradebook is (the column, and the index
 * that holds each origin once).
 */
START_TEST(test_db_migrates_version_6_origin)
{
	struct db *db = db_open(path, unit_root());
	char *fresh = xasprintf("%s/fresh.db", dir);
	char want[1024], out[1024];
	struct result r;
	long long id, again;
	static const char shape[] =
		"SELECT group_concat(name || ' ' || type || ' ' || quote(dflt_value), ', ') FROM "
		"pragma_table_info('runs'); SELECT sql FROM sqlite_master WHERE type = 'index' "
		"ORDER BY name";

	make_result(&r, "ada", "aa", 60);
	ck_assert_int_eq(db_store_run(db, &r, &id), 0);
	result_release(&r);
	db_close(db);
	db = migrated("DROP INDEX runs_by_origin; ALTER TABLE runs DROP COLUMN origin; "
		      "PRAGMA user_version = 6");
	unit_sqlite(path, "SELECT id, quote(origin), score FROM runs", out, sizeof(out));
	ck_assert_str_eq(out, "1|NULL|60.0\n");

	/* the same columns and indexes as a gradebook made at version 7 */
	struct db *f = db_open(fresh, unit_root());
	ck_assert_ptr_nonnull(f);
	db_close(f);
	unit_sqlite(fresh, shape, want, sizeof(want));
	unit_sqlite(path, shape, out, sizeof(out));
	ck_assert_str_eq(out, want);
	ck_assert_ptr_nonnull(strstr(out, "origin TEXT NULL\n"));
	ck_assert_ptr_nonnull(strstr(out, "CREATE UNIQUE INDEX runs_by_origin ON runs(origin) "
					  "WHERE origin IS NOT NULL"));

	make_result(&r, "bob", "bb", 7);
	json_t *doc = result_document(&r);
	result_release(&r);
	ck_assert_int_eq(db_store_doc(db, doc, "sha256:bob", &id), 0);
	ck_assert_int_eq(db_store_doc(db, doc, "sha256:bob", &again), 1);
	ck_assert_int_eq(again, id);
	json_decref(doc);
	db_close(db);
	/* the index itself refuses an origin twice, whoever writes it */
	unit_sqlite(path, "INSERT INTO runs(submission_id, lab_version, started_at, seconds, "
		    "build, status, score, max_score, bonus_score, exit_code, n_tests, "
		    "result_json, origin) SELECT submission_id, lab_version, started_at, "
		    "seconds, build, status, score, max_score, bonus_score, exit_code, 0, "
		    "result_json, origin FROM runs WHERE origin IS NOT NULL AND 0; "
		    "SELECT count(*) FROM runs", out, sizeof(out));
	ck_assert_str_eq(out, "2\n");
	free(fresh);
}
END_TEST

/*
 * A student's name that is not UTF-8 (a folder's name) is stored as its
 * document has it; --resume finds the run by the name it was given.
 */
/*
 * A submission intake refused is found again only with the same files and
 * the same reason: --resume skips it as it skips any other, and grades it
 * once the folder changed.
 */
START_TEST(test_db_has_run_refused_for_the_same_reason)
{
	struct db *db = db_open(path, unit_root());
	struct result r;
	long long id;
	char hash[65];

	make_result(&r, "ada", "bb", 0);
	r.build = BUILD_REFUSED;
	r.build_message = xstrdup("missing file 'b.cu': the submission must contain it");
	ck_assert_int_eq(db_store_run(db, &r, &id), 0);
	db_files_hash(r.files, r.nfiles, hash);
	ck_assert_int_eq(db_has_run(db, "ada", "demo", "0", hash, r.build_message), 1);
	ck_assert_int_eq(db_has_run(db, "ada", "demo", "0", hash, "'b.cu' is a symbolic link"), 0);
	result_release(&r);
	make_result(&r, "ada", "cc", 0);   /* other files */
	db_files_hash(r.files, r.nfiles, hash);
	result_release(&r);
	ck_assert_int_eq(db_has_run(db, "ada", "demo", "0", hash,
				    "missing file 'b.cu': the submission must contain it"), 0);
	db_close(db);
}
END_TEST

/*
 * Version 7 to 8: file_contents is made, empty (runs stored before kept no
 * files); a run stored then keeps its files' bytes, once per sha256.
 */
START_TEST(test_db_migrates_version_7_file_contents)
{
	struct db *db = db_open(path, unit_root());
	struct result r;
	long long id;
	char out[256], *data;
	size_t len;

	make_result(&r, "ada", "aa", 60);
	ck_assert_int_eq(db_store_run(db, &r, &id), 0);
	result_release(&r);
	db_close(db);
	db = migrated("PRAGMA user_version = 7");
	ck_assert_str_eq(unit_sqlite(path, "SELECT count(*) FROM file_contents", out, sizeof(out)),
			 "0\n");
	ck_assert_int_eq(db_file_content(db, "aa", &data, &len), 1);
	make_result(&r, "bob", "bb", 60);
	r.files[0].data = xstrdup("__global__ void k() {}\n");
	r.files[0].size = strlen(r.files[0].data);
	ck_assert_int_eq(db_store_run(db, &r, &id), 0);
	ck_assert_int_eq(db_store_run(db, &r, &id), 0);   /* the same file again */
	result_release(&r);
	ck_assert_str_eq(unit_sqlite(path, "SELECT count(*) FROM file_contents", out, sizeof(out)),
			 "1\n");
	ck_assert_int_eq(db_file_content(db, "bb", &data, &len), 0);
	ck_assert_str_eq(data, "__global__ void k() {}\n");
	ck_assert_uint_eq(len, strlen(data));
	free(data);
	db_close(db);
}
END_TEST

START_TEST(test_db_has_run_of_a_name_not_utf8)
{
	struct db *db = db_open(path, unit_root());
	struct result r;
	long long id;
	char hash[65], out[64];

	make_result(&r, "bad\xff", "aa", 60);
	ck_assert_int_eq(db_store_run(db, &r, &id), 0);
	db_files_hash(r.files, r.nfiles, hash);
	result_release(&r);
	ck_assert_int_eq(db_has_run(db, "bad\xff", "demo", "0", hash, NULL), 1);
	ck_assert_int_eq(db_has_run(db, "bad", "demo", "0", hash, NULL), 0);
	db_close(db);
	ck_assert_str_eq(unit_sqlite(path, "SELECT hex(name) FROM students", out, sizeof(out)),
			 "626164EFBFBD\n");
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
 * partial run and never loses a run it had committed: one that grades, and
 * one that collects documents (stored once each, however often handed over).
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
				if (i % 3 == 2) {
					/* a collector's document, and the same one again: no
					 * second run */
					json_t *doc = result_document(&r);
					char origin[32];
					long long again;
					snprintf(origin, sizeof(origin), "sha256:%d-%d", round, i);
					if (db_store_doc(db, doc, origin, &id) ||
					    db_store_doc(db, doc, origin, &again) != 1 || again != id)
						_exit(1);
					json_decref(doc);
				} else if (db_store_run(db, &r, &id)) {
					_exit(1);
				}
				result_release(&r);
				if (write(fds[1], &id, sizeof(id)) != sizeof(id))
					_exit(1);
			}
			_exit(1);
		}
		close(fds[1]);
		/*
		 * Killed once it has committed a few runs, however slow the
		 * machine (a fixed delay saw none on a loaded one), and then at a
		 * random moment of the next: sometimes inside a transaction.
		 */
		long long id;
		for (int want = 2 + rand() % 5; want > 0 && ncommitted < ARRAY_SIZE(committed); want--) {
			ck_assert_int_eq(read(fds[0], &id, sizeof(id)), sizeof(id));
			committed[ncommitted++] = id;
		}
		usleep(rand() % 5000);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		while (read(fds[0], &id, sizeof(id)) == sizeof(id) && ncommitted < ARRAY_SIZE(committed))
			committed[ncommitted++] = id;
		close(fds[0]);

		struct db *db = db_open(path, unit_root());
		char *problem = NULL;
		ck_assert_ptr_nonnull(db);
		ck_assert_msg(db_verify(db, &problem) == 0, "round %d: %s", round, problem);
		char out[64];
		unit_sqlite(path, "SELECT count(origin) - count(DISTINCT origin) FROM runs", out,
			    sizeof(out));
		ck_assert_msg(!strcmp(out, "0\n"), "round %d: %s origins stored twice", round, out);
		for (size_t i = 0; i < ncommitted; i++) {
			char *json;
			ck_assert_msg(db_run_json(db, committed[i], &json) == 0,
				      "round %d: committed run %lld is lost", round, committed[i]);
			free(json);
		}
		db_close(db);
	}
	ck_assert_uint_gt(ncommitted, 8);
	char out[64];
	ck_assert_str_ne(unit_sqlite(path, "SELECT count(origin) FROM runs", out, sizeof(out)), "0\n");
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
	tcase_add_test(tc, test_db_stores_a_document_as_the_run_it_was);
	tcase_add_test(tc, test_db_stores_a_document_once_and_refuses_others);
	tcase_add_test(tc, test_db_migrates_version_6_origin);
	tcase_add_test(tc, test_db_migrates_version_7_file_contents);
	tcase_add_test(tc, test_db_has_run_of_a_name_not_utf8);
	tcase_add_test(tc, test_db_has_run_refused_for_the_same_reason);
	tcase_add_test(tc, test_db_refuses_a_newer_schema);
	tcase_add_test(tc, test_db_survives_a_killed_writer);
	tcase_add_test(tc, test_db_refuses_what_is_no_gradebook);
	suite_add_tcase(s, tc);
	return s;
}
