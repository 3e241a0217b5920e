/*
 * grade.c - the data path of one grading (docs/DESIGN.md), in order: intake,
 * build (with the GPU probe, started here, alongside), where the tests run,
 * link, tests, timing, profile, score.
 *
 * Owns: the order of the steps, the GPU's locks around them, and what a
 * step's outcome means for the rest (a build that failed runs no tests, a
 * GPU lost is the system's failure). The steps themselves are build.c,
 * testrun.c, timing.c and profile.c, on the context grading.c makes. Never
 * touches CUDA: every GPU fault happens in a child.
 */
#include "grade.h"

#include "build.h"
#include "devcache.h"
#include "gpulock.h"
#include "intake.h"
#include "judge.h"
#include "probe.h"
#include "profile.h"
#include "safety.h"
#include "testrun.h"
#include "timing.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* Where the tests run: the GPU, the CPU emulator, or nowhere. */
static enum run_mode choose_mode(const struct grading *g)
{
	if (!g->cfg->needs_gpu)   /* its tests call no CUDA: the native binary runs anywhere */
		return MODE_CPU;
	if (g->o->emulate <= 0 && g->r->gpu.available)
		return MODE_GPU;
	if (g->o->emulate != 0 && g->tc->emu_cxxflags)
		return MODE_EMULATED;
	return MODE_NONE;
}

/* On a GPU: the GPU to this grading alone, for timing or profiling (gpulock.h). */
static int gpu_to_itself(const struct grading *g)
{
	if (g->r->mode != MODE_GPU)
		return -1;
	return gpulock_timing(g->gpu_key, &g->r->gpu_wait_seconds);
}

/*
 * The device's ceilings for the timing phase (devcache.h), with the GPU held
 * alone: from the node's cache, else measured by the trusted driver and
 * cached; 0 with dc, or -1 (the timing driver measures them). The cache is
 * used only for a GPU with a UUID (its key), and only by a sandboxed
 * grading: unsandboxed, the submission's programs run as the grader's user
 * and could write the file themselves, for the gradings after theirs.
 */
static int device_ceilings(const struct grading *g, struct device_ceilings *dc)
{
	struct result *r = g->r;
	char *measure = xasprintf("%s/labs/%s/timer", g->tc->build, g->cfg->name);
	char *cache = NULL;
	const char *no_cache = NULL;

	if (!r->gpu.uuid)
		no_cache = "the GPU has no UUID to key a cache on";
	else if (!r->gpu.driver || !(r->gpu.clock_mhz > 0))
		no_cache = "the probe did not say the GPU's driver and clock, which key a cache";
	else if (!g->run_sandbox.bwrap)
		no_cache = "unsandboxed, the submission's programs could write the cache: not used";
	else
		cache = devcache_path(r->gpu.uuid, g->cfg->name);
	struct devcache_key key = {.uuid = r->gpu.uuid, .clock_mhz = r->gpu.clock_mhz,
				   .driver = r->gpu.driver, .lab = g->cfg->name,
				   .lab_version = r->lab_version};
	int ret = timing_ceilings(g->cfg, access(measure, X_OK) ? NULL : measure,
				  (const char *const *)g->env, cache, no_cache, &key, r, dc);
	free(cache);
	free(measure);
	return ret;
}

/*
 * On a GPU, once the correctness tests ran: the lab's timer (trusted,
 * outside the sandbox) times every kernel whose part passed, the
 * submission's side in the runner its tests used (in the sandbox), the
 * reference's in the lab's reference runner (labs/common/bench.h).
 */
static int time_kernels(const struct grading *g, const char *runner)
{
	struct result *r = g->r;
	char *timer = xasprintf("%s/labs/%s/timer", g->tc->build, g->cfg->name);
	char *reference = xasprintf("%s/labs/%s/runner-ref", g->tc->build, g->cfg->name);
	char *recipe[2] = {NULL, NULL};
	int ret = 0;

	if (!timing_plan(g->cfg, r))
		goto out;
	if (access(timer, X_OK) || access(reference, X_OK)) {
		timing_not_run(r, "this lab's timer or reference runner is not built (make)");
		goto out;
	}
	const char *const sub_argv[] = {runner, NULL}, *const ref_argv[] = {reference, NULL};
	if (judge_recipe(g, "timing", sub_argv, true, &recipe[0]) ||
	    judge_recipe(g, "timing-reference", ref_argv, false, &recipe[1])) {
		ret = -1;
		goto out;
	}
	int held = gpu_to_itself(g);
	struct device_ceilings dc;
	bool given = !device_ceilings(g, &dc);
	struct timing_programs programs = {.timer = timer, .runner = recipe[0],
					   .reference = recipe[1], .folder = g->judgedir,
					   .cpus = g->cpus_split ? &g->timing_cpus : NULL};
	ret = timing_run(g->cfg, &programs, (const char *const *)g->env, given ? &dc : NULL, r);
	if (given)
		device_ceilings_release(&dc);
	gpulock_release(held);
out:
	free(timer);
	free(reference);
	free(recipe[0]);
	free(recipe[1]);
	return ret;
}

