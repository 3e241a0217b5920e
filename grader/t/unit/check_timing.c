/*
 * Unit tests of timing.c: points of a ratio, what the driver's lines do to a
 * result, and timing_run against a stand-in driver (a shell script) that
 * crashes and hangs, so the restart logic is tested without a GPU.
 */
#include "db.h"
#include "export.h"
#include "htmldash.h"
#include "htmlreport.h"
#include "leaderboard.h"
#include "report.h"
#include "timing.h"
#include "unit.h"
#include "../../../labs/common/harness-words.h"   /* CL_UNANSWERED */

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TOKEN "0123abcd"

static struct lab_config cfg;

static const char *const lab_text =
	"[lab]\nname = demo\nfiles = a.cu\ntiming_cap = 0.5\ntiming_timeout = 20\n"
	"[part p1]\ntests = a:1\n[part p2]\ntests = a:1\n[part p3]\nbonus = yes\ntests = a:1\n"
	"[timing p1]\nsize = 64\npoints = 2\n"
	"[timing p2]\nsize = 128\npoints = 2\nfull_ratio = 1.1\nzero_ratio = 2\n"
	"[timing p3]\nsize = 32\npoints = 1\n"
	/* a second kernel of p1 rated by bandwidth, shown and not scored */
	"[timing bw]\npart = p1\nkernel = copy\nsize = 64\npoints = 0\n"
	/* p2 against another launcher of the submission: faster by 20 % for all */
	"[timing order]\npart = p2\nkernel = p2_vs\nsize = 128\npoints = 1\nfull_ratio = 0.8\n"
	"zero_ratio = 1.0\n";

static void setup(void)
{
	ck_assert_int_eq(unit_parse_lab(lab_text, &cfg), 0);
}

static void teardown(void)
{
	config_free(&cfg);
}

/* A GPU run whose correctness tests all passed. */
static void gpu_result(struct result *r)
{
	result_init(r, &cfg);
	r->build = BUILD_OK;
	r->mode = MODE_GPU;
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].kind == KIND_CORRECTNESS)
			r->tests[i].status = TEST_PASS;
}

/* The timed test of part called name, or its first. */
static struct graded_test *timed_test(struct result *r, const char *part, const char *name)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].kind == KIND_TIMING && !strcmp(r->tests[i].part, part) &&
		    (!name || !strcmp(r->tests[i].name, name)))
			return &r->tests[i];
	ck_abort_msg("no timed test %s of %s", name ? name : "", part);
	return NULL;
}

static struct graded_test *timed(struct result *r, const char *part)
{
	return timed_test(r, part, NULL);
}

static void pending_all(struct result *r, struct strlist *pending)
{
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].kind == KIND_TIMING)
			strlist_push(pending, r->tests[i].id);
}

#define DEVICE "{\"token\":\"" TOKEN "\",\"type\":\"device\",\"status\":\"ok\",\"name\":\"G\"," \
	       "\"peak_gflops\":1000,\"copy_gbs\":500,\"clock_mhz\":1500}\n"
#define SIDE(ms) "{\"median_ms\":" #ms ",\"spread\":0.001,\"rse\":0.0003,\"gflops\":100}"
#define CASE(kernel, size, status, stu, ref, ratio, floor)                                \
	CASE_SAYING(kernel, size, status, "C[1][2] = nan, expected 3", stu, ref, ratio, floor)
/* the same, with the message given */
#define CASE_SAYING(kernel, size, status, message, stu, ref, ratio, floor)                 \
	"{\"token\":\"" TOKEN "\",\"type\":\"case\",\"kernel\":\"" kernel "\",\"size\":" #size \
	",\"status\":\"" status "\",\"message\":\"" message "\",\"samples\":12,"           \
	"\"capped\":false,\"student\":" SIDE(stu) ",\"reference\":" SIDE(ref)                 \
	",\"ratio\":" #ratio ",\"floor_ms\":" #floor ",\"sm_clock_mhz\":[1500,1490],"          \
	"\"seconds\":0.2}\n"
/* A kernel rated by bandwidth, with what was timed against what named. */
#define BW_SIDE(ms, gbs) "{\"median_ms\":" #ms ",\"spread\":0.001,\"gflops\":null,\"gbs\":" #gbs "}"
#define CASE_BW(kernel, size, stu, stu_gbs, ref, ref_gbs, ratio, labels)                 \
	"{\"token\":\"" TOKEN "\",\"type\":\"case\",\"kernel\":\"" kernel "\",\"size\":" #size \
	",\"status\":\"ok\",\"samples\":10,\"capped\":false,\"student\":"                  \
	BW_SIDE(stu, stu_gbs) ",\"reference\":" BW_SIDE(ref, ref_gbs) labels ",\"ratio\":"     \
	#ratio ",\"floor_ms\":0.001,\"seconds\":0.1}\n"

START_TEST(test_timing_points_are_a_line_between_two_ratios)
{
	const struct lab_timing *t = &cfg.timings[0];   /* 2 points, 1.15 .. 3.0 */

	ck_assert_double_eq(timing_points(t, 0.5), 2);
	ck_assert_double_eq(timing_points(t, 1.15), 2);
	ck_assert_double_eq(timing_points(t, 2.075), 1);
	ck_assert_double_eq(timing_points(t, 3.0), 0);
	ck_assert_double_eq(timing_points(t, 40), 0);
	ck_assert_double_eq(timing_points(t, NAN), 0);
	ck_assert_double_eq(timing_points(t, -1), 0);
	/* rounded to hundredths */
	ck_assert_double_eq(timing_points(&cfg.timings[1], 1.5), 1.11);
}
END_TEST

START_TEST(test_timing_config_is_checked)
{
	static const char *const bad[] = {
		"[timing p9]\nsize = 64\n",                         /* no such part */
		"[timing p1]\npoints = 1\n",                        /* no size */
		"[timing p1]\nsize = 64\nfull_ratio = 2\nzero_ratio = 1.5\n",
		"[timing p1]\nsize = 0\n",
		"[timing p1]\nsize = 64.5\n",
		"[timing p1]\nsize = 64\nspeed = fast\n",
		"[timing a]\npart = p1\nsize = 64\n[timing b]\npart = p1\nsize = 64\n",
		/* a timed test named like a correctness test of its part */
		"[timing a]\npart = p1\nkernel = k\nsize = 64\n",
		"[timing p1]\nsize = 64\npoints = -1\n",
		"[timing p1]\nsize = 64\nkernel = K!\n",
	};
	struct lab_config c;

	ck_assert_uint_eq(cfg.ntimings, 5);
	ck_assert_str_eq(cfg.timings[1].part, "p2");
	/* a section named after its part times the part's kernel as time@SIZE */
	ck_assert_str_eq(cfg.timings[1].kernel, "p2");
	ck_assert_str_eq(cfg.timings[1].test, "time@128");
	ck_assert_str_eq(cfg.timings[3].kernel, "copy");
	ck_assert_str_eq(cfg.timings[3].test, "bw");
	ck_assert_double_eq(cfg.timings[4].full_ratio, 0.8);
	ck_assert_double_eq(cfg.timings[1].full_ratio, 1.1);
	ck_assert_double_eq(cfg.timings[0].zero_ratio, 3.0);
	ck_assert_double_eq(cfg.timing_cap, 0.5);
	ck_assert_double_eq(cfg.timing_timeout, 20);
	/* timed kernels count toward the maximum, a bonus part's toward the bonus */
	ck_assert_double_eq(lab_max_points(&cfg, false), 7);
	ck_assert_double_eq(lab_max_points(&cfg, true), 9);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *text = xasprintf("[lab]\nname = demo\nfiles = a.cu\n[part p1]\ntests = a:1\n%s",
				       bad[i]);
		ck_assert_msg(unit_parse_lab(text, &c) == -1, "accepted:\n%s", text);
		config_free(&c);
		free(text);
	}
}
END_TEST

