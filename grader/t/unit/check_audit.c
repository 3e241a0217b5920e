/* Unit tests of audit.c: the symbol and section rules. */
#include "audit.h"
#include "config.h"
#include "unit.h"

#include <check.h>
#include <string.h>

static struct strlist contract, allow, deny;

static void setup(void)
{
	strlist_split(&contract, "matmul_k1 matmul_k2");
	strlist_split(&allow, "cuda* __cuda* printf _Znwm __cxa_*");
	strlist_split(&deny, "main cuda* _Zn* _ZSt*");
}

static void teardown(void)
{
	strlist_clear(&contract);
	strlist_clear(&allow);
	strlist_clear(&deny);
}

/* The problems audit_symbols finds in nm output, one string, "" when none. */
static char *judge(const char *nm)
{
	struct audit_rules rules = {.contract = &contract, .allow_undefined = &allow,
				    .deny_defined = &deny};
	struct strlist problems = STRLIST_INIT;
	struct strbuf sb = STRBUF_INIT;

	audit_symbols(nm, &rules, &problems);
	for (size_t i = 0; i < problems.n; i++)
		strbuf_addf(&sb, "%s\n", problems.v[i]);
	strlist_clear(&problems);
	return strbuf_detach(&sb);
}

#define GOOD_OBJECT                                                                                \
	"matmul_k1 T 82 8a\nmatmul_k2 T 100 8a\n"                                                  \
	"_Z16matmul_k1_kernelPKfS0_Pfi T 355 31\n"                                                 \
	"_ZL24__sti____cudaRegisterAllv t 3e8 30\n"                                                \
	"DW.ref.__gxx_personality_v0 V 0 8\n_ZN4dim3C1Ejjj W 0 2a\n"                               \
	"__cudaLaunchKernel U\ncudaMalloc U\nprintf U\n"

START_TEST(test_audit_accepts_a_clean_object)
{
	char *p = judge(GOOD_OBJECT);
	ck_assert_str_eq(p, "");
	free(p);
}
END_TEST

START_TEST(test_audit_refuses_main)
{
	char *p = judge(GOOD_OBJECT "main T 0 10\n");
	ck_assert_ptr_nonnull(strstr(p, "defines main()"));
	free(p);
}
END_TEST

START_TEST(test_audit_refuses_runtime_interposition)
{
	char *p = judge(GOOD_OBJECT "cudaEventElapsedTime T 0 10\n_Znwm T 20 10\n");
	ck_assert_ptr_nonnull(strstr(p, "'cudaEventElapsedTime', a name reserved"));
	ck_assert_ptr_nonnull(strstr(p, "'_Znwm', a name reserved"));
	free(p);
}
END_TEST

START_TEST(test_audit_refuses_unlisted_calls)
{
	char *p = judge(GOOD_OBJECT "fork U\nsystem U\n");
	ck_assert_ptr_nonnull(strstr(p, "calls 'fork'"));
	ck_assert_ptr_nonnull(strstr(p, "calls 'system'"));
	free(p);
}
END_TEST

START_TEST(test_audit_refuses_plain_globals)
{
	char *p = judge(GOOD_OBJECT "helper T 0 10\ncounter B 0 4\n");
	ck_assert_ptr_nonnull(strstr(p, "global symbol 'helper'"));
	ck_assert_ptr_nonnull(strstr(p, "global symbol 'counter'"));
	ck_assert_ptr_nonnull(strstr(p, "static"));
	free(p);
}
END_TEST

START_TEST(test_audit_names_missing_and_cxx_linkage)
{
	char *p = judge("matmul_k1 T 0 10\n_Z9matmul_k2PKfS0_Pfi T 10 10\n");
	ck_assert_ptr_nonnull(strstr(p, "defines matmul_k2 with C++ linkage"));
	free(p);
	p = judge("matmul_k1 T 0 10\n");
	ck_assert_ptr_nonnull(strstr(p, "does not define matmul_k2"));
	free(p);
}
END_TEST

/* nvcc's object: its one registration of the fatbinary, any section */
static const struct section_rules nvcc = {NULL, 1, false, NULL, NULL};

