/*
 * similar.h - pairwise similarity of a class's submissions, found by the
 * similarity tester sim_c (Debian: similarity-tester), never by our own
 * comparison: docs/commands/similar.md.
 */
#ifndef SIMILAR_H
#define SIMILAR_H

#include "util.h"

#include <stdbool.h>
#include <stddef.h>

/* The Debian package that has sim_c, for the message that it is missing. */
#define SIMILAR_PACKAGE "similarity-tester"
/*
 * Runs shorter than this many tokens are not reported. sim_c's own default is
 * 24; a CUDA kernel is short, and two declarations swapped cut its run under
 * 24 (docs/commands/similar.md: measured on bench/similar-class.sh).
 */
#define SIMILAR_MIN_RUN 20

/* One file of one submission. */
struct sim_file {
	size_t sub;                 /* the submission it belongs to */
	char *name;                 /* its name in the lab (lab.conf's files) */
	char *text;                 /* as submitted; NULL where the submission lacks it */
	size_t tokens;              /* sim_c's count, the starter's code left out */
	size_t lines;
};

/* A run of tokens alike in a file of each side, as sim_c reports it. */
struct sim_region {
	size_t file_a, file_b;      /* indices into sim_class.files */
	size_t a_first, a_last, b_first, b_last;   /* lines, from 1 */
	size_t tokens;
};

struct sim_pair {
	size_t a, b;                /* submissions, a < b */
	size_t shared;              /* tokens in runs alike (capped at each side's own) */
	double score;               /* 2 shared / (tokens a + tokens b), 0..1 */
	double of_a, of_b;          /* shared / tokens of each side, 0..1 */
	struct sim_region *regions; /* most tokens first */
	size_t nregions;
};

struct sim_class {
	/* in: the submissions, and the starter the lab hands out */
	char **students, **dirs;
	size_t nsubs;
	const struct strlist *names;   /* the files a submission consists of */
	const char *starter_dir;       /* NULL: no starter to leave out */
	/* the last narchived submissions are an archive's (past terms, solutions
	 * found online): compared with the others, never with each other */
	size_t narchived;
	unsigned min_run;              /* 0: SIMILAR_MIN_RUN */
	/* out */
	struct sim_file *files;
	size_t nfiles;
	size_t *sub_tokens;            /* per submission */
	struct sim_pair *pairs;        /* every pair with a run alike, highest score first */
	size_t npairs;
	size_t starter_lines_removed;  /* over the class */
	char *tool;                    /* the sim_c that ran */
};

/*
 * Reads every submission's files, leaves out of each the runs it shares
 * with the starter, and has sim_c compare every file with every other
 * submission's (CUDA needs no rewrite: sim_c's C lexer takes __global__
 * and threadIdx as identifiers and <<< >>> as operators), an archive's
 * submissions with the others only (sim_c's old files). Fills the out
 * fields; -1 with an error when sim_c is missing or fails, or a file
 * cannot be read.
 */
int similar_run(struct sim_class *c);
void similar_release(struct sim_class *c);

/*
 * The CUDA words a copier adds or drops without changing the code
 * (__restrict__, __forceinline__, #pragma unroll) blanked in text, in
 * place, so that lines keep their numbers.
 */
void similar_normalise(char *text);

/*
 * Parses sim_c's output with -n (runs without their text): the "File X: N
 * tokens, M lines" header through file_tokens(ctx, path, tokens, lines),
 * then each run through run(ctx, path_a, a_first, a_last, path_b, b_first,
 * b_last, tokens). Returns the runs seen, or -1 with an error for a line
 * it does not understand.
 */
typedef void (*sim_file_fn)(void *ctx, const char *path, size_t tokens, size_t lines);
typedef void (*sim_run_fn)(void *ctx, const char *a, size_t a_first, size_t a_last,
			   const char *b, size_t b_first, size_t b_last, size_t tokens);
long similar_parse(const char *output, sim_file_fn file_tokens, sim_run_fn run, void *ctx);

#endif
