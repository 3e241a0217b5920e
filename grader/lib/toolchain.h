/*
 * toolchain.h - build/toolchain.conf, which make writes: where the compilers,
 * the probe and the emulator's flags of this checkout are.
 */
#ifndef TOOLCHAIN_H
#define TOOLCHAIN_H

struct toolchain {
	char *root;        /* the cudalab checkout */
	char *build;       /* its build directory */
	char *nvcc, *cxx, *nm, *readelf, *objdump, *objcopy, *nvcc_flags, *probe;
	char *emu_cxxflags;   /* g++ flags of an emulated build; NULL: no emulator here */
	char *emu_asan_cxxflags;   /* the same, for the AddressSanitizer diagnostic build */
	char *emu_trace_cxxflags;  /* the same, for the trace build (sectors per request) */
	char *ncu;                 /* Nsight Compute's command line; NULL: not installed */
};

/* Reads <build_dir>/toolchain.conf into tc. 0, or -1 with an error. */
int toolchain_load(const char *build_dir, struct toolchain *tc);
void toolchain_free(struct toolchain *tc);

#endif
