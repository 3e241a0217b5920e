/*
 * bench_matmul.cu - timing driver of the matmul lab: each graded kernel of
 * the submission against the reference's, on the engine in labs/common/bench.cu.
 *
 * Inputs are real-valued (24 random bits in [-1, 1)), new for every pair of
 * samples, written by a trusted kernel into the same buffers. After each
 * pair the submission's C must match the reference's C everywhere and the
 * exact product, computed on the CPU, at a few random places.
 *
 * cuBLAS is timed as an informative ceiling. It is opened with dlopen, not
 * linked: a submission that calls cuBLAS cannot resolve it.
 */
#include "bench.h"
#include "matmul.h"

#include <cublas_v2.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CL_CUDA_LIB
#define CL_CUDA_LIB ""
#endif

typedef void (*launcher_fn)(const float *d_A, const float *d_B, float *d_C, int N);

/* The reference's launchers, renamed when its object was built. */
extern "C" {
void cl_ref_matmul_k1(const float *, const float *, float *, int);
void cl_ref_matmul_k2(const float *, const float *, float *, int);
void cl_ref_matmul_k3(const float *, const float *, float *, int);
void cl_ref_matmul_k4(const float *, const float *, float *, int);
void cl_ref_matmul_k5(const float *, const float *, float *, int);
}

static const struct {
	const char *part;
	launcher_fn fn[2];   /* indexed by enum cl_who: reference, student */
} kernels[] = {
	{"k1", {cl_ref_matmul_k1, matmul_k1}}, {"k2", {cl_ref_matmul_k2, matmul_k2}},
	{"k3", {cl_ref_matmul_k3, matmul_k3}}, {"k4", {cl_ref_matmul_k4, matmul_k4}},
	{"k5", {cl_ref_matmul_k5, matmul_k5}},
};
static const char *const kernel_names[] = {"k1", "k2", "k3", "k4", "k5", NULL};

#define SPOT_CHECKS 4
#define SEED_B 0x5851f42d4c957f2dULL

struct ctx {
	int N;
	float *A, *B, *C[3];   /* C by enum cl_who: reference, student, ceiling */
};

/* ----------------------------------------------------------- cuBLAS */

typedef cublasStatus_t (*create_fn)(cublasHandle_t *);
typedef cublasStatus_t (*sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
				   int, int, const float *, const float *, int, const float *,
				   int, const float *, float *, int);
static struct {
	cublasHandle_t h;
	sgemm_fn sgemm;
} blas;

static int ceiling_init(char *why, size_t len)
{
	char path[4096];
	const char *names[] = {path, "libcublas.so.13", "libcublas.so", NULL};
	void *lib = NULL;

	snprintf(path, sizeof(path), "%s/libcublas.so.%d", CL_CUDA_LIB, CUBLAS_VER_MAJOR);
	for (int i = 0; names[i] && !lib; i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(why, len, "cannot load libcublas: %s", dlerror());
		return -1;
	}
	create_fn create = (create_fn)dlsym(lib, "cublasCreate_v2");
	blas.sgemm = (sgemm_fn)dlsym(lib, "cublasSgemm_v2");
	if (!create || !blas.sgemm || create(&blas.h) != CUBLAS_STATUS_SUCCESS) {
		snprintf(why, len, "libcublas has no usable cublasCreate_v2/cublasSgemm_v2");
		return -1;
	}
	return 0;
}

/* Row-major C = A B is column-major C' = B' A': swap the operands. */
static void cublas_matmul(const float *A, const float *B, float *C, int N)
{
	const float one = 1.0f, zero = 0.0f;
	blas.sgemm(blas.h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, B, N, A, N, &zero, C, N);
}

/* ----------------------------------------------------------- the lab */

static void *setup(const char *, int N, char *why, size_t len)
{
	struct ctx *c = (struct ctx *)calloc(1, sizeof(*c));
	size_t bytes = (size_t)N * N * sizeof(float);
	float **bufs[] = {&c->A, &c->B, &c->C[0], &c->C[1], &c->C[2]};

	c->N = N;
	for (float **b : bufs)
		if (cudaMalloc(b, bytes) != cudaSuccess) {
			snprintf(why, len, "cannot allocate 5 x %zu bytes for N=%d", bytes, N);
			cudaGetLastError();
			return NULL;
		}
	return c;
}

