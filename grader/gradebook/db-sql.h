/*
 * db-sql.h - what the gradebook's own files (db.c, db-store.c) share: the
 * handle and the helpers every statement goes through. Not for anyone
 * else: the rest of the grader speaks to the gradebook through db.h.
 */
#ifndef CUDALAB_DB_SQL_H
#define CUDALAB_DB_SQL_H

#include <sqlite3.h>

struct db {
	sqlite3 *h;
	char *path;
};

/* Reports what failed in SQLite's own words, and whether the machine did: -1. */
int dbi_sql_error(struct db *db, const char *what);
/* Runs sql (statements without arguments): 0, or -1 having said why. */
int dbi_exec(struct db *db, const char *sql);
/*
 * Prepares sql and binds the arguments described by types: 't' text (NULL
 * binds NULL), 'i' long long, 'd' double (not finite: NULL), 'b' a blob (two
 * arguments: the bytes, and how many as long long). NULL on error.
 */
sqlite3_stmt *dbi_prepare(struct db *db, const char *sql, const char *types, ...);
/* Runs st to completion and finalizes it; the first column of the first row,
 * if any, into *out (out may be NULL). st NULL: -1. */
int dbi_step(struct db *db, sqlite3_stmt *st, long long *out);

#endif
