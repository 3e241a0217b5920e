/*
 * calls_reduction.cu - the launchers of reduction.h, between the judge and the runner
 * (remote.h): built into both. One line per launcher of the contract:
 * CL_REMOTE(return type, name, (parameters), (arguments)).
 */
#include "remote.h"
#include "reduction.h"

CL_REMOTE(void, reduction_interleaved, (const float *d_in, float *d_partial, int n),
	  (d_in, d_partial, n))
CL_REMOTE(void, reduction_sequential, (const float *d_in, float *d_partial, int n),
	  (d_in, d_partial, n))
CL_REMOTE(void, reduction_warp, (const float *d_in, float *d_partial, int n),
	  (d_in, d_partial, n))
CL_REMOTE(void, reduction_atomic, (const float *d_in, float *d_sum, int n), (d_in, d_sum, n))
