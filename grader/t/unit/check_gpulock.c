/*
 * Unit tests of gpulock.c's keys: which GPU a grading's locks are named
 * after, from the probe's UUID and Slurm's variables, without a GPU (the
 * locks themselves are tested in check_run.c); and of cpus.c's split of the
 * CPUs between the timing phases and the rest.
 */
#include "cpus.h"
#include "gpulock.h"
#include "run.h"
#include "unit.h"
#include "util.h"

#include <string.h>
#include <unistd.h>

static const char *const slurm_vars[] = {"SLURM_JOB_ID", "SLURM_STEP_GPUS", "SLURM_JOB_GPUS",
					 "CUDA_VISIBLE_DEVICES", "CUDALAB_LOCK_DIR"};

static void clear_env(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(slurm_vars); i++)
		unsetenv(slurm_vars[i]);
}

/* The key of gpu in a Slurm job (job) given GPUs (gpus: SLURM_JOB_GPUS) and cvd. */
static char *job_key(const char *job, const char *gpus, const char *cvd, const char *uuid,
		     const char *gpu)
{
	clear_env();
	setenv("SLURM_JOB_ID", job, 1);
	setenv("SLURM_JOB_GPUS", gpus, 1);
	setenv("CUDA_VISIBLE_DEVICES", cvd, 1);
	return gpulock_key(uuid, gpu);
}

static char *hostname(void)
{
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	return xstrdup(host);
}

/* Two array tasks on two GPUs of one node, each seeing its GPU as 0, do not share locks. */
START_TEST(test_gpulock_key_slurm_jobs_on_two_gpus)
{
	char *host = hostname();
	char *want0 = xasprintf("%s-gpu0", host), *want1 = xasprintf("%s-gpu1", host);
	char *a = job_key("206", "0", "0", NULL, "0"), *b = job_key("207", "1", "0", NULL, "0");

	ck_assert_str_eq(a, want0);
	ck_assert_str_eq(b, want1);
	ck_assert_str_ne(a, b);
	/* the same GPU in another job (the next task on it) is the same key */
	char *c = job_key("208", "1", "0", "", "0");
	ck_assert_str_eq(c, b);
	free(c);
	/* a step's GPUs (srun) come before the job's */
	c = job_key("209", "0,1", "0", NULL, "0");
	setenv("SLURM_STEP_GPUS", "3", 1);
	free(c);
	c = gpulock_key(NULL, "0");
	char *want3 = xasprintf("%s-gpu3", host);
	ck_assert_str_eq(c, want3);
	free(c);
	free(want3);
	/* a job's second GPU is its CUDA_VISIBLE_DEVICES's second; ranges count */
	c = job_key("210", "2-3,5", "0,1,2", NULL, "1");
	char *want = xasprintf("%s-gpu3", host);
	ck_assert_str_eq(c, want);
	free(c);
	free(want);
	c = job_key("210", "2-3,5", "0,1,2", NULL, "2");
	want = xasprintf("%s-gpu5", host);
	ck_assert_str_eq(c, want);
	free(c);
	free(want);
	/* a GPU the job does not list, or a job Slurm gave no GPU numbers: today's name */
	c = job_key("211", "0", "0", NULL, "7");
	ck_assert_str_eq(c, "7");
	free(c);
	c = job_key("212", "", "0", NULL, "0");
	ck_assert_str_eq(c, "0");
	free(c);
	free(a);
	free(b);
	free(want0);
	free(want1);
	free(host);
	clear_env();
}
END_TEST

/* The probe's UUID names the GPU, whatever its index, in a job or not. */
START_TEST(test_gpulock_key_uuid_first)
{
	static const char uuid[] = "GPU-8f3a1c2d-5e6f-4a0b-9c1d-2e3f4a5b6c7d";
	char *a = job_key("206", "0", "0", uuid, "0"), *b = job_key("207", "1", "1", uuid, "1");

	ck_assert_str_eq(a, uuid);
	ck_assert_str_eq(b, uuid);
	free(a);
	free(b);
	clear_env();
	setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
	a = gpulock_key(uuid, "3");
	ck_assert_str_eq(a, uuid);
	free(a);
	/* no UUID, no Slurm: the GPU as CUDA_VISIBLE_DEVICES names it, as before */
	a = gpulock_key(NULL, "3");
	ck_assert_str_eq(a, "3");
	free(a);
	clear_env();
}
END_TEST

/* Lock files live in $CUDALAB_LOCK_DIR (default /tmp), in that folder only. */
START_TEST(test_gpulock_paths)
{
	clear_env();
	char *p = gpulock_path("GPU-8f3a1c2d-5e6f-4a0b-9c1d-2e3f4a5b6c7d", "slot0");
	ck_assert_str_eq(p, "/tmp/cudalab-gpu-GPU-8f3a1c2d-5e6f-4a0b-9c1d-2e3f4a5b6c7d.slot0");
	free(p);
	setenv("CUDALAB_LOCK_DIR", "/run/locks", 1);
	p = gpulock_path("MIG-1/2", "lock");
	ck_assert_str_eq(p, "/run/locks/cudalab-gpu-MIG-1_2.lock");
	free(p);
	clear_env();
}
END_TEST

static void cpus_of(cpu_set_t *set, int from, int to)
{
	CPU_ZERO(set);
	for (int c = from; c <= to; c++)
		CPU_SET(c, set);
}

