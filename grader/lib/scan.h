/*
 * scan.h - the source scan: what a submission's preprocessed source may not
 * contain, read from the two passes nvcc preprocesses it in (host and
 * device) and from g++'s on the emulator's rewrite; and what the
 * linemarkers of such a text say the compiler read (scan_includes()).
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
	const struct strlist *files;          /* the submission's files, by their names */
	const struct strlist *forbid_names;   /* globs: a name (std::thread) used in any way */
	const struct strlist *forbid_calls;   /* globs: a name followed by '(' */
	enum asm_policy inline_asm;
	/* the folder of files, for a linemarker that names one by its whole path
	 * (g++ on the emulator's rewrite does, for a file it includes); NULL: none */
	const char *dir;
	/*
	 * Inline assembly, as "FILE:LINE: its tokens". nvcc's passes add each
	 * statement they accept as code for the GPU alone; the emulator's build
	 * (emulated), where all code runs on the CPU, accepts as device code only
	 * a statement spelled as one of these, which the CPU build then cannot
	 * assemble or runs as the GPU would have. NULL: none.
	 */
	struct strlist *device_asm;
	bool emulated;
	/*
	 * nvcc's passes of a lab that teaches barriers (strict_barriers), built
	 * with the checked barrier (labs/common/checked-barrier.h), whose macro
	 * turns every __syncthreads() (and _count, _and, _or) into the check:
	 * the name itself left in the submission's lines means the macro was
	 * undone (#undef, a #define of its own), which would take a barrier
	 * past the check on a GPU.
	 */
	bool checked_barrier;
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

/* A file the preprocessor entered, and where in the submission that began. */
struct scan_include {
	char *file;          /* as its linemarker names it */
	/* the submission's file whose #include led here, directly or through
	 * headers it included, and the line of that #include; NULL, 0 when
	 * none did (a file the command line included) */
	char *site;
	size_t site_line;
	bool direct;         /* site's #include names file itself */
};

struct scan_includes {
	struct scan_include *v;
	size_t n, alloc;
};

/*
 * Reads the linemarkers of one preprocessed translation unit (what the
 * compiler's own preprocessor says it read): appends to out every file it
 * entered, in order, with the #include of the submission's that led there;
 * appends to problems ("FILE:LINE: what") every place where a file of the
 * submission's gave what follows another file's name (#line N "name"), once
 * the compiler's own prologue (<built-in>, <command-line>, the files the
 * command line includes) is over. Pure: no I/O.
 */
void scan_includes(const char *text, size_t len, const struct scan_rules *rules,
		   struct scan_includes *out, struct strlist *problems);
void scan_includes_release(struct scan_includes *inc);

#endif