#define SECTIONS(size)                                                                             \
	"Section Headers:\n"                                                                       \
	"  [Nr] Name              Type            Address          Off    Size   ES Flg Lk Inf Al\n" \
	"  [ 5] .init_array       INIT_ARRAY      0000000000000000 0001b8 " size " 08  WA  0   0  8\n" \
	"  [ 6] .rela.init_array  RELA            0000000000000000 001178 000030 18   I 15   5  8\n"

START_TEST(test_audit_sections_constructors)
{
	struct strlist problems = STRLIST_INIT;

	audit_sections(SECTIONS("000008"), NULL, &nvcc, &problems);
	ck_assert_uint_eq(problems.n, 0);
	audit_sections(SECTIONS("000018"), NULL, &nvcc, &problems);
	ck_assert_uint_eq(problems.n, 1);
	ck_assert_ptr_nonnull(strstr(problems.v[0], "has 2 constructors"));
	strlist_clear(&problems);
}
END_TEST

/* objdump -d -r of nvcc's registration and gcc's initialiser of a file with <iostream> (gcc 12) */
#define NVCC_INIT \
	"0000000000000000 <_ZL24__sti____cudaRegisterAllv>:\n" \
	"   8:\te8 00 00 00 00       \tcall   d <_ZL24__sti____cudaRegisterAllv+0xd>\n" \
	"\t\t\t9: R_X86_64_PLT32\t__cudaRegisterFatBinary-0x4\n\n"
#define IOINIT(extra) IOINIT_HEAD extra IOINIT_TAIL
#define IOINIT_HEAD NVCC_INIT \
	"0000000000000120 <_GLOBAL__sub_I_matmul_k1>:\n" \
	" 120:\t53                   \tpush   %rbx\n" \
	" 121:\t48 8d 1d 00 00 00 00 \tlea    0x0(%rip),%rbx        # 128 <_GLOBAL__sub_I_matmul_k1+0x8>\n" \
	"\t\t\t124: R_X86_64_PC32\t.bss+0x7c\n" \
	" 12b:\te8 00 00 00 00       \tcall   130 <_GLOBAL__sub_I_matmul_k1+0x10>\n" \
	"\t\t\t12c: R_X86_64_PLT32\t_ZNSt8ios_base4InitC1Ev-0x4\n" \
	" 130:\t48 8b 3d 00 00 00 00 \tmov    0x0(%rip),%rdi        # 137 <_GLOBAL__sub_I_matmul_k1+0x17>\n" \
	"\t\t\t133: R_X86_64_REX_GOTPCRELX\t_ZNSt8ios_base4InitD1Ev-0x4\n"
#define IOINIT_TAIL \
	/* the placeholder of a tail jump names the function after it */ \
	" 142:\te9 00 00 00 00       \tjmp    147 <_Z16matmul_k3_kernelPKfS0_Pfi+0x7>\n" \
	"\t\t\t143: R_X86_64_PLT32\t__cxa_atexit-0x4\n"

