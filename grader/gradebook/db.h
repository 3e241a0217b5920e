/*
 * db.h - the SQLite gradebook. db.c is the only file that speaks SQL.
 */
#ifndef DB_H
#define DB_H

#include "result.h"

#include <jansson.h>
#include <stdbool.h>

struct db;

/*
 * Opens (creating if needed) the gradebook at path, and brings its schema up
 * to date from <root>/db/schema.sql and <root>/db/migrations/. NULL, with
 * an error naming the file, for a file that is no gradebook (a folder,
 * not SQLite, another program's database) or one that cannot be opened.
 * In WAL mode; on a network filesystem (db_on_network_fs), where WAL does
 * not work, in rollback mode (journal_mode DELETE, which turns a WAL
 * gradebook back), with a warning, once a process, that one cudalab at a
 * time may write it there.
 */
struct db *db_open(const char *path, const char *root);
/*
 * Whether the gradebook at path is on a network filesystem (statfs(2) of
 * the file, a link followed, or of its folder when there is no file yet):
 * NFS, SMB/CIFS, Ceph, FUSE, 9p, AFS, Lustre, GPFS, BeeGFS. *fs_name (when
 * not NULL) gets its name for people ("NFS"). False where statfs fails: the
 * folder does not exist, and opening it will say so.
 */
bool db_on_network_fs(const char *path, const char **fs_name);
void db_close(struct db *db);
/*
 * Whether the last db_* call that failed failed for the machine (SQLite's
 * FULL, IOERR, NOMEM: a full or failing disk), not for what it was given:
 * the grader's own failure (exit 128), never a usage error.
 */
bool db_system_fault(void);
/* 0 when runs can be stored in the gradebook, else -1 with an error (a read-only file). */
int db_check_writable(struct db *db);
int db_schema_version(struct db *db);

/*
 * Whether the gradebook holds a run of student's submission with these files
 * (db_files_hash) for lab at lab version: 1 yes, 0 no, -1 on error. A run of
 * the grader's own failure is never stored, so any run counts. refusal: the
 * submission is one intake refuses, for this reason (its files: those it
 * accepted); only a run refused for the same reason counts. NULL: one it
 * accepts.
 */
int db_has_run(struct db *db, const char *student, const char *lab, const char *version,
	       const char *files_hash, const char *refusal);
/* sha256 over "NAME SHA256\n" of each file, in the lab's order: names a submission. */
void db_files_hash(const struct intake_file *files, size_t n, char out[65]);
/* The same, of a result document's "files" array (the run's submission). */
void db_doc_files_hash(json_t *files, char out[65]);

/*
 * The latest run of each student (only student's when not NULL) for lab, by
 * the students' names: what a grade export reports. *ids is allocated.
 */
int db_latest_runs(struct db *db, const char *lab, const char *student, long long **ids,
		   size_t *n);

/*
 * Stores one run in one transaction; *run_id gets its id. The rows are
 * db_store_doc's of r's result document (result_document), with no origin.
 */
int db_store_run(struct db *db, const struct result *r, long long *run_id);
/*
 * Stores the run a result document describes (students, labs, submissions
 * and their files, runs, test_results, timings: every column from the
 * document, result_json its compact text) in one transaction (BEGIN
 * IMMEDIATE ... COMMIT): a writer killed at any point leaves the whole run
 * or none of it. origin names where the document came from, unique in the
 * gradebook ("sha256:<hex of the file>"), NULL for none (a run graded
 * here). Returns 0 when stored, *run_id its id; 1 when the gradebook
 * already holds a run of this origin, *run_id that run, nothing stored; -1
 * with an error naming what is wrong for a document that is not a cudalab
 * result document, is of another schema than RESULT_SCHEMA, or lacks a
 * field the gradebook needs (or has it of another type), and when the
 * gradebook fails.
 */
int db_store_doc(struct db *db, json_t *doc, const char *origin, long long *run_id);

struct run_summary {
	long long id;
	char *student, *lab, *started_at, *build, *status, *gpu, *mode;
	double score, max_score, bonus_score;   /* the tests' */
	int exit_code, n_tests;
	int late_days;
	double late_penalty;   /* points lateness took: the student's score is score - this */
	struct score_view view;   /* as people read it: from its result document (doc.h) */
};
/* The score as people read it (result.h's score_view): its document's. */
struct score_view run_score_view(const struct run_summary *r);

/*
 * The latest runs, newest first: by the time each began, then by id (the
 * order they were stored in); student and lab filter when not NULL.
 */
int db_list_runs(struct db *db, const char *student, const char *lab, size_t limit,
		 struct run_summary **runs, size_t *n);
void db_free_runs(struct run_summary *runs, size_t n);
/*
 * The bytes of a graded file by its sha256 (file_contents) into *data
 * (NUL-terminated, *len without it; free it): 0, 1 when the gradebook has
 * none (a run stored before it kept files), -1 on error.
 */
int db_file_content(struct db *db, const char *sha256, char **data, size_t *len);
/* The stored result document of a run. */
int db_run_json(struct db *db, long long run_id, char **json);

/*
 * Consistency of the whole gradebook: SQLite's integrity check, foreign
 * keys, and every run having exactly its n_tests test rows. 0 when sound;
 * otherwise -1 with the first problem in *problem.
 */
int db_verify(struct db *db, char **problem);

#endif
