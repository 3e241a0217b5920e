/*
 * gpu_uuid.h - a device's UUID as text, written the one way the probe
 * (probe.cu) and the timing engine (bench.cu) both report it, so that the
 * grader can compare what each says of its GPU.
 *
 * The grader keys its GPU locks and its cache of the device's ceilings on
 * this text: two programs must never write one device's UUID two ways.
 */
#ifndef CUDALAB_GPU_UUID_H
#define CUDALAB_GPU_UUID_H

#include <cuda_runtime.h>
#include <stdio.h>

/* "GPU-" and 8-4-4-4-12 hexadecimal digits, and the NUL */
#define CL_GPU_UUID_LEN 41

/*
 * u as nvidia-smi -L prints a GPU's UUID ("GPU-8f3a1c2d-5e6f-...") into
 * buf; "" when the device gives none (all zero bytes, as some virtual GPUs
 * do). Returns buf.
 */
static inline const char *cl_gpu_uuid(const cudaUUID_t *u, char buf[CL_GPU_UUID_LEN])
{
	const unsigned char *b = (const unsigned char *)u->bytes;
	bool any = false;

	for (int i = 0; i < 16; i++)
		any |= b[i] != 0;
	if (!any) {
		buf[0] = '\0';
		return buf;
	}
	snprintf(buf, CL_GPU_UUID_LEN,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
		 b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
		 b[14], b[15]);
	return buf;
}

#endif
