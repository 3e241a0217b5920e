/*
 * gpus.c - which GPUs this grader may use (gpus.h).
 *
 * Owns: reading a --gpus list, and finding the machine's GPUs where none
 * was given: CUDA_VISIBLE_DEVICES, a Slurm job's, the device nodes this
 * process may open. Must not: touch CUDA (a grader process never does).
 */
#include "gpus.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void gpus_parse(const char *list, struct strlist *gpus)
{
	strlist_clear(gpus);
	for (const char *s = list, *e; *s; s = *e ? e + 1 : e) {
		e = s + strcspn(s, ",");
		if (e > s)
			strlist_pushf(gpus, "%.*s", (int)(e - s), s);
	}
}

/*
 * Whether this process may open the device node at path. A Slurm job's
 * devices cgroup (ConstrainDevices) leaves the node's every /dev/nvidiaN in
 * place and denies the open (EPERM), and so may a container's: such a GPU
 * is not this grader's to use.
 */
static bool device_node_usable(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The device node of the host's GPU i, /dev/nvidiaI, into path. */
static void device_node(int i, char path[32])
{
	snprintf(path, 32, "/dev/nvidia%d", i);
}

unsigned gpus_on_host(void)
{
	unsigned n = 0;

	for (int i = 0; i < 64; i++) {
		char path[32];
		device_node(i, path);
		n += !access(path, F_OK);
	}
	return n;
}

bool gpus_discover(struct strlist *gpus, char *why, size_t len)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES"), *job = getenv("SLURM_JOB_ID");
	bool slurm = job && *job;

	if (len)
		why[0] = '\0';
	if (gpus->n)
		return true;
	/* NoDevFiles: what older Slurm writes for a job without GPUs on a GPU node */
	if (visible && strcmp(visible, "NoDevFiles")) {
		char *list = xstrdup(visible);
		for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
			strlist_push(gpus, tok);
		free(list);
	} else if (!visible && !slurm) {
		for (int i = 0; i < 64; i++) {
			char path[32];
			device_node(i, path);
			if (!access(path, F_OK) && device_node_usable(path))
				strlist_pushf(gpus, "%d", i);
		}
	}
	if (gpus->n)
		return true;
	if (slurm)
		snprintf(why, len, "Slurm job %s was given no GPU (CUDA_VISIBLE_DEVICES %s)", job,
			 visible ? "names none" : "unset");
	else if (visible)
		snprintf(why, len, "CUDA_VISIBLE_DEVICES names no GPU");
	else
		snprintf(why, len, "no GPU found");
	/*
	 * The gradings' CUDA_VISIBLE_DEVICES: where the GPUs are hidden from
	 * this grader (a job without GPUs, an empty list), hidden from them
	 * too; an index would reach a GPU of the node that is another job's
	 * wherever the job's cgroup does not deny it.
	 */
	strlist_push(gpus, slurm || visible ? "" : "0");
	return false;
}
