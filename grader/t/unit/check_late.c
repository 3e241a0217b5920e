/* Unit tests of late.c: reading times, extensions, and the penalty arithmetic. */
#include "config.h"
#include "late.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#define LAB "[lab]\nname = demo\nfiles = a.cu\n[part p]\ntests = a:1\n"
#define DAY 86400

static time_t at(const char *s)
{
	time_t t;
	ck_assert_msg(late_parse_time(s, &t) == 0, "'%s' did not parse", s);
	return t;
}

START_TEST(test_late_times_and_zones)
{
	char buf[32];
	time_t t;

	/* 2026-12-04 22:59:00 UTC is 1796425140 */
	ck_assert_int_eq(at("2026-12-04 23:59 +01:00"), 1796425140);
	ck_assert_int_eq(at("2026-12-04T22:59:00Z"), 1796425140);
	ck_assert_int_eq(at("2026-12-04 17:59 -0500"), 1796425140);
	ck_assert_int_eq(at("2026-12-04T22:59Z"), 1796425140);
	ck_assert_int_eq(at("2026-12-05 00:59:00 +02"), 1796425140);
	/* a fraction of a second is dropped (Gradescope's export writes nanoseconds) */
	ck_assert_int_eq(at("2026-12-04 15:59:00.365935000 -07:00"), 1796425140);
	ck_assert_int_eq(at("2026-12-04T22:59:00.5Z"), 1796425140);
	/* a day alone is its last second */
	ck_assert_int_eq(at("2026-12-04 Z"), at("2026-12-04 23:59:59 Z"));
	late_format_time(1796425140, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2026-12-04T22:59:00Z");
	/* no zone: the local one */
	setenv("TZ", "UTC", 1);
	tzset();
	ck_assert_int_eq(at("2026-12-04 22:59"), 1796425140);
	/* leap days */
	ck_assert_int_eq(at("2028-02-29 00:00 Z") - at("2028-02-28 00:00 Z"), DAY);
	static const char *const bad[] = {"2026-02-29 10:00 Z", "2026-13-01 10:00 Z",
					  "2026-12-04 24:00 Z", "2026-12-04 10:00 +25:00",
					  "yesterday", "2026-12-04 10:00 CET", "1969-12-31 Z",
					  "2026-12-4 10:00 Z", "2026-12-04 10:00.5 Z",
					  "2026-12-04 10:00:00. Z", ""};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_msg(late_parse_time(bad[i], &t) == -1, "'%s' parsed", bad[i]);
}
END_TEST

START_TEST(test_late_penalty_arithmetic)
{
	struct lab_config cfg;
	struct late_verdict v;

	ck_assert_int_eq(unit_parse_lab(LAB "[deadline]\ndue = 2026-12-04 23:59 +01:00\n"
				   "grace = 15m\npenalty_per_day = 10%\nmax_late_days = 3\n", &cfg), 0);
	time_t due = at("2026-12-04 22:59 Z");
	/* on time, and within the grace */
	late_judge(&cfg.deadline, "ada", due - 3600, 40, &v);
	ck_assert_int_eq(v.days, 0);
	ck_assert_double_eq(v.penalty, 0);
	late_judge(&cfg.deadline, "ada", due + 15 * 60, 40, &v);
	ck_assert_int_eq(v.days, 0);
	/* a second past the grace is a day begun: 10 % */
	late_judge(&cfg.deadline, "ada", due + 15 * 60 + 1, 40, &v);
	ck_assert_int_eq(v.days, 1);
	ck_assert_double_eq_tol(v.penalty, 4, 1e-9);
	/* 1 day and 1 minute past the grace: two days */
	late_judge(&cfg.deadline, "ada", due + 15 * 60 + DAY + 60, 40, &v);
	ck_assert_int_eq(v.days, 2);
	ck_assert_double_eq_tol(v.penalty, 8, 1e-9);
	/* the last day taken, then beyond it: nothing */
	late_judge(&cfg.deadline, "ada", due + 3 * DAY, 40, &v);
	ck_assert_int_eq(v.days, 3);
	ck_assert(!v.beyond);
	ck_assert_double_eq_tol(v.penalty, 12, 1e-9);
	late_judge(&cfg.deadline, "ada", due + 3 * DAY + 15 * 60 + 1, 40, &v);
	ck_assert_int_eq(v.days, 4);
	ck_assert(v.beyond);
	ck_assert_double_eq(v.penalty, 40);
	config_free(&cfg);

	/* no more than the score is taken, and no limit means none */
	ck_assert_int_eq(unit_parse_lab(LAB "[deadline]\ndue = 2026-12-04 Z\n"
				   "penalty_per_day = 30\n", &cfg), 0);
	late_judge(&cfg.deadline, "ada", at("2026-12-09 Z"), 50, &v);
	ck_assert_int_eq(v.days, 5);
	ck_assert(!v.beyond);
	ck_assert_double_eq(v.penalty, 50);
	config_free(&cfg);
}
END_TEST

START_TEST(test_late_extensions)
{
	struct lab_config cfg;
	struct late_verdict v;

	ck_assert_int_eq(unit_parse_lab(LAB "[deadline]\ndue = 2026-12-04 12:00 Z\n"
				   "penalty_per_day = 20\n[extensions]\nada = 2d\n"
				   "bob = 2026-12-10 08:00 Z\ncyd = 36h\n", &cfg), 0);
	time_t due = at("2026-12-04 12:00 Z");
	late_judge(&cfg.deadline, "ada", due + 2 * DAY, 10, &v);
	ck_assert(v.extended);
	ck_assert_int_eq(v.days, 0);
	ck_assert_int_eq(v.due, due + 2 * DAY);
	late_judge(&cfg.deadline, "ada", due + 2 * DAY + 1, 10, &v);
	ck_assert_int_eq(v.days, 1);
	ck_assert_double_eq_tol(v.penalty, 2, 1e-9);
	late_judge(&cfg.deadline, "bob", at("2026-12-10 07:00 Z"), 10, &v);
	ck_assert_int_eq(v.days, 0);
	ck_assert_int_eq(v.due, at("2026-12-10 08:00 Z"));
	late_judge(&cfg.deadline, "cyd", due + 36 * 3600, 10, &v);
	ck_assert_int_eq(v.days, 0);
	/* someone else keeps the lab's due time */
	late_judge(&cfg.deadline, "dan", due + 1, 10, &v);
	ck_assert(!v.extended);
	ck_assert_int_eq(v.days, 1);
	config_free(&cfg);

	static const char *const bad[] = {
		LAB "[deadline]\ndue = soon\n",
		LAB "[deadline]\ndue = now\n",
		LAB "[deadline]\ndue = 2026-12-04 Z\npenalty_per_day = 120\n",
		LAB "[deadline]\ndue = 2026-12-04 Z\nmax_late_days = 1.5\n",
		LAB "[deadline]\ndue = 2026-12-04 Z\ngrace = a while\n",
		LAB "[deadline]\ndue = 2026-12-04 Z\ncolour = red\n",
		LAB "[deadline]\ndue = 2026-12-04 Z\n[extensions]\nada = 2d\nada = 3d\n",
		LAB "[deadline]\ndue = 2026-12-04 Z\n[extensions]\nada = later\n",
		LAB "[deadline]\npenalty_per_day = 10\n",        /* a policy, no due time */
		LAB "[extensions]\nada = 2d\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_msg(unit_parse_lab(bad[i], &cfg) == -1, "accepted:\n%s", bad[i]);
		config_free(&cfg);
	}
}
END_TEST

Suite *late_suite(void)
{
	Suite *s = suite_create("late");
	TCase *tc = tcase_create("late");

	tcase_add_test(tc, test_late_times_and_zones);
	tcase_add_test(tc, test_late_penalty_arithmetic);
	tcase_add_test(tc, test_late_extensions);
	suite_add_tcase(s, tc);
	return s;
}
