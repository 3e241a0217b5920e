/*
 * includes.h - which files a submission's compilation may read: its own,
 * the lab's public header, and the headers of the system, the CUDA Toolkit
 * and the emulator. What was read is what the compiler's own preprocessor
 * says it entered (scan_includes(), from the linemarkers of what it
 * preprocessed), never a lexer of the grader's.
 */
#ifndef INCLUDES_H
#define INCLUDES_H

#include "scan.h"
#include "util.h"

struct include_rules {
	const char *workdir;           /* the compiler's working folder: relative names are from it */
	const struct strlist *files;   /* the submission's files, by their names in workdir */
	const struct strlist *own;     /* real paths of the submission's own files (and their rewrite) */
	const struct strlist *headers; /* real paths of the lab's public header (every copy of it) */
	const char *header_name;       /* its name, for messages: "matmul.h" */
	/* real paths of the folders whose files are the system's, the CUDA
	 * Toolkit's or the emulator's (includes_system_dirs()) */
	const struct strlist *system;
	const char *course;            /* the course's checkout: shown as "the course's" in messages */
};

/*
 * Judges every file of inc (what one preprocessed translation unit entered)
 * against rules; appends a line for the student to problems for each file
 * that is none of those allowed ("FILE:LINE: #include ...: reads '...', which
 * ..."), quoting the submission's own #include that led to it, and for each
 * file the linemarkers say the submission entered at a line that holds no
 * #include (a linemarker it wrote). Reads the submission's files; runs nothing.
 */
void includes_judge(const struct scan_includes *inc, const struct include_rules *rules,
		    struct strlist *problems);

/*
 * The folders of a compiler's search list, from what `-E -v` printed
 * (between "search starts here:" and "End of search list."), in order.
 */
void includes_search_list(const char *output, struct strlist *dirs);

/*
 * The folders of search whose files a submission may include: each by its
 * real path, less every folder that is, holds or lies inside one of
 * private_dirs (the lab's folder, the work folder), and every one that is or
 * holds one of roots (the course's checkout; a folder inside it, such as the
 * emulator's headers, stays).
 */
void includes_system_dirs(const struct strlist *search, const struct strlist *private_dirs,
			  const struct strlist *roots, struct strlist *out);

/* Whether text (one logical source line) is an #include, #include_next or #import. */
bool includes_is_directive(const char *text);

#endif
