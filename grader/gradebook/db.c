/*
 * db.c - the gradebook: opening it, its schema and migrations, and reading
 * runs (storing one is db-store.c's).
 *
 * Owns: every SQL statement but those that store a run. One transaction per run (BEGIN IMMEDIATE ...
 * COMMIT) in WAL mode with synchronous=FULL (rollback mode on a network
 * filesystem, where WAL does not work): a grader killed at any point leaves
 * either the whole run or none of it, and never loses a committed one. A run
 * is stored from its result document, whoever wrote it: this grader, or an
 * array task of a cluster whose document a collector hands over.
 */
#include "db.h"
#include "db-sql.h"
#include "doc.h"

#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/vfs.h>

/* the last failure was the machine's (db_system_fault) */
static bool system_fault;

/*
 * Notes whether db's last error is the machine's: its disk full or
 * failing, or memory short, not what it was asked or given. A fault of the
 * machine says so.
 */
static const char *note_fault(struct db *db)
{
	int code = db->h ? sqlite3_extended_errcode(db->h) & 0xff : SQLITE_NOMEM;

	system_fault = code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_NOMEM;
	return system_fault ? " (a fault of the machine, not of the gradebook: is its disk full?)"
			    : "";
}

bool db_system_fault(void)
{
	return system_fault;
}

int dbi_sql_error(struct db *db, const char *what)
{
	return error("gradebook '%s': %s: %s%s", db->path, what, sqlite3_errmsg(db->h),
		     note_fault(db));
}

int dbi_exec(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("gradebook '%s': %s%s", db->path, msg ? msg : sqlite3_errmsg(db->h),
		      note_fault(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

sqlite3_stmt *dbi_prepare(struct db *db, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		dbi_sql_error(db, "cannot prepare a statement");
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
		} else if (types[i] == 'b') {   /* two arguments: the bytes, and how many */
			const void *b = va_arg(ap, const void *);
			long long len = va_arg(ap, long long);
			rc = sqlite3_bind_blob64(st, i + 1, b ? b : "", (sqlite3_uint64)len,
						 SQLITE_TRANSIENT);
		} else {
			/* NaN and infinities (a time not measured) are stored as NULL */
			double d = va_arg(ap, double);
			rc = isfinite(d) ? sqlite3_bind_double(st, i + 1, d)
					 : sqlite3_bind_null(st, i + 1);
		}
		if (rc != SQLITE_OK) {
			va_end(ap);
			sqlite3_finalize(st);
			dbi_sql_error(db, "cannot bind a value");
			return NULL;
		}
	}
	va_end(ap);
	return st;
}

int dbi_step(struct db *db, sqlite3_stmt *st, long long *out)
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
		return dbi_sql_error(db, "a statement failed");
	return 0;
}

int db_schema_version(struct db *db)
{
	long long v = -1;
	if (dbi_step(db, dbi_prepare(db, "PRAGMA user_version", ""), &v))
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
	ret = dbi_exec(db, sql);
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
	if (dbi_exec(db, "PRAGMA foreign_keys = OFF"))
		goto out;
	/* IMMEDIATE: two graders creating one gradebook at once take turns */
	if (dbi_exec(db, "BEGIN IMMEDIATE"))
		goto out_fk;
	version = db_schema_version(db);
	if (version == 0) {
		if (dbi_exec(db, schema))
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
		if (dbi_step(db, dbi_prepare(db, "SELECT count(*) FROM pragma_foreign_key_check", ""), &bad))
			goto out_rollback;
		if (bad) {
			error("gradebook '%s': the migration to schema version %d broke %lld "
			      "foreign keys; nothing was changed", db->path, latest, bad);
			goto out_rollback;
		}
	}
	if (dbi_exec(db, "COMMIT"))
		goto out_rollback;
	ret = 0;
	goto out_fk;
out_rollback:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
out_fk:
	if (dbi_exec(db, "PRAGMA foreign_keys = ON"))
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
		return dbi_sql_error(db, "cannot read it");
	if (!version && objects)
		return error("'%s' is not a gradebook: an SQLite database of something else (tables "
			     "of its own, and no cudalab schema version)", db->path);
	return 0;
}

