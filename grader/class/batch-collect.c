/*
 * batch-collect.c - what a class is made of (batch.h): the folders that
 * hold a submission of the lab, each named by its student, and the times
 * file that gives each its submission time.
 *
 * Owns: which folder is a submission and whose. Must not: grade, or read a
 * submission's files beyond their names.
 */
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------- submissions */

bool batch_holds_lab_file(const char *dir, const struct strlist *files)
{
	struct stat st;
	for (size_t i = 0; i < files->n; i++) {
		char *p = xasprintf("%s/%s", dir, files->v[i]);
		bool there = !lstat(p, &st);
		free(p);
		if (there)
			return true;
	}
	return false;
}

static void add_sub(struct batch_sub **subs, size_t *n, const char *dir, const char *student)
{
	*subs = xrealloc(*subs, (*n + 1) * sizeof(**subs));
	(*subs)[(*n)++] = (struct batch_sub){.dir = xstrdup(dir), .student = xstrdup(student)};
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* The last component of path, a real path ("/" has none: itself). */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/*
 * Adds dir as the submission of the student its path names: the folder's
 * name, but for a folder named after the lab, whose student is the folder
 * above it (clones/ada/matmul: a handout clone's lab folder is ada's).
 */
static void add_submission(struct batch_sub **subs, size_t *n, const char *dir, const char *lab)
{
	const char *base = base_name(dir);

	if (strcmp(base, lab) || base == dir) {
		add_sub(subs, n, dir, base);
		return;
	}
	char *parent = xstrndup(dir, base - dir - 1);
	add_sub(subs, n, dir, *parent ? base_name(parent) : base);
	free(parent);
}

/*
 * Where dir's submission is: dir itself when it holds one of the lab's
 * files; its <lab>/ folder when that does (a clone of the student
 * repository `make handout` makes); NULL for neither.
 */
char *batch_submission_in(const char *dir, const char *lab, const struct strlist *files)
{
	if (batch_holds_lab_file(dir, files))
		return xstrdup(dir);
	char *in = xasprintf("%s/%s", dir, lab);
	struct stat st;
	/* lstat: a link is not followed here, as no sub-folder of a class is */
	if (!lstat(in, &st) && S_ISDIR(st.st_mode) && batch_holds_lab_file(in, files))
		return in;
	free(in);
	return NULL;
}

int batch_collect(const char *lab, const struct strlist *files, char *const *dirs, size_t ndirs,
		  struct batch_sub **subs, size_t *nsubs)
{
	*subs = NULL;
	*nsubs = 0;
	for (size_t d = 0; d < ndirs; d++) {
		char real[PATH_MAX], *sub;
		struct stat st;
		if (folder_check("submission folder", dirs[d]))
			return -1;
		if (!realpath(dirs[d], real))
			return error("submission folder '%s': %s", dirs[d], strerror(errno));
		if (gsexport_is(real)) {   /* Gradescope's export: its metadata names whose */
			if (gsexport_collect(real, lab, files, subs, nsubs))
				return -1;
			continue;
		}
		if ((sub = batch_submission_in(real, lab, files))) {
			/* a clone's lab folder is the clone's student's, by add_submission */
			add_submission(subs, nsubs, sub, lab);
			free(sub);
			continue;
		}
		struct dirent **list;
		int n = scandir(real, &list, NULL, by_name);
		if (n < 0)
			return error("cannot list '%s': %s", real, strerror(errno));
		size_t before = *nsubs;
		for (int i = 0; i < n; i++) {
			char *p = xasprintf("%s/%s", real, list[i]->d_name);
			int seen = lstat(p, &st);
			/* no student's: a dot-folder, or the __MACOSX/ of a zip made on a Mac
			 * (its ._ files are Finder's attributes of the files beside it) */
			bool folder = list[i]->d_name[0] != '.' && !seen && S_ISDIR(st.st_mode) &&
				      strcmp(list[i]->d_name, "__MACOSX");
			/* what may be a student's folder and is not graded is said, with why */
			if (list[i]->d_name[0] != '.' && (seen || S_ISLNK(st.st_mode))) {
				char *name = visible_str(list[i]->d_name, true);
				warning("'%s' in '%s' is not graded: %s", name, real,
					seen ? strerror(errno)
					     : "it is a symbolic link, and a class's folders are "
					       "never followed (copy the folder in)");
				free(name);
			}
			if (folder) {
				/*
				 * a clone's work is in its <lab>/; a folder with
				 * neither is a submission that lacks its files, and
				 * its grading says so
				 */
				char *in = batch_submission_in(p, lab, files);
				add_sub(subs, nsubs, in ? in : p, list[i]->d_name);
				free(in);
			}
			free(p);
			free(list[i]);
		}
		free(list);
		if (*nsubs == before)   /* no folders either: a submission missing its files */
			add_submission(subs, nsubs, real, lab);
	}
	for (size_t i = 0; i < *nsubs; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp((*subs)[i].student, (*subs)[j].student))
				return error("two submissions of student '%s': '%s' and '%s'",
					     (*subs)[i].student, (*subs)[j].dir, (*subs)[i].dir);
	return 0;
}

void batch_free(struct batch_sub *subs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(subs[i].dir);
		free(subs[i].student);
		free(subs[i].recorded_as);
	}
	free(subs);
}

/* One CSV field from *p, unquoted and trimmed, into buf; *p moves past its comma. */
static void csv_field(const char **p, char *buf, size_t len)
{
	const char *s = *p + strspn(*p, " \t");
	size_t n = 0;

	if (*s == '"') {
		for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
			if (*s == '"')
				s++;
			if (n + 1 < len)
				buf[n++] = *s;
		}
		if (*s == '"')
			s++;
		s += strcspn(s, ",");
	} else {
		size_t k = strcspn(s, ",");
		while (k && (s[k - 1] == ' ' || s[k - 1] == '\t' || s[k - 1] == '\r'))
			k--;
		n = k < len ? k : len - 1;
		memcpy(buf, s, n);
		s += strcspn(s, ",");
	}
	buf[n] = '\0';
	*p = *s == ',' ? s + 1 : s;
}

int batch_read_times(const char *path, struct batch_sub *subs, size_t n)
{
	FILE *f = fopen(path, "r");
	char line[1024], who[256], when[256];
	unsigned lineno = 0;
	int ret = 0;

	if (!f)
		return error("cannot read the times '%s': %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		const char *p = line;
		time_t t;
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (lineno == 1 && !strncmp(line, "\xef\xbb\xbf", 3))   /* a spreadsheet's BOM */
			memmove(line, line + 3, strlen(line + 3) + 1);
		if (!line[strspn(line, " \t")] || line[strspn(line, " \t")] == '#')
			continue;
		csv_field(&p, who, sizeof(who));
		csv_field(&p, when, sizeof(when));
		if (late_parse_time(when, &t)) {
			if (lineno == 1)
				continue;   /* a header */
			ret = error("%s:%u: '%s' is not a time ('YYYY-MM-DD HH:MM' and a zone)", path,
				    lineno, when);
			break;
		}
		size_t i = 0;
		while (i < n && strcmp(subs[i].student, who))
			i++;
		if (i == n) {
			warning("%s:%u: no submission of '%s' in this class", path, lineno, who);
			continue;
		}
		subs[i].submitted_at = t;
		subs[i].submitted_from = path;
	}
	fclose(f);
	for (size_t i = 0; !ret && i < n; i++)
		if (!subs[i].submitted_at)
			warning("%s: no time in '%s': the late policy is not applied to it",
				subs[i].student, path);
	return ret;
}