START_TEST(test_timing_plan_times_only_what_passed_on_a_gpu)
{
	struct result r;

	gpu_result(&r);
	r.tests[1].status = TEST_FAIL;   /* p2's correctness test */
	ck_assert_uint_eq(timing_plan(&cfg, &r), 3);   /* p1's two and p3's */
	ck_assert_int_eq(timed_test(&r, "p2", "order")->status, TEST_FAIL);
	ck_assert_int_eq(timed(&r, "p2")->status, TEST_FAIL);
	ck_assert_ptr_nonnull(strstr(timed(&r, "p2")->message, "not timed"));
	ck_assert_int_eq(timed(&r, "p1")->status, TEST_NOT_RUN);
	result_release(&r);

	gpu_result(&r);
	r.mode = MODE_EMULATED;
	ck_assert_uint_eq(timing_plan(&cfg, &r), 0);
	ck_assert_int_eq(timed(&r, "p1")->status, TEST_NOT_RUN);
	ck_assert_ptr_nonnull(strstr(timed(&r, "p1")->message, "needs a GPU"));
	result_finish(&r);
	ck_assert_int_eq(r.state, RUN_INCOMPLETE);   /* never zero: not run */
	result_release(&r);

	/* emulated, a part that failed is not timed on a GPU either: nothing of it
	 * is pending a GPU run */
	gpu_result(&r);
	r.mode = MODE_EMULATED;
	r.tests[1].status = TEST_FAIL;
	ck_assert_uint_eq(timing_plan(&cfg, &r), 0);
	ck_assert_int_eq(timed(&r, "p2")->status, TEST_FAIL);
	ck_assert_ptr_nonnull(strstr(timed(&r, "p2")->message, "not timed"));
	ck_assert_int_eq(timed(&r, "p1")->status, TEST_NOT_RUN);
	struct score_view v = result_score_view(&r);
	ck_assert_double_eq(v.pending, 2);   /* p1's 2 (and bw's 0; p3 is a bonus); none of p2's 3 */
	result_release(&r);
}
END_TEST

START_TEST(test_timing_read_scores_only_lines_with_the_token)
{
	struct result r;
	struct strlist pending = STRLIST_INIT;
	bool device_ok = false, ended = false;
	const char *text =
		"garbage the submission printed\n"
		"{\"token\":\"forged\",\"type\":\"case\",\"kernel\":\"p2\",\"size\":128,"
		"\"status\":\"ok\",\"ratio\":0.5}\n"
		/* duplicate keys: refused, so a second "ratio" cannot override */
		"{\"token\":\"" TOKEN "\",\"token\":\"" TOKEN "\",\"type\":\"end\"}\n"
		DEVICE
		CASE("p1", 64, "ok", 1.05, 1.0, 1.05, 0.01)
		CASE("p2", 128, "ok", 1.55, 1.0, 1.55, 0.01)
		CASE("p3", 999, "ok", 1.0, 1.0, 1.0, 0.01)   /* not a timed size: ignored */
		CASE_BW("copy", 64, 0.111, 1800, 0.1, 2000, 1.11, "")
		CASE_BW("p2_vs", 128, 0.1, 2000, 0.4, 500, 0.25,
			",\"subject\":\"your p2\",\"baseline\":\"your p2_slow\"")
		"{\"token\":\"" TOKEN "\",\"type\":\"ceiling\",\"name\":\"cuBLAS\",\"size\":64,"
		"\"status\":\"ok\",\"timing\":{\"median_ms\":0.1,\"gflops\":5000}}\n";

	gpu_result(&r);
	pending_all(&r, &pending);
	timing_read(text, TOKEN, &cfg, &r, &pending, &device_ok, &ended, NULL);
	ck_assert(device_ok);
	ck_assert(!ended);
	ck_assert_uint_eq(pending.n, 1);   /* p3 */
	/* bandwidth, shown and not scored */
	struct graded_test *bw = timed_test(&r, "p1", "bw");
	ck_assert_int_eq(bw->status, TEST_PASS);
	ck_assert_double_eq(bw->points, 0);
	ck_assert_double_eq(bw->timing->student_gbs, 1800);
	ck_assert(isnan(bw->timing->student_gflops));
	ck_assert_msg(strstr(bw->message, "yours 1800 GB/s (0.111 ms), the reference's 2000 GB/s"),
		      "%s", bw->message);
	/* against another launcher of the submission, named as such */
	struct graded_test *ord = timed_test(&r, "p2", "order");
	ck_assert_int_eq(ord->status, TEST_PASS);
	ck_assert_double_eq(ord->points, 1);
	ck_assert_msg(strstr(ord->message, "your p2 2000 GB/s (0.100 ms), your p2_slow 500 GB/s"),
		      "%s", ord->message);
	struct graded_test *t1 = timed(&r, "p1"), *t2 = timed(&r, "p2");
	ck_assert_int_eq(t1->status, TEST_PASS);
	ck_assert_double_eq(t1->points, 2);
	ck_assert(t1->timing->measured);
	ck_assert_int_eq(t1->timing->samples, 12);
	ck_assert_double_eq(t1->timing->sm_clock_mhz, 1490);
	ck_assert_ptr_nonnull(strstr(t1->message, "ratio 1.050"));
	ck_assert_int_eq(t2->status, TEST_FAIL);   /* 1.55 on 1.1 .. 2: 1 point */
	ck_assert_double_eq(t2->points, 1);
	ck_assert_ptr_nonnull(strstr(t2->message, "full points up to a ratio of 1.10"));
	ck_assert_uint_eq(r.timing.nceilings, 1);
	ck_assert_str_eq(r.timing.ceiling_name, "cuBLAS");
	ck_assert_double_eq(r.timing.peak_gflops, 1000);

	timed(&r, "p3")->status = TEST_PASS;
	timed(&r, "p3")->points = 1;
	result_finish(&r);
	ck_assert_double_eq(t2->points, 1);   /* result_finish keeps partial points */
	ck_assert_double_eq(r.score, 3 + 2 + 1 + 1 + 1);
	ck_assert_double_eq(r.max_score, 7);

	char *json = result_to_json(&r, false);
	ck_assert_ptr_nonnull(strstr(json, "\"kind\":\"timing\""));
	ck_assert_ptr_nonnull(strstr(json, "\"ratio\":1.55"));
	ck_assert_ptr_nonnull(strstr(json, "\"baseline\":\"your p2_slow\""));
	ck_assert_ptr_nonnull(strstr(json, "\"kernel\":\"p2_vs\""));
	free(json);
	strlist_clear(&pending);
	result_release(&r);
}
END_TEST

