/*
 * calls_scan.cu - the launchers of scan.h, between the judge and the runner
 * (remote.h): built into both. One line per launcher of the contract.
 */
#include "remote.h"
#include "scan.h"

CL_REMOTE(void, scan_ks, (const float *d_in, float *d_out, int n), (d_in, d_out, n))
CL_REMOTE(void, scan_bk, (const float *d_in, float *d_out, int n), (d_in, d_out, n))
CL_REMOTE(void, scan_multi, (const float *d_in, float *d_out, float *d_sums, int n),
	  (d_in, d_out, d_sums, n))
