/* Unit tests of includes.c: which files a submission's compilation may read. */
#include "includes.h"
#include "unit.h"

#include <check.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

/* What `g++ -E -v` prints around its search list (gcc 12). */
static const char gxx_v[] =
	"ignoring nonexistent directory \"/usr/local/include/x86_64-linux-gnu\"\n"
	"#include \"...\" search starts here:\n"
	" /quoted\n"
	"#include <...> search starts here:\n"
	" /work/labs/common/emu/include\n"
	" /usr/local/cuda-13.0/include\n"
	" /usr/include/c++/12\n"
	" /Library/Frameworks (framework directory)\n"
	" /usr/include\n"
	"End of search list.\n"
	" /not/a/dir\n";

START_TEST(test_includes_search_list)
{
	struct strlist dirs = STRLIST_INIT;

	includes_search_list(gxx_v, &dirs);
	ck_assert_uint_eq(dirs.n, 6);
	ck_assert_str_eq(dirs.v[0], "/quoted");
	ck_assert_str_eq(dirs.v[1], "/work/labs/common/emu/include");
	ck_assert_str_eq(dirs.v[4], "/Library/Frameworks");
	ck_assert_str_eq(dirs.v[5], "/usr/include");
	strlist_clear(&dirs);
}
END_TEST

static void mkdirs(const char *root, const char *const *dirs)
{
	for (; *dirs; dirs++) {
		char *p = xasprintf("%s/%s", root, *dirs);
		ck_assert_int_eq(mkdir(p, 0700), 0);
		free(p);
	}
}

static void put(const char *root, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", root, name);
	ck_assert_int_eq(write_file_atomic(p, text, strlen(text)), 0);
	free(p);
}

/* A folder of the search list is the system's unless it holds or lies in the course's. */
START_TEST(test_includes_system_dirs)
{
	static const char *const dirs[] = {"course", "course/labs", "course/labs/grid",
					   "course/labs/grid/tests", "course/emu", "sys", "work",
					   NULL};
	char *root = unit_tmpdir(), real[PATH_MAX];
	struct strlist search = STRLIST_INIT, priv = STRLIST_INIT, roots = STRLIST_INIT,
		       out = STRLIST_INIT;

	mkdirs(root, dirs);
	ck_assert_ptr_nonnull(realpath(root, real));
	strlist_pushf(&search, "%s/sys", root);               /* the system's */
	strlist_pushf(&search, "%s/course/emu", root);        /* the emulator's, in the checkout */
	strlist_pushf(&search, "%s/course/labs/grid/tests", root);   /* inside the lab */
	strlist_pushf(&search, "%s/course/labs/../labs", root);      /* holds the lab */
	strlist_pushf(&search, "%s", root);                   /* holds the checkout */
	strlist_pushf(&search, "%s/work", root);              /* the work folder */
	strlist_pushf(&search, "%s/nothing", root);           /* not there */
	strlist_pushf(&priv, "%s/course/labs/grid", root);
	strlist_pushf(&priv, "%s/work", root);
	strlist_pushf(&roots, "%s/course", root);
	includes_system_dirs(&search, &priv, &roots, &out);
	ck_assert_uint_eq(out.n, 2);
	char *want = xasprintf("%s/sys", real);
	ck_assert_str_eq(out.v[0], want);
	free(want);
	want = xasprintf("%s/course/emu", real);
	ck_assert_str_eq(out.v[1], want);
	free(want);
	strlist_clear(&search);
	strlist_clear(&priv);
	strlist_clear(&roots);
	strlist_clear(&out);
	remove_tree(root);
	free(root);
}
END_TEST

static void add(struct scan_includes *inc, const char *file, const char *site, size_t line,
		bool direct)
{
	if (inc->n == inc->alloc) {
		inc->alloc = inc->alloc ? 2 * inc->alloc : 8;
		inc->v = xrealloc(inc->v, inc->alloc * sizeof(*inc->v));
	}
	inc->v[inc->n++] = (struct scan_include){xstrdup(file), site ? xstrdup(site) : NULL, line,
						 direct};
}

/*
 * By the file's real path: the submission's own, the lab's header, the
 * system's; anything else is refused with the #include that led there.
 */
