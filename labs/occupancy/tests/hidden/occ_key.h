/*
 * occ_key.h - the answers to a student's occupancy questions, from NVIDIA's
 * calculator (cuda_occupancy.h): what the course's answer checks
 * (check_occupancy_key.cu) and answer key (key_occupancy.cu) share, and
 * the table of which configurations are asked (occ_admissible.h), made
 * from the same calculator.
 *
 * In tests/hidden/: kept out of the student's handout, which prints a
 * student's questions (occ_questions.h) but nothing that answers them.
 */
#ifndef OCC_KEY_H
#define OCC_KEY_H

#include "../occ_lab.h"
#include "../occ_questions.h"

/* The answer to one question, with what the calculator said of it. */
struct occ_answer {
	struct occ_expected e;   /* for the one configuration (not OCC_Q_BEST) */
	double answer;           /* the number; OCC_Q_LIMIT: the OCC_BY_* bit */
};

/* Warps resident per SM as a percentage of the most the SM can hold. */
static inline double occ_lab_percent(const struct occ_device *d, int threads, int blocks)
{
	int warps = (threads + d->warp_size - 1) / d->warp_size;
	return 100.0 * blocks * warps / (d->max_threads_per_sm / d->warp_size);
}

/* A calculator: blocks per SM, with the OCC_BY_* limits; negative when it cannot say. */
typedef int (*occ_lab_calc)(const struct occ_device *d, int threads, int regs, size_t smem,
			    unsigned *limits);

/* cuda_occupancy.h as an occ_lab_calc. */
static inline int occ_lab_oracle_calc(const struct occ_device *d, int threads, int regs,
				      size_t smem, unsigned *limits)
{
	struct occ_expected e = occ_lab_oracle(d, threads, regs, smem);
	*limits = e.limits;
	return e.ok ? e.blocks : -1;
}

/* The answer to question x (not OCC_Q_BEST) when its configuration gets blocks per SM. */
static inline double occ_lab_answer_of(const struct occ_question *x, int blocks, unsigned limits)
{
	int warps = (x->threads + x->dev->warp_size - 1) / x->dev->warp_size;

	switch (x->kind) {
	case OCC_Q_THREADS:
		return (double)blocks * x->threads;
	case OCC_Q_BLOCKS:
		return blocks;
	case OCC_Q_WARPS:
		return (double)blocks * warps;
	case OCC_Q_OCCUPANCY:
		return occ_lab_percent(x->dev, x->threads, blocks);
	default:
		return limits;
	}
}

/*
 * The block size of x->sizes with the highest occupancy by calc (the first
 * of equals); *nbest, when not NULL, gets how many sizes reach it, and
 * *best_percent that occupancy.
 */
static inline int occ_lab_best(const struct occ_question *x, occ_lab_calc calc, int *nbest,
			       double *best_percent)
{
	double best = -1;
	int size = 0, n = 0;

	for (int i = 0; i < 4; i++) {
		unsigned limits;
		int b = calc(x->dev, x->sizes[i], x->regs, x->smem, &limits);
		double pc = b > 0 ? occ_lab_percent(x->dev, x->sizes[i], b) : 0;
		if (pc > best)
			best = pc, n = 1, size = x->sizes[i];
		else if (pc == best)
			n++;
	}
	if (nbest)
		*nbest = n;
	if (best_percent)
		*best_percent = best;
	return size;
}

/* The answer to question x, by cuda_occupancy.h. */
static inline struct occ_answer occ_lab_key(const struct occ_question *x)
{
	struct occ_answer a;

	memset(&a, 0, sizeof(a));
	if (x->kind == OCC_Q_BEST) {
		a.answer = occ_lab_best(x, occ_lab_oracle_calc, NULL, NULL);
		return a;
	}
	a.e = occ_lab_oracle(x->dev, x->threads, x->regs, x->smem);
	a.answer = occ_lab_answer_of(x, a.e.blocks, a.e.limits);
	return a;
}

/*
 * Whether question x may be asked, by cuda_occupancy.h: what
 * occ_admissible.h must say of it (the key checks that it does).
 */
static inline bool occ_lab_admissible(const struct occ_question *x)
{
	if (x->kind == OCC_Q_BEST) {
		int nbest;
		double best;
		occ_lab_best(x, occ_lab_oracle_calc, &nbest, &best);
		return nbest == 1 && best > 0;
	}
	struct occ_expected e = occ_lab_oracle(x->dev, x->threads, x->regs, x->smem);
	return e.ok && e.blocks >= 1 &&
	       (x->kind != OCC_Q_LIMIT || !(e.limits & (e.limits - 1)));
}

#endif
