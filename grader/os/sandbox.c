/*
 * sandbox.c - the bubblewrap command line (see sandbox.h). Runs nothing:
 * whether bubblewrap works here is tried by the grading (grading.c).
 *
 * The sandbox starts from an empty root and binds in only what a CUDA
 * program and the compilers need: /usr (and the /bin, /lib ... links into
 * it, or the folders themselves on a system without a merged /usr), /opt
 * and the folders of LD_LIBRARY_PATH read-only, the dynamic linker's
 * configuration, /sys read-only, a fresh /proc and /dev with the NVIDIA
 * device nodes added, a private /tmp, and the work folder: writable for
 * the compilers, and for the submission's programs a tmpfs of a fixed size
 * with the folder's files read-only in it.
 *
 * Who runs there: always a user namespace of its own (--unshare-user), with
 * no capability in it, no way to make another (--disable-userns), and
 * bubblewrap's no_new_privs. A grader running as root first becomes an
 * unprivileged user (run.c, before it starts bubblewrap): root inside a user
 * namespace would still be root to every file the sandbox can see.
 */
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The top-level system folders, bound or linked as they are on the host. */
static const char *const system_dirs[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
					  "/libx32", "/opt"};
/* Files of /etc that dynamic linking and the compilers read. */
static const char *const etc_files[] = {"/etc/ld.so.cache", "/etc/ld.so.conf",
					"/etc/ld.so.conf.d", "/etc/alternatives"};

static void push2(struct strlist *l, const char *a, const char *b)
{
	strlist_push(l, a);
	strlist_push(l, b);
}

static void push3(struct strlist *l, const char *a, const char *b, const char *c)
{
	strlist_push(l, a);
	strlist_push(l, b);
	strlist_push(l, c);
}

/*
 * The work folder of a run: a tmpfs of sb->work_bytes, each entry of the
 * folder bound read-only into it, and the files of writable bound over them.
 * A submission's program that writes a gigabyte there (a disk filled, a
 * class beside it starved) is stopped at the tmpfs's size, which the
 * memory cgroup's limit holds too; what it wrote goes with the sandbox.
 */
static void work_in_memory(const struct sandbox *sb, const char *workdir, struct strlist *out)
{
	strlist_push(out, "--size");
	strlist_pushf(out, "%zu", sb->work_bytes);
	push2(out, "--tmpfs", workdir);
	DIR *d = opendir(workdir);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = xasprintf("%s/%s", workdir, e->d_name);
		push3(out, "--ro-bind-try", p, p);
		free(p);
	}
	if (d)
		closedir(d);
}

/* The options for everything but argv, in bubblewrap's order: later mounts go on top. */
static void base_options(const struct sandbox *sb, const char *workdir,
			 const char *const *writable, int seccomp_fd, struct strlist *out)
{
	char target[4096];

	strlist_push(out, "--die-with-parent");
	strlist_push(out, "--new-session");
	strlist_push(out, "--unshare-user");
	strlist_push(out, "--disable-userns");
	push2(out, "--cap-drop", "ALL");
	strlist_push(out, "--seccomp");
	strlist_pushf(out, "%d", seccomp_fd);
	strlist_push(out, "--unshare-pid");
	strlist_push(out, "--unshare-net");
	strlist_push(out, "--unshare-ipc");
	strlist_push(out, "--unshare-uts");
	strlist_push(out, "--unshare-cgroup-try");
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++) {
		const char *d = system_dirs[i];
		ssize_t n = readlink(d, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			push3(out, "--symlink", target, d);
		} else if (!access(d, F_OK)) {
			push3(out, "--ro-bind", d, d);
		}
	}
	for (size_t i = 0; i < sizeof(etc_files) / sizeof(etc_files[0]); i++)
		push3(out, "--ro-bind-try", etc_files[i], etc_files[i]);
	/* libraries a deployment keeps elsewhere (a private prefix of Debian packages) */
	const char *ld = getenv("LD_LIBRARY_PATH");
	char *copy = xstrdup(ld ? ld : ""), *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
		if (d[0] == '/')
			push3(out, "--ro-bind-try", d, d);
	free(copy);
	push3(out, "--ro-bind-try", "/sys", "/sys");
	push2(out, "--proc", "/proc");
	push2(out, "--dev", "/dev");
	DIR *dev = opendir("/dev");
	for (struct dirent *e; dev && (e = readdir(dev));)
		if (!strncmp(e->d_name, "nvidia", 6)) {
			char *p = xasprintf("/dev/%s", e->d_name);
			push3(out, "--dev-bind-try", p, p);
			free(p);
		}
	if (dev)
		closedir(dev);
	/* the private /tmp first: the lab's folders and the work folder may be in /tmp */
	/* its /tmp is memory: held to the programs' memory limit, where there is one */
	if (sb->tmp_bytes) {
		strlist_push(out, "--size");
		strlist_pushf(out, "%zu", sb->tmp_bytes);
	}
	push2(out, "--tmpfs", "/tmp");
	for (size_t i = 0; i < sb->ro.n; i++)
		push3(out, "--ro-bind", sb->ro.v[i], sb->ro.v[i]);
	if (sb->work_bytes)
		work_in_memory(sb, workdir, out);
	else
		push3(out, "--bind", workdir, workdir);
	for (const char *const *w = writable; w && *w; w++)
		push3(out, "--bind", *w, *w);
	push2(out, "--chdir", workdir);
}