START_TEST(test_timing_read_wrong_output_and_the_floor)
{
	struct result r;
	struct strlist pending = STRLIST_INIT;
	bool device_ok = false, ended = false;
	const char *text = DEVICE CASE("p1", 64, "wrong", 1.0, 1.0, 1.0, 0.01)
		CASE("p2", 128, "ok", 0.004, 1.0, 0.004, 0.01)
		CASE("p3", 32, "error", 1.0, 1.0, 1.0, 0.01)
		/* under the floor, as the reference measured the same way: not flagged */
		CASE("copy", 64, "ok", 0.0093, 0.0095, 0.98, 0.01)
		"{\"token\":\"" TOKEN "\",\"type\":\"end\"}\n";

	gpu_result(&r);
	pending_all(&r, &pending);
	timing_read(text, TOKEN, &cfg, &r, &pending, &device_ok, &ended, NULL);
	ck_assert(ended);
	ck_assert_uint_eq(pending.n, 1);   /* order: not in the text */
	ck_assert_int_eq(timed(&r, "p1")->status, TEST_FAIL);
	ck_assert_ptr_nonnull(strstr(timed(&r, "p1")->message, "C[1][2] = nan"));
	ck_assert_ptr_nonnull(strstr(timed(&r, "p1")->message, "every timed call is checked"));
	ck_assert_int_eq(timed(&r, "p3")->status, TEST_CRASH);
	/* faster than the floor: no points, and the run is for a person to look at */
	struct graded_test *t2 = timed(&r, "p2");
	ck_assert_int_eq(t2->status, TEST_FAIL);
	ck_assert_double_eq(t2->points, 0);
	ck_assert(t2->timing->flagged);
	ck_assert_ptr_nonnull(strstr(t2->message, "flagged under 0.009 ms"));
	struct graded_test *bw = timed_test(&r, "p1", "bw");
	ck_assert_int_eq(bw->status, TEST_PASS);
	ck_assert(!bw->timing->flagged);
	result_finish(&r);
	ck_assert_int_eq(r.state, RUN_INCOMPLETE);
	ck_assert_ptr_nonnull(strstr(r.state_reason, "flagged for review"));
	ck_assert_int_eq(result_exit_code(&r), EXIT_INCOMPLETE);
	strlist_clear(&pending);
	result_release(&r);
}
END_TEST

/* A kernel whose calls were not done within its budget timed out, one whose
 * call was past hope was slow: no points, and why. */
START_TEST(test_timing_read_a_late_kernel_timed_out)
{
	struct result r;
	struct strlist pending = STRLIST_INIT;
	bool device_ok = false, ended = false;
	const char *text = DEVICE CASE("p1", 64, "timeout", 1.0, 1.0, 1.0, 0.01)
		CASE("p2", 128, "slow", 1.0, 1.0, 1.0, 0.01);

	gpu_result(&r);
	pending_all(&r, &pending);
	timing_read(text, TOKEN, &cfg, &r, &pending, &device_ok, &ended, NULL);
	ck_assert(!strlist_has(&pending, timed(&r, "p1")->id));
	ck_assert_int_eq(timed(&r, "p1")->status, TEST_TIMEOUT);
	ck_assert_double_eq(timed(&r, "p1")->points, 0);
	ck_assert_ptr_nonnull(strstr(timed(&r, "p1")->message, "never returns, scores nothing"));
	ck_assert_int_eq(timed(&r, "p2")->status, TEST_FAIL);
	ck_assert_double_eq(timed(&r, "p2")->points, 0);
	ck_assert_ptr_nonnull(strstr(timed(&r, "p2")->message, "C[1][2]"));
	strlist_clear(&pending);
	result_release(&r);
}
END_TEST

/* A case disturbed by a request left unanswered gets a hint about that, not
 * about keeping the GPU busy (the guard's); both fail, scoring nothing. */
START_TEST(test_timing_read_an_unanswered_request_is_named)
{
	struct result r;
	struct strlist pending = STRLIST_INIT;
	bool device_ok = false, ended = false;
	/* p1's message is the timer's for an empty call left unanswered */
	const char *text = DEVICE CASE_SAYING("p1", 64, "disturbed",
					      CL_UNANSWERED "an empty call within 1 s", 1.0, 1.0,
					      1.0, 0.01)
		CASE("p2", 128, "disturbed", 1.0, 1.0, 1.0, 0.01);

	gpu_result(&r);
	pending_all(&r, &pending);
	timing_read(text, TOKEN, &cfg, &r, &pending, &device_ok, &ended, NULL);
	ck_assert_int_eq(timed(&r, "p1")->status, TEST_FAIL);
	ck_assert_double_eq(timed(&r, "p1")->points, 0);
	ck_assert_msg(strstr(timed(&r, "p1")->message, "did not answer an empty call") &&
			      strstr(timed(&r, "p1")->message, "it must answer") &&
			      !strstr(timed(&r, "p1")->message, "keep the GPU busy"),
		      "%s", timed(&r, "p1")->message);
	ck_assert_int_eq(timed(&r, "p2")->status, TEST_FAIL);
	ck_assert_msg(strstr(timed(&r, "p2")->message, "keep the GPU busy"), "%s",
		      timed(&r, "p2")->message);
	strlist_clear(&pending);
	result_release(&r);
}
END_TEST

/* A kernel the timer could not time for a busy machine is the machine's: unscored, still pending. */
START_TEST(test_timing_read_a_busy_machine_is_not_charged)
{
	struct result r;
	struct strlist pending = STRLIST_INIT;
	bool device_ok = false, ended = false;
	char *busy = NULL;
	const char *text = DEVICE CASE("p1", 64, "busy", 9.0, 1.0, 9.0, 0.01)
		CASE("p2", 128, "busy", 1.0, 1.0, 1.0, 0.01)
		CASE("copy", 64, "ok", 1.0, 1.0, 1.0, 0.01);

	gpu_result(&r);
	pending_all(&r, &pending);
	timing_read(text, TOKEN, &cfg, &r, &pending, &device_ok, &ended, &busy);
	ck_assert_ptr_nonnull(busy);   /* the first one's words */
	ck_assert_msg(strstr(busy, "p1 at size 64: C[1][2]"), "%s", busy);
	ck_assert(strlist_has(&pending, timed(&r, "p1")->id));
	ck_assert(strlist_has(&pending, timed(&r, "p2")->id));
	ck_assert_int_eq(timed(&r, "p1")->status, TEST_NOT_RUN);
	ck_assert_double_eq(timed(&r, "p1")->points, 0);
	ck_assert_int_eq(timed_test(&r, "p1", "bw")->status, TEST_PASS);   /* the others scored */
	free(busy);
	strlist_clear(&pending);
	result_release(&r);
}
END_TEST

