/*
 * questions_occupancy.cu - prints a student's question sheet for the
 * occupancy lab (what `cudalab questions occupancy --student ID` runs).
 * The questions come from occ_questions.h, as in the suite; nothing here
 * answers them: the answer key is the course's (tests/hidden/key_occupancy.cu,
 * `cudalab questions occupancy --key` in the course's repository), so a
 * student's handout, which has this program, has no key.
 */
#include "occ_questions.h"

#include <stdbool.h>
#include <stdlib.h>

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
	struct occ_question q[OCC_NQUESTIONS];
	char cfg[256];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--student") && i + 1 < argc) {
			student = argv[++i];
		} else if (!strcmp(argv[i], "--key")) {
			fprintf(stderr, "questions_occupancy: this program has no answer key: the key "
				"is only available in the course's repository\n");
			return 2;
		} else {
			student = NULL;
			break;
		}
	}
	if (!student || !*student) {
		fprintf(stderr, "usage: questions_occupancy --student ID\n");
		return 2;
	}
	occ_lab_questions(student, q);
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