/* <iostream>'s initialiser is the one constructor accepted, and only when it does nothing else. */
START_TEST(test_audit_iostream_initialiser)
{
	static const char *const refused[] = {
		/* a global initialised by a call: static int g = rand(); */
		" 196:\te8 00 00 00 00       \tcall   19b <_GLOBAL__sub_I_matmul_k1+0x7b>\n"
		"\t\t\t197: R_X86_64_PLT32\trand-0x4\n",
		/* a call of the student's own function, resolved without a relocation */
		" 196:\te8 00 00 00 00       \tcall   1a0 <_ZL7computev>\n",
		/* an indirect call */
		" 196:\tff d0                \tcall   *%rax\n",
	};
	struct strlist problems = STRLIST_INIT;

	audit_sections(SECTIONS("000010"), IOINIT(""), &nvcc, &problems);
	ck_assert_uint_eq(problems.n, 0);
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		/* objdump's text has % signs: never a format */
		char *d = xasprintf("%s%s%s", IOINIT_HEAD, refused[i], IOINIT_TAIL);
		audit_sections(SECTIONS("000010"), d, &nvcc, &problems);
		ck_assert_msg(problems.n == 1, "accepted: %s", refused[i]);
		ck_assert_ptr_nonnull(strstr(problems.v[0], "has 1 constructors"));
		strlist_clear(&problems);
		free(d);
	}
	/* a second constructor besides it, or no disassembly to judge by */
	audit_sections(SECTIONS("000018"), IOINIT(""), &nvcc, &problems);
	audit_sections(SECTIONS("000010"), NULL, &nvcc, &problems);
	ck_assert_uint_eq(problems.n, 2);
	strlist_clear(&problems);
	/* -O0: the initialiser calls gcc's helper, which is followed */
	audit_sections(SECTIONS("000010"),
		       NVCC_INIT
		       "0000000000000519 <_Z41__static_initialization_and_destruction_0ii>:\n"
		       " 540:\te8 00 00 00 00       \tcall   545 <_Z41__static_initialization_and_destruction_0ii+0x2c>\n"
		       "\t\t\t541: R_X86_64_PLT32\t_ZNSt8ios_base4InitC1Ev-0x4\n"
		       "000000000000056b <_GLOBAL__sub_I_matmul_k1>:\n"
		       " 579:\te8 9b ff ff ff       \tcall   519 <_Z41__static_initialization_and_destruction_0ii>\n",
		       &nvcc, &problems);
	ck_assert_uint_eq(problems.n, 0);
}
END_TEST

/* g++ on the emulator's rewrite: an initialiser that registers a file-scope extern __shared__ */
#define EMU_INIT(extra) \
	"0000000000000000 <_GLOBAL__sub_I__Z1kPf>:\n" \
	"   0:\t53                   \tpush   %rbx\n" \
	extra \
	"  26:\t48 8d 3d 00 00 00 00 \tlea    0x0(%rip),%rdi        # 2d <_GLOBAL__sub_I__Z1kPf+0x2d>\n" \
	"\t\t\t29: R_X86_64_PC32\t.text-0x4\n" \
	"  2d:\t5b                   \tpop    %rbx\n" \
	"  2e:\te9 00 00 00 00       \tjmp    33 <_Z1kPf+0x23>\n" \
	"\t\t\t2f: R_X86_64_PLT32\tcudaemu_file_shared-0x4\n"

/*
 * The emulator's object has no constructor of nvcc's: its one initialiser
 * may register the rewrite's shared arrays, and hand a function of its own
 * to nothing else (__cxa_atexit would run it at exit).
 */
START_TEST(test_audit_emulated_constructors)
{
	static const struct section_rules emu = {NULL, 0, true, NULL, NULL};
	struct strlist problems = STRLIST_INIT;

	audit_sections(SECTIONS("000008"), EMU_INIT(""), &emu, &problems);
	ck_assert_uint_eq(problems.n, 0);
	/* not in nvcc's object, where nothing is the emulator's */
	audit_sections(SECTIONS("000010"), NVCC_INIT EMU_INIT(""), &nvcc, &problems);
	ck_assert_uint_eq(problems.n, 1);
	strlist_clear(&problems);
	/* a function's address for __cxa_atexit, not for the registration */
	audit_sections(SECTIONS("000008"),
		       EMU_INIT("   1:\t48 8d 3d 00 00 00 00 \tlea    0x0(%rip),%rdi\n"
				"\t\t\t4: R_X86_64_PC32\t.text+0x3c\n"
				"   8:\te8 00 00 00 00       \tcall   d <_GLOBAL__sub_I__Z1kPf+0xd>\n"
				"\t\t\t9: R_X86_64_PLT32\t__cxa_atexit-0x4\n"),
		       &emu, &problems);
	ck_assert_uint_eq(problems.n, 1);
	ck_assert_str_eq(problems.v[0], "has 1 constructors (functions that run before main): "
					"remove __attribute__((constructor)) and global objects with "
					"constructors");
	strlist_clear(&problems);
	/* a call of one of its functions */
	audit_sections(SECTIONS("000008"),
		       EMU_INIT("   8:\te8 00 00 00 00       \tcall   d <_GLOBAL__sub_I__Z1kPf+0xd>\n"
				"\t\t\t9: R_X86_64_PLT32\t.text+0x3c\n"),
		       &emu, &problems);
	ck_assert_uint_eq(problems.n, 1);
	strlist_clear(&problems);
}
END_TEST