START_TEST(test_timing_is_stored_in_the_gradebook)
{
	char *dir = unit_tmpdir(), *path = xasprintf("%s/g.db", dir), out[256] = "";
	struct strlist pending = STRLIST_INIT;
	bool device_ok, ended;
	struct result r;
	long long id;

	gpu_result(&r);
	r.student = xstrdup("ada");
	r.started_at = xstrdup("2026-11-22T00:00:00Z");
	pending_all(&r, &pending);
	timing_read(DEVICE CASE("p1", 64, "ok", 1.2, 1.0, 1.2, 0.01), TOKEN, &cfg, &r, &pending,
		    &device_ok, &ended, NULL);
	result_finish(&r);
	struct db *db = db_open(path, unit_root());
	ck_assert_ptr_nonnull(db);
	ck_assert_int_eq(db_store_run(db, &r, &id), 0);
	db_close(db);
	unit_sqlite(path,
		    "SELECT t.part, t.name, t.kernel, t.size, t.samples, t.ratio, t.flagged, "
		    "r.kind, r.points FROM timings t JOIN test_results r ON r.run_id = t.run_id "
		    "AND r.part = t.part AND r.name = t.name; SELECT count(*) FROM test_results "
		    "WHERE kind = 'timing' AND status = 'not-run'",
		    out, sizeof(out));
	/* 1.2 on 1.15 .. 3.0 of 2 points: 1.95 */
	ck_assert_str_eq(out, "p1|time@64|p1|64|12|1.2|0|timing|1.95\n4\n");
	strlist_clear(&pending);
	result_release(&r);
	remove_tree(dir);
	free(path);
	free(dir);
}
END_TEST

/* The terminal report: a row per timed kernel with both rates, and the ceiling. */
START_TEST(test_timing_report_table)
{
	struct strlist pending = STRLIST_INIT;
	bool device_ok, ended;
	struct result r;
	char *text = NULL;
	size_t len = 0;

	gpu_result(&r);
	r.gpu.name = xstrdup("Test GPU");
	pending_all(&r, &pending);
	timing_read(DEVICE CASE("p1", 64, "ok", 1.2, 1.0, 1.2, 0.01)
		    CASE("p2", 128, "ok", 0.004, 1.0, 0.004, 0.01)
		    "{\"token\":\"" TOKEN "\",\"type\":\"ceiling\",\"name\":\"cuBLAS\","
		    "\"size\":64,\"status\":\"ok\",\"timing\":{\"median_ms\":0.5,"
		    "\"gflops\":50000}}\n",
		    TOKEN, &cfg, &r, &pending, &device_ok, &ended, NULL);
	r.timing.ran = device_ok;
	/* the copy bandwidth from the node's cache (the report reads the document's time) */
	r.timing.ceilings_from = "cache";
	r.timing.ceilings_measured_at = 1796000000;
	result_finish(&r);
	FILE *f = open_memstream(&text, &len);
	report_result(f, &r);
	fclose(f);
	ck_assert_msg(strstr(text, "timing on Test GPU (FP32 peak 1.0 TFLOP/s)"), "%s", text);
	ck_assert_msg(strstr(text, "\nthe GPU's copy bandwidth and cuBLAS: measured at "
				   "2026-11-30T00:53:20Z, reused from this node's cache\n"), "%s", text);
	ck_assert_msg(strstr(text, "\np1     time@64    100 GFLOP/s   100 GFLOP/s   1.200    1.95/2\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "FLAGGED for review"), "%s", text);
	ck_assert_msg(strstr(text, "\np3     time@32              -             -       -       0/1  not run\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "cuBLAS at N=64: 50.0 TFLOP/s (0.500 ms)"), "%s", text);
	ck_assert_msg(strstr(text, "INCOMPLETE"), "%s", text);

	/* the page and Gradescope's Markdown say the same of the same kernels (doc.h) */
	json_t *doc = result_document(&r);
	char *page = NULL, *gs = export_gradescope(doc, 0, false);
	ck_assert_int_eq(html_report(doc, 0, &page), 0);
	ck_assert_msg(strstr(page, "<tr><td>p1</td><td>time@64</td><td class=\"num\">1.2</td>"
				   "<td class=\"num\">1</td><td class=\"num\">1.2</td>"), "%.300s", strstr(page, "time@") ? strstr(page, "time@") : page);
	ck_assert_msg(strstr(page, "<td>p1</td><td>time@64</td><td>timing</td><td class=\"verdict\">"
				   "fail</td><td class=\"num\">1.95 / 2</td>"), "%.300s", strstr(page, "time@") ? strstr(page, "time@") : page);
	ck_assert_msg(strstr(page, "<td>p3</td><td>time@32 (bonus)</td><td>timing</td><td "
				   "class=\"verdict\">not-run</td><td class=\"num\">0 / 1</td>"), "%.300s", strstr(page, "time@") ? strstr(page, "time@") : page);
	ck_assert_msg(strstr(gs, "| p1/time@64 | 1.2 | 1 | 1.200 | 100 | - |"), "%.400s", strstr(gs, "Timed") ? strstr(gs, "Timed") : gs);
	free(page);
	free(gs);
	json_decref(doc);
	free(text);
	strlist_clear(&pending);
	result_release(&r);
}
END_TEST

/*
 * The leaderboard: a run is ranked once every kernel timed against the
 * reference was measured (not the one against the submission's own), by the
 * geometric mean of the reference's time over its; Gradescope gets it first,
 * then each kernel's rate; pseudonyms are the salt's, stable and distinct.
 */
START_TEST(test_leaderboard_speed_and_gradescope)
{
	struct strlist pending = STRLIST_INIT;
	bool device_ok, ended;
	struct result r;
	double speed = 0;

	gpu_result(&r);
	pending_all(&r, &pending);
	/* p1 at half the reference's time, p2 at twice it, p3 even, copy at 1.25 */
	timing_read(DEVICE CASE("p1", 64, "ok", 0.5, 1.0, 0.5, 0.01)
		    CASE("p2", 128, "ok", 2.0, 1.0, 2.0, 0.01)
		    CASE("p3", 32, "ok", 1.0, 1.0, 1.0, 0.01)
		    CASE_BW("copy", 64, 0.8, 2500, 1.0, 2000, 0.8, "")
		    CASE_BW("p2_vs", 128, 0.1, 2000, 0.4, 500, 0.25,
			    ",\"subject\":\"your p2\",\"baseline\":\"your p2_slow\""),
		    TOKEN, &cfg, &r, &pending, &device_ok, &ended, NULL);
	r.timing.ran = device_ok;
	result_finish(&r);
	json_t *doc = result_document(&r);
	ck_assert(leaderboard_speed(doc, &speed));
	ck_assert_double_eq_tol(speed, pow(2 * 0.5 * 1 * 1.25, 0.25), 1e-9);
	char *gs = export_gradescope(doc, 0, true), *plain = export_gradescope(doc, 0, false);
	json_t *o = json_loads(gs, 0, NULL), *board = json_object_get(o, "leaderboard");
	ck_assert_uint_eq(json_array_size(board), 5);   /* the speed, then p1 p2 p3 copy */
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(board, 0), "name")),
			 "speed against the reference (geometric mean)");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(board, 0), "order")),
			 "desc");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(board, 4), "name")),
			 "p1 bw (GB/s)");
	ck_assert_double_eq(json_number_value(json_object_get(json_array_get(board, 4), "value")),
			    2500);
	ck_assert_ptr_null(strstr(plain, "leaderboard"));   /* the lab did not opt in */
	json_decref(o);
	free(gs);
	free(plain);
	json_decref(doc);
	result_release(&r);
	strlist_clear(&pending);

	/* a kernel not measured (p3 left out): not ranked, nothing for Gradescope */
	gpu_result(&r);
	pending_all(&r, &pending);
	timing_read(DEVICE CASE("p1", 64, "ok", 0.5, 1.0, 0.5, 0.01)
		    CASE("p2", 128, "ok", 2.0, 1.0, 2.0, 0.01),
		    TOKEN, &cfg, &r, &pending, &device_ok, &ended, NULL);
	result_finish(&r);
	doc = result_document(&r);
	ck_assert(!leaderboard_speed(doc, &speed));
	gs = export_gradescope(doc, 0, true);
	ck_assert_ptr_null(strstr(gs, "leaderboard"));
	free(gs);
	json_decref(doc);
	result_release(&r);
	strlist_clear(&pending);

	char *a = leaderboard_pseudonym("salt-one-0123456789abcdef0123456789", "matmul", "ada");
	char *again = leaderboard_pseudonym("salt-one-0123456789abcdef0123456789", "matmul", "ada");
	char *b = leaderboard_pseudonym("salt-two-0123456789abcdef0123456789", "matmul", "ada");
	ck_assert_str_eq(a, again);
	ck_assert_str_ne(a, b);   /* another course's salt: another name */
	ck_assert_msg(!strchr(a, ' ') && strlen(a) > 10 && a[strlen(a) - 7] == '-' &&
		      strspn(a + strlen(a) - 6, "0123456789") == 6, "%s", a);
	free(a);
	free(again);
	free(b);
}
END_TEST

