/*
 * cmd-gpus.c - `cudalab gpus`: the GPUs a class graded here would use, what
 * the probe reads of each, and the key, files and state of its locks: what
 * a TA looks at to see why gradings wait, and what a script compares
 * (--json) between Slurm array tasks.
 *
 * Information only: it grades nothing, takes no lock, and a machine without
 * a GPU is an answer (exit 0).
 */
#include "batch.h"
#include "cmd.h"
#include "gpulock.h"
#include "probe.h"

#include <getopt.h>   /* optind */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cmd_opt gpus_opts[] = {
	CMD_OPT('G', "gpus", 0, "LIST", "these GPUs, as CUDA_VISIBLE_DEVICES names them, \"0,1\""),
	CMD_OPT('L', "slots", 0, "N", "the slots a grading is given (default 4, as grade's --slots)"),
	CMD_OPT('j', "json", 0, NULL, "one JSON document on stdout, for scripts"),
	CMD_OPT_END,
};
static const struct cmd_spec gpus_cmd = {
	.synopsis = "usage: cudalab gpus [--gpus LIST] [--slots N] [--json]\n"
		    "\n"
		    "Lists the GPUs a class graded here would use (those of --gpus, else the\n"
		    "default of `cudalab grade`: CUDA_VISIBLE_DEVICES, else every GPU of the\n"
		    "machine; in a Slurm job, the job's), one line each: the GPU as\n"
		    "CUDA_VISIBLE_DEVICES names it, the name and UUID the probe reads (or why\n"
		    "it read none), the key its locks are named after, the lock files, and who\n"
		    "holds them now. Without a GPU it says so. Exits 0 (2 for a usage error).\n"
		    "\n",
	.opts = {gpus_opts},
};

/* What one GPU's locks say now. */
struct locks_now {
	struct gpulock_state lock, turnstile;
	unsigned slots_taken;
	bool known;            /* the kernel said (/proc/locks) */
};

static void read_locks(const char *key, unsigned slots, struct locks_now *ln)
{
	struct gpulock_state st;

	ln->known = !gpulock_state(key, "lock", &ln->lock) &&
		    !gpulock_state(key, "turnstile", &ln->turnstile);
	ln->slots_taken = 0;
	for (unsigned i = 0; ln->known && i < slots; i++) {
		char what[32];
		snprintf(what, sizeof(what), "slot%u", i);
		if (!gpulock_state(key, what, &st) && (st.exclusive || st.shared))
			ln->slots_taken++;
	}
}

/* Gradings blocked behind the GPU: on its lock, or in the turnstile behind a timing phase. */
static unsigned waiting(const struct locks_now *ln)
{
	return ln->lock.waiting + ln->turnstile.waiting;
}

