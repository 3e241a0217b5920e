/*
 * db.c - the gradebook: schema, migrations, storing and reading runs.
 *
 * Owns: every SQL statement. One transaction per run (BEGIN IMMEDIATE ...
 * COMMIT) in WAL mode with synchronous=FULL: a grader killed at any point
 * leaves either the whole run or none of it, and never loses a committed one.
 */
#include "db.h"

#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct db {
	sqlite3 *h;
	char *path;
};

static int sql_error(struct db *db, const char *what)
{
	return error("gradebook '%s': %s: %s", db->path, what, sqlite3_errmsg(db->h));
}

static int exec(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("gradebook '%s': %s", db->path, msg ? msg : sqlite3_errmsg(db->h));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/*
 * Prepares sql and binds the arguments described by types: 't' text (NULL
 * binds NULL), 'i' long long, 'd' double. NULL on error.
 */
static sqlite3_stmt *prepare(struct db *db, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		sql_error(db, "cannot prepare a statement");
		return NULL;
	}
	va_start(ap, types);
	for (int i = 0; types[i]; i++) {
		int rc;
		if (types[i] == 't') {
			const char *s = va_arg(ap, const char *);
			rc = s ? sqlite3_bind_text(st, i + 1, s, -1, SQLITE_TRANSIENT)
			       : sqlite3_bind_null(st, i + 1);
		} else if (types[i] == 'i') {
			rc = sqlite3_bind_int64(st, i + 1, va_arg(ap, long long));
		} else {
			/* NaN and infinities (a time not measured) are stored as NULL */
			double d = va_arg(ap, double);
			rc = isfinite(d) ? sqlite3_bind_double(st, i + 1, d)
					 : sqlite3_bind_null(st, i + 1);
		}
		if (rc != SQLITE_OK) {
			va_end(ap);
			sqlite3_finalize(st);
			sql_error(db, "cannot bind a value");
			return NULL;
		}
	}
	va_end(ap);
	return st;
}

/* Runs a statement to completion; the first column of the first row, if any, into *out. */
static int step(struct db *db, sqlite3_stmt *st, long long *out)
{
	int rc;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (out) {
			*out = sqlite3_column_int64(st, 0);
			out = NULL;
		}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_error(db, "a statement failed");
	return 0;
}

int db_schema_version(struct db *db)
{
	long long v = -1;
	if (step(db, prepare(db, "PRAGMA user_version", ""), &v))
		return -1;
	return (int)v;
}

/* The version a schema or migration file sets, from its PRAGMA user_version line. */
static int declared_version(const char *sql)
{
	const char *p = sql;
	int v = -1;
	while ((p = strstr(p, "PRAGMA user_version = ")))
		sscanf(p++, "PRAGMA user_version = %d", &v);
	return v;
}

static int apply_file(struct db *db, const char *path)
{
	char *sql = read_file(path, NULL);
	int ret;

	if (!sql)
		return -1;
	ret = exec(db, sql);
	free(sql);
	return ret;
}

/* Finds <migrations>/<version>-*.sql; NULL when there is none. */
static char *migration_for(const char *dir, int version)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL, prefix[32];

	if (!d)
		return NULL;
	snprintf(prefix, sizeof(prefix), "%d-", version);
	while (!found && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)) && strstr(e->d_name, ".sql"))
			found = xasprintf("%s/%s", dir, e->d_name);
	closedir(d);
	return found;
}

static int migrate(struct db *db, const char *root)
{
	char *schema_path = xasprintf("%s/db/schema.sql", root);
	char *migrations = xasprintf("%s/db/migrations", root);
	char *schema = read_file(schema_path, NULL);
	int latest, version, ret = -1;

	if (!schema)
		goto out;
	latest = declared_version(schema);
	/*
	 * Foreign keys off while a migration rebuilds a table (SQLite's own
	 * recipe); they are checked before the commit and turned on again.
	 * The pragma is a no-op inside a transaction, so it goes first.
	 */
	if (exec(db, "PRAGMA foreign_keys = OFF"))
		goto out;
	/* IMMEDIATE: two graders creating one gradebook at once take turns */
	if (exec(db, "BEGIN IMMEDIATE"))
		goto out_fk;
	version = db_schema_version(db);
	if (version == 0) {
		if (exec(db, schema))
			goto out_rollback;
	} else if (version > latest) {
		error("gradebook '%s' has schema version %d, newer than this cudalab (%d)",
		      db->path, version, latest);
		goto out_rollback;
	}
	for (int v = version ? version + 1 : latest + 1; v <= latest; v++) {
		char *m = migration_for(migrations, v);
		if (!m) {
			error("no migration to gradebook schema version %d in '%s'", v, migrations);
			goto out_rollback;
		}
		int r = apply_file(db, m);
		free(m);
		if (r)
			goto out_rollback;
	}
	if (version != latest) {
		long long bad = 0;
		if (step(db, prepare(db, "SELECT count(*) FROM pragma_foreign_key_check", ""), &bad))
			goto out_rollback;
		if (bad) {
			error("gradebook '%s': the migration to schema version %d broke %lld "
			      "foreign keys; nothing was changed", db->path, latest, bad);
			goto out_rollback;
		}
	}
	if (exec(db, "COMMIT"))
		goto out_rollback;
	ret = 0;
	goto out_fk;
out_rollback:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
out_fk:
	if (exec(db, "PRAGMA foreign_keys = ON"))
		ret = -1;
out:
	free(schema);
	free(schema_path);
	free(migrations);
	return ret;
}