/* The dashboard's board: fastest first, the unranked after; pseudonyms hide the names. */
#define ORDER CASE_BW("p2_vs", 128, 0.1, 2000, 0.4, 500, 0.25, \
		      ",\"subject\":\"your p2\",\"baseline\":\"your p2_slow\"")
START_TEST(test_leaderboard_on_the_dashboard)
{
	const char *const texts[3] = {
		/* ada: 0.5 of the reference's time on p1, even elsewhere */
		DEVICE CASE("p1", 64, "ok", 0.5, 1.0, 0.5, 0.01) CASE("p2", 128, "ok", 1.0, 1.0, 1.0, 0.01)
		CASE("p3", 32, "ok", 1.0, 1.0, 1.0, 0.01) CASE_BW("copy", 64, 1.0, 2000, 1.0, 2000, 1.0, "")
		ORDER,
		/* bob: even everywhere */
		DEVICE CASE("p1", 64, "ok", 1.0, 1.0, 1.0, 0.01) CASE("p2", 128, "ok", 1.0, 1.0, 1.0, 0.01)
		CASE("p3", 32, "ok", 1.0, 1.0, 1.0, 0.01) CASE_BW("copy", 64, 1.0, 2000, 1.0, 2000, 1.0, "")
		ORDER,
		/* <cy>: p3 never timed */
		DEVICE CASE("p1", 64, "ok", 0.1, 1.0, 0.1, 0.01) CASE("p2", 128, "ok", 1.0, 1.0, 1.0, 0.01)};
	const char *const who[3] = {"ada", "bob", "<cy>"};
	struct dash_run runs[3] = {{0}};
	struct dash_board board = {LEADERBOARD_PSEUDONYMS, "a-salt-of-the-course-0123456789abcdef"};
	char *page = NULL;

	for (int i = 0; i < 3; i++) {
		struct strlist pending = STRLIST_INIT;
		bool device_ok, ended;
		struct result r;
		gpu_result(&r);
		r.student = xstrdup(who[i]);
		pending_all(&r, &pending);
		timing_read(texts[i], TOKEN, &cfg, &r, &pending, &device_ok, &ended, NULL);
		result_finish(&r);
		runs[i] = (struct dash_run){result_document(&r), i + 1, NULL};
		result_release(&r);
		strlist_clear(&pending);
	}
	ck_assert_int_eq(html_dashboard("demo", runs, 3, NULL, &board, &page), 0);
	char *names[3];
	for (int i = 0; i < 3; i++)
		names[i] = leaderboard_pseudonym(board.salt, "demo", who[i]);
	const char *at = strstr(page, "<h2>Leaderboard</h2>");
	ck_assert_ptr_nonnull(at);
	const char *a = strstr(at, names[0]), *b = strstr(at, names[1]), *c = strstr(at, names[2]);
	ck_assert_msg(a && b && c && a < b && b < c, "%s", at);
	ck_assert_msg(strstr(at, "<td class=\"num\">1</td><td>") && strstr(at, "not ranked"),
		      "%s", at);
	ck_assert_ptr_null(strstr(at, "order"));   /* against the submission's own: no column */
	ck_assert_msg(strstr(at, "<th>p1 bw</th>"), "%s", at);
	/* under pseudonyms, no student's name on the board */
	ck_assert_ptr_null(strstr(at, ">ada<"));
	ck_assert_ptr_null(strstr(at, "&lt;cy&gt;"));
	free(page);
	/* off: no board */
	board.mode = LEADERBOARD_OFF;
	ck_assert_int_eq(html_dashboard("demo", runs, 3, NULL, &board, &page), 0);
	ck_assert_ptr_null(strstr(page, "Leaderboard"));
	free(page);
	/* under names: the students' names, escaped */
	board.mode = LEADERBOARD_NAMES;
	ck_assert_int_eq(html_dashboard("demo", runs, 3, NULL, &board, &page), 0);
	at = strstr(page, "<h2>Leaderboard</h2>");
	ck_assert_msg(at && strstr(at, "<td>ada</td>") && strstr(at, "&lt;cy&gt;"), "%s", page);
	ck_assert_ptr_null(strstr(page, "share the pseudonym"));
	free(page);
	/* two rows under one pseudonym (here: one student twice): said, with the way out */
	board.mode = LEADERBOARD_PSEUDONYMS;
	json_object_set_new(runs[2].doc, "student", json_string("ada"));
	ck_assert_int_eq(html_dashboard("demo", runs, 3, NULL, &board, &page), 0);
	at = strstr(page, "share the pseudonym ");
	ck_assert_msg(at && !strncmp(at + strlen("share the pseudonym "), names[0], strlen(names[0])) &&
		      strstr(at, "leaderboard-salt"), "%s", page);
	free(page);
	for (int i = 0; i < 3; i++) {
		free(names[i]);
		json_decref(runs[i].doc);
	}
}
END_TEST

