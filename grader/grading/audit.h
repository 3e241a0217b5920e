/*
 * audit.h - the symbol audit of a submission's object file.
 */
#ifndef AUDIT_H
#define AUDIT_H

#include "util.h"

struct audit_rules {
	const struct strlist *contract;          /* must be defined, unmangled */
	const struct strlist *allow_undefined;   /* globs */
	const struct strlist *deny_defined;      /* globs */
	const struct strlist *allow_weak;        /* globs: weak definitions allowed */
	/* the student's source and its name, to quote the line a refusal is
	 * about (optional) */
	const char *source, *source_name;
	/*
	 * The emulator's build: what nvcc's object of the same source shows to
	 * be a kernel of C linkage or a __device__ or __constant__ variable
	 * (audit_nvcc_globals()), which g++ on the emulator defines as plain
	 * globals; a global of such a name is one of them. NULL: none.
	 */
	const struct strlist *nvcc_globals;
};

/* What may be in an object's sections. */
struct section_rules {
	const struct strlist *allow;      /* globs: the section names it may have; NULL: any */
	/* constructors its compiler makes itself: nvcc's registration of the
	 * fatbinary (1); g++ on the emulator's rewrite none (0) */
	unsigned long own_constructors;
	/* the emulator's build: its initialiser may also register the
	 * rewrite's file-scope extern __shared__ arrays (cudaemu_file_shared) */
	bool emulated;
	/* the student's source and its name, to quote a line (optional) */
	const char *source, *source_name;
};

/*
 * Judges `nm -P` output of one object. Appends one line per problem to
 * problems (student-facing, with a hint where one helps). Pure: no I/O.
 */
void audit_symbols(const char *nm_output, const struct audit_rules *rules,
		   struct strlist *problems);

/*
 * Judges `readelf -S -W` output: every section must be one rules->allow
 * names (a section of its own holds what the audits do not look at: bytes
 * of a file .incbin read, code put there by hand); .init_array may hold the
 * compiler's own constructors (nvcc's fatbinary registration) and no other,
 * code of the student's that would run before the harness's main, except
 * gcc's initialiser of a file that includes <iostream> when disasm (`objdump
 * -dr` of the object; may be NULL) shows it does nothing else.
 */
void audit_sections(const char *readelf_output, const char *disasm,
		    const struct section_rules *rules, struct strlist *problems);

/* From `readelf -S -W` output: how many constructors there are beyond the compiler's own. */
unsigned long audit_constructors(const char *readelf_output, unsigned long own);

/*
 * From `nm -P` output of nvcc's object, appended to names: its kernels of C
 * linkage (extern "C" __global__), and the names of its local variables
 * (_ZL3c_n: c_n), nvcc's host copies of __device__ and __constant__ ones.
 */
void audit_nvcc_globals(const char *nm_output, struct strlist *names);

/*
 * From `nm -P` and `objdump -d -r` output of nvcc's object, appended to
 * names: the host's own variables, each one it defines (nm's b, B, d, D,
 * u, V) but those its registration of the fatbinary names (its host copies
 * of __device__, __constant__ and __managed__ variables) and nvcc's own.
 * The emulator's checking build reports a kernel's access to them
 * (build.c, memory.cc). Those the registration names go into device
 * (unless NULL) by the names the emulator's build gives them: "c_n" and
 * "_ZL3c_n" for nvcc's _ZL3c_n (the checking build reports the host's own
 * access to them). No registration seen: nothing into either.
 */
void audit_host_data(const char *nm_output, const char *disasm, struct strlist *names,
		     struct strlist *device);

#endif
