/*
 * occ_admissible.h - which configurations a question may ask about, by
 * cuda_occupancy.h: written by `build/labs/occupancy/key --admissible` (from
 * tests/hidden/key_occupancy.cu, in the course's repository); do not edit.
 * A bit per configuration (occ_questions.h: occ_q_config_index,
 * occ_q_kernel_index): it runs (a block at least); it has exactly one
 * limiting resource; its best block size is one of the four, alone.
 * Which, is not said.
 */
#ifndef OCC_ADMISSIBLE_H
#define OCC_ADMISSIBLE_H

static const uint64_t occ_admissible_runs[(OCC_Q_NCONFIGS + 63) / 64] = {
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xfffffffffffff003ULL,
	0xfc00003fffffffffULL, 0xffffffffffffffffULL, 0xffffff0000000000ULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xfff003ffffffffffULL, 0xffffffffffffffffULL,
	0xfffffffc00003fffULL, 0x000000ffffffffffULL, 0xffffffffffff0000ULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xfffffffff003ffffULL, 0x003fffffffffffffULL,
	0xfffffffffffffc00ULL, 0xff0000000000ffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0x03ffffffffffffffULL, 0xfffffffffffffff0ULL, 0xfffc00003fffffffULL,
	0x00ffffffffffffffULL, 0xffffffff00000000ULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xffffffffffffffffULL, 0xffffffffffffffffULL, 0xffffffffffffffffULL,
	0xfffff003ffffffffULL, 0xffffffffffffffffULL, 0xfffffffffc00003fULL,
	0x00000000ffffffffULL, 0x0000000000000000ULL,
};
static const uint64_t occ_admissible_one_limit[(OCC_Q_NCONFIGS + 63) / 64] = {
	0x8fe3f8fe3f8fe3f8ULL, 0xf7fdfeffdfffffffULL, 0xffffc3f7fdff7fdfULL,
	0xbfeffbfeff7ffffbULL, 0xf7ffffffe0fbfeffULL, 0xffffffffffffffbfULL,
	0xdffffbfeffdff83fULL, 0xfc0f7fdff7fdff7fULL, 0xffbfefe7ffffbfefULL,
	0xfffffe0380effbfeULL, 0xfffffffffff9fe7fULL, 0xff9fe7f9ff80e03fULL,
	0x27f9fe7f9fe7f9fdULL, 0xfe7f7fdff8020080ULL, 0x7fe00802009fe7f9ULL,
	0xf7fdff7fdff7fdffULL, 0x0000000000007fdfULL, 0x0007fdff7fdff000ULL,
	0xfc00000000000000ULL, 0x00000000007fdff7ULL, 0x8fe3f80000000000ULL,
	0xdfffffffbfffffffULL, 0xffffc3ffffffffffULL, 0xff7ffffbffffdfffULL,
	0xefffff7fe0ffffffULL, 0xff7efffff7ffffffULL, 0xffdfffffffbff03dULL,
	0xfc0fffff7feffbffULL, 0xfeffbffffdff7fffULL, 0xfff7fe03fffffff7ULL,
	0xffffff7fdffbfeffULL, 0xff7feffbff00dff7ULL, 0x3ffffffffffffffdULL,
	0xffffffdff7feffc0ULL, 0x7fe00bfeffffffffULL, 0xffffffffffffffffULL,
	0xfffffff001ff7fffULL, 0xfff003ffffffffffULL, 0xfffffffff00000ffULL,
	0x00000ffc00003fffULL, 0x000000ffffffffffULL, 0xffffffffffff0000ULL,
	0x3ffffffffdff8fffULL, 0xffffffff8fe3f8feULL, 0xfffffeffffffffffULL,
	0xff7fffffffffc3ffULL, 0xe0ffffffff7fefffULL, 0xf7fdffbffffdffffULL,
	0xfffff83fffffffbfULL, 0xffdffbff7fdffbffULL, 0xfdff7feffc0fffffULL,
	0x7fdff7f7fdffbfefULL, 0xdff7feffbff00c03ULL, 0xff00dff7fdffff7fULL,
	0xfffff7fdff7feffbULL, 0xf7fdff802ffbfeffULL, 0xff7fffffffffffdfULL,
	0xffffffff000007fdULL, 0x00007fdff003ffffULL, 0x003ffffffffffff0ULL,
	0x000000fffffffc00ULL, 0xfc00000000000000ULL, 0xfffffffbff3fcff3ULL,
	0xfffffffffffffffdULL, 0xffffffffffffff8fULL, 0xffc3fffffffeffffULL,
	0x7fefffff7fffffffULL, 0xfdffffe0ffffffffULL, 0xffffbff7fdffbfffULL,
	0xdffbfffffff83fffULL, 0x0fffffffdffbff7fULL, 0xffbfeffdff7feffcULL,
	0xf00c037fdff7f7fdULL, 0xffff7fdff7feffbfULL, 0x7feffbff00dff7fdULL,
	0xfbfefffffff7fdffULL, 0xffffdff7fdff802fULL, 0x0007fdff7fffffffULL,
	0x03ffffffffffff00ULL, 0xfffff000007fdff0ULL, 0xfffc00003fffffffULL,
	0x000000000000ffffULL, 0xff0fc3f000000000ULL, 0xffffffffffffffffULL,
	0xefffff83ffffffffULL, 0xfffefffff7ffffffULL, 0xffdfffffffc0ffffULL,
	0x3ffffdffffefffffULL, 0xffffbfffffff7fe0ULL, 0xfff80fffffffdff7ULL,
	0xfffdff7ffffbfeffULL, 0xffffeffc03ffffffULL, 0xeffffffffffff7fdULL,
	0xffffffdff7fe00bfULL, 0x803fffffffffffffULL, 0xfffffffffffffdffULL,
	0xffffc007fdffffffULL, 0xffffffffffffffffULL, 0xfffffffff003ffffULL,
	0xfffff003ffffffffULL, 0xfffffffffff00000ULL, 0xff00000ffc00003fULL,
	0x00000000ffffffffULL, 0x0000000000000000ULL,
};
static const uint64_t occ_admissible_one_best[(OCC_Q_NKERNELS + 63) / 64] = {
	0x0802008020080200ULL, 0x00802008fe609fe0ULL, 0x37f0007f30300802ULL,
	0x01c0701c0000ffc0ULL, 0x1fdc07fc0007c607ULL, 0xf181c0701c070000ULL,
	0x000007f701ff0001ULL, 0xc003fd8080000000ULL, 0x0000000007fe00bfULL,
};

#endif
