/* Unit tests of rewrite.c: launches and dynamic shared memory. */
#include "rewrite.h"
#include "unit.h"

#include <string.h>

static int lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

#define EXPECT(src, want)                                                                          \
	do {                                                                                       \
		char *why_, *out_ = rewrite_cuda(src, "k.cu", &why_);                              \
		ck_assert_msg(out_ != NULL, "refused: %s", why_);                                  \
		ck_assert_str_eq(out_ + strlen("#line 1 \"k.cu\"\n"), want);                     \
		ck_assert_int_eq(lines(out_), lines(src) + 1);                                     \
		free(out_);                                                                        \
	} while (0)

START_TEST(test_rewrite_launches)
{
	EXPECT("k<<<g, b>>>(x);", "cudaemu::launch(CUDAEMU_KERNEL(k), \"k\", __FILE__, __LINE__, g, b)(x);");
	EXPECT("k <<< dim3(N, N), 1 >>> (a, b);",
	       "cudaemu::launch(CUDAEMU_KERNEL(k), \"k\", __FILE__, __LINE__,   dim3(N, N), 1 ) (a, b);");
	EXPECT("ns::k<float, 16><<<g, b, s * sizeof(float), 0>>>(p);",
	       "cudaemu::launch(CUDAEMU_KERNEL(ns::k<float, 16>), \"ns::k<float, 16>\", __FILE__, __LINE__, g, b, "
	       "s * sizeof(float), 0)(p);");
	EXPECT("k<<<f(a, g(b)), h[1]>>>(x)", "cudaemu::launch(CUDAEMU_KERNEL(k), \"k\", __FILE__, __LINE__, "
					     "f(a, g(b)), h[1])(x)");
	/* a launch over several lines keeps its lines */
	EXPECT("k<<<grid,\n   block>>>(\n a);\nint x;",
	       "cudaemu::launch(CUDAEMU_KERNEL(k), \"k\", __FILE__, __LINE__, grid,\n   block)(\n a);\nint x;");
	/* no launches in comments or literals */
	EXPECT("// k<<<1,1>>>(x);\n/* k<<<1,1>>>() */ s = \"k<<<1,1>>>()\"; c = '<';",
	       "// k<<<1,1>>>(x);\n/* k<<<1,1>>>() */ s = \"k<<<1,1>>>()\"; c = '<';");
	EXPECT("s = R\"x(k<<<1,1>>>())x\"; k<<<1, 1>>>();",
	       "s = R\"x(k<<<1,1>>>())x\"; cudaemu::launch(CUDAEMU_KERNEL(k), \"k\", __FILE__, __LINE__, 1, 1)();");
	EXPECT("int big = 1'000'000; k<<<1,2>>>();",
	       "int big = 1'000'000; cudaemu::launch(CUDAEMU_KERNEL(k), \"k\", __FILE__, __LINE__, "
	       "1,2)();");
	/* a template launched without its arguments: the compiler deduces them */
	EXPECT("mm<<<g, b>>>(A, B, C, n);",
	       "cudaemu::launch(CUDAEMU_KERNEL(mm), \"mm\", __FILE__, __LINE__, g, b)(A, B, C, n);");
	/* operator<< of a template is no launch */
	EXPECT("friend std::ostream &operator<< <T>(std::ostream &, const V<T> &);",
	       "friend std::ostream &operator<< <T>(std::ostream &, const V<T> &);");
}
END_TEST

/* The chevrons as nvcc takes them: the third apart from the first two. */
START_TEST(test_rewrite_spaced_chevrons)
{
	/* the Visual Studio template's spelling */
	EXPECT("k << <nb, tb, 0, 0 >> > (a, b);",
	       "cudaemu::launch(CUDAEMU_KERNEL(k), \"k\", __FILE__, __LINE__,  nb, tb, 0, 0 ) (a, b);");
	EXPECT("t<float><< <g, b>>>(x);",
	       "cudaemu::launch(CUDAEMU_KERNEL(t<float>), \"t<float>\", __FILE__, __LINE__, g, b)(x);");
	EXPECT("k<<\t<g, b>>\t>(x);", "cudaemu::launch(CUDAEMU_KERNEL(k), \"k\", __FILE__, __LINE__, "
					"g, b)(x);");
	/* a comment between, and a line break before the last '>': lines kept */
	EXPECT("k<</* c */<g, b>>\n>(x);\nint y;",
	       "cudaemu::launch(CUDAEMU_KERNEL(k), \"k\", __FILE__, __LINE__, g, b\n)(x);\nint y;");
	/* shifts into a stream, a literal after them, are no launch */
	EXPECT("std::cerr << \"at \" << n << '\\n' << '<';",
	       "std::cerr << \"at \" << n << '\\n' << '<';");
	EXPECT("std::cerr << // c\n \"<\" << x;", "std::cerr << // c\n \"<\" << x;");
	/* a shift in the configuration is no closing chevron */
	EXPECT("k<<<(n >> 1), b>>>(x);",
	       "cudaemu::launch(CUDAEMU_KERNEL(k), \"k\", __FILE__, __LINE__, (n >> 1), b)(x);");
}
END_TEST

START_TEST(test_rewrite_dynamic_shared)
{
	EXPECT("void k() { extern __shared__ float tile[]; }",
	       "void k() {  float  *const tile = ( float  *)cudaemu_dyn_shmem(); }");
	EXPECT("void k()\n{\n\textern __shared__ __align__(16) unsigned char buf[ ];\n\tint y;\n}",
	       "void k()\n{\n\t  unsigned char  *const buf = (  unsigned char  *)cudaemu_dyn_shmem();"
	       "\n\tint y;\n}");
	/* a plain extern is left alone */
	EXPECT("extern int counter;", "extern int counter;");
	EXPECT("extern \"C\" __global__ void k(float *p);", "extern \"C\" __global__ void k(float *p);");
}
END_TEST

