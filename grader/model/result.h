/*
 * result.h - the result of grading one submission, and its canonical JSON
 * document (the one format every report and export is derived from).
 */
#ifndef RESULT_H
#define RESULT_H

#include "config.h"
#include "intake.h"

#include <jansson.h>
#include <stdint.h>

/* Bump when a field changes meaning or goes away; adding fields does not. */
#define RESULT_SCHEMA "cudalab-result/1"

enum test_status { TEST_PASS, TEST_FAIL, TEST_TIMEOUT, TEST_CRASH, TEST_NOT_RUN };

enum build_state {
	BUILD_NOT_ATTEMPTED,
	BUILD_OK,
	BUILD_REFUSED,        /* intake refused the files */
	BUILD_COMPILE_ERROR,
	BUILD_AUDIT_FAILED,
	BUILD_LINK_ERROR,
};

enum run_mode {
	MODE_NONE,            /* nothing ran the tests */
	MODE_GPU,
	MODE_EMULATED,        /* on the CPU emulator: a pre-check, never a grade */
	MODE_CPU,             /* natively on the CPU: the lab's tests need no GPU; a grade */
};

enum run_state {
	RUN_COMPLETE,         /* every test ran: the score is final */
	RUN_INCOMPLETE,       /* some tests could not run (no GPU): provisional */
	RUN_NOT_BUILT,        /* the submission did not build: zero */
};

enum test_kind {
	KIND_CORRECTNESS,     /* a Check test: all points or none */
	KIND_TIMING,          /* a timed kernel: points by its time against the reference's */
	KIND_SECTORS,         /* a profiled launcher: its memory requests' sectors, all or none */
};

/* What the timing driver measured for one kernel at one size. */
struct timing_measure {
	char *kernel;          /* the driver's name for it */
	int size;
	int samples;           /* pairs of timed calls */
	bool capped;           /* stopped by the time cap before the noise target */
	double student_ms, reference_ms;           /* medians */
	double student_spread, reference_spread;   /* robust coefficient of variation */
	double ratio;                              /* student_ms / reference_ms */
	double student_gflops, reference_gflops;   /* NaN for kernels that do no arithmetic */
	double student_gbs, reference_gbs;         /* the least DRAM traffic over the time */
	char *subject, *baseline;  /* what was timed, when not "yours" and "the reference's" */
	double floor_ms;       /* the fastest this device could possibly do it; NaN unknown */
	double sm_clock_mhz;   /* at the end of the measurement; NaN unknown */
	bool measured;         /* the fields above hold a measurement */
	bool flagged;          /* faster than the floor: for a person to look at */
};

/*
 * A kernel's rate for people: "48123 GFLOP/s" where it does arithmetic,
 * else "2251 GB/s", else "-". Returns buf.
 */
const char *timing_rate(char *buf, size_t len, double gflops, double gbs);

struct graded_test;
/* Sets t's status and message (which it takes, freeing the old one). */
void result_set_verdict(struct graded_test *t, enum test_status status, char *message);

/* What was counted of one profiled launcher's global memory requests. */
struct sectors_measure {
	char *call;            /* the profile driver's name for it */
	const char *source;    /* "Nsight Compute" or "the emulator's trace" */
	unsigned long long load_requests, load_sectors, store_requests, store_sectors;
	bool measured;
};

/* What the GPU probe (probe.h) said of the grading's GPU. */
struct gpu_info {
	bool available;
	char *name, *cc, *runtime, *driver, *reason;
	char *uuid;            /* "GPU-8f3a1c2d-...", as nvidia-smi writes it; NULL unknown */
	double clock_mhz;      /* the SM clock it reports as its peak; 0 unknown (a key of
				  the ceilings' cache, not in the document) */
};

struct graded_test {
	char *part, *name;     /* lab.conf's part and test name ("time@2048" when timed) */
	char *id;              /* Check's test function, or time_<lab>_<part>_<size> */
	enum test_kind kind;
	struct timing_measure *timing;   /* KIND_TIMING only */
	struct sectors_measure *sectors; /* KIND_SECTORS only */
	enum test_status status;
	double points, max_points;
	bool bonus;
	char *message;
	double seconds;        /* -1 unknown */
	enum test_visibility visibility;   /* who sees its result (config.h) */
	/* not in this copy of the lab (tests/hidden/ is not in a student's
	 * handout): not run here, its points graded by the course's grader */
	bool held_back;
	bool unreported;       /* its test binary ended before it reported */
	bool short_of_memory;  /* it passed, but a cudaMalloc found the GPU full */
	bool owed;             /* its verdict may be its neighbours' doing: it runs again
				  alone, and is checked for safety then (grade.c) */
};