bool db_on_network_fs(const char *path, const char **fs_name)
{
	/* f_type of statfs(2): <linux/magic.h>, and the out-of-tree ones' own */
	static const struct {
		uint32_t magic;
		const char *name;
	} network[] = {
		{0x6969, "NFS"},          {0xFF534D42, "SMB/CIFS"}, {0xFE534D42, "SMB2/3"},
		{0x00C36400, "Ceph"},     {0x65735546, "FUSE"},     {0x01021997, "9p"},
		{0x5346414F, "AFS"},      {0x0BD00BD0, "Lustre"},   {0x47504653, "GPFS"},
		{0x19830326, "BeeGFS"},
	};
	struct statfs st;
	int rc = statfs(path, &st);

	if (rc) {   /* no file yet: its folder, where SQLite will make it */
		const char *slash = strrchr(path, '/');
		char *dir = !slash ? xstrdup(".")
				   : xstrndup(path, slash == path ? 1 : (size_t)(slash - path));
		rc = statfs(dir, &st);
		free(dir);
	}
	for (size_t i = 0; !rc && i < ARRAY_SIZE(network); i++)
		if ((uint32_t)st.f_type == network[i].magic) {
			if (fs_name)
				*fs_name = network[i].name;
			return true;
		}
	return false;
}

/*
 * The journal mode for a gradebook on fs (NULL: a local one): WAL, where
 * readers never wait for the writer; on a network filesystem, SQLite's WAL
 * index is shared memory that other hosts cannot see, so the rollback
 * journal, with its one writer at a time, said once a process.
 */
static int set_journal_mode(struct db *db, const char *fs)
{
	static bool warned;
	sqlite3_stmt *st;
	int rc;

	if (!fs)
		return dbi_exec(db, "PRAGMA journal_mode = WAL");
	if (!warned)
		warning("the gradebook '%s' is on a network filesystem (%s), where SQLite's WAL "
			"mode does not work: it is opened in rollback mode instead (journal_mode "
			"DELETE), and only one cudalab may write it at a time. To grade a class, "
			"keep the gradebook on a local disk (--db /var/tmp/NAME.db), or on a "
			"cluster have each grading write its result document (--json) and "
			"`cudalab collect` them into one gradebook", db->path, fs);
	warned = true;
	st = dbi_prepare(db, "PRAGMA journal_mode = DELETE", "");
	if (!st)
		return -1;
	/*
	 * Leaving WAL needs the gradebook to itself: with another connection
	 * open it fails at once ("database is locked"), busy timeout or not.
	 * It answers the mode it is in, which must then be delete.
	 */
	rc = sqlite3_step(st);
	const unsigned char *mode = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
	bool done = mode && !strcmp((const char *)mode, "delete");
	if (rc != SQLITE_ROW)
		dbi_sql_error(db, "cannot leave WAL mode (is another program using it?)");
	else if (!done)
		error("gradebook '%s' stays in journal mode %s, not delete", db->path, mode);
	sqlite3_finalize(st);
	return done ? 0 : -1;
}

struct db *db_open(const char *path, const char *root)
{
	struct db *db = xcalloc(1, sizeof(*db));
	const char *fs = NULL;
	struct stat st;

