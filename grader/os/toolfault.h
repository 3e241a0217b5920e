/*
 * toolfault.h - whether a compiler or linker that failed on a submission
 * failed for the machine rather than for the submission: killed by a
 * signal the grader's limits did not send, one of its tools crashed, or no
 * room left to write its output. Such a failure is the grader's (exit 128,
 * nothing stored, a class tries it again), never a student's compile error.
 */
#ifndef TOOLFAULT_H
#define TOOLFAULT_H

#include "run.h"

/*
 * Free bytes a build is given: a failed build whose work folder (or
 * TMPDIR) has less, and that said it could not write (no space, a
 * quota), ran out of room. One with less than TOOLFAULT_FULL free failed
 * for want of room whatever it said.
 */
#define TOOLFAULT_ROOM (64ull << 20)
#define TOOLFAULT_FULL (1ull << 20)

/*
 * The signal that ended one of a compiler driver's tools, by the driver's
 * own words at the start of a line: nvcc's "nvcc error : 'cicc' died due
 * to signal 11 (...)", gcc's "gcc: internal compiler error: Segmentation
 * fault signal terminated program cc1plus". 0 when it says none. (A
 * submission's text reaches the output only after a diagnostic's place,
 * or indented as a quoted source line: never at the start of one.)
 */
int toolfault_signal(const char *output);

/*
 * Whether the filesystem of path has less than room bytes free for an
 * unprivileged writer, or no inode; *free_bytes gets what it has. False
 * where it cannot be told.
 */
bool toolfault_short_of_room(const char *path, unsigned long long room,
			     unsigned long long *free_bytes);

/*
 * Why a compiler or linker run (spec, res) that did not succeed failed for
 * the machine, not the submission (allocated), or NULL when it is the
 * submission's: workdir is the folder it wrote into.
 */
char *toolfault_why(const struct run_spec *spec, const struct run_result *res, const char *workdir);

#endif