/* Outside every function no block runs when a pointer is initialised: a
 * pointer of each OS thread, set by the runtime before each block runs. */
START_TEST(test_rewrite_file_scope_dynamic_shared)
{
	EXPECT("extern __shared__ float s[];\n__global__ void k() { s[0] = 1; }",
	       "static __thread  float  *s; CUDAEMU_FILE_SHARED(s);\n"
	       "__global__ void k() { s[0] = 1; }");
	/* namespaces and extern "C" blocks are still file scope */
	EXPECT("namespace a { extern __shared__ int x[]; }",
	       "namespace a { static __thread  int  *x; CUDAEMU_FILE_SHARED(x); }");
	EXPECT("namespace a::b {\nextern __shared__ int x[]; }",
	       "namespace a::b {\nstatic __thread  int  *x; CUDAEMU_FILE_SHARED(x); }");
	EXPECT("extern \"C\" /* c */ { extern __shared__ int x[]; }",
	       "extern \"C\" /* c */ { static __thread  int  *x; CUDAEMU_FILE_SHARED(x); }");
	/* in a function, even one in a namespace, the block's own pointer */
	EXPECT("namespace { void k() { extern __shared__ int x[]; } }",
	       "namespace { void k() {  int  *const x = ( int  *)cudaemu_dyn_shmem(); } }");
	EXPECT("struct S { int v; };\nextern __shared__ int x[];",
	       "struct S { int v; };\nstatic __thread  int  *x; CUDAEMU_FILE_SHARED(x);");
}
END_TEST

START_TEST(test_rewrite_static_shared)
{
	EXPECT("void k() { __shared__ float As[16][16]; }",
	       "void k() {  float  (&As)[16][16] = *( float  (*)[16][16])"
	       "cudaemu_static_shared(__COUNTER__, sizeof( float [16][16])); }");
	EXPECT("void k() { __shared__ int n; }",
	       "void k() {  int  &n = *( int  *)cudaemu_static_shared(__COUNTER__, "
	       "sizeof( int )); }");
	EXPECT("void k() { __shared__ volatile int v[2]; }",
	       "void k() { volatile   int  (&v)[2] = *(volatile   int  (*)[2])"
	       "cudaemu_static_shared(__COUNTER__, sizeof(  int [2])); }");
	/* several names: a reference each, in the block's arena (so each is
	 * poisoned with NaN when the block starts) */
	EXPECT("void k() { __shared__ float a[4], b[4]; }",
	       "void k() {  float  (&a)[4] = *( float  (*)[4])cudaemu_static_shared(__COUNTER__, "
	       "sizeof( float [4])); float  (&b)[4] = *( float  (*)[4])cudaemu_static_shared("
	       "__COUNTER__, sizeof( float [4])); }");
	/* at file scope (in a namespace too), or with an initializer or a
	 * pointer: left to the macro */
	EXPECT("__shared__ float g[4];", "__shared__ float g[4];");
	EXPECT("namespace { __shared__ float g[4]; }", "namespace { __shared__ float g[4]; }");
	EXPECT("void k() { __shared__ float a[4], *p; }", "void k() { __shared__ float a[4], *p; }");
}
END_TEST

START_TEST(test_rewrite_refuses_what_it_cannot_follow)
{
	char *why;

	ck_assert_ptr_null(rewrite_cuda("k<<<1, 1>>>;", "k.cu", &why));
	ck_assert_ptr_nonnull(strstr(why, "not followed by the kernel's arguments"));
	free(why);
	ck_assert_ptr_null(rewrite_cuda("k<<<1, (1>>>();", "k.cu", &why));
	ck_assert_ptr_nonnull(strstr(why, "without its closing"));
	free(why);
	ck_assert_ptr_null(rewrite_cuda("<<<1, 1>>>();", "k.cu", &why));
	ck_assert_ptr_nonnull(strstr(why, "without a kernel name"));
	free(why);
}
END_TEST

START_TEST(test_rewrite_finds_inline_asm)
{
	char *at;

	ck_assert_ptr_null(rewrite_find_asm("/* asm(\"x\") */ int asmx; const char *s = \"asm\";"));
	at = rewrite_find_asm("int a;\n// asm\n__device__ int f() {\n"
			      "\tint l; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(l));\n}");
	ck_assert_str_eq(at, "4: int l; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(l));");
	free(at);
	at = rewrite_find_asm("x;\n  __asm__(\"nop\");");
	ck_assert_str_eq(at, "2: __asm__(\"nop\");");
	free(at);
}
END_TEST

Suite *rewrite_suite(void)
{
	Suite *s = suite_create("rewrite");
	TCase *tc = tcase_create("rewrite");

	tcase_add_test(tc, test_rewrite_launches);
	tcase_add_test(tc, test_rewrite_spaced_chevrons);
	tcase_add_test(tc, test_rewrite_dynamic_shared);
	tcase_add_test(tc, test_rewrite_file_scope_dynamic_shared);
	tcase_add_test(tc, test_rewrite_static_shared);
	tcase_add_test(tc, test_rewrite_refuses_what_it_cannot_follow);
	tcase_add_test(tc, test_rewrite_finds_inline_asm);
	suite_add_tcase(s, tc);
	return s;
}