static int read_only(struct db *db)
{
	return error("gradebook '%s' is read-only here (the file, or the folder it is in): no "
		     "run could be stored in it", db->path);
}

/*
 * Whether the file is a gradebook, or empty and to become one, before
 * anything is written to it: any other file, an SQLite database of
 * something else included (tables, and no schema version), is refused
 * whole, never given the gradebook's tables.
 */
static int check_gradebook(struct db *db)
{
	sqlite3_stmt *st;
	long long objects = 0, version = 0;
	int rc = sqlite3_prepare_v2(db->h, "SELECT (SELECT count(*) FROM sqlite_master), "
					   "(SELECT user_version FROM pragma_user_version)",
				    -1, &st, NULL);

	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			objects = sqlite3_column_int64(st, 0);
			version = sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
	}
	if (rc != SQLITE_ROW && sqlite3_errcode(db->h) == SQLITE_NOTADB)
		return error("'%s' is not a gradebook: it is not an SQLite database", db->path);
	if (rc != SQLITE_ROW && sqlite3_errcode(db->h) == SQLITE_READONLY)
		return read_only(db);   /* WAL: reading writes the -shm file beside it */
	if (rc != SQLITE_ROW)
		return sql_error(db, "cannot read it");
	if (!version && objects)
		return error("'%s' is not a gradebook: an SQLite database of something else (tables "
			     "of its own, and no cudalab schema version)", db->path);
	return 0;
}

struct db *db_open(const char *path, const char *root)
{
	struct db *db = xcalloc(1, sizeof(*db));
	struct stat st;

	db->path = xstrdup(path);
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		error("gradebook '%s' is a folder; give a file", path);
		db_close(db);
		return NULL;
	}
	if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		error("cannot open gradebook '%s': %s", path,
		      db->h ? sqlite3_errmsg(db->h) : "out of memory");
		db_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db->h, 30000);
	if (check_gradebook(db)) {
		db_close(db);
		return NULL;
	}
	if (exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; "
		     "PRAGMA foreign_keys = ON;") ||
	    migrate(db, root)) {
		db_close(db);
		return NULL;
	}
	return db;
}

int db_check_writable(struct db *db)
{
	/* SQLite opens a file it may not write read-only, and says so only at a write */
	return sqlite3_db_readonly(db->h, "main") == 1 ? read_only(db) : 0;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	sqlite3_close(db->h);
	free(db->path);
	free(db);
}

static int upsert_id(struct db *db, const char *insert, const char *select, const char *a,
		     const char *b, long long *id)
{
	if (step(db, prepare(db, insert, b ? "tt" : "t", a, b), NULL))
		return -1;
	*id = -1;
	if (step(db, prepare(db, select, "t", a), id) || *id < 0)
		return sql_error(db, "cannot find a row just inserted");
	return 0;
}

void db_files_hash(const struct intake_file *files, size_t n, char out[65])
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s %s\n", files[i].name, files[i].sha256);
	sha256_hex(sb.buf ? sb.buf : "", sb.len, out);
	strbuf_release(&sb);
}

int db_has_run(struct db *db, const char *student, const char *lab, const char *version,
	       const char *files_hash)
{
	long long n = 0;
	if (step(db, prepare(db, "SELECT count(*) FROM runs JOIN submissions s ON s.id = "
				 "runs.submission_id JOIN students st ON st.id = s.student_id JOIN "
				 "labs l ON l.id = s.lab_id WHERE st.name = ?1 AND l.name = ?2 AND "
				 "runs.lab_version = ?3 AND s.files_hash = ?4",
			     "tttt", student, lab, version, files_hash),
		 &n))
		return -1;
	return n > 0;
}