void sandbox_args(const struct sandbox *sb, const char *workdir, const char *const *writable,
		  int seccomp_fd, struct strlist *out)
{
	base_options(sb, workdir, writable, seccomp_fd, out);
}

int sandbox_own(const struct sandbox *sb, const char *path)
{
	if (!sb->drop)
		return 0;
	if (lchown(path, sb->uid, sb->gid) < 0)
		return error("cannot give '%s' to the sandbox's user %s: %s", path, sb->user,
			     strerror(errno));
	return 0;
}

char *sandbox_describe_user(const struct sandbox *sb)
{
	if (sb->drop)
		return xasprintf("user %s (%u), unprivileged", sb->user, (unsigned)sb->uid);
	if (!sb->bwrap)
		return NULL;
	return xasprintf("the grader's user %s (%u), in a user namespace", sb->user,
			 (unsigned)getuid());
}

/*
 * The user a root grader's sandbox runs as: CUDALAB_SANDBOX_USER, else a
 * dedicated cudalab-sandbox, else nobody. Never root, nor a user with root's
 * group.
 */
static int pick_user(struct sandbox *sb)
{
	const char *want = getenv("CUDALAB_SANDBOX_USER");
	const char *const names[] = {want && *want ? want : "cudalab-sandbox", "nobody"};
	struct passwd pwd, *pw = NULL;
	char buf[4096];

	/* getpwnam_r: a class grades in threads */
	for (size_t i = 0; i < (want && *want ? 1u : 2u) && !pw; i++)
		if (getpwnam_r(names[i], &pwd, buf, sizeof(buf), &pw))
			pw = NULL;
	if (!pw) {
		sb->why = want && *want ? xasprintf("CUDALAB_SANDBOX_USER names no user ('%s')", want)
					: xstrdup("the grader runs as root, and there is no user "
						  "'cudalab-sandbox' or 'nobody' to run the sandbox as");
		return -1;
	}
	if (pw->pw_uid == 0 || pw->pw_gid == 0) {
		sb->why = xasprintf("the sandbox's user '%s' is root or in root's group",
				    pw->pw_name);
		return -1;
	}
	sb->drop = true;
	sb->uid = pw->pw_uid;
	sb->gid = pw->pw_gid;
	sb->user = xstrdup(pw->pw_name);
	return 0;
}

void sandbox_allow_read(struct sandbox *sb, const char *path)
{
	strlist_push(&sb->ro, path);
}

void sandbox_init(struct sandbox *sb)
{
	memset(sb, 0, sizeof(*sb));
	/* a root grader's children are never root, sandbox or not */
	if (geteuid() == 0 && pick_user(sb))
		return;
	const char *off = getenv("CUDALAB_NO_SANDBOX");
	if (off && *off && strcmp(off, "0")) {
		sb->why = xstrdup("CUDALAB_NO_SANDBOX is set");
		sb->off = true;
		return;
	}
	if (!sb->drop) {
		struct passwd pwd, *pw = NULL;
		char buf[4096];
		if (getpwuid_r(getuid(), &pwd, buf, sizeof(buf), &pw))
			pw = NULL;
		sb->user = pw ? xstrdup(pw->pw_name) : xasprintf("%u", (unsigned)getuid());
	}
	sb->bwrap = path_lookup("bwrap");
	if (!sb->bwrap)
		sb->why = xstrdup("bubblewrap (bwrap) is not installed");
}

void sandbox_disable(struct sandbox *sb, char *why)
{
	free(sb->bwrap);
	free(sb->why);
	sb->bwrap = NULL;
	sb->why = why;
}

void sandbox_release(struct sandbox *sb)
{
	free(sb->bwrap);
	free(sb->why);
	free(sb->user);
	strlist_clear(&sb->ro);
	memset(sb, 0, sizeof(*sb));
}
