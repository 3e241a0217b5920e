/* Unit tests of run.c: exit codes, timeouts, output caps, stray processes. */
#include "gpulock.h"
#include "pidcg.h"
#include "run.h"
#include "sandbox.h"
#include "unit.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether a process is gone (or a zombie nobody reaped yet: dead all the same). */
static bool gone(int pid)
{
	char path[64], *stat;
	bool dead;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	report_quiet = true;
	stat = read_file(path, NULL);
	report_quiet = false;
	dead = !stat || strstr(stat, ") Z ") || strstr(stat, ") X ");
	free(stat);
	return dead;
}

static int sh(const char *script, double timeout, size_t limit, struct run_result *r)
{
	const char *argv[] = {"/bin/sh", "-c", script, NULL};
	struct run_spec spec = {.argv = argv, .timeout = timeout, .output_limit = limit,
				.input = "seed=7\n"};
	return run_one(&spec, r);
}

START_TEST(test_run_exit_status_output_and_input)
{
	struct run_result r;

	ck_assert_int_eq(sh("read x; echo \"out $x\"; echo err >&2; exit 3", 10, 0, &r), 0);
	ck_assert(r.started);
	ck_assert_int_eq(r.exit_code, 3);
	ck_assert_int_eq(r.signal, 0);
	ck_assert(!r.timed_out);
	ck_assert_ptr_nonnull(strstr(r.output, "out seed=7"));
	ck_assert_ptr_nonnull(strstr(r.output, "err"));
	run_result_release(&r);

	ck_assert_int_eq(sh("kill -SEGV $$", 10, 0, &r), 0);
	ck_assert_int_eq(r.signal, SIGSEGV);
	run_result_release(&r);
}
END_TEST

START_TEST(test_run_cannot_start)
{
	const char *argv[] = {"/no/such/program", NULL};
	struct run_spec spec = {.argv = argv};
	struct run_result r;

	ck_assert_int_eq(run_one(&spec, &r), 0);
	ck_assert(!r.started);
	ck_assert_ptr_nonnull(strstr(r.output, "cannot run '/no/such/program'"));
	run_result_release(&r);
}
END_TEST

START_TEST(test_run_caps_output)
{
	struct run_result r;

	ck_assert_int_eq(sh("head -c 1000000 /dev/zero | tr '\\0' x", 30, 1000, &r), 0);
	ck_assert_uint_eq(r.output_len, 1000);
	ck_assert_uint_eq(r.output_dropped, 999000);
	ck_assert_int_eq(r.exit_code, 0);
	run_result_release(&r);
}
END_TEST

/*
 * A hung child is killed at its deadline with everything it started, even a
 * grandchild in a process group of its own that holds the output pipe (as
 * Check's forked tests do).
 */
START_TEST(test_run_timeout_kills_the_session)
{
	struct run_result r;
	char *pidfile = xasprintf("%s/cudalab-run-test.%d", P_tmpdir, (int)getpid());
	char *script = xasprintf("setsid -f sh -c 'echo $$ > %s; exec sleep 300'; sleep 300", pidfile);
	double t0 = now_seconds();
	char *text;
	int pid;

	ck_assert_int_eq(sh(script, 0.5, 0, &r), 0);
	ck_assert(r.timed_out);
	ck_assert_int_eq(r.signal, SIGKILL);
	ck_assert(now_seconds() - t0 < 5);
	run_result_release(&r);
	free(script);

	/* setsid -f made a new session, out of reach of the session rule (the
	 * sandbox's PID namespace catches it): the run still ends, and so does
	 * the wait for its output */
	text = read_file(pidfile, NULL);
	if (text) {
		pid = atoi(text);
		if (pid > 0)
			kill(pid, SIGKILL);
		free(text);
	}
	unlink(pidfile);

	script = xasprintf("sh -c 'echo $$ > %s; trap \"\" HUP; exec sleep 300' & sleep 300", pidfile);
	ck_assert_int_eq(sh(script, 0.5, 0, &r), 0);
	ck_assert(r.timed_out);
	run_result_release(&r);
	text = read_file(pidfile, NULL);
	ck_assert_ptr_nonnull(text);
	pid = atoi(text);
	ck_assert_int_gt(pid, 1);
	usleep(100000);
	ck_assert_msg(gone(pid), "grandchild %d survived the timeout", pid);
	free(text);
	unlink(pidfile);
	free(script);
	free(pidfile);
}
END_TEST

