/*
 * devcache.c - the cache of the device's ceilings (devcache.h): its file
 * format, the checks an entry must pass to be used, and writing it whole.
 *
 * Must not: measure, or decide when to; those are timing.c's and grade.c's.
 */
#include "devcache.h"

#include "gpulock.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEVCACHE_FORMAT "cudalab-ceilings/1"
/* an entry this far ahead of the clock is the clock's fault, not a measurement's */
#define CLOCK_SLACK 60

char *devcache_path(const char *uuid, const char *lab)
{
	char *what = xasprintf("ceilings-%s", lab);
	char *path = gpulock_path(uuid, what);
	free(what);
	return path;
}

void device_ceilings_release(struct device_ceilings *c)
{
	free(c->ceiling_name);
	free(c->ceilings);
	free(c->ceiling_note);
	memset(c, 0, sizeof(*c));
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Whether two texts of a key are the same (NULL is never the same). */
static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* The file at path, when this user owns it and no one else may write it; NULL with why. */
static char *read_own_file(const char *path, char **why)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	ssize_t n;

	if (fd < 0) {
		*why = errno == ENOENT ? xstrdup("no entry for this GPU yet")
				       : xasprintf("cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	/* another user's file, or one others may write, could say anything */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		*why = xasprintf("'%s' is not a file of this user's that only it may write: not "
				 "trusted", path);
		close(fd);
		return NULL;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0 && sb.len < (1 << 20))
		strbuf_add(&sb, buf, (size_t)n);
	close(fd);
	if (n < 0) {
		*why = xasprintf("cannot read '%s': %s", path, strerror(errno));
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

/* Why entry o does not match key at now, or NULL when it does. */
static char *mismatch(json_t *o, const struct devcache_key *key, time_t now)
{
	double clock = num(o, "clock_mhz"), at = num(o, "measured_at");

	if (!same(str(o, "format"), DEVCACHE_FORMAT))
		return xstrdup("the cache file is not in the format this grader writes");
	if (!same(str(o, "uuid"), key->uuid))
		return xstrdup("the entry is of another GPU");
	if (!same(str(o, "driver"), key->driver))
		return xasprintf("the entry is of driver %s, the GPU now has %s",
				 str(o, "driver") ? str(o, "driver") : "?", key->driver);
	if (!(fabs(clock - key->clock_mhz) < 0.5))
		return xasprintf("the entry is of an SM clock of %g MHz, the GPU's is now %g MHz",
				 clock, key->clock_mhz);
	if (!same(str(o, "lab"), key->lab) || !same(str(o, "lab_version"), key->lab_version))
		return xasprintf("the entry is of lab %s version %s",
				 str(o, "lab") ? str(o, "lab") : "?",
				 str(o, "lab_version") ? str(o, "lab_version") : "?");
	if (!isfinite(at) || at > (double)now + CLOCK_SLACK)
		return xstrdup("the entry's time is later than now");
	if ((double)now - at > DEVCACHE_MAX_AGE)
		return xasprintf("the entry is %.0f s old, and is used for %d s at most",
				 (double)now - at, DEVCACHE_MAX_AGE);
	if (!(num(o, "copy_gbs") > 0))
		return xstrdup("the entry has no copy bandwidth");
	return NULL;
}

int devcache_read(const char *path, const struct devcache_key *key, time_t now,
		  struct device_ceilings *c, char **why)
{
	char *text;
	json_t *o;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	*why = NULL;
	text = read_own_file(path, why);
	o = text ? json_loads(text, JSON_REJECT_DUPLICATES, NULL) : NULL;
	if (text && !json_is_object(o))
		*why = xasprintf("'%s' is not a cache file (not JSON)", path);
	else if (text)
		*why = mismatch(o, key, now);
	if (!text || *why)
		goto out;

	json_t *list = json_object_get(o, "ceilings"), *e;
	size_t i;
	c->copy_gbs = num(o, "copy_gbs");
	c->measured_at = (time_t)num(o, "measured_at");
	c->ceiling_name = str(o, "ceiling_name") ? xstrdup(str(o, "ceiling_name")) : NULL;
	c->ceiling_note = str(o, "ceiling_note") ? xstrdup(str(o, "ceiling_note")) : NULL;
	c->ceilings = xcalloc(json_array_size(list) + 1, sizeof(*c->ceilings));
	json_array_foreach(list, i, e) {
		double size = num(e, "size");
		if (!(size >= 1 && size <= 1e9))
			continue;
		c->ceilings[c->nceilings++] = (struct ceiling){
			.size = (int)size, .ms = num(e, "ms"), .gflops = num(e, "gflops")};
	}
	ret = 0;
out:
	json_decref(o);
	free(text);
	return ret;
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

int devcache_write(const char *path, const struct devcache_key *key,
		   const struct device_ceilings *c, char **why)
{
	json_t *list = json_array();
	char *tmp = xasprintf("%s.XXXXXX", path), *text = NULL;
	int fd = -1, ret = -1;

	*why = NULL;
	for (size_t i = 0; i < c->nceilings; i++) {
		const struct ceiling *e = &c->ceilings[i];
		json_array_append_new(list, json_pack("{s:i, s:o, s:o}", "size", e->size, "ms",
						      num_or_null(e->ms), "gflops",
						      num_or_null(e->gflops)));
	}
	json_t *o = json_pack("{s:s, s:s, s:f, s:s, s:s, s:s, s:I, s:f, s:o, s:o, s:o}", "format",
			      DEVCACHE_FORMAT, "uuid", key->uuid, "clock_mhz", key->clock_mhz,
			      "driver", key->driver, "lab", key->lab, "lab_version",
			      key->lab_version, "measured_at", (json_int_t)c->measured_at,
			      "copy_gbs", c->copy_gbs, "ceiling_name", str_or_null(c->ceiling_name),
			      "ceilings", list, "ceiling_note", str_or_null(c->ceiling_note));
	text = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!text) {
		*why = xstrdup("the entry could not be written as JSON");
		goto out;
	}
	/* a name no one else can have made, in the folder of the file it replaces */
	fd = mkstemp(tmp);
	if (fd < 0) {
		*why = xasprintf("cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	size_t len = strlen(text);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0) {
			*why = xasprintf("cannot write '%s': %s", tmp, strerror(errno));
			goto out_unlink;
		}
		off += (size_t)n;
	}
	/* readable by all, like the locks: whoever reads it still checks it is its own */
	if (fchmod(fd, 0644)) {
		*why = xasprintf("cannot write '%s': %s", tmp, strerror(errno));
		goto out_unlink;
	}
	int closed = close(fd);
	fd = -1;
	if (closed) {
		*why = xasprintf("cannot write '%s': %s", tmp, strerror(errno));
		goto out_unlink;
	}
	if (rename(tmp, path)) {
		*why = xasprintf("cannot write '%s': %s", path, strerror(errno));
		goto out_unlink;
	}
	ret = 0;
	goto out;
out_unlink:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out:
	free(text);
	free(tmp);
	return ret;
}
