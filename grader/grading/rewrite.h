/*
 * rewrite.h - turns CUDA source into C++ the CPU emulator compiles.
 */
#ifndef REWRITE_H
#define REWRITE_H

#include "util.h"

/*
 * Rewrites every kernel launch `k<<<cfg>>>(args)` (also spelled
 * `k<< <cfg>> >(args)`) into
 * `cudaemu::launch(CUDAEMU_KERNEL(k), "k", __FILE__, __LINE__, cfg)(args)`,
 * every `extern __shared__ T s[];` into a pointer to the dynamic shared
 * memory (in a function or at file scope), and every `__shared__` array
 * declared in a function into a reference to the block's own, keeping
 * every line where it was (so diagnostics point at the student's lines) and
 * starting with a #line naming `name`. Comments, string and character
 * literals are left alone. Returns the new text, or NULL with *why set (a
 * launch the rewriter cannot follow).
 */
char *rewrite_cuda(const char *src, const char *name, char **why);

/*
 * The first inline assembly statement in src (asm, __asm or __asm__ in code,
 * not in a comment or literal): "LINE: the line's text", or NULL where there
 * is none. Inline PTX is for a GPU: the emulator's g++ cannot assemble it.
 */
char *rewrite_find_asm(const char *src);

#endif
