/*
 * calls_histogram.cu - the launchers of histogram.h, between the judge and
 * the runner (remote.h): built into both. One line per launcher of the
 * contract: CL_REMOTE(return type, name, (parameters), (arguments)).
 */
#include "remote.h"
#include "histogram.h"

CL_REMOTE(void, histogram_global, (const unsigned int *d_in, int n, unsigned int *d_bins),
	  (d_in, n, d_bins))
CL_REMOTE(void, histogram_shared, (const unsigned int *d_in, int n, unsigned int *d_bins),
	  (d_in, n, d_bins))
CL_REMOTE(void, histogram_coarse, (const unsigned int *d_in, int n, unsigned int *d_bins),
	  (d_in, n, d_bins))
