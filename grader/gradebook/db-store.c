/*
 * db-store.c - storing a run in the gradebook, from its result document.
 *
 * Owns: the statements that store a run, in the one transaction db.c
 * describes, and the strict reading of the document's fields they store
 * (a document missing one is refused whole, naming the field). A run is
 * stored from its result document, whoever wrote it: this grader, or an
 * array task of a cluster whose document a collector hands over.
 */
#include "db.h"
#include "db-sql.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int upsert_id(struct db *db, const char *insert, const char *select, const char *a,
		     const char *b, long long *id)
{
	if (dbi_step(db, dbi_prepare(db, insert, b ? "tt" : "t", a, b), NULL))
		return -1;
	*id = -1;
	if (dbi_step(db, dbi_prepare(db, select, "t", a), id) || *id < 0)
		return dbi_sql_error(db, "cannot find a row just inserted");
	return 0;
}

/* One line of db_files_hash: files named the same way, from a result or a document. */
static void files_hash_line(struct strbuf *sb, const char *name, const char *sha256)
{
	strbuf_addf(sb, "%s %s\n", name, sha256);
}

void db_files_hash(const struct intake_file *files, size_t n, char out[65])
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++)
		files_hash_line(&sb, files[i].name, files[i].sha256);
	sha256_hex(sb.buf ? sb.buf : "", sb.len, out);
	strbuf_release(&sb);
}

void db_doc_files_hash(json_t *files, char out[65])
{
	struct strbuf sb = STRBUF_INIT;
	json_t *f;
	size_t i;

	json_array_foreach(files, i, f) {
		const char *name = json_string_value(json_object_get(f, "name"));
		const char *sha = json_string_value(json_object_get(f, "sha256"));
		if (name && sha)
			files_hash_line(&sb, name, sha);
	}
	sha256_hex(sb.buf ? sb.buf : "", sb.len, out);
	strbuf_release(&sb);
}

/*
 * Reading the fields of a result document that the gradebook stores. Each
 * read names its field; the first one missing or of another type is kept in
 * bad ("tests[3].points (a number)") and the run is not stored. A field
 * that may be null (or absent) reads as NULL or NAN, stored as NULL.
 */
struct doc_reader {
	char at[64];   /* the object being read: "" the document, "tests[3]" */
	char *bad;
};

static void doc_bad(struct doc_reader *rd, const char *key, const char *what)
{
	if (!rd->bad)
		rd->bad = xasprintf("%s%s%s (%s)", rd->at, *rd->at ? "." : "", key, what);
}

static bool doc_absent(json_t *v)
{
	return !v || json_is_null(v);
}

static const char *rd_str(struct doc_reader *rd, json_t *o, const char *key, bool may_be_null)
{
	json_t *v = json_object_get(o, key);

	if (json_is_string(v))
		return json_string_value(v);
	if (!may_be_null || !doc_absent(v))
		doc_bad(rd, key, may_be_null ? "a string or null" : "a string");
	return NULL;
}

static double rd_num(struct doc_reader *rd, json_t *o, const char *key, bool may_be_null)
{
	json_t *v = json_object_get(o, key);

	if (json_is_number(v))
		return json_number_value(v);
	if (!may_be_null || !doc_absent(v))
		doc_bad(rd, key, may_be_null ? "a number or null" : "a number");
	return NAN;
}

static long long rd_int(struct doc_reader *rd, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	double d = json_number_value(v);

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v) && d == floor(d) && fabs(d) < 9007199254740992.0)
		return (long long)d;   /* 3.0: a whole number all the same */
	doc_bad(rd, key, "a whole number");
	return 0;
}

static bool rd_bool(struct doc_reader *rd, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_boolean(v))
		doc_bad(rd, key, "true or false");
	return json_is_true(v);
}

/* o's object (or array) key; NULL where it may be null and is. */
static json_t *rd_obj(struct doc_reader *rd, json_t *o, const char *key, bool array,
		      bool may_be_null)
{
	json_t *v = json_object_get(o, key);
	const char *want = array ? "an array" : may_be_null ? "an object or null" : "an object";

	if (array ? json_is_array(v) : json_is_object(v))
		return v;
	if (!may_be_null || !doc_absent(v))
		doc_bad(rd, key, want);
	return NULL;
}

