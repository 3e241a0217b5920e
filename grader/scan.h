/*
 * scan.h - the source scan: what a submission's preprocessed source may not
 * contain, read from the two passes nvcc preprocesses it in (host and device).
 *
 * The symbol audit (audit.h) judges what the object calls; this scan sees
 * what no symbol shows: inline assembly, attributes that place code or data
 * by hand, and forbidden APIs whatever macro hides them, each with its line.
 */
#ifndef SCAN_H
#define SCAN_H

#include "util.h"

enum asm_policy {
	ASM_NO,       /* no inline assembly at all */
	ASM_DEVICE,   /* only in code compiled for the GPU alone (__device__, __global__) */
	ASM_YES,
};

struct scan_rules {
	const struct strlist *files;          /* the submission's sources, as nvcc was given them */
	const struct strlist *forbid_names;   /* globs: a name (std::thread) used in any way */
	const struct strlist *forbid_calls;   /* globs: a name followed by '(' */
	enum asm_policy inline_asm;
};

/* "no", "device" or "yes"; -1 for anything else. */
int scan_parse_asm_policy(const char *s);

/*
 * Judges one preprocessed translation unit (host_pass: the host compiler's
 * view, without __CUDA_ARCH__). Only the lines that the linemarkers give to
 * one of rules->files count. Appends "FILE:LINE: what" lines to problems.
 * Pure: no I/O.
 */
void scan_preprocessed(const char *text, size_t len, bool host_pass,
		       const struct scan_rules *rules, struct strlist *problems);

#endif