START_TEST(test_leaderboard_salt_is_made_once_and_private)
{
	char *dir = unit_tmpdir(), *db = xasprintf("%s/g.db", dir), *path, *s1 = NULL, *s2 = NULL;
	struct stat st;
	int mode = -1;

	ck_assert_int_eq(leaderboard_salt(db, &s1), 0);
	ck_assert_int_eq(leaderboard_salt(db, &s2), 0);
	ck_assert_str_eq(s1, s2);
	ck_assert_uint_ge(strlen(s1), 32);
	path = xasprintf("%s.leaderboard-salt", db);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(leaderboard_parse("names", &mode), 0);
	ck_assert_int_eq(mode, LEADERBOARD_NAMES);
	ck_assert_int_eq(leaderboard_parse("Yes", &mode), 0);
	ck_assert_int_eq(mode, LEADERBOARD_PSEUDONYMS);
	ck_assert_int_eq(leaderboard_parse("maybe", &mode), -1);
	remove_tree(dir);
	free(s1);
	free(s2);
	free(path);
	free(db);
	free(dir);
}
END_TEST

/*
 * A stand-in driver: answers like bench_<lab>, but dies by SIGSEGV when asked
 * to time p2 and hangs on p3 when told so, so timing_run has to restart it.
 * It writes the --case-limit and --give-up it was given beside its output
 * (.limit).
 */
static const char *const fake_driver =
	"#!/bin/sh\n"
	"out= cases=\n"
	"while [ $# -gt 0 ]; do case $1 in --out) out=$2;; --case) cases=\"$cases $2\";;"
	" --case-limit|--give-up) echo \"$1 $2\" >>\"$out.limit\";; esac; shift 2; done\n"
	"while read -r l; do case $l in token=*) tok=${l#token=};; esac; done\n"
	"[ -n \"$NOGPU\" ] && { echo \"{\\\"token\\\":\\\"$tok\\\",\\\"type\\\":\\\"device\\\","
	"\\\"status\\\":\\\"unavailable\\\",\\\"message\\\":\\\"no device\\\"}\" >\"$out\"; exit 3; }\n"
	"echo \"{\\\"token\\\":\\\"$tok\\\",\\\"type\\\":\\\"device\\\",\\\"status\\\":\\\"ok\\\"}\""
	" >\"$out\"\n"
	"for c in $cases; do p=${c%%:*} n=${c#*:}\n"
	"  [ $p = p2 ] && { echo 'launcher blew up' >&2; kill -SEGV $$; }\n"
	"  [ $p = p3 ] && [ -n \"$HANG\" ] && sleep 100\n"
	"  echo \"{\\\"token\\\":\\\"$tok\\\",\\\"type\\\":\\\"case\\\",\\\"kernel\\\":\\\"$p\\\","
	"\\\"size\\\":$n,\\\"status\\\":\\\"ok\\\",\\\"samples\\\":10,\\\"student\\\":"
	"{\\\"median_ms\\\":1,\\\"gflops\\\":1},\\\"reference\\\":{\\\"median_ms\\\":1,"
	"\\\"gflops\\\":1},\\\"ratio\\\":1.0}\" >>\"$out\"\n"
	"done\n"
	"echo \"{\\\"token\\\":\\\"$tok\\\",\\\"type\\\":\\\"end\\\"}\" >>\"$out\"\n";

/* timing_run with driver as the timer, and stand-in recipes. */
static int run_timing(const char *dir, const char *driver, const struct device_ceilings *given,
		      struct result *r)
{
	struct timing_programs p = {.timer = driver, .runner = "runner.recipe",
				    .reference = "reference.recipe", .folder = dir};
	return timing_run(&cfg, &p, NULL, given, r);
}

static char *write_driver(const char *dir)
{
	char *path = xasprintf("%s/bench_demo", dir);
	ck_assert_int_eq(write_file_atomic(path, fake_driver, strlen(fake_driver)), 0);
	ck_assert_int_eq(chmod(path, 0755), 0);
	return path;
}

START_TEST(test_timing_run_restarts_after_a_crash)
{
	char *dir = unit_tmpdir(), *driver = write_driver(dir);
	struct result r;

	gpu_result(&r);
	progress_quiet = true;
	ck_assert_int_eq(run_timing(dir, driver, NULL, &r), 0);
	ck_assert(r.timing.ran);
	ck_assert_int_eq(timed(&r, "p1")->status, TEST_PASS);
	ck_assert_int_eq(timed(&r, "p2")->status, TEST_CRASH);
	ck_assert_ptr_nonnull(strstr(timed(&r, "p2")->message, "signal 11"));
	ck_assert_ptr_nonnull(strstr(timed(&r, "p2")->message, "launcher blew up"));
	/* timed by a second driver, after the first died on p2 */
	ck_assert_int_eq(timed(&r, "p3")->status, TEST_PASS);
	result_release(&r);
	/* each kernel's budget is the timer's to keep: timing_timeout */
	char *limit_file = xasprintf("%s/timing-0.jsonl.limit", dir);
	char *limit = read_file(limit_file, NULL);
	ck_assert_str_eq(limit ? limit : "(none)", "--case-limit 20\n--give-up 30\n");
	free(limit);
	free(limit_file);

	/* a driver that hangs costs the kernel it hung on */
	setenv("HANG", "1", 1);
	cfg.timing_cap = 0.01;
	cfg.timing_timeout = 1;
	gpu_result(&r);
	timed(&r, "p2")->status = TEST_FAIL;   /* as if already decided */
	double t0 = now_seconds();
	ck_assert_int_eq(run_timing(dir, driver, NULL, &r), 0);
	unsetenv("HANG");
	ck_assert_int_eq(timed(&r, "p1")->status, TEST_PASS);
	ck_assert_int_eq(timed(&r, "p3")->status, TEST_TIMEOUT);
	ck_assert(now_seconds() - t0 < 10);
	result_release(&r);

	/* no GPU for the driver: not run, not charged */
	setenv("NOGPU", "1", 1);
	gpu_result(&r);
	ck_assert_int_eq(run_timing(dir, driver, NULL, &r), 0);
	unsetenv("NOGPU");
	progress_quiet = false;
	ck_assert(!r.timing.ran);
	ck_assert_int_eq(timed(&r, "p1")->status, TEST_NOT_RUN);
	ck_assert_ptr_nonnull(strstr(timed(&r, "p1")->message, "no device"));
	result_release(&r);

	remove_tree(dir);
	free(driver);
	free(dir);
}
END_TEST

/* ------------------------------------------------- the device's ceilings */

#define GPU_UUID "GPU-8f3a1c2d-5e6f-4a0b-9c1d-2e3f4a5b6c7d"

/*
 * A stand-in for the trusted driver (bench-device --device-only): counts its
 * runs in $RUNS, says its GPU is $DEV_UUID at 1500 MHz, a copy bandwidth of
 * 3000 GB/s and a library time at each size, on standard output (--out -).
 */
