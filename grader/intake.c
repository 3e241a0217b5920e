/*
 * intake.c - copies a submission's files into the work directory.
 *
 * Owns: every check on what a student handed in before the compiler sees it.
 * Files are opened relative to the submission directory with O_NOFOLLOW and
 * checked on the open descriptor, so a file swapped for a link between the
 * check and the copy is still refused.
 */
#include "intake.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void sha256_hex(const void *data, size_t len, char out[65])
{
	struct sha256_ctx ctx;
	uint8_t digest[SHA256_DIGEST_SIZE];

	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	sha256_digest(&ctx, sizeof(digest), digest);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		sprintf(out + 2 * i, "%02x", digest[i]);
}

static void refuse(struct intake *in, const char *fmt, const char *name, size_t a, size_t b)
{
	if (in->refusal)
		return;
	in->accepted = false;
	in->refusal = xasprintf(fmt, name, a, b);
}

/* Reads at most max+1 bytes of fd: more than max means oversize. */
static char *read_capped(int fd, size_t max, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	ssize_t n;

	while (sb.len <= max && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			strbuf_release(&sb);
			return NULL;
		}
		strbuf_add(&sb, buf, n);
	}
	*len = sb.len;
	return strbuf_detach(&sb);
}

int intake_copy(const char *subdir, const struct strlist *files, size_t max_bytes,
		const char *workdir, struct intake *in)
{
	int dfd = open(subdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	memset(in, 0, sizeof(*in));
	if (dfd < 0)
		return error("cannot open submission folder '%s': %s", subdir, strerror(errno));
	in->accepted = true;
	in->files = xcalloc(files->n, sizeof(*in->files));

	for (size_t i = 0; i < files->n; i++) {
		const char *name = files->v[i];
		struct intake_file *f = &in->files[in->nfiles];
		struct stat st;
		size_t len;
		char *data, *dest;

		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				refuse(in, "missing file '%s': the submission must contain it", name, 0, 0);
			else
				refuse(in, "cannot read '%s'", name, 0, 0);
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			refuse(in, "'%s' is a symbolic link: submit the file itself", name, 0, 0);
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			refuse(in, "'%s' is not a regular file", name, 0, 0);
			continue;
		}
		int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			refuse(in, "'%s' changed while it was read, or cannot be read", name, 0, 0);
			if (fd >= 0)
				close(fd);
			continue;
		}
		data = read_capped(fd, max_bytes, &len);
		close(fd);
		if (!data) {
			refuse(in, "cannot read '%s'", name, 0, 0);
			continue;
		}
		if (len > max_bytes) {
			refuse(in, "'%s' is over the size limit (%zu bytes or more; the limit is %zu)",
			       name, len, max_bytes);
			free(data);
			continue;
		}
		f->name = xstrdup(name);
		f->size = len;
		sha256_hex(data, len, f->sha256);
		in->nfiles++;
		dest = xasprintf("%s/%s", workdir, name);
		int ret = write_file_atomic(dest, data, len);
		free(dest);
		free(data);
		if (ret) {
			close(dfd);
			return -1;
		}
	}
	close(dfd);
	return 0;
}

void intake_release(struct intake *in)
{
	for (size_t i = 0; i < in->nfiles; i++)
		free(in->files[i].name);
	free(in->files);
	free(in->refusal);
	memset(in, 0, sizeof(*in));
}
