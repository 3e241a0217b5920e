/*
 * calls_scan.cu - the launchers of scan.h, between the judge and the runner
 * (remote.h): built into both. One line per launcher of the contract:
 * CL_REMOTE(return type, name, (parameters), (arguments)).
 */
#include "remote.h"
#include "scan.h"

CL_REMOTE(void, scan_scale, (const float *d_in, float *d_out, int n, float a),
	  (d_in, d_out, n, a))