static char *cpus_said(const cpu_set_t *set)
{
	static char buf[2][64];
	static int k;

	k ^= 1;
	cpus_text(set, buf[k], sizeof(buf[k]));
	return buf[k];
}

/* cpus_place on a host of four GPUs: gpu's index, and how many in *n. */
static unsigned placed(const struct strlist *gpus, const char *gpu, bool slurm, unsigned *n)
{
	unsigned at = 99;

	ck_assert(cpus_place(gpus, gpu, 4, slurm, n, &at));
	return at;
}

/* Each GPU its three last CPUs, the rest to every other work; none where too few. */
START_TEST(test_cpus_split_keeps_three_per_gpu)
{
	cpu_set_t usable, timing, others;

	cpus_of(&usable, 0, 15);
	ck_assert(cpus_split(&usable, 1, 0, &timing, &others));
	ck_assert_str_eq(cpus_said(&timing), "13-15");
	ck_assert_str_eq(cpus_said(&others), "0-12");
	/* four GPUs on 64 CPUs: disjoint threes, none of them in the rest */
	cpus_of(&usable, 0, 63);
	ck_assert(cpus_split(&usable, 4, 0, &timing, &others));
	ck_assert_str_eq(cpus_said(&timing), "61-63");
	ck_assert(cpus_split(&usable, 4, 3, &timing, &others));
	ck_assert_str_eq(cpus_said(&timing), "52-54");
	ck_assert_str_eq(cpus_said(&others), "0-51");
	/* the grader's own CPUs only, wherever they are (a Slurm job's cpuset) */
	CPU_ZERO(&usable);
	for (int c = 1; c < 20; c += 2)
		CPU_SET(c, &usable);
	ck_assert(cpus_split(&usable, 1, 0, &timing, &others));
	ck_assert_str_eq(cpus_said(&timing), "15,17,19");
	ck_assert_str_eq(cpus_said(&others), "1,3,5,7,9,11,13");
	/* too few to spare: more than half would go; no GPU; a GPU not there */
	cpus_of(&usable, 0, 4);
	ck_assert(!cpus_split(&usable, 1, 0, &timing, &others));
	cpus_of(&usable, 0, 15);
	ck_assert(!cpus_split(&usable, 4, 0, &timing, &others));
	ck_assert(!cpus_split(&usable, 0, 0, &timing, &others));
	ck_assert(!cpus_split(&usable, 2, 2, &timing, &others));
	/* where a GPU's CPUs lie: by its number on the host, so that graders given
	 * GPU 0 and GPU 1 by CUDA_VISIBLE_DEVICES keep different ones */
	struct strlist one = STRLIST_INIT, two = STRLIST_INIT;
	const char *uuid = "GPU-8f3a1c2d-5e6f-4a0b-9c1d-2e3f4a5b6c7d";
	unsigned n, at;
	strlist_push(&one, "1");
	ck_assert_uint_eq(placed(&one, "1", false, &n), 1);
	ck_assert_uint_eq(n, 4);
	/* a Slurm job's numbers are its own (and its cpuset too): its list */
	ck_assert_uint_eq(placed(&one, "1", true, &n), 0);
	ck_assert_uint_eq(n, 1);
	/* a UUID, or a number the host has not: the place in the list */
	strlist_push(&two, uuid);
	strlist_push(&two, "7");
	ck_assert_uint_eq(placed(&two, uuid, false, &n), 0);
	ck_assert_uint_eq(placed(&two, "7", false, &n), 1);
	ck_assert_uint_eq(n, 2);
	ck_assert(!cpus_place(&two, "3", 4, false, &n, &at));
	strlist_clear(&one);
	strlist_clear(&two);
	/* no GPU found: no split */
	clear_env();
	setenv("CUDA_VISIBLE_DEVICES", "", 1);
	ck_assert(!cpus_for_grading("0", &timing, &others));
	clear_env();
}
END_TEST

/* A program run with a CPU set runs there. */
START_TEST(test_run_on_given_cpus)
{
	cpu_set_t mine, one;
	struct run_result res;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(mine), &mine), 0);
	CPU_ZERO(&one);
	for (int c = CPU_SETSIZE - 1; c >= 0 && !CPU_COUNT(&one); c--)
		if (CPU_ISSET(c, &mine))
			CPU_SET(c, &one);
	const char *const argv[] = {"grep", "^Cpus_allowed_list:", "/proc/self/status", NULL};
	struct run_spec spec = {.argv = argv, .timeout = 30, .cpus = &one};
	ck_assert_int_eq(run_one(&spec, &res), 0);
	ck_assert_int_eq(res.exit_code, 0);
	char *want = xasprintf("Cpus_allowed_list:\t%s\n", cpus_said(&one));
	ck_assert_str_eq(res.output, want);
	free(want);
	run_result_release(&res);
}
END_TEST

Suite *gpulock_suite(void)
{
	Suite *s = suite_create("gpulock");
	TCase *tc = tcase_create("key");

	tcase_add_test(tc, test_gpulock_key_slurm_jobs_on_two_gpus);
	tcase_add_test(tc, test_gpulock_key_uuid_first);
	tcase_add_test(tc, test_gpulock_paths);
	tcase_add_test(tc, test_cpus_split_keeps_three_per_gpu);
	tcase_add_test(tc, test_run_on_given_cpus);
	suite_add_tcase(s, tc);
	return s;
}