/* Only the sections the compilers make of plain code; a name is read whole. */
START_TEST(test_audit_section_names)
{
	struct lab_config cfg;
	struct strlist problems = STRLIST_INIT;

	ck_assert_int_eq(config_load(unit_root(), "grid", &cfg), 0);
	struct section_rules rules = {&cfg.allow_sections, 0, true, NULL, NULL};
	static const char elf[] =
		"  [Nr] Name              Type            Address          Off    Size   ES Flg Lk Inf Al\n"
		"  [ 0]                   NULL            0000000000000000 000000 000000 00      0   0  0\n"
		"  [ 1] .text             PROGBITS        0000000000000000 000040 000000 00  AX  0   0  1\n"
		"  [ 2] .text._ZZN7cudaemu8launcherIJiiiPiEEclEiiiS1_ENUlPvE_4_FUNES3_ PROGBITS        0000000000000000 000040 000010 00 AXG  0   0 16\n"
		"  [ 3] .rodata.cst16     PROGBITS        0000000000000000 000050 000010 10  AM  0   0 16\n"
		"  [ 4] .grid_settings    PROGBITS        0000000000000000 000060 00001d 00   A  0   0  1\n"
		"  [ 5] .text x           PROGBITS        0000000000000000 000080 000004 00  AX  0   0  1\n"
		"  [ 6] .fini_array       FINI_ARRAY      0000000000000000 000088 000008 08  WA  0   0  8\n"
		"  [ 7] .nv_fatbin        PROGBITS        0000000000000000 000c70 005008 00   A  0   0  8\n";
	audit_sections(elf, NULL, &rules, &problems);
	ck_assert_uint_eq(problems.n, 3);
	ck_assert_ptr_nonnull(strstr(problems.v[0], "has a section '.grid_settings' of its own"));
	ck_assert_ptr_nonnull(strstr(problems.v[1], "'.text x'"));
	ck_assert_ptr_nonnull(strstr(problems.v[2], "'.fini_array'"));
	strlist_clear(&problems);
	/* nvcc's section for a __managed__ variable: said as such, the line quoted */
	rules.source = "#include \"grid.h\"\n// __managed__ in a comment\n__managed__ int seen;\n";
	rules.source_name = "grid.cu";
	audit_sections("  [ 5] __nv_managed_data__ PROGBITS        0000000000000000 000080 000008 "
		       "00  WA  0   0  8\n", NULL, &rules, &problems);
	ck_assert_uint_eq(problems.n, 1);
	ck_assert_ptr_nonnull(strstr(problems.v[0], "declares a __managed__ variable"));
	ck_assert_ptr_nonnull(strstr(problems.v[0], "grid.cu:3: __managed__ int seen;"));
	strlist_clear(&problems);
	/* thread-local storage in nvcc's object: said once, the line quoted; the
	 * emulator's object has its __shared__ arrays there */
	rules.source = "static __thread float t[4];\nstatic __thread int u;\n";
	static const char tls[] =
		"  [ 5] .tbss             NOBITS          0000000000000000 000080 000010 00 WAT  0   0  4\n"
		"  [ 6] .tbss.u           NOBITS          0000000000000000 000080 000004 00 WAT  0   0  4\n";
	rules.emulated = false;
	audit_sections(tls, NULL, &rules, &problems);
	ck_assert_uint_eq(problems.n, 1);
	ck_assert_ptr_nonnull(strstr(problems.v[0], "declares a thread_local variable"));
	ck_assert_ptr_nonnull(strstr(problems.v[0], "grid.cu:1: static __thread float t[4];"));
	strlist_clear(&problems);
	rules.emulated = true;
	audit_sections(tls, NULL, &rules, &problems);
	ck_assert_uint_eq(problems.n, 0);
	config_free(&cfg);
}
END_TEST

