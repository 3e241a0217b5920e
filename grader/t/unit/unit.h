/* unit.h - the suites of the grader's unit-test binary (one file each). */
#ifndef UNIT_H
#define UNIT_H

#include <check.h>
#include <stdlib.h>

Suite *audit_suite(void);
Suite *config_suite(void);
Suite *result_suite(void);
Suite *db_suite(void);
Suite *intake_suite(void);
Suite *run_suite(void);
Suite *checklog_suite(void);
Suite *rewrite_suite(void);
Suite *timing_suite(void);
Suite *profile_suite(void);
Suite *scan_suite(void);
Suite *late_suite(void);
Suite *options_suite(void);
Suite *grading_suite(void);
Suite *safety_suite(void);
Suite *export_suite(void);
Suite *gpulock_suite(void);
Suite *batch_suite(void);
Suite *devcache_suite(void);
Suite *htmlreport_suite(void);
Suite *similar_suite(void);
Suite *util_suite(void);
Suite *toolfault_suite(void);
Suite *includes_suite(void);
Suite *expect_suite(void);

/* A fresh folder for one test, removed by the caller with remove_tree. */
char *unit_tmpdir(void);
struct lab_config;
/* Parses text as a lab.conf into cfg: 0 when it parses and validates. */
int unit_parse_lab(const char *text, struct lab_config *cfg);
/* The checkout, for files the tests read (db/schema.sql, labs/). */
const char *unit_root(void);
/*
 * What the sqlite3 shell prints for sql (one statement or several, no
 * double quotes) on the gradebook at path, into out; fails the test when
 * the shell cannot run.
 */
const char *unit_sqlite(const char *path, const char *sql, char *out, size_t len);

#endif