/* Nsight Compute: the toolchain's, else one on PATH; NULL when there is none. */
static char *find_ncu(const struct toolchain *tc)
{
	if (tc->ncu && !access(tc->ncu, X_OK))
		return xstrdup(tc->ncu);
	return path_lookup("ncu");
}

/*
 * Once the tests and the timing ran: links the submission with the lab's
 * profile driver (on a GPU) or compiles it again for the emulator's trace
 * runtime, and counts the memory requests of every profiled launcher whose
 * part passed.
 */
static int profile_kernels(const struct grading *g)
{
	const struct lab_config *cfg = g->cfg;
	struct result *r = g->r;
	struct strlist objs = STRLIST_INIT;
	char *binary = NULL, *log = NULL, *ncu = NULL, *why = NULL;
	bool gpu = r->mode == MODE_GPU;
	const char *rsp_name = gpu ? "link-profile.rsp" : "link-trace.rsp";
	int ret = 0;

	if (!profile_plan(cfg, r))
		goto out;
	char *rsp = xasprintf("%s/labs/%s/%s", g->tc->build, cfg->name, rsp_name);
	bool built = !access(rsp, R_OK);
	free(rsp);
	if (!built) {
		profile_without_counters(cfg, r, "this lab has no profile driver built here");
		goto out;
	}
	if (gpu) {
		ncu = find_ncu(g->tc);
		if (!ncu) {
			profile_without_counters(cfg, r, "Nsight Compute (ncu) is not installed");
			goto out;
		}
		build_student_objects(g, &objs);
	} else {
		if (!g->tc->emu_trace_cxxflags) {
			profile_without_counters(cfg, r, "no trace build of the emulator here");
			goto out;
		}
		ret = build_emulated_objects(g, g->tc->emu_trace_cxxflags, "trace", &objs, &log);
		if (ret < 0)
			goto out;
		if (ret) {
			why = xasprintf("the emulator's trace build failed: %s", log);
			profile_without_counters(cfg, r, why);
			ret = 0;
			goto out;
		}
	}
	ret = build_link(g, &objs, rsp_name, gpu ? "profile_gpu" : "profile_trace", &binary, &log);
	if (ret > 0) {
		why = xasprintf("the profile driver could not be linked with the submission: %s",
				log);
		profile_without_counters(cfg, r, why);
		ret = 0;
		goto out;
	}
	if (ret)
		goto out;
	int held = gpu_to_itself(g);
	ret = profile_run(cfg, g->workdir, binary, ncu, (const char *const *)g->env,
			  &g->run_sandbox, r);
	gpulock_release(held);
out:
	free(binary);
	free(log);
	free(ncu);
	free(why);
	strlist_clear(&objs);
	return ret;
}

/*
 * Tests, timing and profile. On a GPU, in one of its slots, the tests beside
 * other gradings' tests; timing and profile take the GPU to themselves.
 */
static int gpu_phases(const struct grading *g, const char *binary)
{
	struct result *r = g->r;
	bool gpu = r->mode == MODE_GPU;
	int slot = gpu ? gpulock_slot(g->gpu_key, g->o->gpu_slots ? g->o->gpu_slots : 4,
				      &r->gpu_wait_seconds) : -1;
	int held = gpu ? gpulock_tests(g->gpu_key, &r->gpu_wait_seconds) : -1, ret;
	double t0 = now_seconds();

	if (gpu)
		r->gpu_from = wall_seconds();
	/*
	 * On a GPU the sanitizers' runs go beside the tests (their start-up
	 * is most of their time); emulated, where the CPUs are what the tests
	 * use, after them, so one program of the submission's runs at a time.
	 */
	struct safety_run *safety = gpu ? safety_start(g, binary, true) : NULL;
	ret = testrun_tests(g, binary);
	if (!gpu && !ret)
		safety = safety_start(g, binary, false);
	/*
	 * A test that ran out of time or of GPU memory beside other gradings
	 * may owe it to them (a kernel that never ends holds the GPU for all;
	 * a submission may take all its memory): its verdict is the one it
	 * gets with the GPU to itself, and it is checked for safety then. Told
	 * before the safety stage's verdicts join: a test the stage could not
	 * finish is not the neighbours' doing.
	 */
	bool owed = !ret && gpu && testrun_mark_owed(r);
	if (safety_finish(safety, ret != 0) && !ret)
		ret = -1;
	gpulock_release(held);
	if (!ret && owed) {
		held = gpulock_timing(g->gpu_key, &r->gpu_wait_seconds);
		ret = testrun_again_alone(g, binary);
		if (!ret && safety_finish(safety_start_owed(g, binary), false))
			ret = -1;
		gpulock_release(held);
	}
	r->tests_seconds = now_seconds() - t0;
	if (!ret)
		ret = time_kernels(g, binary);
	t0 = now_seconds();
	if (!ret)
		ret = profile_kernels(g);
	r->profile_seconds = now_seconds() - t0;
	if (gpu)
		r->gpu_to = wall_seconds();
	if (!ret)
		ret = probe_gpu_still_there(g);
	gpulock_release(slot);
	return ret;
}

