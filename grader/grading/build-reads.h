/*
 * build-reads.h - what the compilers may read, for build.c alone (see
 * build-reads.c).
 */
#ifndef CUDALAB_BUILD_READS_H
#define CUDALAB_BUILD_READS_H

#include "grading.h"
#include "includes.h"
#include "run.h"
#include "scan.h"

/* Seconds a compiler or a binary tool may take for a question of the grader's. */
#define TOOL_TIMEOUT 60

/* Whether name is a CUDA source file (.cu): what the compilers build. */
bool build_is_source(const char *name);

/* What one of the compilers may read of the submission's files and the lab's. */
struct include_policy {
	struct strlist own, headers, system;
	struct include_rules rules;
};

/*
 * The search list of nvcc, or (emulated) g++, already asked for in this
 * process, or NULL; *key (the caller frees it) names the command line, for
 * compiler_search_answer.
 */
const struct strlist *compiler_search_cached(const struct grading *g, bool emulated, char **key);
/* The command that prints that compiler's search list, into cmd, and how to run it. */
void compiler_search_command(const struct grading *g, bool emulated, struct strlist *cmd);
struct run_spec compiler_search_spec(const struct grading *g, const struct strlist *cmd);
/* Keeps the search list the command spec said (res) under key; -1 when it said none. */
int compiler_search_answer(const char *key, const struct run_spec *spec,
			   const struct run_result *res, const char *workdir);

/*
 * The include policy of nvcc's passes, or (emulated) of g++'s on the
 * emulator's rewrite; 0, or -1 when the compiler's search list is not
 * known (p is still set, and released by include_policy_release).
 */
int include_policy_init(const struct grading *g, bool emulated, struct include_policy *p);
void include_policy_release(struct include_policy *p);
/* Every file the preprocessed text says the compiler entered must be one the
 * policy allows; what is not, into problems. */
void judge_includes(const char *text, size_t len, const struct scan_rules *rules,
		    const struct include_policy *p, const char *header_name,
		    struct strlist *problems);

#endif
