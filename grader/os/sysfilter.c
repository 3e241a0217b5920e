/*
 * sysfilter.c - the system-call filter of the sandbox (seccomp.h), built with
 * libseccomp and handed to bubblewrap, which loads it last, just before it
 * runs the sandboxed program.
 *
 * Owns: the list of calls a program that compiles or runs a submission never
 * needs. Everything else is allowed: a deny list, not an allow list, because
 * the CUDA driver, nvcc's tools, compute-sanitizer and Nsight Compute make
 * system calls no list of ours could keep up with (ioctls on the driver's
 * device files, memory mappings, threads). What is denied is what turns a
 * sandboxed program into more than itself: mounts and namespaces, device
 * nodes, tracing and reading other processes, the kernel's keyring, BPF,
 * performance counters, loading code into the kernel, rebooting it, and
 * leaving the CPUs the grader gave it.
 *
 * Must not: run anything, or decide whether the sandbox is used (sandbox.c
 * and grading.c do).
 */
#include "sysfilter.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Denied outright, with EPERM (a program that asks is told no, and can say so). */
static const char *const denied[] = {
	/* mounts and the filesystem tree */
	"mount", "umount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
	"fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	/* namespaces: entering or making new ones */
	"unshare", "setns",
	/* other processes' memory and registers */
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
	/* the kernel's keyring */
	"keyctl", "add_key", "request_key",
	/* in-kernel programs, counters and tracing */
	"bpf", "perf_event_open", "userfaultfd", "lookup_dcookie", "fanotify_init",
	/* code into the kernel, a new kernel, the machine's state */
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"reboot", "swapon", "swapoff", "acct", "syslog", "vhangup", "quotactl",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname",
	"setdomainname", "iopl", "ioperm", "open_by_handle_at", "name_to_handle_at",
	/* an asynchronous path past every rule here (io_uring runs its own calls) */
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	/*
	 * the CPUs it may run on: it starts on the ones its grading was given
	 * (cpus.h), and widening them would put it on the CPUs a neighbour's
	 * timing keeps to itself
	 */
	"sched_setaffinity",
};

/* The clone flags that make namespaces (unshare's, through clone). */
#define NEW_NAMESPACES (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | \
			CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP)

static int deny(scmp_filter_ctx ctx, const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	/* a call this kernel's headers do not know: nothing to deny */
	if (nr == __NR_SCMP_ERROR)
		return 0;
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
}

static int add_rules(scmp_filter_ctx ctx)
{
	int rc = 0;

	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]) && !rc; i++)
		rc = deny(ctx, denied[i]);
	/* device nodes: mknod of a character or block device (FIFOs and sockets stay) */
	for (int type = 0; type < 2 && !rc; type++) {
		unsigned fmt = type ? S_IFBLK : S_IFCHR;
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mknod), 1,
				      SCMP_A1(SCMP_CMP_MASKED_EQ, S_IFMT, fmt));
		if (!rc)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mknodat), 1,
					      SCMP_A2(SCMP_CMP_MASKED_EQ, S_IFMT, fmt));
	}
	/* threads and processes, but no new namespaces: one rule a flag (a rule
	 * compares the masked flags for equality, so "any of them" is seven) */
	for (int bit = 0; bit < 64 && !rc; bit++) {
		unsigned long flag = 1ul << bit;
		if (NEW_NAMESPACES & flag)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
					      SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
	}
	/*
	 * clone3 takes its flags in memory, where a filter cannot look: "not
	 * implemented" makes the C library fall back to clone, checked above.
	 */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	/* typing into the terminal of whoever started the grader */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI));
	return rc;
}

/* The filter as BPF, made once (threads of a class share it). */
static char *blob;
static size_t blob_len;
static char *blob_error;

static void make_blob(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc, mfd = -1;

	/* system calls of another ABI (32-bit, x32) kill the program: none is filtered */
	if (!ctx) {
		blob_error = xstrdup("seccomp_init failed");
		return;
	}
	rc = add_rules(ctx);
	if (!rc && (mfd = memfd_create("cudalab-seccomp", MFD_CLOEXEC)) < 0)
		rc = -errno;
	if (!rc)
		rc = seccomp_export_bpf(ctx, mfd);
	seccomp_release(ctx);
	off_t len = rc ? 0 : lseek(mfd, 0, SEEK_END);
	if (len > 0) {
		blob = xmalloc((size_t)len);
		blob_len = pread(mfd, blob, len, 0) == len ? (size_t)len : 0;
	}
	if (mfd >= 0)
		close(mfd);
	if (!blob_len)
		blob_error = xstrdup(rc ? strerror(-rc) : "the filter could not be read back");
}

int seccomp_filter_fd(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int fd;

	pthread_once(&once, make_blob);
	if (!blob_len)
		return error("cannot make the sandbox's system-call filter: %s", blob_error);
	fd = memfd_create("cudalab-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return error("memfd_create: %s", strerror(errno));
	if (write(fd, blob, blob_len) != (ssize_t)blob_len || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return error("cannot write the sandbox's system-call filter: %s", strerror(errno));
	}
	return fd;
}
