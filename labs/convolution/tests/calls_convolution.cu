/*
 * calls_convolution.cu - the launchers of convolution.h, between the judge and the runner
 * (remote.h): built into both. One line per launcher of the contract:
 * CL_REMOTE(return type, name, (parameters), (arguments)).
 */
#include "remote.h"
#include "convolution.h"

CL_REMOTE(void, convolution_scale, (const float *d_in, float *d_out, int n, float a),
	  (d_in, d_out, n, a))