	db->path = xstrdup(path);
	system_fault = false;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		error("gradebook '%s' is a folder; give a file", path);
		db_close(db);
		return NULL;
	}
	if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		error("cannot open gradebook '%s': %s%s", path,
		      db->h ? sqlite3_errmsg(db->h) : "out of memory", note_fault(db));
		db_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db->h, 30000);
	if (check_gradebook(db)) {
		db_close(db);
		return NULL;
	}
	if (!db_on_network_fs(path, &fs))
		fs = NULL;
	if (set_journal_mode(db, fs) ||
	    dbi_exec(db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;") ||
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

int db_has_run(struct db *db, const char *student, const char *lab, const char *version,
	       const char *files_hash, const char *refusal)
{
	/*
	 * A run is stored under the name its document gives the student, as
	 * visible_text shows it (one line); gradebooks from before that hold
	 * the name with only its bytes that are not UTF-8 replaced, or as it was.
	 */
	char *clean = utf8_clean(student), *shown = visible_str(student, true);
	long long n = 0;
	int rc = dbi_step(db, dbi_prepare(db, "SELECT count(*) FROM runs JOIN submissions s ON s.id = "
				      "runs.submission_id JOIN students st ON st.id = s.student_id "
				      "JOIN labs l ON l.id = s.lab_id WHERE st.name IN (?1, ?5, ?6) "
				      "AND l.name = ?2 AND runs.lab_version = ?3 "
				      "AND s.files_hash = ?4 AND (?7 IS NULL OR (runs.build = 'refused' "
				      "AND json_extract(runs.result_json, '$.build.message') = ?7))",
				  "ttttttt", student, lab, version, files_hash, clean, shown, refusal),
		      &n);
	free(clean);
	free(shown);
	return rc ? -1 : n > 0;
}

int db_latest_runs(struct db *db, const char *lab, const char *student, long long **ids,
		   size_t *n)
{
	sqlite3_stmt *st = dbi_prepare(db,
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
	return rc == SQLITE_DONE ? 0 : dbi_sql_error(db, "cannot list the latest runs");
}

static char *col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	return xstrdup(s ? (const char *)s : "");
}

/*
 * A stored run's score as people read it: its own document's (doc.h), so
 * that it reads as the run's page and exports read it; from the columns,
 * with nothing pending, where the document cannot be read.
 */
static struct score_view stored_view(const struct run_summary *s, const char *result_json)
{
	json_t *doc = result_json ? json_loads(result_json, 0, NULL) : NULL;

	if (json_is_object(doc)) {
		struct score_view v = doc_score_view(doc);
		if (!json_is_string(json_object_get(doc, "mode")))   /* older than runs' mode */
			v.pending_gpu = mode_pending_gpu(run_mode_of(s->mode));
		json_decref(doc);
		return v;
	}
	json_decref(doc);
	return (struct score_view){
		.final = final_score(s->score, s->late_penalty),
		.max = s->max_score,
		.bonus = s->bonus_score,
		.late = s->late_days > 0,
		.late_penalty = s->late_penalty,
		.pending_gpu = mode_pending_gpu(run_mode_of(s->mode)),
	};
}

int db_list_runs(struct db *db, const char *student, const char *lab, size_t limit,
		 struct run_summary **runs, size_t *n)
{
	sqlite3_stmt *st = dbi_prepare(db,
		"SELECT r.id, s.name, l.name, r.started_at, r.build, r.status, r.gpu, r.score, "
		"r.max_score, r.bonus_score, r.exit_code, r.n_tests, r.mode, r.late_days, "
		"r.late_penalty, r.result_json "
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
		s->view = stored_view(s, (const char *)sqlite3_column_text(st, 15));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : dbi_sql_error(db, "cannot list runs");
}

struct score_view run_score_view(const struct run_summary *r)
{
	return r->view;
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

int db_file_content(struct db *db, const char *sha256, char **data, size_t *len)
{
	sqlite3_stmt *st = dbi_prepare(db, "SELECT content FROM file_contents WHERE sha256 = ?1", "t",
				   sha256);
	int rc, ret = 1;

	*data = NULL;
	*len = 0;
	if (!st)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const void *b = sqlite3_column_blob(st, 0);
		*len = (size_t)sqlite3_column_bytes(st, 0);
		*data = xmalloc(*len + 1);
		if (*len)
			memcpy(*data, b, *len);
		(*data)[*len] = '\0';
		ret = 0;
	} else if (rc != SQLITE_DONE) {
		ret = dbi_sql_error(db, "cannot read a file's contents");
	}
	sqlite3_finalize(st);
	return ret;
}

int db_run_json(struct db *db, long long run_id, char **json)
{
	sqlite3_stmt *st = dbi_prepare(db, "SELECT result_json FROM runs WHERE id = ?1", "i", run_id);
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
	return dbi_sql_error(db, "cannot read a run");
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
		sqlite3_stmt *st = dbi_prepare(db, checks[i], "");
		if (!st)
			return -1;
		if (sqlite3_step(st) == SQLITE_ROW)
			*problem = col_text(st, 0);
		sqlite3_finalize(st);
	}
	return *problem ? -1 : 0;
}
