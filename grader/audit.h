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
};

/*
 * Judges `nm -P` output of one object. Appends one line per problem to
 * problems (student-facing, with a hint where one helps). Pure: no I/O.
 */
void audit_symbols(const char *nm_output, const struct audit_rules *rules,
		   struct strlist *problems);

/*
 * Judges `readelf -S -W` output: nvcc puts exactly one function in
 * .init_array (its fatbinary registration); any other is a constructor of
 * the student's, code that would run before the harness's main, except
 * gcc's initialiser of a file that includes <iostream> when disasm (`objdump
 * -dr` of the object; may be NULL) shows it does nothing else.
 */
void audit_sections(const char *readelf_output, const char *disasm, struct strlist *problems);

/* From `readelf -S -W` output: how many constructors there are beyond nvcc's one. */
unsigned long audit_constructors(const char *readelf_output);

#endif