struct result {
	char *lab, *lab_title, *lab_version;
	char *student;
	char *submission;      /* the folder graded */
	char *started_at;      /* ISO 8601 UTC */
	double seconds;
	char *host;
	/* how the submission's programs ran: "bubblewrap", or NULL (unsandboxed,
	 * with why in sandbox_why; NULL both when nothing of it ran) */
	char *sandbox, *sandbox_why;
	char *sandbox_user;    /* who its programs ran as (sandbox_describe_user) */
	unsigned long memory_limit; /* bytes of data each program may have; 0: none */
	/* processes and threads each of its programs may have at once; 0: not
	 * limited, with why in processes_why */
	unsigned long processes;
	char *processes_why;
	struct gpu_info gpu;
	struct intake_file *files;
	size_t nfiles;
	enum run_mode mode;
	enum build_state build;
	char *build_message;   /* what went wrong, for the student */
	char *build_log;       /* compiler diagnostics */
	double build_seconds;
	double tests_seconds;     /* wall time of the correctness tests and their re-runs */
	/* where the tests' time went, as the judge measured it (harness-words.h):
	 * the lab's setup hook, summed over the test binaries; the rest summed
	 * over the tests that passed (counted of them) */
	struct {
		double setup, start, calls, requests;
		int counted;
	} in_tests;
	double profile_seconds;   /* of the profile driver */
	/* the safety stage (safety.h): "ran" or "not-run" (why in safety_why);
	 * NULL when the lab has no safety tests */
	const char *safety;
	char *safety_why;
	double safety_seconds;
	int safety_findings;
	double gpu_wait_seconds;  /* waiting for the GPU behind other gradings (gpulock.h) */
	double gpu_from, gpu_to;  /* when it used the GPU (wall_seconds(); 0: never) */
	struct graded_test *tests;
	size_t ntests;
	double score, max_score, bonus_score;
	enum run_state state;
	char *state_reason;    /* why incomplete */
	char *output;          /* what the test binary printed (capped) */
	struct {
		bool ran;          /* the timing driver ran on a GPU */
		char *reason;      /* why not, when it did not */
		double peak_gflops, copy_gbs, clock_mhz;   /* the device's, NaN unknown */
		/* the driver used the copy bandwidth the grader gave it (not in the
		 * document: ceilings_from says where it came from) */
		bool copy_given;
		char *ceiling_name;                        /* "cuBLAS", or NULL */
		struct ceiling {
			int size;
			double ms, gflops;
		} *ceilings;
		size_t nceilings;
		char *ceiling_note;   /* why the ceiling was not measured */
		/* where copy_gbs and the ceilings came from (devcache.h): "measured"
		 * during this grading, or "cache" (reused); NULL where no timing
		 * driver ran on a GPU */
		const char *ceilings_from;
		time_t ceilings_measured_at;  /* when they were measured; 0 unknown */
		char *ceilings_cache;         /* the cache file read or written; NULL: none */
		char *ceilings_cache_note;    /* why the cache was not used; NULL when it was */
		double seconds;       /* wall time of the timing phase */
		bool flagged;         /* some kernel needs a person's look */
	} timing;
	unsigned long long seed;  /* the inputs' seed, to reproduce a run */
	/* when it was submitted, as the grader was told (0: not told), and by what */
	time_t submitted_at;
	char *submitted_from;
	struct {
		bool deadline;        /* the lab has one */
		bool applied;         /* ... and the submission's time was known */
		struct late_verdict v;
	} late;
};

/* One not-run test per test of the lab, in lab.conf order. */
void result_init(struct result *r, const struct lab_config *cfg);
/* Marks every test that has not run as not run, with why. */
void result_mark_not_run(struct result *r, const char *why);
/* Score, maximum, state; call once the tests are filled in. */
void result_finish(struct result *r);
/* The late policy's verdict on r (once finished), from the lab's deadline. */
void result_judge_late(struct result *r, const struct lab_deadline *d);
/*
 * The score the student gets: the tests' less what lateness took. The one
 * definition, for every reader: of a result, a stored run, a document.
 */
double final_score(double score, double late_penalty);
double result_final_score(const struct result *r);
int result_exit_code(const struct result *r);

/*
 * A run's score as people read it. Every report, table and summary writes
 * it with score_text, from a result, a document (doc.h) or a stored run
 * (db.h), so one run reads the same everywhere.
 */
struct score_view {
	double final;          /* final_score: the tests' points, bonus included, less lateness */
	double max;            /* the points of the tests that are not bonus */
	double bonus;          /* bonus points earned: part of final, beyond max */
	bool late;             /* submitted past its due time */
	double late_penalty;   /* points lateness took */
	double pending;        /* points of tests (not bonus) that could not run here: not lost */
	bool pending_gpu;      /* ... for want of a GPU: graded emulated, or nothing ran */
	double later;          /* points of tests held back (not bonus): the course grades them */
	int nlater;            /* ... in this many tests */
};

#define SCORE_TEXT_MAX 160
/*
 * "50 / 50 (10 of it bonus)", "34.4 / 43 (late: -8.6)",
 * "40 / 50, 10 more pending a GPU run", "10 / 16, 6 more graded later".
 * Returns buf.
 */
const char *score_text(char buf[SCORE_TEXT_MAX], const struct score_view *s);
struct score_view result_score_view(const struct result *r);
/*
 * Whether a run in mode waits for a GPU for the tests it could not run: it
 * was emulated, or nothing ran them (no GPU and no emulator). Its points
 * are pending, not lost.
 */
bool mode_pending_gpu(enum run_mode mode);
/*
 * Marks t held back: not in this copy of the lab, so not run here, its
 * points graded later by the course (testrun.c decides).
 */
void result_hold_back(struct graded_test *t);
/*
 * Of part's correctness tests: whether every one passed (what timing and
 * profiling ask first), and whether one ran and did not pass.
 */
bool result_part_passed(const struct result *r, const char *part);
bool result_part_failed(const struct result *r, const char *part);
struct graded_test *result_find(struct result *r, const char *part, const char *name);

const char *test_status_name(enum test_status s);
/* The status a test_status_name names; TEST_NOT_RUN for anything else. */
enum test_status test_status_of(const char *name);
const char *test_kind_name(enum test_kind k);
const char *build_state_name(enum build_state s);
const char *run_state_name(enum run_state s);
const char *run_mode_name(enum run_mode m);
/* The mode a run_mode_name names; MODE_NONE for anything else. */
enum run_mode run_mode_of(const char *name);

/* The JSON document (a new reference), what the gradebook stores a run from. */
json_t *result_document(const struct result *r);
/* The JSON document, as a string (pretty when indent). */
char *result_to_json(const struct result *r, bool indent);
void result_release(struct result *r);

#endif
