/*
 * grading.h - one grading in progress: its options, and the context every
 * step of it shares (the work folder, the two sandboxes, the children's
 * environment, the GPU, the test lanes), passed to each step explicitly.
 */
#ifndef GRADING_H
#define GRADING_H

#include "config.h"
#include "result.h"
#include "run.h"
#include "sandbox.h"
#include "toolchain.h"

#include <time.h>

/*
 * The largest seed: 2^53 - 1. The result document gives the seed back, and
 * JSON readers (jq, JavaScript) hold numbers as doubles, exact only up to
 * 2^53: a larger seed read back is another seed, and reproduces nothing.
 */
#define SEED_MAX ((1ULL << 53) - 1)

/*
 * The folder of the work folder that holds the lab's public header (its
 * contract, <lab>.h), staged by grading_open: the compilers' one include
 * folder of the course's, so nothing else of it (tests, hidden tests, the
 * reference) can be included.
 */
#define GRADING_INCLUDE ".include"
/* The folder of the work folder that holds the CPU emulator's headers. */
#define GRADING_EMU ".emu"
/*
 * The folder of the work folder that holds the checked barrier
 * (labs/common/checked-barrier.h), forced into a strict lab's GPU build:
 * the grader's header, not one the submission may include by name.
 */
#define GRADING_CHECKED ".checked"
#define GRADING_CHECKED_BARRIER GRADING_CHECKED "/checked-barrier.h"

/*
 * Appends the words of the emulator's compiler flags to argv, each -I of the
 * checkout's labs/common/emu turned into the work folder's staged copy.
 */
struct grading;
void grading_push_emu_flags(const struct grading *g, const char *flags, struct strlist *argv);

/* --lanes not given: grading_lanes() decides. */
#define LANES_DEFAULT (-1)

struct build_kept;

struct grade_opts {
	const char *subdir;        /* the submission folder */
	const char *recorded_as;   /* the folder the run names (a regrade of stored files:
				      where they were submitted); NULL: subdir */
	const char *student;
	bool keep_workdir;         /* leave the work folder for inspection */
	bool seed_given;           /* seed is the inputs' seed; else a fresh random one */
	unsigned long long seed;   /* at most SEED_MAX */
	int emulate;               /* 1 always, 0 never, -1 when there is no GPU */
	unsigned gpu_slots;        /* gradings whose tests share the GPU at once (0: 4) */
	int lanes;                 /* lanes of the test binary (harness.cu): 0 a process
				      per test, LANES_DEFAULT: grading_lanes() */
	bool in_class;             /* one of many gradings side by side (batch.c) */
	unsigned cpus;             /* the CPUs an emulated grading's tests share, its
				      lanes alike (CUDAEMU_WORKERS); 0: the emulator's
				      default. batch.c: the machine's over the gradings
				      at once, so a class does not run a worker thread per
				      CPU in each of them */
	const char *gpu;           /* the GPU, as CUDA_VISIBLE_DEVICES names it; NULL:
				      the first of the grader's own (gpulock_gpu_name) */
	bool require_gpu;          /* no GPU for a lab that needs one: a failure of the system */
	/* Where the sandbox cannot start: unsandboxed says --unsandboxed was given
	 * (grading goes on, and every report says so); own_code that a student
	 * grades their own code (cudalab test: goes on with a note). Neither:
	 * the grading is refused, a failure of the machine (grading_open). */
	bool unsandboxed, own_code;
	time_t submitted_at;       /* when it was submitted; 0: not told */
	const char *submitted_from;   /* who says so: "--submitted-at", a file of times */
};

#define GRADE_OPTS_INIT {.emulate = -1, .lanes = LANES_DEFAULT}

struct grading {
	const struct toolchain *tc;
	const struct lab_config *cfg;
	const struct grade_opts *o;
	struct result *r;
	char *workdir;
	char *judgedir;            /* the judge's folder, outside the sandbox (judge.h) */
	char *gpu;                 /* CUDA_VISIBLE_DEVICES of every child */
	/* where the machine has CPUs to spare (cpus.h): the timing phase's CPUs,
	 * the grading having the others meanwhile, and its CPUs before */
	bool cpus_split;
	cpu_set_t timing_cpus, cpus_before;
	char *gpu_key;             /* what its GPU locks are named after (gpulock_key),
				      once the probe has answered; NULL before */
	char **env;                /* every child's environment (grading_open) */
	char **tool_env;           /* env with TMPDIR the work folder: for the grader's own
				      tools run outside the sandbox (the compilers' search
				      lists), whose temporary files go with the work folder */
	/* programs that compile the submission may also read the labs (their
	 * headers, the emulator's); programs that run it see nothing of the
	 * checkout */
	struct sandbox build_sandbox, run_sandbox;
	int lanes;                 /* of the test binary, resolved: 0 a process per test */
	int jobs;                  /* its processes at once; 0: as many as CPUs */
	/* what build.c made and audited, which later steps build from once
	 * the submission's own programs have had the work folder to write
	 * (build.c owns it; NULL before the build) */
	struct build_kept *build;
};

/*
 * Makes the work folder, the children's environment and the sandboxes of a
 * grading of o's submission into r (whose sandbox fields it fills). 0, or -1
 * with an error (g is then released).
 */
int grading_open(struct grading *g, const struct toolchain *tc, const struct lab_config *cfg,
		 const struct grade_opts *o, struct result *r);
/*
 * Whether a grading with o may start here: the sandbox works, or o allows
 * going on without it. Tried in a folder of its own, before a class's long
 * work; says why not, and how to fix it. The one place the rule is kept.
 */
bool grading_sandbox_ready(const struct toolchain *tc, const struct lab_config *cfg,
			   const struct grade_opts *o);

/* Removes the work folder (unless o->keep_workdir) and frees g. */
void grading_close(struct grading *g);

/*
 * The lanes of the test binary: --lanes where given; else one on a GPU
 * (contexts made side by side each take longer) and for a grading in a
 * class (gradings side by side already fill the machine), one per part on
 * the CPU. The one place the default is decided.
 */
int grading_lanes(const struct grade_opts *o, enum run_mode mode, size_t nparts);
/* The emulator's workers for each test process of a grading in lanes
 * lanes (CUDAEMU_WORKERS): o->cpus shared among them; 0: not emulated, or
 * no share given (the emulator's own default). */
unsigned grading_emu_workers(const struct grade_opts *o, enum run_mode mode, int lanes);

/*
 * Every child's environment on one GPU (gpu as CUDA_VISIBLE_DEVICES names
 * it): of the grader's, only what grading_env_allowed lets through; free it
 * with grading_free_env.
 */
char **grading_gpu_env(const char *gpu);
/* Whether "NAME=value" may reach a program that builds or runs a submission. */
bool grading_env_allowed(const char *entry);

/*
 * g's environment with extra ("KEY=value", NULL-terminated; NULL: none)
 * added, each in place of g's entry of the same name; free it with
 * grading_free_env.
 */
char **grading_env(const struct grading *g, const char *const *extra);
/* Sets entry ("NAME=value") in the environment of g's children from now on. */
void grading_setenv(struct grading *g, const char *entry);
void grading_free_env(char **env);

/*
 * Sets spec's resource limits to the lab's, for a program that runs the
 * submission (its CPU time scaled by slow, the emulation's slowdown).
 */
void lab_run_limits(const struct lab_config *cfg, double slow, struct run_spec *spec);

#endif
