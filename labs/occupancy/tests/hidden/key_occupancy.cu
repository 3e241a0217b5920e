/*
 * key_occupancy.cu - the answer key of the occupancy lab, in the course's
 * repository only (what `cudalab questions occupancy --student ID --key`
 * runs, for TAs), and the table of the configurations that may be asked
 * (--admissible writes labs/occupancy/tests/occ_admissible.h).
 *
 * Every answer is computed twice: by cuda_occupancy.h and by the lab's
 * reference calculator (linked in, renamed cl_ref_*); and each question is
 * checked to be one the table may give. If any of it disagrees the program
 * says so and prints nothing else.
 */
#include "occ_key.h"

#include <stdlib.h>

extern "C" int cl_ref_occ_blocks_per_sm(const struct occ_device *d, int threads_per_block,
					int regs_per_thread, size_t smem_per_block,
					unsigned *limits);

/* The reference calculator's answer to question x. */
static double reference_answer(const struct occ_question *x)
{
	unsigned limits;

	if (x->kind == OCC_Q_BEST)
		return occ_lab_best(x, cl_ref_occ_blocks_per_sm, NULL, NULL);
	int b = cl_ref_occ_blocks_per_sm(x->dev, x->threads, x->regs, x->smem, &limits);
	return occ_lab_answer_of(x, b, limits);
}

static void print_bits(const char *name, const char *count, const bool *bits, size_t n)
{
	printf("static const uint64_t %s[(%s + 63) / 64] = {", name, count);
	for (size_t w = 0; w < (n + 63) / 64; w++) {
		uint64_t v = 0;
		for (size_t b = 0; b < 64 && w * 64 + b < n; b++)
			v |= (uint64_t)bits[w * 64 + b] << b;
		printf("%s0x%016llxULL,", w % 3 ? " " : "\n\t", (unsigned long long)v);
	}
	printf("\n};\n");
}

/* occ_admissible.h, from cuda_occupancy.h */
static int print_admissible(void)
{
	static bool runs[OCC_Q_NCONFIGS], one_limit[OCC_Q_NCONFIGS], one_best[OCC_Q_NKERNELS];
	struct occ_question x;

	memset(&x, 0, sizeof(x));
	memcpy(x.sizes, occ_q_sizes, sizeof(x.sizes));
	for (size_t d = 0; d < OCC_LAB_NDEVICES; d++)
		for (size_t ri = 0; ri < OCC_Q_NREGS; ri++)
			for (size_t si = 0; si < OCC_Q_NSMEM; si++) {
				x.dev = &occ_lab_devices[d];
				x.regs = occ_q_regs[ri];
				x.smem = occ_q_smem[si];
				x.kind = OCC_Q_BEST;
				one_best[occ_q_kernel_index(d, ri, si)] = occ_lab_admissible(&x);
				for (size_t ti = 0; ti < OCC_Q_NTHREADS; ti++) {
					size_t i = occ_q_config_index(d, ti, ri, si);
					x.threads = occ_q_threads[ti];
					x.kind = OCC_Q_BLOCKS;
					runs[i] = occ_lab_admissible(&x);
					x.kind = OCC_Q_LIMIT;
					one_limit[i] = occ_lab_admissible(&x);
				}
			}
	printf("/*\n * occ_admissible.h - which configurations a question may ask about, by\n"
	       " * cuda_occupancy.h: written by `build/labs/occupancy/key --admissible` (from\n"
	       " * tests/hidden/key_occupancy.cu, in the course's repository); do not edit.\n"
	       " * A bit per configuration (occ_questions.h: occ_q_config_index,\n"
	       " * occ_q_kernel_index): it runs (a block at least); it has exactly one\n"
	       " * limiting resource; its best block size is one of the four, alone.\n"
	       " * Which, is not said.\n */\n"
	       "#ifndef OCC_ADMISSIBLE_H\n#define OCC_ADMISSIBLE_H\n\n");
	print_bits("occ_admissible_runs", "OCC_Q_NCONFIGS", runs, OCC_Q_NCONFIGS);
	print_bits("occ_admissible_one_limit", "OCC_Q_NCONFIGS", one_limit, OCC_Q_NCONFIGS);
	print_bits("occ_admissible_one_best", "OCC_Q_NKERNELS", one_best, OCC_Q_NKERNELS);
	printf("\n#endif\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *student = NULL;
	struct occ_question q[OCC_NQUESTIONS];
	struct occ_answer a[OCC_NQUESTIONS];

	if (argc == 2 && !strcmp(argv[1], "--admissible"))
		return print_admissible();
	if (argc == 3 && !strcmp(argv[1], "--student"))
		student = argv[2];
	if (!student || !*student) {
		fprintf(stderr, "usage: key_occupancy --student ID | --admissible\n");
		return 2;
	}
	occ_lab_questions(student, q);
	for (int k = 0; k < OCC_NQUESTIONS; k++) {
		a[k] = occ_lab_key(&q[k]);
		if (!occ_lab_admissible(&q[k])) {
			fprintf(stderr, "key_occupancy: for %s, question %d is not one cuda_occupancy.h "
				"lets be asked: occ_admissible.h is out of date (key --admissible "
				"writes it)\n", student, k + 1);
			return 3;
		}
		if (reference_answer(&q[k]) != a[k].answer) {
			fprintf(stderr, "key_occupancy: for %s, question %d, the reference "
				"calculator says %g and cuda_occupancy.h %g\n", student, k + 1,
				reference_answer(&q[k]), a[k].answer);
			return 3;
		}
	}
	/* whose sheet answers.txt answers: graded under another name, the suite says so */
	printf("# the answers expected from %s\nstudent = %s\n", student, student);
	for (int k = 0; k < OCC_NQUESTIONS; k++) {
		if (k == OCC_Q_LIMIT)
			printf("%s = %s\n", occ_q_keys[k],
			       occ_limit_words[__builtin_ctz((unsigned)a[k].answer)]);
		else if (k == OCC_Q_OCCUPANCY)
			printf("%s = %.2f\n", occ_q_keys[k], a[k].answer);
		else
			printf("%s = %.0f\n", occ_q_keys[k], a[k].answer);
	}
	return 0;
}