/*
 * nvcc keeps a __constant__ or __device__ variable's host copy local
 * (_ZL3c_n), and an extern "C" kernel has its device stub; the emulator's
 * build defines both as plain globals, which is accepted for those names
 * and no other.
 */
START_TEST(test_audit_nvcc_globals)
{
	struct strlist vars = STRLIST_INIT, problems = STRLIST_INIT;
	struct audit_rules rules = {&contract, &allow, &deny, NULL, NULL, NULL, &vars};

	audit_nvcc_globals("_ZL3c_n b 68 4\n_ZL4tile d 0 8\n_ZL1fv t 0 1\n_ZL12x b 0 4\n"
			   "c_n B 0 4\nlp_direct T 0 1b\n"
			   "_Z38__device_stub__Z9lp_directPKfPfiiPKfPfii T 1c 100\n", &vars);
	ck_assert_uint_eq(vars.n, 3);
	ck_assert_str_eq(vars.v[0], "c_n");
	ck_assert_str_eq(vars.v[1], "tile");
	ck_assert_str_eq(vars.v[2], "lp_direct");
	audit_symbols(GOOD_OBJECT "c_n B 0 4\ntile D 0 8\nstderr B 0 8\nc_n_fn T 0 1\n", &rules,
		      &problems);
	ck_assert_uint_eq(problems.n, 2);
	ck_assert_ptr_nonnull(strstr(problems.v[0], "'stderr'"));
	ck_assert_ptr_nonnull(strstr(problems.v[1], "'c_n_fn'"));
	strlist_clear(&problems);
	strlist_clear(&vars);
}
END_TEST

/*
 * The host's own variables of nvcc's object: every variable but those its
 * registration names (by section and offset, or by name) and nvcc's own.
 * The lines are nvcc 13.0's, for
 * `__device__ float dbuf[64]; static __device__ int dcount; __constant__
 * float cmask[9]; float hbuf[64];` and two host statics added.
 */
START_TEST(test_audit_host_data)
{
	struct strlist host = STRLIST_INIT, device = STRLIST_INIT;
	const char *nm = ".LC5 r 7 \n_ZGVZ20__device_stub__Z1kPfPfE5__tmp b 100 8\n"
			 "_ZL15__fatDeviceText d 0 18\n_ZL20__cudaFatCubinHandle b 118 8\n"
			 "_ZL4dbuf b 160 100\n_ZL5cmask b 120 24\n_ZL6dcount b 144 4\n"
			 "_ZL4room b 200 4000\n_ZZ4mainE3loc d 10 8\nfatbinData r 0 \n"
			 "hbuf B 0 100\nc_tab R 0 10\nroom u 0 100\n_ZN1SIfE1vE V 0 20\n";
	const char *disasm =
		"0000000000000000 <main>:\n"
		"\t\t\t20: R_X86_64_PC32\thbuf-0x8\n"
		"\t\t\t28: R_X86_64_PC32\t.bss+0x1fc\n"
		"0000000000000050 <_ZL24__sti____cudaRegisterAllv>:\n"
		"\t\t\t54: R_X86_64_PC32\t.nvFatBinSegment-0x4\n"
		"\t\t\t59: R_X86_64_PLT32\t__cudaRegisterFatBinary-0x4\n"
		"\t\t\t7f: R_X86_64_PC32\t_Z1kPf-0x4\n"
		"\t\t\t88: R_X86_64_PC32\t.bss+0x114\n"
		"\t\t\t8d: R_X86_64_PLT32\t__cudaRegisterFunction-0x4\n"
		"\t\t\ta0: R_X86_64_PC32\t.LC5-0x4\n"
		"\t\t\tad: R_X86_64_PC32\t.bss+0x15c\n"
		"\t\t\tb7: R_X86_64_PLT32\t__cudaRegisterVar-0x4\n"
		"\t\t\tda: R_X86_64_PC32\t_ZL6dcount-0x4\n"
		"\t\t\tdf: R_X86_64_PLT32\t__cudaRegisterVar-0x4\n"
		"\t\t\t102: R_X86_64_PC32\t.bss+0x11c\n"
		"\t\t\t107: R_X86_64_PLT32\t__cudaRegisterManagedVar-0x4\n"
		"\t\t\t10f: R_X86_64_PC32\t.bss+0x114\n"
		"\t\t\t116: R_X86_64_PLT32\t__cudaRegisterFatBinaryEnd-0x4\n";

	audit_host_data(nm, disasm, &host, &device);
	ck_assert_uint_eq(host.n, 5);
	ck_assert_str_eq(host.v[0], "_ZL4room");
	ck_assert_str_eq(host.v[1], "_ZZ4mainE3loc");
	ck_assert_str_eq(host.v[2], "hbuf");
	ck_assert_str_eq(host.v[3], "room");   /* C++17's inline variable */
	ck_assert_str_eq(host.v[4], "_ZN1SIfE1vE");   /* a template's static member */
	/* the registered ones, by the emulator's names too (.LC5, a string, is none) */
	ck_assert_uint_eq(device.n, 6);
	ck_assert_str_eq(device.v[0], "dbuf");
	ck_assert_str_eq(device.v[1], "_ZL4dbuf");
	ck_assert_str_eq(device.v[2], "dcount");
	ck_assert_str_eq(device.v[3], "_ZL6dcount");
	ck_assert_str_eq(device.v[4], "cmask");
	ck_assert_str_eq(device.v[5], "_ZL5cmask");
	strlist_clear(&device);
	/* no registration seen (another nvcc's layout): nothing told apart */
	strlist_clear(&host);
	audit_host_data(nm, "0000000000000000 <main>:\n", &host, &device);
	ck_assert_uint_eq(host.n, 0);
	ck_assert_uint_eq(device.n, 0);
	strlist_clear(&host);
}
END_TEST