static void teardown(void *p)
{
	struct ctx *c = (struct ctx *)p;
	cudaFree(c->A);
	cudaFree(c->B);
	for (float *C : c->C)
		cudaFree(C);
	free(c);
}

static void inputs(void *p, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	size_t n = (size_t)c->N * c->N;

	cl_bench_fill(c->A, n, seed);
	cl_bench_fill(c->B, n, seed ^ SEED_B);
}

static void poison(void *p, enum cl_who who)
{
	struct ctx *c = (struct ctx *)p;
	CL_BENCH_CHECK(cudaMemset(c->C[who], 0xff, (size_t)c->N * c->N * sizeof(float)));
}

static void call(void *p, const char *kernel, enum cl_who who)
{
	struct ctx *c = (struct ctx *)p;

	if (who == CL_CEILING) {
		cublas_matmul(c->A, c->B, c->C[CL_CEILING], c->N);
		return;
	}
	for (const auto &k : kernels)
		if (!strcmp(k.part, kernel))
			k.fn[who](c->A, c->B, c->C[who], c->N);
}

/*
 * Two fp32 sums of the same N products, in any order, differ by far less
 * than this for inputs in [-1, 1); lower precision (TF32, half) is caught by
 * the correctness suite, not here.
 */
static float tolerance(int N)
{
	return 16.0f * FLT_EPSILON * N;
}

static int describe(char *msg, size_t len, int N, size_t idx, float got, double want,
		    unsigned long long count, const char *against)
{
	int i = (int)(idx / N), j = (int)(idx % N);
	int n = snprintf(msg, len, "C[%d][%d] = %g, expected %.7g (%s, N=%d)", i, j, got, want,
			 against, N);
	if (count)
		n += snprintf(msg + n, len - n, "; %llu of %zu elements wrong", count,
			      (size_t)N * N);
	if (isnan(got))
		snprintf(msg + n, len - n, "\nhint: still NaN, so this call did not write it: each "
			 "call must compute all of C from the inputs it is given now");
	return -1;
}

static int verify(void *p, uint64_t seed, char *msg, size_t len)
{
	struct ctx *c = (struct ctx *)p;
	int N = c->N;
	struct cl_mismatch m;
	float tol = tolerance(N);

	cl_bench_compare(c->C[CL_STUDENT], c->C[CL_REFERENCE], (size_t)N * N, tol, &m);
	if (m.count)
		return describe(msg, len, N, m.first, m.got, m.want, m.count,
				"the reference's result");

	/* the exact product at a few places, so the check does not rest on the reference alone */
	uint64_t s = seed ^ 0x2545f4914f6cdd1dULL;
	for (int t = 0; t < SPOT_CHECKS; t++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		int i = (int)((s >> 33) % N), j = (int)((s >> 13) % N);
		double want = 0;
		float got;
		for (int k = 0; k < N; k++)
			want += (double)cl_bench_value(seed, (uint64_t)i * N + k) *
				cl_bench_value(seed ^ SEED_B, (uint64_t)k * N + j);
		CL_BENCH_CHECK(cudaMemcpy(&got, c->C[CL_STUDENT] + (size_t)i * N + j, sizeof(got),
					  cudaMemcpyDeviceToHost));
		if (!(fabs(got - want) <= tol))
			return describe(msg, len, N, (size_t)i * N + j, got, want, 0,
					"the exact product");
	}
	return 0;
}

static double flop(const char *, int N)
{
	return 2.0 * N * N * (double)N;
}

/* A, B read once and C written once: what no kernel can avoid moving. */
static double bytes(const char *, int N)
{
	return 3.0 * N * (double)N * sizeof(float);
}

static const struct cl_bench_lab lab = {
	"matmul", kernel_names, "cuBLAS", setup, teardown, inputs, poison, call, verify, flop, bytes,
	ceiling_init, NULL,
};

int main(int argc, char **argv)
{
	return cl_bench_main(&lab, argc, argv);
}
