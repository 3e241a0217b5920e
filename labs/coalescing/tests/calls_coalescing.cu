/*
 * calls_coalescing.cu - the launchers of coalescing.h, between the judge and
 * the runner (remote.h): built into both, with CL_JUDGE and with CL_RUNNER.
 */
#include "remote.h"
#include "coalescing.h"

CL_REMOTE(void, coal_scale_rows, (const float *d_in, float *d_out, int m, int n, float a),
	  (d_in, d_out, m, n, a))
CL_REMOTE(void, coal_scale_cols, (const float *d_in, float *d_out, int m, int n, float a),
	  (d_in, d_out, m, n, a))
CL_REMOTE(void, coal_copy_strided, (const float *d_in, float *d_out, int n, int stride),
	  (d_in, d_out, n, stride))
CL_REMOTE(void, coal_transpose_naive, (const float *d_in, float *d_out, int m, int n),
	  (d_in, d_out, m, n))
CL_REMOTE(void, coal_transpose_tiled, (const float *d_in, float *d_out, int m, int n),
	  (d_in, d_out, m, n))
