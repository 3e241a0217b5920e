/*
 * rewrite.h - turns CUDA source into C++ the CPU emulator compiles.
 */
#ifndef REWRITE_H
#define REWRITE_H

#include "util.h"

/*
 * Rewrites every kernel launch `k<<<cfg>>>(args)` (also spelled
 * `k<< <cfg>> >(args)`) into
 * `cudaemu::launch(CUDAEMU_KERNEL(k), "k", __FILE__, __LINE__, cfg)(args)`
 * (cudaemu.h: the kernel's address, or a template's deduced call) and every
 * `extern __shared__ T s[];` into a pointer to the dynamic shared memory,
 * keeping every line where it was (so diagnostics point at the student's
 * lines) and starting with a #line naming `name`. Comments, string and
 * character literals are left alone. Returns the new text, or NULL with
 * *why set (a launch the rewriter cannot follow).
 */
char *rewrite_cuda(const char *src, const char *name, char **why);

#endif