/* Intake, build, link: 0 with *binary when the tests can run, or the run is settled. */
static int build_phases(struct grading *g, char **binary)
{
	struct result *r = g->r;
	struct intake in;
	double t0;
	int ret = -1;

	if (intake_copy(g->o->subdir, &g->cfg->files, g->cfg->max_file_bytes, g->workdir, &in))
		return -1;
	r->files = in.files;
	r->nfiles = in.nfiles;
	in.files = NULL;
	in.nfiles = 0;
	if (!in.accepted) {
		r->build = BUILD_REFUSED;
		r->build_message = xstrdup(in.refusal);
		intake_release(&in);
		return 0;
	}
	intake_release(&in);
	if (judge_open(g))
		return -1;
	t0 = now_seconds();
	/* the GPU probe runs beside the build: what the GPU is, known as the build is */
	const char *probe_argv[2];
	struct run_spec probe;
	struct run_result probed = {0};
	probe_spec(g, probe_argv, &probe);
	int failed = build_compile(g, &probe, &probed);
	if (!failed)
		probe_read(&probe, &probed, &r->gpu);
	run_result_release(&probed);
	if (failed)
		goto out;
	if (r->build == BUILD_OK) {
		r->mode = choose_mode(g);
		if (build_test_binary(g, binary))
			goto out;
	}
	ret = 0;
out:
	r->build_seconds = now_seconds() - t0;
	return ret;
}

/* A random seed from 1 to SEED_MAX, which every JSON reader gets back exactly. */
static unsigned long long fresh_seed(void)
{
	unsigned long long s = 0;
	while (!s) {
		if (getrandom(&s, sizeof(s), 0) != sizeof(s))
			s = (unsigned long long)(now_seconds() * 1e9) ^ (unsigned long long)getpid();
		s &= SEED_MAX;
	}
	return s;
}

int grade_submission(const struct toolchain *tc, const struct lab_config *cfg,
		     const struct grade_opts *o, struct result *r)
{
	char host[256] = "", when[32], real[PATH_MAX];
	char *binary = NULL;
	struct grading g;
	double t0 = now_seconds();
	int ret = -1;

	result_init(r, cfg);
	r->student = xstrdup(o->student);
	r->submission = xstrdup(o->recorded_as                ? o->recorded_as
				: realpath(o->subdir, real) ? real
							    : o->subdir);
	r->started_at = xstrdup(iso_time(when, sizeof(when)));
	gethostname(host, sizeof(host) - 1);
	r->host = xstrdup(host);
	r->seed = o->seed_given ? o->seed : fresh_seed();
	r->submitted_at = o->submitted_at;
	r->submitted_from = o->submitted_at ? xstrdup(o->submitted_from ? o->submitted_from : "given")
					    : NULL;

	if (grading_open(&g, tc, cfg, o, r))
		goto out;
	if (build_phases(&g, &binary))
		goto out_close;
	/* the probe ran with the build: the GPU's locks are keyed on what it found */
	g.gpu_key = gpulock_key(r->gpu.uuid, g.gpu);
	g.lanes = grading_lanes(o, r->mode, cfg->nparts);
	unsigned workers = grading_emu_workers(o, r->mode, g.lanes);
	if (workers) {
		char entry[40];
		snprintf(entry, sizeof(entry), "CUDAEMU_WORKERS=%u", workers);
		grading_setenv(&g, entry);
	}
	if (o->require_gpu && cfg->needs_gpu && r->build == BUILD_OK && r->mode != MODE_GPU) {
		error("no GPU answered (%s) on a machine that has one: a fault of the machine, not "
		      "of the submission, which is not graded", r->gpu.reason ? r->gpu.reason : "?");
		goto out_close;
	}
	if (r->build != BUILD_OK) {
		if (r->build != BUILD_REFUSED)
			timing_not_run(r, "the submission was not built");
		result_mark_not_run(r, "not run: the submission was not built");
	} else if (r->mode == MODE_NONE) {
		if (!r->state_reason)
			r->state_reason = xasprintf("no CUDA device: %s, and %s",
						    r->gpu.reason ? r->gpu.reason : "the probe gave no reason",
						    o->emulate < 0 ? "no CPU emulator on this machine"
								   : "emulation is off");
		timing_not_run(r, r->state_reason);
		char *why = xasprintf("not run: %s", r->state_reason);
		result_mark_not_run(r, why);
		free(why);
	} else {
		if (r->mode == MODE_EMULATED)
			r->state_reason = xstrdup("emulated on the CPU: a pre-check of correctness, "
						  "not a grade; run on a GPU for the grade");
		if (gpu_phases(&g, binary))
			goto out_close;
	}
	result_finish(r);
	result_judge_late(r, &cfg->deadline);
	ret = 0;
out_close:
	grading_close(&g);
out:
	r->seconds = now_seconds() - t0;
	free(binary);
	return ret;
}
