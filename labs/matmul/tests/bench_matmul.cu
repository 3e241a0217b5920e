/*
 * bench_matmul.cu - the matmul lab's timer: each graded kernel of the
 * submission against the reference's, each in its own runner, on the engine
 * in labs/common/bench.cu.
 *
 * Inputs are real-valued (24 random bits in [-1, 1)), new for every pair of
 * samples, written by the timer's kernel into A and B, which both runners
 * see; each runner sees its own C only. After each pair the submission's C
 * must match the reference's C everywhere and the exact product, computed
 * on the CPU, at a few random places.
 *
 * cuBLAS is timed as an informative ceiling, in the timer: opened with
 * dlopen, and never in a runner.
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

static void teardown(void *p)
{
	struct ctx *c = (struct ctx *)p;
	cl_bench_free(c->A);
	cl_bench_free(c->B);
	for (float *C : c->C)
		cl_bench_free(C);
	free(c);
}

/* A and B for both runners, each side's C for its runner only, the ceiling's for none. */
static void *setup(const char *, int N, char *why, size_t len)
{
	struct ctx *c = (struct ctx *)calloc(1, sizeof(*c));
	size_t bytes = (size_t)N * N * sizeof(float);
	const unsigned both = CL_SHARE_REFERENCE | CL_SHARE_STUDENT;
	struct {
		float **buf;
		unsigned share;
	} bufs[] = {{&c->A, both}, {&c->B, both}, {&c->C[CL_REFERENCE], CL_SHARE_REFERENCE},
		    {&c->C[CL_STUDENT], CL_SHARE_STUDENT}, {&c->C[CL_CEILING], 0}};

	c->N = N;
	for (auto &b : bufs)
		if (!(*b.buf = (float *)cl_bench_shared(bytes, b.share))) {
			snprintf(why, len, "cannot allocate 5 x %zu bytes for N=%d", bytes, N);
			cudaGetLastError();
			teardown(c);
			return NULL;
		}
	return c;
}

static void inputs(void *p, uint64_t seed)
{
	struct ctx *c = (struct ctx *)p;
	size_t n = (size_t)c->N * c->N;

	cl_bench_fill(c->A, n, seed);
	cl_bench_fill(c->B, n, seed ^ SEED_B);
}

static void poison(void *p, enum cl_who who, uint64_t)
{
	struct ctx *c = (struct ctx *)p;
	CL_BENCH_CHECK(cudaMemset(c->C[who], 0xff, (size_t)c->N * c->N * sizeof(float)));
}

static void call(void *p, const char *kernel, enum cl_who who, struct cl_call *call)
{
	struct ctx *c = (struct ctx *)p;
	char name[32];

	if (who == CL_CEILING) {
		cublas_matmul(c->A, c->B, c->C[CL_CEILING], c->N);
		return;
	}
	snprintf(name, sizeof(name), "matmul_%s", kernel);
	cl_bench_call(call, name, (const float *)cl_bench_at(c->A, who),
		      (const float *)cl_bench_at(c->B, who), (float *)cl_bench_at(c->C[who], who),
		      c->N);
}

static void output(void *p, enum cl_who who, const float **out, size_t *n)
{
	struct ctx *c = (struct ctx *)p;
	*out = c->C[who];
	*n = (size_t)c->N * c->N;
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
	"matmul", kernel_names, "cuBLAS", setup, teardown, inputs, poison, call, output, verify,
	flop, bytes, ceiling_init, NULL,
};

int main(int argc, char **argv)
{
	return cl_bench_main(&lab, argc, argv);
}