/* The probe's versions: a document says "none" where the gradebook has NULL. */
static const char *none_null(const char *s)
{
	return s && strcmp(s, "none") ? s : NULL;
}

/* Reports rd's first bad field, if any: -1 then. */
static int doc_unreadable(struct db *db, struct doc_reader *rd, const char *what)
{
	if (!rd->bad)
		return 0;
	return error("gradebook '%s': %s lacks %s, which the gradebook needs; nothing was stored",
		     db->path, what, rd->bad);
}

/* The submission of doc: its student, lab and files, added where new; its id in *sub. */
static int store_submission(struct db *db, json_t *doc, struct doc_reader *rd, const char *what,
			    long long *sub)
{
	const char *student = rd_str(rd, doc, "student", true);
	const char *lab_name = rd_str(rd, doc, "lab", false);
	const char *title = rd_str(rd, doc, "lab_title", true);
	const char *started_at = rd_str(rd, doc, "started_at", false);
	json_t *files = rd_obj(rd, doc, "files", true, false), *f;
	long long student_id, lab;
	char hash[65];
	size_t i;

	json_array_foreach(files, i, f) {
		snprintf(rd->at, sizeof(rd->at), "files[%zu]", i);
		rd_str(rd, f, "name", false);
		rd_str(rd, f, "sha256", false);
		rd_int(rd, f, "bytes");
	}
	rd->at[0] = '\0';
	db_doc_files_hash(files, hash);
	if (doc_unreadable(db, rd, what))
		return -1;

	/* a run whose student was not told is "unknown"'s, as it always was */
	if (upsert_id(db, "INSERT OR IGNORE INTO students(name) VALUES (?1)",
		      "SELECT id FROM students WHERE name = ?1", student ? student : "unknown", NULL,
		      &student_id) ||
	    upsert_id(db, "INSERT INTO labs(name, title) VALUES (?1, ?2) ON CONFLICT(name) DO "
			  "UPDATE SET title = coalesce(excluded.title, labs.title)",
		      "SELECT id FROM labs WHERE name = ?1", lab_name, title, &lab))
		return -1;
	*sub = -1;
	if (dbi_step(db, dbi_prepare(db, "INSERT OR IGNORE INTO submissions(student_id, lab_id, files_hash, "
				 "first_seen) VALUES (?1, ?2, ?3, ?4)",
			     "iitt", student_id, lab, hash, started_at),
		 NULL) ||
	    dbi_step(db, dbi_prepare(db, "SELECT id FROM submissions WHERE student_id = ?1 AND lab_id = ?2 "
				 "AND files_hash = ?3", "iit", student_id, lab, hash),
		 sub))
		return -1;
	json_array_foreach(files, i, f)   /* read above: each field is there */
		if (dbi_step(db, dbi_prepare(db, "INSERT OR IGNORE INTO submission_files VALUES (?1, ?2, ?3, ?4)",
				     "itti", *sub, rd_str(rd, f, "name", false),
				     rd_str(rd, f, "sha256", false), rd_int(rd, f, "bytes")),
			 NULL))
			return -1;
	return 0;
}

