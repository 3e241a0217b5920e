/*
 * calls_matmul.cu - the launchers of matmul.h, between the judge and the
 * runner (remote.h): built into both, with CL_JUDGE and with CL_RUNNER.
 */
#include "remote.h"
#include "matmul.h"

CL_REMOTE(void, matmul_k1, (const float *d_A, const float *d_B, float *d_C, int N), (d_A, d_B, d_C, N))
CL_REMOTE(void, matmul_k2, (const float *d_A, const float *d_B, float *d_C, int N), (d_A, d_B, d_C, N))
CL_REMOTE(void, matmul_k3, (const float *d_A, const float *d_B, float *d_C, int N), (d_A, d_B, d_C, N))
CL_REMOTE(void, matmul_k4, (const float *d_A, const float *d_B, float *d_C, int N), (d_A, d_B, d_C, N))
CL_REMOTE(void, matmul_k5, (const float *d_A, const float *d_B, float *d_C, int N), (d_A, d_B, d_C, N))
