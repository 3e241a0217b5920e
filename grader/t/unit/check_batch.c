/*
 * Unit tests of batch.c's defaults: which GPUs a class uses when --gpus is
 * not given, inside a Slurm job and outside one, from the environment alone.
 */
#include "batch.h"
#include "slurm.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void clear_env(void)
{
	unsetenv("SLURM_JOB_ID");
	unsetenv("CUDA_VISIBLE_DEVICES");
}

/* batch_defaults with the environment given (NULL: unset). */
static void defaults(struct batch_opts *bo, const char *job, const char *visible)
{
	clear_env();
	if (job)
		setenv("SLURM_JOB_ID", job, 1);
	if (visible)
		setenv("CUDA_VISIBLE_DEVICES", visible, 1);
	memset(bo, 0, sizeof(*bo));
	batch_defaults(bo);
	clear_env();
}

static void assert_gpus(const struct batch_opts *bo, const char *want)
{
	char got[256] = "";
	for (size_t i = 0; i < bo->gpus.n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s[%s]", i ? "," : "",
			 bo->gpus.v[i]);
	ck_assert_str_eq(got, want);
}

/* A job's GPUs are its CUDA_VISIBLE_DEVICES; a job without one has none, and says so. */
START_TEST(test_batch_gpus_in_a_slurm_job)
{
	struct batch_opts bo;

	defaults(&bo, "4242", "0");
	assert_gpus(&bo, "[0]");
	ck_assert(bo.gpus_known);
	strlist_clear(&bo.gpus);

	defaults(&bo, "4242", "0,1");
	assert_gpus(&bo, "[0],[1]");
	ck_assert(bo.gpus_known);
	strlist_clear(&bo.gpus);

	/* no GPU asked for: never the node's device nodes, and CUDA sees none */
	defaults(&bo, "4242", NULL);
	assert_gpus(&bo, "[]");
	ck_assert(!bo.gpus_known);
	ck_assert_str_eq(bo.no_gpu_why,
			 "Slurm job 4242 was given no GPU (CUDA_VISIBLE_DEVICES unset)");
	strlist_clear(&bo.gpus);

	defaults(&bo, "4242", "NoDevFiles");
	assert_gpus(&bo, "[]");
	ck_assert(!bo.gpus_known);
	ck_assert_ptr_nonnull(strstr(bo.no_gpu_why, "Slurm job 4242 was given no GPU"));
	strlist_clear(&bo.gpus);
}
END_TEST

/* Outside Slurm: the list where it is set (none when empty), else the nodes that open. */
/* Following an array: squeue asked less often while nothing changes, at least twice a minute. */
START_TEST(test_slurm_poll_backs_off)
{
	double w = slurm_poll_wait(0, false);
	ck_assert_double_eq(w, SLURM_POLL_FIRST);
	int polls = 1;
	double waited = w;
	while (waited < 3600) {
		double next = slurm_poll_wait(w, false);
		ck_assert(next >= w && next <= SLURM_POLL_MOST);
		w = next;
		waited += w;
		polls++;
	}
	/* an hour of nothing changing: about two polls a minute, where a fixed 2 s made 1800 */
	ck_assert_int_lt(polls, 140);
	ck_assert_double_eq(w, SLURM_POLL_MOST);
	ck_assert_double_eq(slurm_poll_wait(w, true), SLURM_POLL_FIRST);
}
END_TEST

START_TEST(test_batch_gpus_outside_slurm)
{
	struct batch_opts bo;

	defaults(&bo, NULL, "2,3");
	assert_gpus(&bo, "[2],[3]");
	ck_assert(bo.gpus_known);
	strlist_clear(&bo.gpus);

	/* the GPUs hidden from the grader stay hidden from its gradings */
	defaults(&bo, NULL, "");
	assert_gpus(&bo, "[]");
	ck_assert(!bo.gpus_known);
	ck_assert_str_eq(bo.no_gpu_why, "CUDA_VISIBLE_DEVICES names no GPU");
	strlist_clear(&bo.gpus);

	defaults(&bo, NULL, NULL);
	if (!bo.gpus_known) {
		assert_gpus(&bo, "[0]");
		ck_assert_str_eq(bo.no_gpu_why, "no GPU found");
	}
	for (size_t i = 0; bo.gpus_known && i < bo.gpus.n; i++) {
		char *path = xasprintf("/dev/nvidia%s", bo.gpus.v[i]);
		ck_assert_msg(!access(path, R_OK), "%s is listed and cannot be read", path);
		free(path);
	}
	strlist_clear(&bo.gpus);

	/* --gpus given: as given */
	memset(&bo, 0, sizeof(bo));
	setenv("SLURM_JOB_ID", "1", 1);
	gpus_parse("5", &bo.gpus);
	batch_defaults(&bo);
	assert_gpus(&bo, "[5]");
	ck_assert(bo.gpus_known);
	strlist_clear(&bo.gpus);
	clear_env();
}
END_TEST

