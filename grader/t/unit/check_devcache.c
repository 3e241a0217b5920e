/*
 * Unit tests of devcache.c: an entry is read back as written, and only for
 * the GPU, clock, driver and lab version it was measured for, within the
 * hour, from a file of this user's that no one else may write.
 */
#include "devcache.h"
#include "unit.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define UUID "GPU-8f3a1c2d-5e6f-4a0b-9c1d-2e3f4a5b6c7d"
#define NOW ((time_t)1800000000)

static const struct devcache_key key = {
	.uuid = UUID, .clock_mhz = 1980, .driver = "580.65.06", .lab = "matmul",
	.lab_version = "3"};

/* An entry as the trusted driver measures one: two sizes, 10 minutes ago. */
static void measured(struct device_ceilings *c)
{
	memset(c, 0, sizeof(*c));
	c->copy_gbs = 3012.456789012345;
	c->ceiling_name = xstrdup("cuBLAS");
	c->nceilings = 2;
	c->ceilings = xcalloc(2, sizeof(*c->ceilings));
	c->ceilings[0] = (struct ceiling){.size = 1024, .ms = 0.125, .gflops = 17179.8};
	c->ceilings[1] = (struct ceiling){.size = 2048, .ms = 0.5, .gflops = NAN};
	c->measured_at = NOW - 600;
}

/* devcache_read of path with k at now: its why, or "" when it was read ("" freed by nobody). */
static char *why_not(const char *path, const struct devcache_key *k, time_t now)
{
	struct device_ceilings c;
	char *why = NULL;

	if (!devcache_read(path, k, now, &c, &why)) {
		device_ceilings_release(&c);
		ck_assert_ptr_null(why);
		return xstrdup("");
	}
	ck_assert_ptr_nonnull(why);
	return why;
}

static void assert_why(const char *path, const struct devcache_key *k, time_t now,
		       const char *want)
{
	char *why = why_not(path, k, now);
	ck_assert_msg(strstr(why, want), "expected '%s', got '%s'", want, why);
	free(why);
}

/* Files in dir whose names start with prefix. */
static int count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	int n = 0;

	ck_assert_ptr_nonnull(d);
	for (struct dirent *e; (e = readdir(d));)
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

START_TEST(test_devcache_reads_back_what_it_wrote)
{
	char *dir = unit_tmpdir();
	setenv("CUDALAB_LOCK_DIR", dir, 1);
	char *path = devcache_path(UUID, "matmul"), *why = NULL, *want;
	struct device_ceilings c, back;

	want = xasprintf("%s/cudalab-gpu-" UUID ".ceilings-matmul", dir);
	ck_assert_str_eq(path, want);
	assert_why(path, &key, NOW, "no entry for this GPU yet");
	measured(&c);
	ck_assert_int_eq(devcache_write(path, &key, &c, &why), 0);
	ck_assert_ptr_null(why);
	/* written whole and renamed: no temporary file is left */
	ck_assert_int_eq(count_files(dir, "cudalab-gpu-"), 1);
	ck_assert_int_eq(devcache_read(path, &key, NOW, &back, &why), 0);
	ck_assert_double_eq(back.copy_gbs, c.copy_gbs);   /* exactly: the floor is from it */
	ck_assert_int_eq(back.measured_at, c.measured_at);
	ck_assert_str_eq(back.ceiling_name, "cuBLAS");
	ck_assert_ptr_null(back.ceiling_note);
	ck_assert_uint_eq(back.nceilings, 2);
	ck_assert_int_eq(back.ceilings[1].size, 2048);
	ck_assert_double_eq(back.ceilings[0].ms, 0.125);
	ck_assert_double_eq(back.ceilings[0].gflops, 17179.8);
	ck_assert(isnan(back.ceilings[1].gflops));
	device_ceilings_release(&back);

	/* measured again: the new entry replaces the old */
	c.copy_gbs = 2999;
	c.measured_at = NOW;
	ck_assert_int_eq(devcache_write(path, &key, &c, &why), 0);
	ck_assert_int_eq(devcache_read(path, &key, NOW, &back, &why), 0);
	ck_assert_double_eq(back.copy_gbs, 2999);
	device_ceilings_release(&back);
	ck_assert_int_eq(count_files(dir, "cudalab-gpu-"), 1);

	/* a folder that is not there: not written, and why */
	char *nowhere = xasprintf("%s/none/x.ceilings-matmul", dir);
	ck_assert_int_eq(devcache_write(nowhere, &key, &c, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "cannot create"));
	free(why);
	free(nowhere);

	device_ceilings_release(&c);
	unsetenv("CUDALAB_LOCK_DIR");
	remove_tree(dir);
	free(want);
	free(path);
	free(dir);
}
END_TEST