/* Test i of run (its test_results row, and its timings row when it was timed). */
static int store_test(struct db *db, long long run, json_t *t, size_t i, struct doc_reader *rd,
		      const char *what)
{
	snprintf(rd->at, sizeof(rd->at), "tests[%zu]", i);
	const char *part = rd_str(rd, t, "part", false), *name = rd_str(rd, t, "name", false);
	const char *status = rd_str(rd, t, "status", false);
	double points = rd_num(rd, t, "points", false);
	double max_points = rd_num(rd, t, "max_points", false);
	bool bonus = rd_bool(rd, t, "bonus");
	const char *message = rd_str(rd, t, "message", true);
	double seconds = rd_num(rd, t, "seconds", true);
	/* a document from before test kinds: each test was a correctness test */
	const char *kind = rd_str(rd, t, "kind", true);
	json_t *m = rd_obj(rd, t, "timing", false, true);
	if (doc_unreadable(db, rd, what))
		return -1;
	if (dbi_step(db, dbi_prepare(db, "INSERT INTO test_results(run_id, part, name, status, points, "
				 "max_points, bonus, message, kind, seconds) VALUES (?1, ?2, ?3, ?4, "
				 "?5, ?6, ?7, ?8, ?9, ?10)",
			     "itttddittd", run, part, name, status, points, max_points,
			     (long long)bonus, message, kind ? kind : "correctness", seconds),
		 NULL))
		return -1;

	/* what the timing driver measured: a row only where it measured */
	snprintf(rd->at, sizeof(rd->at), "tests[%zu].timing", i);
	if (!m || !rd_bool(rd, m, "measured")) {
		rd->at[0] = '\0';
		return doc_unreadable(db, rd, what);
	}
	const char *kernel = rd_str(rd, m, "kernel", false);
	long long size = rd_int(rd, m, "size"), samples = rd_int(rd, m, "samples");
	bool capped = rd_bool(rd, m, "capped"), flagged = rd_bool(rd, m, "flagged");
	double student_ms = rd_num(rd, m, "student_ms", true);
	double reference_ms = rd_num(rd, m, "reference_ms", true);
	double ratio = rd_num(rd, m, "ratio", true);
	double student_spread = rd_num(rd, m, "student_spread", true);
	double reference_spread = rd_num(rd, m, "reference_spread", true);
	double student_gflops = rd_num(rd, m, "student_gflops", true);
	double reference_gflops = rd_num(rd, m, "reference_gflops", true);
	double floor_ms = rd_num(rd, m, "floor_ms", true);
	double sm_clock_mhz = rd_num(rd, m, "sm_clock_mhz", true);
	double student_gbs = rd_num(rd, m, "student_gbs", true);
	double reference_gbs = rd_num(rd, m, "reference_gbs", true);
	const char *subject = rd_str(rd, m, "subject", true);
	const char *baseline = rd_str(rd, m, "baseline", true);
	rd->at[0] = '\0';
	if (doc_unreadable(db, rd, what))
		return -1;
	return dbi_step(db, dbi_prepare(db, "INSERT INTO timings VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
				    "?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
				"itttiiiddddddddd" "iddtt", run, part, name, kernel, size, samples,
				(long long)capped, student_ms, reference_ms, ratio, student_spread,
				reference_spread, student_gflops, reference_gflops, floor_ms,
				sm_clock_mhz, (long long)flagged, student_gbs, reference_gbs, subject,
				baseline),
		    NULL);
}

/* The rows of doc's run, inside the caller's transaction; what names doc in errors. */
static int store_doc(struct db *db, json_t *doc, const char *origin, const char *what,
		     long long *run_id)
{
	struct doc_reader rd = {.at = ""};
	long long sub;
	json_t *t;
	size_t i;
	int ret = -1;

	if (store_submission(db, doc, &rd, what, &sub))
		goto out;
	const char *lab_version = rd_str(&rd, doc, "lab_version", false);
	const char *started_at = rd_str(&rd, doc, "started_at", false);
	double seconds = rd_num(&rd, doc, "seconds", false);
	const char *host = rd_str(&rd, doc, "host", true);
	const char *mode = rd_str(&rd, doc, "mode", false);
	const char *status = rd_str(&rd, doc, "status", false);
	double score = rd_num(&rd, doc, "score", false);
	double max_score = rd_num(&rd, doc, "max_score", false);
	double bonus_score = rd_num(&rd, doc, "bonus_score", false);
	long long exit_code = rd_int(&rd, doc, "exit_code");
	const char *submitted_at = rd_str(&rd, doc, "submitted_at", true);
	const char *submitted_from = rd_str(&rd, doc, "submitted_from", true);
	json_t *tests = rd_obj(&rd, doc, "tests", true, false);
	json_t *build = rd_obj(&rd, doc, "build", false, false);
	json_t *gpu = rd_obj(&rd, doc, "gpu", false, false);
	/* the late policy's verdict: none (null, or a document from before deadlines), or
	 * not applied, takes nothing off */
	json_t *late = rd_obj(&rd, doc, "late", false, true);
	long long late_days = 0;
	double late_penalty = 0;
	strcpy(rd.at, "build");
	const char *build_status = build ? rd_str(&rd, build, "status", false) : NULL;
	strcpy(rd.at, "gpu");
	const char *gpu_name = gpu ? rd_str(&rd, gpu, "name", false) : NULL;
	const char *driver = gpu ? rd_str(&rd, gpu, "driver", true) : NULL;
	const char *runtime = gpu ? rd_str(&rd, gpu, "cuda_runtime", true) : NULL;
	strcpy(rd.at, "late");
	if (late && rd_bool(&rd, late, "applied")) {
		late_days = rd_int(&rd, late, "days");
		late_penalty = rd_num(&rd, late, "penalty", false);
	}
	rd.at[0] = '\0';
	if (doc_unreadable(db, &rd, what))
		goto out;

	/* the document as the gradebook keeps it: compact, its fields in its order */
	char *json = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!json) {
		error("gradebook '%s': %s cannot be written as JSON text", db->path, what);
		goto out;
	}
	int rc = dbi_step(db, dbi_prepare(db, "INSERT INTO runs(submission_id, lab_version, started_at, "
				      "seconds, host, mode, gpu, driver, cuda_runtime, build, status, "
				      "score, max_score, bonus_score, exit_code, n_tests, result_json, "
				      "submitted_at, submitted_from, late_days, late_penalty, origin) "
				      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
				      "?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
				  "ittdtttttttdddiitttidt", sub, lab_version, started_at, seconds, host,
				  mode, gpu_name, none_null(driver), none_null(runtime), build_status,
				  status, score, max_score, bonus_score, exit_code,
				  (long long)json_array_size(tests), json, submitted_at, submitted_from,
				  late_days, late_penalty, origin),
		      NULL);
	free(json);
	if (rc)
		goto out;
	*run_id = sqlite3_last_insert_rowid(db->h);
	json_array_foreach(tests, i, t)
		if (store_test(db, *run_id, t, i, &rd, what))
			goto out;
	ret = 0;
