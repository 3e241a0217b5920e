/*
 * leaderboard.h - a timed lab's leaderboard, where lab.conf opts in
 * (leaderboard = yes, names): each student's latest run ranked by how fast
 * its kernels ran against the reference's, on the class's dashboard and in
 * Gradescope's leaderboard field (docs/commands/report.md, "Leaderboard").
 *
 * Owns: a run's place on it (every timed kernel measured against the
 * reference, none flagged), its speed, and the name it is shown under.
 * Must not: change a score; a leaderboard only shows what the timing
 * measured.
 */
#ifndef LEADERBOARD_H
#define LEADERBOARD_H

#include "doc.h"

#include <jansson.h>

#include <stdbool.h>
#include <stddef.h>

/* lab.conf's leaderboard: off (the default), on under pseudonyms, on under names. */
enum leaderboard_mode { LEADERBOARD_OFF, LEADERBOARD_PSEUDONYMS, LEADERBOARD_NAMES };

/* "no", "yes" or "pseudonyms", "names" into *mode; -1 for anything else. */
int leaderboard_parse(const char *value, int *mode);

/*
 * How fast doc's timed kernels ran against the reference's: the geometric
 * mean over them of the reference's time over the student's (2: twice as
 * fast). False where the run has none, or one was not measured against
 * the reference (not run, failed before it was timed, provisional) or was
 * flagged for review: such a run is not ranked.
 */
bool leaderboard_speed(json_t *doc, double *speed);
/* The same of a run's timed tests (doc_timing_rows), for a caller that has them. */
bool leaderboard_rows_speed(const struct timing_row *rows, size_t n, bool provisional,
			    double *speed);

/* Whether r is timed against the reference (not against another launcher of the submission). */
static inline bool leaderboard_against_reference(const struct timing_row *r)
{
	return !*r->subject && !*r->baseline;
}

/*
 * The name a student is shown under: lab and student hashed with the
 * course's secret salt into two words and a number ("amber-heron-0742"), so
 * a classmate who knows the names cannot tell whose is whose. Allocated.
 */
char *leaderboard_pseudonym(const char *salt, const char *lab, const char *student);

/*
 * The course's salt for pseudonyms, kept beside the gradebook at db_path in
 * DB_PATH.leaderboard-salt (made on first use, readable by its owner only):
 * the same pseudonyms every time the dashboard is made. -1 with an error
 * when it can be neither read nor made.
 */
int leaderboard_salt(const char *db_path, char **salt);

#endif