static int store(struct db *db, const struct result *r, long long *run_id)
{
	long long student, lab, sub = -1;
	char hash[65], submitted[32], *json;
	int ret;

	if (upsert_id(db, "INSERT OR IGNORE INTO students(name) VALUES (?1)",
		      "SELECT id FROM students WHERE name = ?1", r->student ? r->student : "unknown",
		      NULL, &student) ||
	    upsert_id(db, "INSERT INTO labs(name, title) VALUES (?1, ?2) "
			  "ON CONFLICT(name) DO UPDATE SET title = excluded.title",
		      "SELECT id FROM labs WHERE name = ?1", r->lab, r->lab_title, &lab))
		return -1;

	db_files_hash(r->files, r->nfiles, hash);
	if (step(db, prepare(db, "INSERT OR IGNORE INTO submissions(student_id, lab_id, files_hash, "
				 "first_seen) VALUES (?1, ?2, ?3, ?4)",
			     "iitt", student, lab, hash, r->started_at),
		 NULL) ||
	    step(db, prepare(db, "SELECT id FROM submissions WHERE student_id = ?1 AND lab_id = ?2 "
				 "AND files_hash = ?3", "iit", student, lab, hash),
		 &sub))
		return -1;
	for (size_t i = 0; i < r->nfiles; i++)
		if (step(db, prepare(db, "INSERT OR IGNORE INTO submission_files VALUES (?1, ?2, ?3, ?4)",
				     "itti", sub, r->files[i].name, r->files[i].sha256,
				     (long long)r->files[i].size),
			 NULL))
			return -1;

	late_format_time(r->submitted_at, submitted, sizeof(submitted));
	json = result_to_json(r, false);
	ret = step(db, prepare(db, "INSERT INTO runs(submission_id, lab_version, started_at, seconds, "
				   "host, mode, gpu, driver, cuda_runtime, build, status, score, "
				   "max_score, bonus_score, exit_code, n_tests, result_json, "
				   "submitted_at, submitted_from, late_days, late_penalty) VALUES "
				   "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
				   "?16, ?17, ?18, ?19, ?20, ?21)",
			       "ittdtttttttdddiitttid", sub, r->lab_version, r->started_at,
			       r->seconds, r->host, run_mode_name(r->mode),
			       r->gpu.name ? r->gpu.name : "none", r->gpu.driver, r->gpu.runtime,
			       build_state_name(r->build), run_state_name(r->state), r->score,
			       r->max_score, r->bonus_score, (long long)result_exit_code(r),
			       (long long)r->ntests, json, r->submitted_at ? submitted : NULL,
			       r->submitted_from, (long long)(r->late.applied ? r->late.v.days : 0),
			       r->late.applied ? r->late.v.penalty : 0.0),
		   NULL);
	free(json);
	if (ret)
		return -1;
	*run_id = sqlite3_last_insert_rowid(db->h);

	for (size_t i = 0; i < r->ntests; i++) {
		const struct graded_test *t = &r->tests[i];
		sqlite3_stmt *st = prepare(db, "INSERT INTO test_results(run_id, part, name, status, "
					       "points, max_points, bonus, message, kind, seconds) "
					       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
					   "itttddittd", *run_id, t->part, t->name,
					   test_status_name(t->status), t->points, t->max_points,
					   (long long)t->bonus, t->message, test_kind_name(t->kind),
					   t->seconds >= 0 ? t->seconds : NAN);
		if (step(db, st, NULL))
			return -1;
		const struct timing_measure *m = t->timing;
		if (!m || !m->measured)
			continue;
		if (step(db, prepare(db, "INSERT INTO timings VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
					 "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
					 "?20, ?21)",
				     "itttiiiddddddddd" "iddtt", *run_id, t->part, t->name, m->kernel,
				     (long long)m->size, (long long)m->samples, (long long)m->capped,
				     m->student_ms, m->reference_ms, m->ratio, m->student_spread,
				     m->reference_spread, m->student_gflops, m->reference_gflops,
				     m->floor_ms, m->sm_clock_mhz, (long long)m->flagged,
				     m->student_gbs, m->reference_gbs, m->subject, m->baseline),
			 NULL))
			return -1;
	}
	return 0;
}