START_TEST(test_includes_judge)
{
	static const char *const dirs[] = {"course", "course/labs", "course/labs/grid",
					   "course/labs/grid/tests", "course/labs/grid/tests/hidden",
					   "sys", "work", NULL};
	char *root = unit_tmpdir(), real[PATH_MAX];
	struct strlist files = STRLIST_INIT, own = STRLIST_INIT, headers = STRLIST_INIT,
		       system = STRLIST_INIT, problems = STRLIST_INIT;
	struct scan_includes inc = {0};

	mkdirs(root, dirs);
	ck_assert_ptr_nonnull(realpath(root, real));
	put(root, "work/grid.cu", "#include <stdio.h>\n#include \"grid.h\"\n"
				  "  /* x */ #  include \\\n\"tests/hidden/key.h\"\n"
				  "int x;\n#define K \"/etc/k\"\n#include K\n");
	put(root, "course/labs/grid/grid.h", "");
	put(root, "course/labs/grid/tests/hidden/key.h", "");
	put(root, "course/labs/grid/tests/occ.h", "");
	put(root, "sys/stdio.h", "");
	strlist_push(&files, "grid.cu");
	strlist_pushf(&own, "%s/work/grid.cu", real);
	strlist_pushf(&headers, "%s/course/labs/grid/grid.h", real);
	strlist_pushf(&system, "%s/sys", real);
	char *work = xasprintf("%s/work", root), *course = xasprintf("%s/course", root);
	struct include_rules rules = {work, &files, &own, &headers, "grid.h", &system, course};

	char *p = xasprintf("%s/sys/stdio.h", root);
	add(&inc, p, "grid.cu", 1, true);
	free(p);
	p = xasprintf("%s/course/labs/grid/grid.h", root);
	add(&inc, p, "grid.cu", 2, true);
	free(p);
	p = xasprintf("%s/course/labs/grid/tests/hidden/key.h", root);
	add(&inc, p, "grid.cu", 3, true);
	free(p);
	p = xasprintf("%s/course/labs/grid/tests/hidden/../occ.h", root);   /* what key.h includes */
	add(&inc, p, "grid.cu", 3, false);
	free(p);
	add(&inc, "/no/such/k", "grid.cu", 7, true);
	p = xasprintf("%s/sys/../course/labs/grid/tests/occ.h", root);     /* up from a system folder */
	add(&inc, p, "grid.cu", 1, true);
	free(p);
	add(&inc, "grid.cu", "grid.cu", 5, true);    /* entered where no #include is */
	add(&inc, "grid.cu", NULL, 0, false);        /* the command line's: its own file */

	includes_judge(&inc, &rules, &problems);
	ck_assert_uint_eq(problems.n, 4);
	ck_assert_str_eq(problems.v[0], "grid.cu:3: /* x */ #  include \"tests/hidden/key.h\" reads "
					"the course's 'labs/grid/tests/hidden/key.h', which a "
					"submission may not include: only its own files, the lab's "
					"header grid.h, and the headers of the system and the CUDA "
					"Toolkit");
	ck_assert_ptr_nonnull(strstr(problems.v[1], "grid.cu:7: #include K reads '/no/such/k' "
						    "(no such file here)"));
	ck_assert_ptr_nonnull(strstr(problems.v[2], "grid.cu:1: #include <stdio.h> reads the "
						    "course's 'labs/grid/tests/occ.h'"));
	ck_assert_str_eq(problems.v[3], "grid.cu:5: a line marker of the submission's own (it names "
					"'grid.cu' as entered here, where no #include is): "
					"submissions may not write line markers");

	scan_includes_release(&inc);
	strlist_clear(&files);
	strlist_clear(&own);
	strlist_clear(&headers);
	strlist_clear(&system);
	strlist_clear(&problems);
	free(work);
	free(course);
	remove_tree(root);
	free(root);
}
END_TEST

START_TEST(test_includes_directive)
{
	ck_assert(includes_is_directive("#include <stdio.h>"));
	ck_assert(includes_is_directive("  # include_next \"x\""));
	ck_assert(includes_is_directive("/* a */ %: /* b */ import <x>"));
	ck_assert(includes_is_directive("#include MACRO"));
	ck_assert(!includes_is_directive("# 1 \"/usr/include/stdio.h\" 1 3"));
	ck_assert(!includes_is_directive("#line 3 \"x\""));
	ck_assert(!includes_is_directive("#includes"));
	ck_assert(!includes_is_directive("int include;"));
}
END_TEST

Suite *includes_suite(void)
{
	Suite *s = suite_create("includes");
	TCase *tc = tcase_create("includes");

	tcase_add_test(tc, test_includes_search_list);
	tcase_add_test(tc, test_includes_system_dirs);
	tcase_add_test(tc, test_includes_judge);
	tcase_add_test(tc, test_includes_directive);
	suite_add_tcase(s, tc);
	return s;
}