/* A weak definition is accepted only where the policy lists it (std::endl's widen). */
START_TEST(test_audit_weak_library_definitions)
{
	struct lab_config cfg;
	struct strlist problems = STRLIST_INIT;

	ck_assert_int_eq(config_load(unit_root(), "matmul", &cfg), 0);
	struct strlist none = STRLIST_INIT;
	struct audit_rules rules = {.contract = &none, .allow_undefined = &cfg.allow_undefined,
				    .deny_defined = &cfg.deny_defined, .allow_weak = &cfg.allow_weak};
	audit_symbols("_ZNKSt5ctypeIcE8do_widenEc W 0 3\n", &rules, &problems);
	ck_assert_uint_eq(problems.n, 0);
	audit_symbols("_ZNKSt5ctypeIcE8do_widenEc T 0 3\n_ZNSo5flushEv W 0 3\n", &rules, &problems);
	ck_assert_uint_eq(problems.n, 2);
	strlist_clear(&problems);
	config_free(&cfg);
}
END_TEST

/* The policy every lab starts from, labs/common/audit.conf, as shipped. */
START_TEST(test_audit_shipped_policy)
{
	static const char *const allowed[] = {"printf", "__printf_chk", "__assert_fail",
					      "cudaMalloc", "cudaMemcpy", "cudaGetLastError",
					      "__cudaPushCallConfiguration", "sqrtf", "_Znwm",
					      /* __constant__ memory; the textbook error check, and
					       * nvcc's host copy of a __device__ function */
					      "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "exit",
					      /* the Visual Studio template; <iostream> and std::endl */
					      "cudaSetDevice", "_ZSt4cout", "_ZNSo5flushEv",
					      "_ZNKSt5ctypeIcE13_M_widen_initEv"};
	static const char *const refused[] = {"fork", "system", "execve", "fopen", "open",
					      "pthread_create", "cudaStreamCreate", "cudaSetDeviceFlags",
					      "cudaDeviceReset", "cudaGraphLaunch", "dlopen",
					      "cudaLaunchHostFunc", "__cudaLaunchKernel_ptsz"};
	struct lab_config cfg;
	struct strbuf nm = STRBUF_INIT;
	char *p;

	ck_assert_int_eq(config_load(unit_root(), "matmul", &cfg), 0);
	struct audit_rules rules = {.contract = &cfg.symbols,
				    .allow_undefined = &cfg.allow_undefined,
				    .deny_defined = &cfg.deny_defined, .allow_weak = &cfg.allow_weak};
	for (size_t i = 0; i < cfg.symbols.n; i++)
		strbuf_addf(&nm, "%s T 0 10\n", cfg.symbols.v[i]);
	for (size_t i = 0; i < ARRAY_SIZE(allowed); i++)
		strbuf_addf(&nm, "%s U\n", allowed[i]);
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		strbuf_addf(&nm, "%s U\n", refused[i]);

	struct strlist problems = STRLIST_INIT;
	audit_symbols(nm.buf, &rules, &problems);
	ck_assert_uint_eq(problems.n, ARRAY_SIZE(refused));
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		p = xasprintf("calls '%s'", refused[i]);
		ck_assert_msg(strstr(problems.v[i], p), "%s not refused: %s", refused[i],
			      problems.v[i]);
		free(p);
	}
	strlist_clear(&problems);
	strbuf_release(&nm);
	config_free(&cfg);
}
END_TEST