out:
	free(rd.bad);
	return ret;
}

/* Whether doc is a result document of the schema this cudalab stores; reports why not. */
static int check_schema(struct db *db, json_t *doc, const char *what)
{
	static const char family[] = "cudalab-result/";
	const char *schema = json_string_value(json_object_get(doc, "schema"));

	if (!schema || strncmp(schema, family, strlen(family)))
		return error("gradebook '%s': %s is not a cudalab result document (it has no "
			     "\"schema\": \"%s\"); nothing was stored", db->path, what,
			     RESULT_SCHEMA);
	if (strcmp(schema, RESULT_SCHEMA))
		return error("gradebook '%s': %s is of schema '%s', which this cudalab does not "
			     "store (it stores %s); nothing was stored", db->path, what, schema,
			     RESULT_SCHEMA);
	return 0;
}

/*
 * Stores doc (from origin, NULL when graded here) in one transaction, with
 * the bytes of the files that have them (of the nfiles of files).
 */
static int store_doc_files(struct db *db, json_t *doc, const char *origin,
			   const struct intake_file *files, size_t nfiles, long long *run_id)
{
	char *what = origin ? xasprintf("the result document from %s", origin)
			    : xstrdup("the result document");
	long long have = -1;
	int ret = -1;

	*run_id = -1;
	if (check_schema(db, doc, what))
		goto out;
	/* IMMEDIATE: the write lock first, so two writers never both find an origin new */
	if (dbi_exec(db, "BEGIN IMMEDIATE"))
		goto out;
	if (origin && dbi_step(db, dbi_prepare(db, "SELECT id FROM runs WHERE origin = ?1", "t", origin),
			   &have))
		goto out_rollback;
	if (have >= 0) {
		*run_id = have;
		ret = 1;
		goto out_rollback;
	}
	if (store_doc(db, doc, origin, what, run_id)) {
		*run_id = -1;
		goto out_rollback;
	}
	for (size_t i = 0; i < nfiles; i++)
		if (files[i].data &&
		    dbi_step(db, dbi_prepare(db, "INSERT OR IGNORE INTO file_contents(sha256, content) "
					 "VALUES (?1, ?2)", "tb", files[i].sha256, files[i].data,
				     (long long)files[i].size), NULL)) {
			*run_id = -1;
			goto out_rollback;
		}
	if (dbi_exec(db, "COMMIT")) {
		*run_id = -1;
		goto out_rollback;
	}
	ret = 0;
	goto out;
out_rollback:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
out:
	free(what);
	return ret;
}

int db_store_doc(struct db *db, json_t *doc, const char *origin, long long *run_id)
{
	return store_doc_files(db, doc, origin, NULL, 0, run_id);
}

int db_store_run(struct db *db, const struct result *r, long long *run_id)
{
	json_t *doc = result_document(r);
	int ret = store_doc_files(db, doc, NULL, r->files, r->nfiles, run_id);

	json_decref(doc);
	return ret;
}