static const char *const fake_device =
	"#!/bin/sh\n"
	"echo run >>\"$RUNS\"\n"
	"out= only=\n"
	"while [ $# -gt 0 ]; do case $1 in --out) out=$2; shift;; --device-only) only=1;; esac;"
	" shift; done\n"
	"[ \"$out\" = - ] && [ -n \"$only\" ] || exit 9\n"
	"while read -r l; do case $l in token=*) tok=${l#token=};; esac; done\n"
	"printf '{\"token\":\"%s\",\"type\":\"device\",\"status\":\"ok\",\"uuid\":\"%s\","
	"\"clock_mhz\":1500,\"copy_gbs\":3000,\"copy_gbs_from\":\"measured\"}\\n' "
	"\"$tok\" \"$DEV_UUID\"\n"
	"for n in 64 128 32; do printf '{\"token\":\"%s\",\"type\":\"ceiling\",\"name\":\"cuBLAS\","
	"\"size\":%s,\"status\":\"ok\",\"timing\":{\"median_ms\":0.%s,\"gflops\":%s}}\\n' "
	"\"$tok\" $n $n $n; done\n"
	"printf '{\"token\":\"%s\",\"type\":\"end\"}\\n' \"$tok\"\n";

/*
 * A stand-in for the timing driver that takes the ceilings given: writes
 * what it was given to $ARGS_LOG, uses the copy bandwidth given (unless
 * $IGNORE_GIVEN), and with $FORGE set claims a copy bandwidth of 1 and a
 * library ceiling it was not asked for, as a submission in its process
 * could.
 */
static const char *const fake_given_driver =
	"#!/bin/sh\n"
	"out= cases= gbs= uuid= noceil=\n"
	"while [ $# -gt 0 ]; do case $1 in --out) out=$2; shift;; --case) cases=\"$cases $2\";"
	" shift;; --cap) shift;; --copy-gbs) gbs=$2; shift;; --uuid) uuid=$2; shift;;"
	" --no-ceiling) noceil=1;; esac; shift; done\n"
	"echo \"$gbs $uuid $noceil\" >>\"$ARGS_LOG\"\n"
	"while read -r l; do case $l in token=*) tok=${l#token=};; esac; done\n"
	"from=measured\n"
	"if [ -n \"$gbs\" ] && [ -z \"$IGNORE_GIVEN\" ]; then from=given; else gbs=500; fi\n"
	"[ -n \"$FORGE\" ] && gbs=1\n"
	"printf '{\"token\":\"%s\",\"type\":\"device\",\"status\":\"ok\",\"copy_gbs\":%s,"
	"\"copy_gbs_from\":\"%s\"}\\n' \"$tok\" $gbs $from >\"$out\"\n"
	"if [ -z \"$noceil\" ] || [ -n \"$FORGE\" ]; then printf '{\"token\":\"%s\",\"type\":"
	"\"ceiling\",\"name\":\"cuBLAS\",\"size\":64,\"status\":\"ok\",\"timing\":"
	"{\"median_ms\":9,\"gflops\":1e9}}\\n' \"$tok\" >>\"$out\"; fi\n"
	"for c in $cases; do printf '{\"token\":\"%s\",\"type\":\"case\",\"kernel\":\"%s\","
	"\"size\":%s,\"status\":\"ok\",\"samples\":10,\"student\":{\"median_ms\":1},"
	"\"reference\":{\"median_ms\":1},\"ratio\":1.0}\\n' \"$tok\" ${c%%:*} ${c#*:} >>\"$out\";"
	" done\n"
	"printf '{\"token\":\"%s\",\"type\":\"end\"}\\n' \"$tok\" >>\"$out\"\n";

static char *write_script(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	ck_assert_int_eq(write_file_atomic(path, text, strlen(text)), 0);
	ck_assert_int_eq(chmod(path, 0755), 0);
	return path;
}

/* Lines in the file at path (0 when there is none). */
static int lines_of(const char *path)
{
	int n = 0;
	report_quiet = true;
	char *text = access(path, R_OK) ? NULL : read_file(path, NULL);
	report_quiet = false;
	for (char *p = text; p && *p; p++)
		n += *p == '\n';
	free(text);
	return n;
}

static const struct devcache_key dev_key = {
	.uuid = GPU_UUID, .clock_mhz = 1500, .driver = "580.65.06", .lab = "demo",
	.lab_version = "0"};

/*
 * The first grading on a GPU measures the ceilings with the trusted driver
 * and caches them; the next reuses them, and its timing driver is given
 * them and times no library. What the timing driver says never reaches
 * the cache, whatever it says.
 */
START_TEST(test_timing_ceilings_measured_once_and_reused)
{
	char *dir = unit_tmpdir(), *measure = write_script(dir, "bench-device", fake_device);
	char *driver = write_script(dir, "bench_demo", fake_given_driver);
	char *cache = xasprintf("%s/cudalab-gpu-" GPU_UUID ".ceilings-demo", dir);
	char *runs = xasprintf("%s/runs", dir), *args = xasprintf("%s/args", dir);
	char *before, *after;
	struct device_ceilings dc;
	struct result r;

	setenv("RUNS", runs, 1);
	setenv("ARGS_LOG", args, 1);
	setenv("DEV_UUID", GPU_UUID, 1);
	progress_quiet = true;

	/* the first grading: no entry, measured by the trusted driver, cached */
	gpu_result(&r);
	r.gpu.uuid = xstrdup(GPU_UUID);
	ck_assert_int_eq(timing_ceilings(&cfg, measure, NULL, cache, NULL, &dev_key, &r, &dc), 0);
	ck_assert_int_eq(lines_of(runs), 1);
	ck_assert_str_eq(r.timing.ceilings_from, "measured");
	ck_assert_str_eq(r.timing.ceilings_cache, cache);
	ck_assert_str_eq(r.timing.ceilings_cache_note, "no entry for this GPU yet");
	ck_assert(labs((long)(r.timing.ceilings_measured_at - time(NULL))) < 60);
	ck_assert_double_eq(dc.copy_gbs, 3000);
	ck_assert_uint_eq(dc.nceilings, 3);
	ck_assert_int_eq(run_timing(dir, driver, &dc, &r), 0);
	/* the timing driver was given the bandwidth, for this GPU, and no library */
	before = read_file(args, NULL);
	ck_assert_str_eq(before, "3000 " GPU_UUID " 1\n");
	free(before);
	ck_assert(r.timing.ran);
	ck_assert_double_eq(r.timing.copy_gbs, 3000);
	ck_assert_str_eq(r.timing.ceilings_from, "measured");
	ck_assert_uint_eq(r.timing.nceilings, 3);   /* sizes 64, 128, 32: all timed */
	ck_assert_double_eq(r.timing.ceilings[1].ms, 0.128);
	device_ceilings_release(&dc);
	result_release(&r);

	/* the next: reused, the trusted driver not run again */
	gpu_result(&r);
	r.gpu.uuid = xstrdup(GPU_UUID);
	timed(&r, "p3")->status = TEST_FAIL;   /* not timed: no ceiling at its size 32 */
	ck_assert_int_eq(timing_ceilings(&cfg, measure, NULL, cache, NULL, &dev_key, &r, &dc), 0);
	ck_assert_int_eq(lines_of(runs), 1);
	ck_assert_str_eq(r.timing.ceilings_from, "cache");
	ck_assert_ptr_null(r.timing.ceilings_cache_note);
	time_t first = r.timing.ceilings_measured_at;
	/* its timing driver claims other numbers, as a submission could make it:
	 * the grading keeps the cache's, and the cache is as it was */
	before = read_file(cache, NULL);
	setenv("FORGE", "1", 1);
	ck_assert_int_eq(run_timing(dir, driver, &dc, &r), 0);
	unsetenv("FORGE");
	after = read_file(cache, NULL);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	ck_assert_double_eq(r.timing.copy_gbs, 3000);
	ck_assert_uint_eq(r.timing.nceilings, 2);
	ck_assert_int_eq(r.timing.ceilings[0].size, 64);
	ck_assert_double_eq(r.timing.ceilings[0].ms, 0.64);
	ck_assert_str_eq(r.timing.ceilings_from, "cache");
	ck_assert_int_eq(r.timing.ceilings_measured_at, first);
	/* the document says so */
	char *json = result_to_json(&r, false);
	ck_assert_ptr_nonnull(strstr(json, "\"ceilings_from\":\"cache\""));
	ck_assert_ptr_nonnull(strstr(json, "\"ceilings_cache\":\""));
	ck_assert_ptr_nonnull(strstr(json, "\"ceilings_cache_note\":null"));
	free(json);
	device_ceilings_release(&dc);
	result_release(&r);

	/* a timing driver on another GPU than the cache's measures for itself */
	gpu_result(&r);
	r.gpu.uuid = xstrdup(GPU_UUID);
	ck_assert_int_eq(timing_ceilings(&cfg, measure, NULL, cache, NULL, &dev_key, &r, &dc), 0);
	setenv("IGNORE_GIVEN", "1", 1);
	ck_assert_int_eq(run_timing(dir, driver, &dc, &r), 0);
	unsetenv("IGNORE_GIVEN");
	ck_assert_str_eq(r.timing.ceilings_from, "measured");
	ck_assert_double_eq(r.timing.copy_gbs, 500);
	ck_assert_ptr_nonnull(strstr(r.timing.ceilings_cache_note, "measured the copy bandwidth"));
	device_ceilings_release(&dc);
	result_release(&r);

	remove_tree(dir);
	free(args);
	free(runs);
	free(cache);
	free(driver);
	free(measure);
	free(dir);
	unsetenv("RUNS");
	unsetenv("ARGS_LOG");
	unsetenv("DEV_UUID");
	progress_quiet = false;
}
END_TEST