/* An extern "C" kernel is a kernel (nvcc defines its device stub), not a global of the student's. */
START_TEST(test_audit_accepts_extern_c_kernels)
{
	char *p = judge(GOOD_OBJECT "my_kernel T 353 1b\n_Z28__device_stub__Z9my_kernelPfPf T 1c1 192\n"
				    "my_table D 0 40\n");
	ck_assert_ptr_null(strstr(p, "'my_kernel'"));
	ck_assert_ptr_nonnull(strstr(p, "defines the global symbol 'my_table'"));
	free(p);
}
END_TEST

/* A refusal quotes the student's own line that makes the call, not one in a comment. */
START_TEST(test_audit_quotes_the_line)
{
	struct audit_rules rules = {&contract, &allow, &deny, NULL,
				    "#include <stdlib.h>\n// getenv here is a comment\n"
				    "int my_getenv;\nvoid f() {\n\tchar *e = getenv(\"HOME\");\n}\n",
				    "matmul.cu", NULL};
	struct strlist problems = STRLIST_INIT;

	audit_symbols(GOOD_OBJECT "getenv U\nsecure_getenv U\n", &rules, &problems);
	ck_assert_uint_eq(problems.n, 2);
	ck_assert_str_eq(problems.v[0], "calls 'getenv', which submissions to this lab may not use"
					"\n  matmul.cu:5: char *e = getenv(\"HOME\");");
	/* named nowhere in the source (a macro or a header made the call): no line */
	ck_assert_str_eq(problems.v[1], "calls 'secure_getenv', which submissions to this lab may "
					"not use");
	strlist_clear(&problems);
}
END_TEST

Suite *audit_suite(void)
{
	Suite *s = suite_create("audit");
	TCase *tc = tcase_create("audit");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_audit_accepts_a_clean_object);
	tcase_add_test(tc, test_audit_refuses_main);
	tcase_add_test(tc, test_audit_refuses_runtime_interposition);
	tcase_add_test(tc, test_audit_refuses_unlisted_calls);
	tcase_add_test(tc, test_audit_refuses_plain_globals);
	tcase_add_test(tc, test_audit_names_missing_and_cxx_linkage);
	tcase_add_test(tc, test_audit_sections_constructors);
	tcase_add_test(tc, test_audit_emulated_constructors);
	tcase_add_test(tc, test_audit_section_names);
	tcase_add_test(tc, test_audit_nvcc_globals);
	tcase_add_test(tc, test_audit_host_data);
	tcase_add_test(tc, test_audit_shipped_policy);
	tcase_add_test(tc, test_audit_iostream_initialiser);
	tcase_add_test(tc, test_audit_weak_library_definitions);
	tcase_add_test(tc, test_audit_quotes_the_line);
	tcase_add_test(tc, test_audit_accepts_extern_c_kernels);
	suite_add_tcase(s, tc);
	return s;
}
