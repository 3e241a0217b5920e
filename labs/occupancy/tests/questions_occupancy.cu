/*
 * questions_occupancy.cu - prints a student's question sheet for the
 * occupancy lab (what `cudalab questions occupancy --student ID` runs), or
 * with --key the answers the grader expects from that student, for TAs.
 * The questions and answers come from occ_lab.h, as in the suite, and
 * every answer is computed twice: by cuda_occupancy.h and by the lab's
 * reference calculator (linked in, renamed cl_ref_*). If they ever disagree
 * the program says so and prints nothing else.
 */
#include "occ_lab.h"

#include <stdlib.h>

extern "C" int cl_ref_occ_blocks_per_sm(const struct occ_device *d, int threads_per_block,
					int regs_per_thread, size_t smem_per_block,
					unsigned *limits);

/* The reference calculator's answer to question x, as occ_lab_questions made it. */
static double reference_answer(const struct occ_question *x)
{
	unsigned limits;

	if (x->kind == OCC_Q_BEST)
		return occ_lab_best(x, cl_ref_occ_blocks_per_sm, NULL, NULL);
	int b = cl_ref_occ_blocks_per_sm(x->dev, x->threads, x->regs, x->smem, &limits);
	return occ_lab_answer_of(x, b, limits);
}

static void print_device(const struct occ_device *d)
{
	printf("    %s: %d threads and %d blocks per SM at most, %d registers per SM (%d per "
	       "block at most, %d per thread),\n"
	       "    registers given to a warp in units of %d from one of %d partitions,\n"
	       "    %zu bytes of shared memory per SM (%zu per block at most), %zu reserved per "
	       "block,\n    shared memory given in units of %zu bytes\n",
	       d->name, d->max_threads_per_sm, d->max_blocks_per_sm, d->regs_per_sm,
	       d->regs_per_block, d->max_regs_per_thread, d->reg_alloc_unit, d->reg_partitions,
	       d->smem_per_sm, d->smem_per_block, d->smem_reserved_per_block, d->smem_alloc_unit);
}

static const char *const asks[OCC_NQUESTIONS] = {
	"How many threads are resident on one SM?",
	"How many blocks are resident on one SM?",
	"How many warps are resident on one SM?",
	"What is the occupancy, in percent (resident warps over the most the SM holds)?",
	"Which resource limits the blocks per SM: warps, registers, shared_memory or blocks?",
	"Which of these block sizes gives the highest occupancy?",
};

int main(int argc, char **argv)
{
	const char *student = NULL;
	bool key = false;
	struct occ_question q[OCC_NQUESTIONS];
	char cfg[256];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--student") && i + 1 < argc)
			student = argv[++i];
		else if (!strcmp(argv[i], "--key"))
			key = true;
		else
			student = NULL, i = argc;
	}
	if (!student || !*student) {
		fprintf(stderr, "usage: questions_occupancy --student ID [--key]\n");
		return 2;
	}
	occ_lab_questions(student, q);
	for (int k = 0; k < OCC_NQUESTIONS; k++)
		if (reference_answer(&q[k]) != q[k].answer) {
			fprintf(stderr, "questions_occupancy: for %s, question %d, the reference "
				"calculator says %g and cuda_occupancy.h %g\n", student, k + 1,
				reference_answer(&q[k]), q[k].answer);
			return 3;
		}
	/* whose sheet answers.txt answers: graded under another name, the suite says so */
	if (key) {
		printf("# the answers expected from %s\nstudent = %s\n", student, student);
		for (int k = 0; k < OCC_NQUESTIONS; k++) {
			if (k == OCC_Q_LIMIT)
				printf("%s = %s\n", occ_q_keys[k],
				       occ_limit_words[__builtin_ctz((unsigned)q[k].answer)]);
			else if (k == OCC_Q_OCCUPANCY)
				printf("%s = %.2f\n", occ_q_keys[k], q[k].answer);
			else
				printf("%s = %.0f\n", occ_q_keys[k], q[k].answer);
		}
		return 0;
	}
	printf("Occupancy questions for %s\n\n"
	       "Answer each in answers.txt on the line with its name, with a whole number\n"
	       "(the occupancy in percent may have decimals: within %.1f points is right).\n"
	       "These questions are yours: another name gets other numbers, and answers.txt\n"
	       "says whose they are (student = %s).\n",
	       student, OCC_PERCENT_TOLERANCE, student);
	for (int k = 0; k < OCC_NQUESTIONS; k++) {
		printf("\n%d. %s: %s\n", k + 1, occ_q_keys[k], asks[k]);
		printf("   %s.\n", occ_lab_config(&q[k], cfg, sizeof(cfg)));
		if (k == OCC_Q_BEST)
			printf("   Block sizes: %d, %d, %d, %d.\n", q[k].sizes[0], q[k].sizes[1],
			       q[k].sizes[2], q[k].sizes[3]);
		print_device(q[k].dev);
	}
	printf("\nanswers.txt:\nstudent = %s\n", student);
	for (int k = 0; k < OCC_NQUESTIONS; k++)
		printf("%s =\n", occ_q_keys[k]);
	return 0;
}