/* The process whose pid a script wrote to pidfile is gone (why: when not); removes pidfile. */
static void assert_gone(const char *pidfile, const char *why)
{
	char *text = read_file(pidfile, NULL);
	ck_assert_ptr_nonnull(text);
	usleep(100000);
	ck_assert_msg(gone(atoi(text)), "%s", why);
	free(text);
	unlink(pidfile);
}

START_TEST(test_run_kills_leftovers_after_exit)
{
	struct run_result r;
	char *pidfile = xasprintf("%s/cudalab-run-left.%d", P_tmpdir, (int)getpid());
	char *script = xasprintf("sh -c 'echo $$ > %s; exec sleep 300' >/dev/null 2>&1 & "
				 "sleep 0.2; exit 0", pidfile);

	ck_assert_int_eq(sh(script, 10, 0, &r), 0);
	ck_assert(!r.timed_out);
	ck_assert_int_eq(r.exit_code, 0);
	run_result_release(&r);
	assert_gone(pidfile, "a background process outlived its parent");
	free(script);
	free(pidfile);
}
END_TEST

/*
 * With a process limit, a child that forks past it is refused, root or not,
 * and a process that left its session (setsid) is still found and killed.
 */
START_TEST(test_run_process_limit)
{
	const char *why;
	if (!pidcg_available(&why)) {
		fprintf(stderr, "test_run_process_limit: skipped: %s\n", why);
		return;
	}
	char *pidfile = xasprintf("%s/cudalab-run-cg.%d", P_tmpdir, (int)getpid());
	char *script = xasprintf("setsid sh -c 'echo $$ > %s; exec sleep 300' >/dev/null 2>&1 & "
				 "sleep 0.2; i=0; while [ $i -lt 40 ]; do sleep 30 & i=$((i+1)); done; "
				 "sleep 0.2; echo started", pidfile);
	const char *argv[] = {"/bin/sh", "-c", script, NULL};
	struct run_spec spec = {.argv = argv, .timeout = 10, .max_processes = 16};
	struct run_result r;

	ck_assert_int_eq(run_one(&spec, &r), 0);
	ck_assert_msg(strstr(r.output, "fork") || strstr(r.output, "Resource"),
		      "40 children under a limit of 16, and no fork failed: %s", r.output);
	run_result_release(&r);
	assert_gone(pidfile, "a process that left the session outlived the run");
	free(script);
	free(pidfile);
}
END_TEST

/* Whether a child taking the lock (timing, or a slot of one) gets it within a second. */
static bool child_gets(bool timing)
{
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGALRM, SIG_DFL);   /* blocked a second: it did not get it */
		alarm(1);
		int fd = timing ? gpulock_timing("u", NULL) : gpulock_slot("u", 1, NULL);
		_exit(fd >= 0 ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Tests share a GPU; a timing phase has it alone; slots are counted. */
START_TEST(test_gpulock_shares_and_excludes)
{
	char *dir = unit_tmpdir();
	setenv("CUDALAB_LOCK_DIR", dir, 1);
	int a = gpulock_tests("u", NULL), b = gpulock_tests("u", NULL);
	ck_assert(a >= 0 && b >= 0);   /* two gradings' tests at once */
	ck_assert_msg(!child_gets(true), "a timing phase began beside running tests");
	gpulock_release(a);
	gpulock_release(b);
	ck_assert_msg(child_gets(true), "the GPU was not free for timing once the tests ended");

	int slot = gpulock_slot("u", 1, NULL);
	ck_assert(slot >= 0);
	ck_assert_msg(!child_gets(false), "a second grading took the GPU's only slot");
	gpulock_release(slot);
	ck_assert(child_gets(false));

	/* of two slots, one held for good (a hanging submission's) and one held by a
	 * grading that ends: a waiting grading gets the one that frees */
	int held = gpulock_slot("u", 2, NULL), other;
	ck_assert(held >= 0);
	pid_t pid = fork();
	if (pid == 0) {
		other = gpulock_slot("u", 2, NULL);
		usleep(300 * 1000);
		_exit(other >= 0 ? 0 : 1);
	}
	usleep(100 * 1000);
	double t0 = now_seconds();
	other = gpulock_slot("u", 2, NULL);
	ck_assert(other >= 0);
	ck_assert_msg(now_seconds() - t0 < 2, "waited %.1f s for the slot that freed",
		      now_seconds() - t0);
	int st;
	waitpid(pid, &st, 0);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	gpulock_release(other);
	gpulock_release(held);

	/* the wait for a slot is counted (a grading's gpu_wait): a grading that
	 * waits a second behind another's slot adds about that second */
	int tell[2];
	ck_assert(!pipe(tell));
	held = gpulock_slot("u", 1, NULL);
	ck_assert(held >= 0);
	pid = fork();
	if (pid == 0) {
		double waited = 5, t1;
		close(held);   /* the parent's lock, shared by the copy of its fd */
		if (write(tell[1], "w", 1) != 1)
			_exit(1);
		t0 = now_seconds();
		other = gpulock_slot("u", 1, &waited);
		t1 = now_seconds();
		_exit(other >= 0 && waited >= 5.5 && waited - 5 <= t1 - t0 ? 0 : 1);
	}
	char c;
	ck_assert(read(tell[0], &c, 1) == 1);
	sleep(1);   /* the child is waiting, or about to */
	gpulock_release(held);
	waitpid(pid, &st, 0);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "a second's wait for a slot was not added to what was waited");
	close(tell[0]);
	close(tell[1]);
	unsetenv("CUDALAB_LOCK_DIR");
	remove_tree(dir);
	free(dir);
}
END_TEST

