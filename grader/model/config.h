/*
 * config.h - lab.conf and labs/common/audit.conf.
 * The only module that reads configuration files; everything else gets the
 * parsed structures.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include "late.h"
#include "util.h"

/*
 * Who sees a test's result (lab.conf: a part's `visibility =`, or a test's
 * NAME:POINTS:VISIBILITY). The grade counts every test alike; visibility
 * says what the student is shown: exports for students leave out hidden
 * ones, Gradescope shows after_due ones after the due date. A test whose
 * source is in tests/hidden/ is not in a student's handout: there it is
 * not run, and its points are said to be graded later (testrun.c).
 */
enum test_visibility { VIS_VISIBLE, VIS_AFTER_DUE, VIS_HIDDEN };
#define VIS_UNSET (-1)

/* "visible", "after_due", "hidden" */
const char *test_visibility_name(enum test_visibility v);
/* The visibility a word names; -1 for any other word. */
int test_visibility_of(const char *word);

struct lab_test {
	char *name;        /* "exact": Check test test_<lab>_<part>_<name> */
	double points;
	int visibility;    /* enum test_visibility; VIS_UNSET in lab.conf: its part's */
};

struct lab_part {
	char *name;        /* the Check TCase */
	char *title;
	double timeout;    /* seconds per test */
	bool bonus;        /* points count toward the score, not the maximum */
	enum test_visibility visibility;   /* of its tests that name none (default visible) */
	struct lab_test *tests;
	size_t ntests;
	/* tests the GPU's sanitizers run this part's kernels through (safety.c);
	 * a finding fails the test it was found in */
	struct strlist safety;
};

/*
 * A timed kernel: what the lab's timing driver calls kernel, at one size
 * (whose meaning is the driver's), scored by the ratio t_student / t_baseline
 * (the baseline is the reference's launcher unless the driver names another):
 * all points up to full_ratio, none from zero_ratio on, a straight line
 * between. A part with one timed kernel names its section after the part.
 */
struct lab_timing {
	char *name;        /* the section's name: [timing NAME] */
	char *part;        /* the graded part it belongs to (default NAME) */
	char *kernel;      /* what the lab's timing driver is asked to time (default NAME) */
	char *test;        /* the test's name: time@SIZE when NAME is the part's, else NAME */
	int size;
	double points;     /* 0: measured and shown, not scored */
	double full_ratio, zero_ratio;
};

/*
 * A profiled launcher: the memory requests of the call the lab's profile
 * driver names `call`, in 32-byte sectors per warp-wide request (Nsight
 * Compute on a GPU, the emulator's trace on the CPU). All points when loads
 * and stores stay within max_load and max_store (0: not limited), none
 * otherwise. Where no counter can be read, the timed test `judge` of the
 * same part decides alone (NULL: the test is not run).
 */
struct lab_sectors {
	char *name;        /* [sectors NAME]: the test's name */
	char *part, *call, *judge;
	double points;     /* 0: measured and shown, not scored */
	double max_load, max_store;
};

struct lab_config {
	char *name, *title, *version;
	char *dir;                   /* <root>/labs/<name> */
	struct strlist files;        /* what a submission consists of */
	size_t max_file_bytes;
	struct strlist symbols;      /* functions the submission must define */
	double build_timeout, run_timeout;
	double emulation_slowdown;   /* timeouts are this many times longer in emulation */
	bool strict_barriers;        /* emulation: a thread returning while others wait is an error */
	bool needs_gpu;              /* false: the tests call no CUDA and run natively anywhere */
	int leaderboard;             /* enum leaderboard_mode (leaderboard.h): off unless opted in */
	size_t output_limit;         /* bytes of a program's output kept; the rest dropped */
	size_t build_output_limit;   /* bytes of the compiler's output kept */
	/* limits of every program that runs the submission; 0: not limited */
	double cpu_limit;            /* CPU seconds; default 4 times run_timeout */
	size_t file_limit;           /* bytes of any one file it writes */
	size_t open_files;
	size_t processes;            /* at once, threads included, per program (a pids cgroup) */
	size_t memory_limit;         /* bytes of data (heap and private mappings) per program,
					compilers included (RLIMIT_DATA: CUDA's own device
					mappings are shared and do not count) */
	struct lab_part *parts;
	size_t nparts;
	struct lab_timing *timings;
	size_t ntimings;
	double timing_cap;           /* seconds of sampling per timed kernel, at most */
	double timing_timeout;       /* seconds a timed kernel may take in all (the timer stops the submission there) */
	struct lab_sectors *sectors;
	size_t nsectors;
	struct strlist allow_undefined, deny_defined, allow_weak;
	struct strlist allow_sections;   /* globs: the sections an object may have */
	/* what the emulator's build of a submission adds: the runtime entry
	 * points its rewrite and cudaemu.h call, the weak instances of
	 * cudaemu.h's templates, the emulator's names it may not define */
	struct strlist emulated_allow_undefined, emulated_allow_weak, emulated_deny_defined;
	/* the source scan (scan.h): names never to use, names never to call */
	struct strlist forbid_names, forbid_calls;
	int inline_asm;              /* enum asm_policy: no (default), device, yes */
	struct lab_deadline deadline;   /* [deadline] and [extensions] (late.h) */
};

/* Reads <root>/labs/common/audit.conf, then <root>/labs/<lab>/lab.conf. */
int config_load(const char *root, const char *lab, struct lab_config *cfg);
/* Parses one file into cfg (which config_init prepared); for tests too. */
void config_init(struct lab_config *cfg);
int config_parse(const char *path, struct lab_config *cfg);
/* Checks what config_parse cannot check line by line. */
int config_validate(struct lab_config *cfg, const char *path);
void config_free(struct lab_config *cfg);
/* The lab names under <root>/labs, sorted. */
int config_list_labs(const char *root, struct strlist *names);

/* Points of every test and timed kernel; bonus parts' too when with_bonus. */
double lab_max_points(const struct lab_config *cfg, bool with_bonus);
const struct lab_part *lab_find_part(const struct lab_config *cfg, const char *name);

#endif
