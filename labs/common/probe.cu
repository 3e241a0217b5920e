/*
 * probe.cu - cudalab-probe: tells the grader which GPU (if any) this machine
 * gives a CUDA program, as key=value lines on stdout.
 *
 * The grader never links CUDA itself, so this small trusted program is how it
 * learns the device name, UUID, compute capability and versions for the
 * result document, and whether GPU tests can run at all. It never fails: no
 * device is an answer ("available=0" with the reason).
 *
 * The UUID (gpu_uuid.h) and the SM clock are written as the timing engine
 * writes them: the grader keys its GPU locks and its cache of the device's
 * ceilings on them, and compares the two programs' words.
 */
#include "gpu_uuid.h"

#include <cuda_runtime.h>
#include <stdio.h>

int main(void)
{
	int runtime = 0, driver = 0, count = 0, dev = 0, clock_khz = 0;
	cudaError_t err;
	struct cudaDeviceProp p;
	char uuid[CL_GPU_UUID_LEN];

	cudaRuntimeGetVersion(&runtime);
	cudaDriverGetVersion(&driver);
	printf("runtime=%d.%d\n", runtime / 1000, runtime % 1000 / 10);
	if (driver)
		printf("driver_api=%d.%d\n", driver / 1000, driver % 1000 / 10);
	err = cudaGetDeviceCount(&count);
	if (err == cudaSuccess && count == 0)
		err = cudaErrorNoDevice;
	if (err == cudaSuccess)
		err = cudaGetDevice(&dev);
	if (err == cudaSuccess)
		err = cudaGetDeviceProperties(&p, dev);
	if (err != cudaSuccess) {
		printf("available=0\nreason=%s: %s\n", cudaGetErrorName(err), cudaGetErrorString(err));
		return 0;
	}
	printf("available=1\nname=%s\ncc=%d%d\nsms=%d\nmemory_mib=%zu\ncount=%d\n", p.name, p.major,
	       p.minor, p.multiProcessorCount, p.totalGlobalMem >> 20, count);
	if (*cl_gpu_uuid(&p.uuid, uuid))
		printf("uuid=%s\n", uuid);
	/* the SM clock the device reports as its peak: what bench.cu calls clock_mhz */
	err = cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
	if (err == cudaSuccess && clock_khz)
		printf("clock_mhz=%.6g\n", clock_khz / 1e3);
	return 0;
}