/* Another GPU, clock, driver or lab version, or an hour gone: measured again. */
START_TEST(test_devcache_key_and_age)
{
	char *dir = unit_tmpdir(), *path = xasprintf("%s/entry", dir), *why = NULL;
	struct device_ceilings c;
	struct devcache_key k;

	measured(&c);
	ck_assert_int_eq(devcache_write(path, &key, &c, &why), 0);
	free(why_not(path, &key, NOW));

	k = key;
	k.uuid = "GPU-00000000-5e6f-4a0b-9c1d-2e3f4a5b6c7d";
	assert_why(path, &k, NOW, "the entry is of another GPU");
	k = key;
	k.driver = "580.82.07";
	assert_why(path, &k, NOW, "the entry is of driver 580.65.06, the GPU now has 580.82.07");
	k = key;
	k.clock_mhz = 1755;
	assert_why(path, &k, NOW, "SM clock of 1980 MHz, the GPU's is now 1755 MHz");
	k = key;
	k.lab_version = "4";
	assert_why(path, &k, NOW, "the entry is of lab matmul version 3");
	k = key;
	k.lab = "coalescing";
	assert_why(path, &k, NOW, "the entry is of lab matmul");

	/* measured at NOW - 600: good up to an hour after, not a second more */
	free(why_not(path, &key, NOW - 600 + DEVCACHE_MAX_AGE));
	assert_why(path, &key, NOW - 600 + DEVCACHE_MAX_AGE + 1,
		   "the entry is 3601 s old, and is used for 3600 s at most");
	assert_why(path, &key, NOW - 3600, "later than now");

	device_ceilings_release(&c);
	remove_tree(dir);
	free(path);
	free(dir);
}
END_TEST

/* Only a file of this user's that no one else may write: another could say anything. */
START_TEST(test_devcache_trusts_only_its_own_file)
{
	char *dir = unit_tmpdir(), *path = xasprintf("%s/entry", dir), *why = NULL;
	char *link = xasprintf("%s/link", dir);
	struct device_ceilings c;

	measured(&c);
	ck_assert_int_eq(devcache_write(path, &key, &c, &why), 0);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0644);

	ck_assert_int_eq(chmod(path, 0664), 0);
	assert_why(path, &key, NOW, "not trusted");
	ck_assert_int_eq(chmod(path, 0646), 0);
	assert_why(path, &key, NOW, "not trusted");
	ck_assert_int_eq(chmod(path, 0644), 0);
	free(why_not(path, &key, NOW));

	/* a link is not followed, to anywhere */
	ck_assert_int_eq(symlink(path, link), 0);
	assert_why(link, &key, NOW, "cannot read");

	/* not one this grader wrote */
	static const char *const bad[] = {"not json", "[1]", "{\"format\": \"other\"}"};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_int_eq(write_file_atomic(path, bad[i], strlen(bad[i])), 0);
		ck_assert_int_eq(chmod(path, 0644), 0);
		char *w = why_not(path, &key, NOW);
		ck_assert_msg(strstr(w, "not a cache file") || strstr(w, "not in the format"),
			      "%s: %s", bad[i], w);
		free(w);
	}

	device_ceilings_release(&c);
	remove_tree(dir);
	free(link);
	free(path);
	free(dir);
}
END_TEST

Suite *devcache_suite(void)
{
	Suite *s = suite_create("devcache");
	TCase *tc = tcase_create("devcache");

	tcase_add_test(tc, test_devcache_reads_back_what_it_wrote);
	tcase_add_test(tc, test_devcache_key_and_age);
	tcase_add_test(tc, test_devcache_trusts_only_its_own_file);
	suite_add_tcase(s, tc);
	return s;
}
