/*
 * occ_devices.h - the occupancy lab's GPUs, one per compute capability, with
 * the limits of the CUDA Programming Guide's table. The suite checks them
 * against what cuda_occupancy.h also knows of them (occ_lab.h:
 * occ_lab_check_devices); the question sheet (occ_questions.h) asks about
 * them.
 */
#ifndef OCC_DEVICES_H
#define OCC_DEVICES_H

#include "occupancy.h"

static const struct occ_device occ_lab_devices[] = {
	{"NVIDIA T4 (7.5)", 7, 5, 32, 1024, 1024, 16, 65536, 65536, 255, 256, 4, 65536, 65536, 0,
	 256},
	{"NVIDIA A100 (8.0)", 8, 0, 32, 1024, 2048, 32, 65536, 65536, 255, 256, 4, 167936, 166912,
	 1024, 128},
	{"NVIDIA RTX A6000 (8.6)", 8, 6, 32, 1024, 1536, 16, 65536, 65536, 255, 256, 4, 102400,
	 101376, 1024, 128},
	{"NVIDIA L4 (8.9)", 8, 9, 32, 1024, 1536, 24, 65536, 65536, 255, 256, 4, 102400, 101376,
	 1024, 128},
	{"NVIDIA H100 (9.0)", 9, 0, 32, 1024, 2048, 32, 65536, 65536, 255, 256, 4, 233472, 232448,
	 1024, 128},
};
#define OCC_LAB_NDEVICES (sizeof(occ_lab_devices) / sizeof(occ_lab_devices[0]))

#endif