/* A stop (Ctrl-C, a TERM) ends a wait for the GPU: it is not kept waiting for the lock. */
START_TEST(test_gpulock_wait_ends_at_a_stop)
{
	char *dir = unit_tmpdir();
	setenv("CUDALAB_LOCK_DIR", dir, 1);
	int held = gpulock_tests("u", NULL), slot = gpulock_slot("u", 1, NULL);
	ck_assert(held >= 0 && slot >= 0);
	for (int timing = 0; timing < 2; timing++) {
		pid_t pid = fork();
		if (pid == 0) {
			run_stop_on(SIGALRM);   /* the stop comes while it waits */
			alarm(1);
			double t0 = now_seconds();
			int fd = timing ? gpulock_timing("u", NULL) : gpulock_slot("u", 1, NULL);
			_exit(fd < 0 && run_stopped() == SIGALRM && now_seconds() - t0 < 10 ? 0 : 1);
		}
		int st;
		waitpid(pid, &st, 0);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			      "the %s wait did not end at the stop (status %d)",
			      timing ? "timing" : "slot", st);
	}
	gpulock_release(slot);
	gpulock_release(held);
	unsetenv("CUDALAB_LOCK_DIR");
	remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(test_run_many_at_once)
{
	const char *a[] = {"/bin/sh", "-c", "sleep 0.3; echo a", NULL};
	const char *b[] = {"/bin/sh", "-c", "sleep 0.3; echo b; exit 5", NULL};
	struct run_spec specs[] = {{.argv = a, .timeout = 10}, {.argv = b, .timeout = 10}};
	struct run_result r[2];
	double t0 = now_seconds();

	ck_assert_int_eq(run_many(specs, r, 2), 0);
	ck_assert(now_seconds() - t0 < 0.55);   /* in parallel, not one after the other */
	ck_assert_str_eq(r[0].output, "a\n");
	ck_assert_int_eq(r[1].exit_code, 5);
	run_result_release(&r[0]);
	run_result_release(&r[1]);
}
END_TEST

/* The sandbox's options: only the work folder writable, nothing of $HOME
 * or the checkout, no network, no capability, the filter, no program. */