/* "free", "the tests of 2 gradings; 1 of 4 slots taken; 3 waiting", ... */
static char *locks_text(const struct locks_now *ln, unsigned slots)
{
	struct strbuf sb = STRBUF_INIT;

	if (!ln->known)
		return xstrdup("who holds them is unknown here (no /proc/locks)");
	if (ln->lock.exclusive > 0)
		strbuf_addf(&sb, "a timing or profile phase has it alone (pid %ld)",
			    ln->lock.exclusive);
	else if (ln->lock.exclusive)
		strbuf_addstr(&sb, "a timing or profile phase has it alone");
	else if (ln->lock.shared)
		strbuf_addf(&sb, "the tests of %u grading%s", ln->lock.shared,
			    ln->lock.shared == 1 ? "" : "s");
	else
		strbuf_addstr(&sb, "free");
	if (ln->slots_taken)
		strbuf_addf(&sb, "; %u of %u slots taken", ln->slots_taken, slots);
	if (waiting(ln))
		strbuf_addf(&sb, "; %u waiting", waiting(ln));
	return strbuf_detach(&sb);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* One GPU: probed, keyed, its locks read; printed as a line, or added to list. */
static int show_gpu(const struct toolchain *tc, const char *gpu, unsigned slots, json_t *list)
{
	struct gpu_info info;
	struct locks_now ln;

	if (probe_gpu(tc->probe, gpu, &info))
		return -1;
	char *key = gpulock_key(info.uuid, gpu);
	char *lock = gpulock_path(key, "lock"), *turnstile = gpulock_path(key, "turnstile");
	read_locks(key, slots, &ln);
	char *state = locks_text(&ln, slots);

	if (list) {
		json_t *files = json_pack("[s, s]", lock, turnstile);
		for (unsigned i = 0; i < slots; i++) {
			char what[32];
			snprintf(what, sizeof(what), "slot%u", i);
			char *p = gpulock_path(key, what);
			json_array_append_new(files, json_string(p));
			free(p);
		}
		json_t *o = json_pack("{s:s, s:b, s:o, s:o, s:o, s:s, s:o}", "cuda_visible_devices",
				      gpu, "available", info.available, "name", str_or_null(info.name),
				      "uuid", str_or_null(info.uuid), "reason",
				      str_or_null(info.reason), "lock_key", key, "lock_files", files);
		json_t *locks = json_null();
		if (ln.known)
			locks = json_pack("{s:s, s:b, s:o, s:i, s:i, s:i}", "state", state, "alone",
					  ln.lock.exclusive != 0, "alone_pid",
					  ln.lock.exclusive > 0 ? json_integer(ln.lock.exclusive)
							       : json_null(),
					  "tests", (int)ln.lock.shared, "slots_taken",
					  (int)ln.slots_taken, "waiting", (int)waiting(&ln));
		json_object_set_new(o, "locks", locks);
		json_array_append_new(list, o);
	} else {
		/* "GPU-8f3a....{lock,turnstile,slot0-3}": the files, on one line */
		size_t stem = strlen(lock) - strlen("lock");
		printf("%s: ", *gpu ? gpu : "\"\"");
		if (info.available)
			printf("%s, %s", info.name ? info.name : "?", info.uuid ? info.uuid : "no UUID");
		else
			printf("no GPU answered: %s", info.reason ? info.reason : "no reason given");
		printf("; lock key %s; lock files %.*s{lock,turnstile,slot0-%u}: %s\n", key,
		       (int)stem, lock, slots - 1, state);
	}
	free(state);
	free(lock);
	free(turnstile);
	free(key);
	gpu_info_release(&info);
	return 0;
}

int cmd_gpus(int argc, char **argv)
{
	struct batch_opts bo = {.jobs = 1};
	unsigned slots = 4;
	bool json = false;
	int c, code = 0;

	while ((c = cmd_getopt(&gpus_cmd, argc, argv)) >= 0) {
		switch (c) {
		case 'G':
			gpus_parse(optarg, &bo.gpus);
			if (!bo.gpus.n) {
				error("--gpus wants a list of GPUs, \"0,1\"");
				return EXIT_USAGE;
			}
			break;
		case 'L':
			slots = positive_option(optarg);
			if (!slots) {
				error("--slots wants a whole number from 1 on, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		}
	}
	if (c != CMD_END)
		return cmd_stopped(c);
	if (optind < argc)
		return cmd_bad_usage(&gpus_cmd);
	const struct toolchain *tc = toolchain();
	batch_defaults(&bo);

	const char *job = getenv("SLURM_JOB_ID");
	json_t *doc = json ? json_pack("{s:s, s:o}", "lock_dir", gpulock_dir(), "slurm_job",
				       str_or_null(job && *job ? job : NULL))
			   : NULL;
	json_t *list = json ? json_array() : NULL;
	if (!bo.gpus_known) {
		/* information, not a failure: a class here runs emulated, and says so too */
		if (json)
			json_object_set_new(doc, "no_gpu", json_string(bo.no_gpu_why));
		else
			printf("no GPU here: %s; a class graded here runs emulated on the CPU\n",
			       bo.no_gpu_why);
	} else {
		if (json)
			json_object_set_new(doc, "no_gpu", json_null());
		for (size_t i = 0; i < bo.gpus.n && !code; i++)
			if (show_gpu(tc, bo.gpus.v[i], slots, list))
				code = EXIT_INTERNAL;
	}
	if (json) {
		json_object_set_new(doc, "gpus", list);
		if (!code && json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
			code = EXIT_INTERNAL;
		if (!code)
			putchar('\n');
		json_decref(doc);
	}
	strlist_clear(&bo.gpus);
	return code;
}