/* No cache, or a trusted measurement that fails: the timing driver measures, uncached. */
START_TEST(test_timing_ceilings_not_cached)
{
	char *dir = unit_tmpdir(), *measure = write_script(dir, "bench-device", fake_device);
	char *driver = write_script(dir, "bench_demo", fake_given_driver);
	char *cache = xasprintf("%s/cudalab-gpu-" GPU_UUID ".ceilings-demo", dir);
	char *runs = xasprintf("%s/runs", dir), *args = xasprintf("%s/args", dir);
	struct device_ceilings dc;
	struct result r;

	setenv("RUNS", runs, 1);
	setenv("ARGS_LOG", args, 1);
	progress_quiet = true;

	/* a GPU without a UUID (the grade says which): nothing run, nothing read */
	gpu_result(&r);
	ck_assert_int_eq(timing_ceilings(&cfg, measure, NULL, NULL, "the GPU has no UUID",
					 &dev_key, &r, &dc), -1);
	ck_assert_int_eq(lines_of(runs), 0);
	ck_assert_str_eq(r.timing.ceilings_cache_note, "the GPU has no UUID");
	ck_assert_ptr_null(r.timing.ceilings_cache);
	ck_assert_int_eq(run_timing(dir, driver, NULL, &r), 0);
	char *given = read_file(args, NULL);
	ck_assert_str_eq(given, "  \n");   /* nothing given */
	free(given);
	ck_assert_str_eq(r.timing.ceilings_from, "measured");
	ck_assert_double_eq(r.timing.copy_gbs, 500);
	ck_assert_uint_eq(r.timing.nceilings, 1);   /* the driver's own */
	ck_assert(r.timing.ceilings_measured_at > 0);
	result_release(&r);

	/* the trusted driver reports another GPU than the probe saw: not cached */
	setenv("DEV_UUID", "GPU-00000000-0000-0000-0000-000000000001", 1);
	gpu_result(&r);
	r.gpu.uuid = xstrdup(GPU_UUID);
	ck_assert_int_eq(timing_ceilings(&cfg, measure, NULL, cache, NULL, &dev_key, &r, &dc), -1);
	ck_assert_ptr_nonnull(strstr(r.timing.ceilings_cache_note,
				     "no entry for this GPU yet, and the trusted driver measured "
				     "another GPU"));
	ck_assert_int_eq(access(cache, F_OK), -1);
	result_release(&r);

	/* no trusted driver built */
	gpu_result(&r);
	r.gpu.uuid = xstrdup(GPU_UUID);
	ck_assert_int_eq(timing_ceilings(&cfg, NULL, NULL, cache, NULL, &dev_key, &r, &dc), -1);
	ck_assert_ptr_nonnull(strstr(r.timing.ceilings_cache_note, "no trusted driver"));
	result_release(&r);

	remove_tree(dir);
	free(args);
	free(runs);
	free(cache);
	free(driver);
	free(measure);
	free(dir);
	unsetenv("RUNS");
	unsetenv("ARGS_LOG");
	unsetenv("DEV_UUID");
	progress_quiet = false;
}
END_TEST

Suite *timing_suite(void)
{
	Suite *s = suite_create("timing");
	TCase *tc = tcase_create("timing");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_timing_points_are_a_line_between_two_ratios);
	tcase_add_test(tc, test_timing_config_is_checked);
	tcase_add_test(tc, test_timing_plan_times_only_what_passed_on_a_gpu);
	tcase_add_test(tc, test_timing_read_scores_only_lines_with_the_token);
	tcase_add_test(tc, test_timing_read_an_unanswered_request_is_named);
	tcase_add_test(tc, test_timing_read_a_busy_machine_is_not_charged);
	tcase_add_test(tc, test_leaderboard_speed_and_gradescope);
	tcase_add_test(tc, test_leaderboard_on_the_dashboard);
	tcase_add_test(tc, test_leaderboard_salt_is_made_once_and_private);
	tcase_add_test(tc, test_timing_read_wrong_output_and_the_floor);
	tcase_add_test(tc, test_timing_read_a_late_kernel_timed_out);
	tcase_add_test(tc, test_timing_run_restarts_after_a_crash);
	tcase_add_test(tc, test_timing_ceilings_measured_once_and_reused);
	tcase_add_test(tc, test_timing_ceilings_not_cached);
	tcase_add_test(tc, test_timing_is_stored_in_the_gradebook);
	tcase_add_test(tc, test_timing_report_table);
	suite_add_tcase(s, tc);
	return s;
}