START_TEST(test_sandbox_command_line)
{
	struct sandbox sb = {.bwrap = xstrdup("/usr/bin/bwrap")};
	struct strlist out = STRLIST_INIT;
	int binds = 0, ro_labs = 0;

	sandbox_allow_read(&sb, "/srv/cudalab/labs/common/emu");
	sandbox_args(&sb, "/tmp/cudalab-grid-x", NULL, 7, &out);
	ck_assert(!strlist_has(&out, "/usr/bin/bwrap") && !strlist_has(&out, "--"));
	ck_assert_str_eq(out.v[out.n - 2], "--chdir");
	ck_assert_str_eq(out.v[out.n - 1], "/tmp/cudalab-grid-x");
	for (size_t i = 0; i + 2 < out.n; i++) {
		if (!strcmp(out.v[i], "--bind")) {
			binds++;
			ck_assert_str_eq(out.v[i + 1], "/tmp/cudalab-grid-x");
		}
		if (!strcmp(out.v[i], "--ro-bind") &&
		    !strcmp(out.v[i + 1], "/srv/cudalab/labs/common/emu"))
			ro_labs++;
		if (!strcmp(out.v[i], "--seccomp"))
			ck_assert_str_eq(out.v[i + 1], "7");
		if (!strcmp(out.v[i], "--cap-drop"))
			ck_assert_str_eq(out.v[i + 1], "ALL");
		ck_assert_msg(strcmp(out.v[i + 1], "/") && strcmp(out.v[i + 1], "/home") &&
				      strcmp(out.v[i + 1], "/root"),
			      "%s %s: the sandbox must not show the whole machine", out.v[i],
			      out.v[i + 1]);
	}
	ck_assert_int_eq(binds, 1);   /* the work folder is the only writable one */
	/* a private /tmp first, then what is bound into it (a checkout or work folder in /tmp) */
	size_t tmpfs = 0, last_bind = 0;
	for (size_t i = 0; i < out.n; i++) {
		if (!strcmp(out.v[i], "--tmpfs"))
			tmpfs = i;
		if (!strcmp(out.v[i], "--bind") || (!strcmp(out.v[i], "--ro-bind") &&
						    !strcmp(out.v[i + 1], "/srv/cudalab/labs/common/emu")))
			last_bind = i;
	}
	ck_assert(tmpfs > 0 && tmpfs < last_bind);
	ck_assert_int_eq(ro_labs, 1);
	ck_assert(strlist_has(&out, "--unshare-net") && strlist_has(&out, "--unshare-pid") &&
		  strlist_has(&out, "--die-with-parent") && strlist_has(&out, "--unshare-user") &&
		  strlist_has(&out, "--disable-userns") && strlist_has(&out, "--new-session") &&
		  strlist_has(&out, "--seccomp") && strlist_has(&out, "--cap-drop"));
	strlist_clear(&out);
	sandbox_release(&sb);
}
END_TEST

/*
 * What a program in the real sandbox can do, asked of the kernel: it holds
 * no capability, runs as an unprivileged user, with no_new_privs and the
 * filter; mounts, device nodes, namespaces, tracing and sysctls are refused;
 * bubblewrap's command line names no folder; the environment is what it was
 * given. Skipped, saying so, where bubblewrap cannot run.
 */
START_TEST(test_sandbox_contains)
{
	struct sandbox sb;
	struct run_result r;
	char dir[] = "/tmp/cudalab-unit-sb-XXXXXX";
	const char *env[] = {"PATH=/usr/bin:/bin", "CUDALAB_UNIT=1", NULL};
	const char *script =
		"grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status || echo CAPS;"
		"grep -q '^CapBnd:[[:space:]]*0*$' /proc/self/status || echo BOUNDING;"
		"grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status || echo NNP;"
		"grep -q '^Seccomp:[[:space:]]*2' /proc/self/status || echo NOFILTER;"
		"[ \"$(id -u)\" != 0 ] || echo ROOT;"
		"mount -t tmpfs none /tmp 2>/dev/null && echo MOUNTED;"
		"mknod /tmp/disk b 8 0 2>/dev/null && echo MKNOD;"
		"unshare -U true 2>/dev/null && echo UNSHARED;"
		"unshare -m true 2>/dev/null && echo UNSHARED_MNT;"
		"echo x 2>/dev/null > /proc/sys/kernel/core_pattern && echo SYSCTL;"
		"tr '\\0' ' ' < /proc/1/cmdline | grep -q -- '--r[o]-bind' && echo CMDLINE;"
		"[ -e /etc/passwd ] && echo PASSWD;"
		"[ \"$(env | sort | tr '\\n' ' ')\" = \"CUDALAB_UNIT=1 PATH=/usr/bin:/bin PWD=$PWD \" ] "
		"|| { echo ENV; env; };"
		"mkfifo fifo && echo FIFO_OK; echo done";
	const char *argv[] = {"/bin/sh", "-c", script, NULL};

	sandbox_init(&sb);
	if (!sb.bwrap) {
		printf("sandbox test skipped: %s\n", sb.why);
		sandbox_release(&sb);
		return;
	}
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sandbox_own(&sb, dir), 0);
	struct run_spec spec = {.argv = argv, .envp = env, .cwd = dir, .timeout = 30,
				.sandbox = &sb};
	ck_assert_int_eq(run_one(&spec, &r), 0);
	ck_assert(r.started);
	if (strstr(r.output, "bwrap:") && !strstr(r.output, "done")) {
		printf("sandbox test skipped: bubblewrap cannot run here: %s\n", r.output);
	} else {
		ck_assert_msg(!strcmp(r.output, "FIFO_OK\ndone\n"), "in the sandbox: %s", r.output);
		ck_assert_int_eq(r.exit_code, 0);
	}
	run_result_release(&r);
	remove_tree(dir);
	sandbox_release(&sb);
}
END_TEST

