/*
 * probe.h - what the GPU probe (build/bin/cudalab-probe, labs/common/probe.cu)
 * says of the grading's GPU: before the build, and again when a test's fate
 * suggests the GPU itself failed.
 */
#ifndef PROBE_H
#define PROBE_H

#include "grading.h"

/* The probe of g's GPU: argv (two slots) and spec to run, alongside the build. */
void probe_spec(const struct grading *g, const char *argv[2], struct run_spec *spec);

/* What the probe run pr said, into gpu (a grading's: r->gpu). */
void probe_read(const struct run_spec *spec, const struct run_result *pr, struct gpu_info *gpu);

/*
 * Runs the probe (the toolchain's) on one GPU, as CUDA_VISIBLE_DEVICES names
 * it, outside any grading: what it says goes into info (release it with
 * gpu_info_release). 0, or -1 for the grader's own failure.
 */
int probe_gpu(const char *probe, const char *gpu, struct gpu_info *info);
void gpu_info_release(struct gpu_info *info);

/*
 * Whether the GPU that answered the grading's probe still answers: a test
 * that crashed, hung or met a CUDA error may have met the GPU failing (an
 * Xid, a device off the bus), not the submission's fault. Only the grader's
 * own probe is trusted to say so, and the harness, when a new runner got no
 * context before any code of the submission's ran in it. Returns 0 when it
 * answers (or nothing suggests otherwise), -1 with an error when the GPU is
 * lost or refused a context: a failure of the system, not charged to the
 * student.
 */
int probe_gpu_still_there(const struct grading *g);

/*
 * What a probe's reason for finding no GPU means here, for the report
 * (allocated; NULL for NULL): cudaErrorInsufficientDriver is the runtime's
 * answer both where there is no NVIDIA driver (no device_nodes: no GPU
 * found) and where the driver is too old for it (driver: its version, or
 * NULL). Other reasons are as the runtime said them.
 */
char *probe_explain(const char *reason, bool device_nodes, const char *driver);

/*
 * The driver's version in /proc/driver/nvidia/version's text ("... Kernel
 * Module for x86_64  580.65.06  Release Build ..."), or NULL.
 */
char *parse_driver_version(const char *text);

#endif
