/*
 * devcache.h - the device's ceilings, measured once per GPU and reused by
 * the gradings that follow on it: its copy bandwidth (which sets the floor
 * below which a timed kernel is flagged) and the lab's library times (the
 * informative cuBLAS ceiling). Each grading's timing driver measured them
 * anew: a large copy, and cuBLAS loaded and timed, with the GPU held alone.
 *
 * One file per GPU and lab beside the GPU's locks (gpulock_path: in
 * $CUDALAB_LOCK_DIR, else /tmp, on the node), written whole and renamed
 * into place. An entry is used only by a grading on the same GPU (its
 * UUID), at the same rated SM clock, under the same driver and for the same
 * lab version, and for DEVCACHE_MAX_AGE seconds after it was measured; only
 * a file this user owns and no one else may write is read.
 *
 * Must not: measure anything, or take a number from a process that ran a
 * submission's code. What it stores comes from the trusted measurement
 * (timing.c runs build/labs/<lab>/bench-device, which links no submission);
 * deciding when to read and write it is grade.c's.
 */
#ifndef DEVCACHE_H
#define DEVCACHE_H

#include "result.h"

#include <time.h>

/* An hour: long enough to spare a class's gradings the measuring, short
 * enough that a GPU whose memory clock or health changed is soon measured
 * again. */
#define DEVCACHE_MAX_AGE 3600

/* The ceilings of one GPU for one lab, as measured at measured_at. */
struct device_ceilings {
	double copy_gbs;          /* device-to-device copy, read + write, GB/s */
	char *ceiling_name;       /* the lab's library ("cuBLAS"); NULL: the lab has none */
	struct ceiling *ceilings; /* its time at each size */
	size_t nceilings;
	char *ceiling_note;       /* why the library was not timed; NULL */
	time_t measured_at;
};

/* What an entry must match to be used. */
struct devcache_key {
	const char *uuid;         /* the GPU's, "GPU-8f3a..." (gpu_uuid.h) */
	double clock_mhz;         /* its rated SM clock, as the probe and the timing engine say */
	const char *driver;       /* the driver's version, as the result document's gpu.driver */
	const char *lab, *lab_version;
};

/* The cache file of the GPU uuid for lab (allocated). */
char *devcache_path(const char *uuid, const char *lab);

/*
 * The entry at path, into c, when it matches key and is at most
 * DEVCACHE_MAX_AGE old at now: 0. Otherwise -1 with why it is not used in
 * *why (allocated): there is none yet, it is too old, of another driver
 * ...; nothing is reported.
 */
int devcache_read(const char *path, const struct devcache_key *key, time_t now,
		  struct device_ceilings *c, char **why);

/*
 * Stores c as the entry of key at path, atomically (a temporary file in the
 * same folder, renamed). 0, or -1 with why in *why (allocated); nothing is
 * reported: a grading whose cache cannot be written is graded all the same.
 */
int devcache_write(const char *path, const struct devcache_key *key,
		   const struct device_ceilings *c, char **why);

void device_ceilings_release(struct device_ceilings *c);

#endif