int db_store_run(struct db *db, const struct result *r, long long *run_id)
{
	if (exec(db, "BEGIN IMMEDIATE"))
		return -1;
	if (store(db, r, run_id) || exec(db, "COMMIT")) {
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

int db_latest_runs(struct db *db, const char *lab, const char *student, long long **ids,
		   size_t *n)
{
	sqlite3_stmt *st = prepare(db,
		"SELECT max(r.id) FROM runs r JOIN submissions b ON r.submission_id = b.id "
		"JOIN students s ON b.student_id = s.id JOIN labs l ON b.lab_id = l.id "
		"WHERE l.name = ?1 AND (?2 IS NULL OR s.name = ?2) GROUP BY s.id ORDER BY s.name",
		"tt", lab, student);
	int rc;

	*ids = NULL;
	*n = 0;
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*ids = xrealloc(*ids, (*n + 1) * sizeof(**ids));
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(db, "cannot list the latest runs");
}

static char *col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	return xstrdup(s ? (const char *)s : "");
}

int db_list_runs(struct db *db, const char *student, const char *lab, size_t limit,
		 struct run_summary **runs, size_t *n)
{
	sqlite3_stmt *st = prepare(db,
		"SELECT r.id, s.name, l.name, r.started_at, r.build, r.status, r.gpu, r.score, "
		"r.max_score, r.bonus_score, r.exit_code, r.n_tests, r.mode, r.late_days, "
		"r.late_penalty, (SELECT coalesce(sum(t.max_points), 0) FROM test_results t "
		"WHERE t.run_id = r.id AND t.status = 'not-run' AND NOT t.bonus "
		"AND r.build = 'ok') "
		"FROM runs r JOIN submissions b ON r.submission_id = b.id "
		"JOIN students s ON b.student_id = s.id JOIN labs l ON b.lab_id = l.id "
		"WHERE (?1 IS NULL OR s.name = ?1) AND (?2 IS NULL OR l.name = ?2) "
		/* by when they ran: a class stores its runs as they end, not as they began */
		"ORDER BY julianday(r.started_at) DESC, r.id DESC LIMIT ?3",
		"tti", student, lab, (long long)limit);
	int rc;

	*runs = NULL;
	*n = 0;
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*runs = xrealloc(*runs, (*n + 1) * sizeof(**runs));
		struct run_summary *s = &(*runs)[(*n)++];
		s->id = sqlite3_column_int64(st, 0);
		s->student = col_text(st, 1);
		s->lab = col_text(st, 2);
		s->started_at = col_text(st, 3);
		s->build = col_text(st, 4);
		s->status = col_text(st, 5);
		s->gpu = col_text(st, 6);
		s->score = sqlite3_column_double(st, 7);
		s->max_score = sqlite3_column_double(st, 8);
		s->bonus_score = sqlite3_column_double(st, 9);
		s->exit_code = sqlite3_column_int(st, 10);
		s->n_tests = sqlite3_column_int(st, 11);
		s->mode = col_text(st, 12);
		s->late_days = sqlite3_column_int(st, 13);
		s->late_penalty = sqlite3_column_double(st, 14);
		s->pending = sqlite3_column_double(st, 15);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(db, "cannot list runs");
}

struct score_view run_score_view(const struct run_summary *r)
{
	return (struct score_view){
		.final = final_score(r->score, r->late_penalty),
		.max = r->max_score,
		.bonus = r->bonus_score,
		.late = r->late_days > 0,
		.late_penalty = r->late_penalty,
		.pending = r->pending,
		.pending_gpu = mode_pending_gpu(run_mode_of(r->mode)),
	};
}

void db_free_runs(struct run_summary *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(runs[i].student);
		free(runs[i].lab);
		free(runs[i].started_at);
		free(runs[i].build);
		free(runs[i].status);
		free(runs[i].gpu);
		free(runs[i].mode);
	}
	free(runs);
}

int db_run_json(struct db *db, long long run_id, char **json)
{
	sqlite3_stmt *st = prepare(db, "SELECT result_json FROM runs WHERE id = ?1", "i", run_id);
	int rc;

	*json = NULL;
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*json = col_text(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return error("gradebook '%s' has no run %lld", db->path, run_id);
	return sql_error(db, "cannot read a run");
}

int db_verify(struct db *db, char **problem)
{
	static const char *const checks[] = {
		"SELECT 'integrity: ' || integrity_check FROM pragma_integrity_check "
		"WHERE integrity_check != 'ok'",
		"SELECT 'foreign key: ' || \"table\" || ' row ' || rowid FROM pragma_foreign_key_check",
		"SELECT 'run ' || r.id || ' has ' || (SELECT count(*) FROM test_results t "
		"WHERE t.run_id = r.id) || ' test rows, expected ' || r.n_tests FROM runs r "
		"WHERE r.n_tests != (SELECT count(*) FROM test_results t WHERE t.run_id = r.id)",
	};

	*problem = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(checks) && !*problem; i++) {
		sqlite3_stmt *st = prepare(db, checks[i], "");
		if (!st)
			return -1;
		if (sqlite3_step(st) == SQLITE_ROW)
			*problem = col_text(st, 0);
		sqlite3_finalize(st);
	}
	return *problem ? -1 : 0;
}