/* The progress line's bar and time left, shared by a class's grading and collect --wait. */
START_TEST(test_batch_progress_line)
{
	char bar[PROGRESS_BAR_WIDTH + 1], eta[32];

	progress_bar(bar, 0, 10);
	ck_assert_str_eq(bar, "..............................");
	progress_bar(bar, 5, 10);
	ck_assert_str_eq(bar, "###############...............");
	progress_bar(bar, 10, 10);
	ck_assert_str_eq(bar, "##############################");
	progress_bar(bar, 0, 0);
	ck_assert_str_eq(bar, "##############################");
	progress_eta(eta, sizeof(eta), 0, 10, 5.0);
	ck_assert_str_eq(eta, "?");
	/* 2 done in 60 s: 30 s each, 5 left: 2:30 */
	progress_eta(eta, sizeof(eta), 2, 5, 60.0);
	ck_assert_str_eq(eta, "2:30");
	progress_eta(eta, sizeof(eta), 7, 0, 60.0);
	ck_assert_str_eq(eta, "0:00");
	progress_eta(eta, sizeof(eta), 0, 0, 0.0);
	ck_assert_str_eq(eta, "0:00");
}
END_TEST

/* The submit limits, from what scontrol and sacctmgr print (Slurm 22.05's words). */
START_TEST(test_slurm_submit_room)
{
	static const char assoc[] =
		"Current Association Manager state\n\nAssociation Records\n\n"
		"ClusterName=c Account=root UserName= Partition= Priority=0 ID=1\n"
		"    MaxJobs= MaxJobsAccrue= MaxSubmitJobs= MaxWallPJ=\n"
		"ClusterName=c Account=course UserName=ta(0) Partition= Priority=0 ID=4\n"
		"    MaxJobs= MaxJobsAccrue= MaxSubmitJobs=10(4) MaxWallPJ=\n"
		"ClusterName=c Account=lab UserName=ta(0) Partition= Priority=0 ID=5\n"
		"    MaxJobs= MaxJobsAccrue= MaxSubmitJobs=8(0) MaxWallPJ=\n";
	const char *which = NULL;

	/* the tightest association: 10 less the 4 it holds */
	ck_assert_int_eq(slurm_submit_room_of(assoc, NULL, NULL, 0, &which), 6);
	ck_assert_str_eq(which, "its association's MaxSubmitJobs");
	/* no limit anywhere; no accounting at all */
	which = NULL;
	ck_assert_int_eq(slurm_submit_room_of("MaxSubmitJobs= MaxWallPJ=\n", "normal|\n", "normal",
					       3, &which), -1);
	ck_assert_int_eq(slurm_submit_room_of(NULL, NULL, NULL, 0, &which), -1);
	ck_assert_ptr_null(which);
	/* a QOS of theirs with MaxSubmitJobsPerUser, less their queued jobs; not another's */
	ck_assert_int_eq(slurm_submit_room_of(assoc, "normal|5\nhigh|1\n", "normal,normal", 2,
					       &which), 3);
	ck_assert_str_eq(which, "its QOS's MaxSubmitJobsPerUser");
	ck_assert_int_eq(slurm_submit_room_of(NULL, "normal|5\nhigh|1\n", "high,normal", 0,
					       &which), 1);
	/* all used: none, never less */
	ck_assert_int_eq(slurm_submit_room_of("MaxSubmitJobs=3(5)\n", NULL, NULL, 0, &which), 0);
}
END_TEST

Suite *batch_suite(void)
{
	Suite *s = suite_create("batch");
	TCase *tc = tcase_create("gpus");

	tcase_add_test(tc, test_batch_gpus_in_a_slurm_job);
	tcase_add_test(tc, test_batch_gpus_outside_slurm);
	tcase_add_test(tc, test_slurm_poll_backs_off);
	tcase_add_test(tc, test_slurm_submit_room);
	tcase_add_test(tc, test_batch_progress_line);
	suite_add_tcase(s, tc);
	return s;
}
