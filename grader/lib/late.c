/*
 * late.c - deadlines, extensions and the late penalty (late.h).
 */
#include "late.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar. */
static long long days_from_civil(long long y, unsigned m, unsigned d)
{
	y -= m <= 2;
	long long era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long long)doe - 719468;
}

static bool valid_date(int y, int mo, int d)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1])
		return false;
	return mo != 2 || d < 29 || (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
}

/* "Z", "+HH:MM", "+HHMM", "+HH" (or '-'): the zone's offset east of UTC. */
static int parse_zone(const char *s, long *offset)
{
	int h, m = 0, n = 0;

	if (!strcmp(s, "Z") || !strcmp(s, "UTC")) {
		*offset = 0;
		return 0;
	}
	if ((s[0] != '+' && s[0] != '-') || !isdigit((unsigned char)s[1]))
		return -1;
	if (!((sscanf(s + 1, "%2d:%2d%n", &h, &m, &n) == 2 && n == 5) ||
	      (sscanf(s + 1, "%2d%2d%n", &h, &m, &n) == 2 && n == 4) ||
	      (sscanf(s + 1, "%2d%n", &h, &n) == 1 && n == 2 && (m = 0, 1))) ||
	    s[1 + n] || h > 14 || m > 59)
		return -1;
	*offset = (s[0] == '-' ? -1 : 1) * (h * 3600L + m * 60L);
	return 0;
}

int late_parse_time(const char *s, time_t *out)
{
	int y, mo, d, h = 23, mi = 59, sec = 59, n = 0;
	long offset = 0;
	bool zoned = false;

	while (isspace((unsigned char)*s))
		s++;
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10 || !valid_date(y, mo, d))
		return -1;
	s += n;
	if (*s == 'T' || (*s == ' ' && isdigit((unsigned char)s[1]))) {
		sec = 0;
		if (sscanf(s + 1, "%2d:%2d%n", &h, &mi, &n) != 2 || n != 5)
			return -1;
		s += 1 + n;
		if (*s == ':' && (sscanf(s + 1, "%2d%n", &sec, &n) != 1 || n != 2))
			return -1;
		bool seconds = *s == ':';
		if (seconds)
			s += 3;
		/* a fraction of a second (Gradescope's times have microseconds): dropped */
		if (seconds && *s == '.' && isdigit((unsigned char)s[1]))
			for (s++; isdigit((unsigned char)*s); s++)
				;
		if (h > 23 || mi > 59 || sec > 60)
			return -1;
	}
	while (*s == ' ')
		s++;
	if (*s) {
		if (parse_zone(s, &offset))
			return -1;
		zoned = true;
	}
	if (zoned) {
		*out = (time_t)(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset);
		return 0;
	}
	struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
			.tm_min = mi, .tm_sec = sec, .tm_isdst = -1};
	*out = mktime(&tm);
	return *out == (time_t)-1 ? -1 : 0;
}

void late_format_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* "N" or "Nd" days, "Nh" hours, "Nm" minutes: seconds, or -1. */
static double parse_span(const char *v)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v || x < 0 || !isfinite(x))
		return -1;
	while (*end == ' ')
		end++;
	if (!*end || !strcmp(end, "d"))
		return x * 86400;
	if (!strcmp(end, "h"))
		return x * 3600;
	if (!strcmp(end, "m"))
		return x * 60;
	return -1;
}

int late_deadline_key(struct lab_deadline *d, const char *key, const char *value, char *msg,
		      size_t msglen)
{
	char *end;
	double x;

	if (strcmp(key, "due") && strcmp(key, "grace") && strcmp(key, "penalty_per_day") &&
	    strcmp(key, "max_late_days")) {
		snprintf(msg, msglen, "unknown key '%s' in [deadline]", key);
		return -1;
	}
	if (!strcmp(key, "due")) {
		if (late_parse_time(value, &d->due))
			goto bad_time;
		d->set = true;
		return 0;
	}
	if (!strcmp(key, "grace")) {
		if ((d->grace = parse_span(value)) < 0)
			goto bad;
		return 0;
	}
	x = strtod(value, &end);
	if (end != value && *end == '%')
		end++;
	if (end == value || *end || !isfinite(x) || x < 0)
		goto bad;
	if (!strcmp(key, "penalty_per_day") && x <= 100)
		d->per_day = x;
	else if (!strcmp(key, "max_late_days") && x == (int)x && x < 10000)
		d->max_days = (int)x;
	else
		goto bad;
	return 0;
bad:
	snprintf(msg, msglen, "bad %s '%s'", key, value);
	return -1;
bad_time:
	snprintf(msg, msglen, "bad %s '%s': give 'YYYY-MM-DD HH:MM' and a zone, e.g. "
		 "'2026-12-04 23:59 +01:00'", key, value);
	return -1;
}

int late_extension_key(struct lab_deadline *d, const char *student, const char *value, char *msg,
		       size_t msglen)
{
	struct lab_extension e = {0};

	for (size_t i = 0; i < d->next; i++)
		if (!strcmp(d->ext[i].student, student)) {
			snprintf(msg, msglen, "two extensions for '%s'", student);
			return -1;
		}
	if (late_parse_time(value, &e.due)) {
		double s = parse_span(value);
		if (s <= 0) {
			snprintf(msg, msglen, "extension of '%s': '%s' is neither a time nor a "
				 "number of days ('2d', '36h')", student, value);
			return -1;
		}
		e.days = s / 86400;
	}
	e.student = xstrdup(student);
	d->ext = xrealloc(d->ext, (d->next + 1) * sizeof(*d->ext));
	d->ext[d->next++] = e;
	return 0;
}

void late_deadline_free(struct lab_deadline *d)
{
	for (size_t i = 0; i < d->next; i++)
		free(d->ext[i].student);
	free(d->ext);
	d->ext = NULL;
	d->next = 0;
}

void late_judge(const struct lab_deadline *d, const char *student, time_t submitted,
		double score, struct late_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->due = d->due;
	for (size_t i = 0; student && i < d->next; i++) {
		if (strcmp(d->ext[i].student, student))
			continue;
		v->due = d->ext[i].days > 0 ? d->due + (time_t)llround(d->ext[i].days * 86400)
					    : d->ext[i].due;
		v->extended = true;
	}
	double late = difftime(submitted, v->due) - d->grace;
	if (late <= 0)
		return;
	v->days = (int)ceil(late / 86400);
	if (d->max_days >= 0 && v->days > d->max_days) {
		v->beyond = true;
		v->penalty = score;
		return;
	}
	double percent = d->per_day * v->days;
	v->penalty = score * (percent >= 100 ? 1 : percent / 100);
}