/*
 * A run's work folder in memory: the folder's files can be read and not
 * changed, new ones go to a tmpfs of work_bytes (a bigger one fails) and
 * are gone afterwards; the outputs it is given stay writable. Skipped,
 * saying so, where bubblewrap cannot run.
 */
START_TEST(test_sandbox_work_in_memory)
{
	struct sandbox sb;
	struct run_result r;
	char dir[] = "/tmp/cudalab-unit-wm-XXXXXX";
	const char *env[] = {"PATH=/usr/bin:/bin", NULL};
	const char *script =
		"cat given; echo y 2>/dev/null > given && echo WROTE_GIVEN;"
		"echo z > new && cat new;"
		"dd if=/dev/zero of=big bs=65536 count=64 2>/dev/null && echo BIG_FITS;"
		"echo out > out.txt; echo done";
	const char *argv[] = {"/bin/sh", "-c", script, NULL};

	sandbox_init(&sb);
	if (!sb.bwrap) {
		printf("sandbox test skipped: %s\n", sb.why);
		sandbox_release(&sb);
		return;
	}
	sb.work_bytes = 1 << 20;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(sandbox_own(&sb, dir), 0);
	char *given = xasprintf("%s/given", dir), *out = xasprintf("%s/out.txt", dir);
	char *made = xasprintf("%s/new", dir);
	ck_assert_int_eq(write_file_atomic(given, "x\n", 2), 0);
	ck_assert_int_eq(write_file_atomic(out, "", 0), 0);
	ck_assert_int_eq(sandbox_own(&sb, out), 0);
	const char *writable[] = {out, NULL};
	struct run_spec spec = {.argv = argv, .envp = env, .cwd = dir, .timeout = 30,
				.sandbox = &sb, .writable = writable};
	ck_assert_int_eq(run_one(&spec, &r), 0);
	ck_assert(r.started);
	if (strstr(r.output, "bwrap:") && !strstr(r.output, "done")) {
		printf("sandbox test skipped: bubblewrap cannot run here: %s\n", r.output);
	} else {
		ck_assert_msg(!strcmp(r.output, "x\nz\ndone\n"), "in the sandbox: %s", r.output);
		char *text = read_file(out, NULL), *kept = read_file(given, NULL);
		ck_assert_str_eq(text, "out\n");
		ck_assert_str_eq(kept, "x\n");
		ck_assert_int_ne(access(made, F_OK), 0);   /* what it made went with it */
		free(text);
		free(kept);
	}
	run_result_release(&r);
	remove_tree(dir);
	free(given);
	free(out);
	free(made);
	sandbox_release(&sb);
}
END_TEST

Suite *run_suite(void)
{
	Suite *s = suite_create("run");
	TCase *tc = tcase_create("run");

	/* the subreaper attribute is not inherited across fork: set it in each test */
	tcase_add_checked_fixture(tc, run_init, NULL);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_run_exit_status_output_and_input);
	tcase_add_test(tc, test_run_cannot_start);
	tcase_add_test(tc, test_run_caps_output);
	tcase_add_test(tc, test_run_timeout_kills_the_session);
	tcase_add_test(tc, test_run_kills_leftovers_after_exit);
	tcase_add_test(tc, test_run_process_limit);
	tcase_add_test(tc, test_run_many_at_once);
	tcase_add_test(tc, test_gpulock_shares_and_excludes);
	tcase_add_test(tc, test_gpulock_wait_ends_at_a_stop);
	tcase_add_test(tc, test_sandbox_command_line);
	tcase_add_test(tc, test_sandbox_contains);
	tcase_add_test(tc, test_sandbox_work_in_memory);
	suite_add_tcase(s, tc);
	return s;
}
