/*
 * late.h - deadlines: when a submission was due, how late it came, and what
 * the lab's late policy takes off for that (lab.conf [deadline] and
 * [extensions]).
 *
 * Owns: reading times, the per-student due time, the penalty arithmetic.
 * Must not: guess when something was submitted. The grader is told (a time,
 * or a file of times); a submission whose time it was not told is not late,
 * and says the policy was not applied.
 */
#ifndef LATE_H
#define LATE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct lab_extension {
	char *student;
	time_t due;        /* a new due time, when not days */
	double days;       /* more days past the lab's due time, when > 0 */
};

struct lab_deadline {
	bool set;              /* [deadline] due = ... was given */
	time_t due;
	double grace;          /* seconds past the due time that are still on time */
	double per_day;        /* percent of the score taken per day late, a day begun counting */
	int max_days;          /* later than this many days: no points; -1: no such limit */
	struct lab_extension *ext;
	size_t next;
};

/*
 * A time: "YYYY-MM-DD HH:MM[:SS[.FRACTION]]" (or with a "T"; the fraction
 * dropped) and a zone ("Z", "+01:00",
 * "-0500"; none: the local zone, TZ), or "YYYY-MM-DD" (the end of that day).
 * Returns 0, or -1 for anything else ("now" too: a deadline or a time from
 * a file is never the moment it is read).
 */
int late_parse_time(const char *s, time_t *out);
/* t in UTC, "2026-12-04T22:59:00Z", into buf (at least 21 bytes). */
void late_format_time(time_t t, char *buf, size_t len);

/* A [deadline] or [extensions] key; the message for a bad one in msg. */
int late_deadline_key(struct lab_deadline *d, const char *key, const char *value, char *msg,
		      size_t msglen);
int late_extension_key(struct lab_deadline *d, const char *student, const char *value, char *msg,
		       size_t msglen);
void late_deadline_free(struct lab_deadline *d);

/* What the policy makes of one submission. */
struct late_verdict {
	time_t due;          /* the student's due time, extension included */
	bool extended;
	int days;            /* days late, a day begun counting; 0: on time */
	double penalty;      /* points taken off */
	bool beyond;         /* later than max_days: no points */
};

/* For a submission of student at time submitted, whose score was score. */
void late_judge(const struct lab_deadline *d, const char *student, time_t submitted,
		double score, struct late_verdict *v);

#endif
