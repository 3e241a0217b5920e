/*
 * occ_questions.h - a student's occupancy questions, without their answers:
 * what the question sheet (questions_occupancy.cu) prints, and what the
 * format test and the course's answer checks (tests/hidden/) ask about.
 *
 * A student's questions come from a generator seeded by their name, so the
 * sheet printed by `cudalab questions occupancy --student ID` and the one the
 * grader checks are the same, and two students' sheets differ. Not every
 * configuration drawn is asked: one must run (a block at least), the
 * limiting-resource question needs exactly one limiting resource, the
 * best-block-size question exactly one best size. Which configurations
 * qualify is a table (occ_admissible.h), made in the course's repository
 * from cuda_occupancy.h (`build/labs/occupancy/key --admissible`): it says
 * which configurations are asked, never what their answers are. So nothing
 * here computes an occupancy, and the sheet a handout prints is the one the
 * course grades.
 */
#ifndef OCC_QUESTIONS_H
#define OCC_QUESTIONS_H

#include "occ_devices.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum occ_kind { OCC_Q_THREADS, OCC_Q_BLOCKS, OCC_Q_WARPS, OCC_Q_OCCUPANCY, OCC_Q_LIMIT,
		OCC_Q_BEST, OCC_NQUESTIONS };

/* The key of each question in answers.txt, in sheet order. */
static const char *const occ_q_keys[OCC_NQUESTIONS] = {
	"threads_per_sm", "blocks_per_sm", "warps_per_sm", "occupancy_percent",
	"limiting_resource", "best_block_size",
};

/* The words a limiting resource is named by in answers.txt, by OCC_BY_* bit. */
static const char *const occ_limit_words[4] = {"warps", "registers", "shared_memory", "blocks"};

/* A percentage is right within this many points. */
#define OCC_PERCENT_TOLERANCE 0.5

/* What a question's configuration is drawn from. */
static const int occ_q_threads[] = {64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024};
static const int occ_q_regs[] = {16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128};
static const size_t occ_q_smem[] = {0, 2048, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152};
static const int occ_q_sizes[4] = {128, 256, 512, 1024};
#define OCC_Q_NTHREADS (sizeof(occ_q_threads) / sizeof(*occ_q_threads))
#define OCC_Q_NREGS (sizeof(occ_q_regs) / sizeof(*occ_q_regs))
#define OCC_Q_NSMEM (sizeof(occ_q_smem) / sizeof(*occ_q_smem))
/* configurations with a block size, and without (the best-block-size question) */
#define OCC_Q_NCONFIGS (OCC_LAB_NDEVICES * OCC_Q_NTHREADS * OCC_Q_NREGS * OCC_Q_NSMEM)
#define OCC_Q_NKERNELS (OCC_LAB_NDEVICES * OCC_Q_NREGS * OCC_Q_NSMEM)

static inline size_t occ_q_config_index(size_t dev, size_t ti, size_t ri, size_t si)
{
	return ((dev * OCC_Q_NTHREADS + ti) * OCC_Q_NREGS + ri) * OCC_Q_NSMEM + si;
}

static inline size_t occ_q_kernel_index(size_t dev, size_t ri, size_t si)
{
	return (dev * OCC_Q_NREGS + ri) * OCC_Q_NSMEM + si;
}

#include "occ_admissible.h"

static inline bool occ_q_bit(const uint64_t *bits, size_t i)
{
	return bits[i / 64] >> (i % 64) & 1;
}

struct occ_question {
	enum occ_kind kind;
	const struct occ_device *dev;
	int threads, regs;
	size_t smem;
	int sizes[4];            /* OCC_Q_BEST: the block sizes to choose from */
};

static inline uint64_t occ_lab_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * The student's questions, the same for the same name every time. Each
 * question gets its own GPU and configuration, drawn until the table says
 * it may be asked.
 */
static inline void occ_lab_questions(const char *student, struct occ_question q[OCC_NQUESTIONS])
{
	uint64_t s = 0xcbf29ce484222325ULL;   /* FNV-1a of "occupancy/" + the name */

	for (const char *p = "occupancy/"; *p; p++)
		s = (s ^ (unsigned char)*p) * 0x100000001b3ULL;
	for (const char *p = student; *p; p++)
		s = (s ^ (unsigned char)*p) * 0x100000001b3ULL;

	for (int k = 0; k < OCC_NQUESTIONS; k++) {
		struct occ_question *x = &q[k];
		memset(x, 0, sizeof(*x));
		x->kind = (enum occ_kind)k;
		for (;;) {
			size_t d = occ_lab_next(&s) % OCC_LAB_NDEVICES;
			size_t ti = occ_lab_next(&s) % OCC_Q_NTHREADS;
			size_t ri = occ_lab_next(&s) % OCC_Q_NREGS;
			size_t si = occ_lab_next(&s) % OCC_Q_NSMEM;
			x->dev = &occ_lab_devices[d];
			x->threads = occ_q_threads[ti];
			x->regs = occ_q_regs[ri];
			x->smem = occ_q_smem[si];
			if (x->kind == OCC_Q_BEST) {
				memcpy(x->sizes, occ_q_sizes, sizeof(x->sizes));
				if (occ_q_bit(occ_admissible_one_best, occ_q_kernel_index(d, ri, si)))
					break;
				continue;
			}
			size_t i = occ_q_config_index(d, ti, ri, si);
			if (occ_q_bit(occ_admissible_runs, i) &&
			    (x->kind != OCC_Q_LIMIT || occ_q_bit(occ_admissible_one_limit, i)))
				break;
		}
	}
}

/* The question's configuration in words, for the sheet and for feedback. */
static inline const char *occ_lab_config(const struct occ_question *x, char *buf, size_t len)
{
	if (x->kind == OCC_Q_BEST)
		snprintf(buf, len, "on the %s, a kernel with %d registers per thread and %zu bytes of "
			 "shared memory per block", x->dev->name, x->regs, x->smem);
	else
		snprintf(buf, len, "on the %s, blocks of %d threads, %d registers per thread and "
			 "%zu bytes of shared memory per block", x->dev->name, x->threads, x->regs,
			 x->smem);
	return buf;
}

#endif
