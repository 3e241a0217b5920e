/*
 * cmd-new-lab.c - `cudalab new-lab NAME`: writes a new lab, complete and
 * small, from the skeleton in labs/common/new-lab/ (its README.md says what it
 * holds): the handout, lab.conf, the contract, a test suite, the launchers'
 * calls, a timing driver, a reference, a stub, two fixtures with their
 * verdicts and an empty corpus. It builds and passes `cudalab check-lab
 * NAME` as it is; comments marked FILL IN say where the author makes it
 * their lab.
 *
 * Owns: the lab's name, and turning the skeleton into files. Writes nothing
 * over anything: a lab's folders that exist already are refused, and what
 * it wrote is removed again when it cannot finish.
 */
#include "cmd.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>   /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct cmd_opt new_lab_opts[] = {
	CMD_OPT_END,
};
static const struct cmd_spec new_lab_cmd = {
	.synopsis = "usage: cudalab new-lab NAME\n"
		    "\n"
		    "Writes a new lab named NAME (a lowercase letter, then lowercase letters,\n"
		    "digits and _, at most 32) that builds and passes `cudalab check-lab NAME` as\n"
		    "it is: labs/NAME/ (the handout README.md, lab.conf, the contract NAME.h and\n"
		    "tests/: the Check suite, the launchers' calls, the timing driver),\n"
		    "reference/NAME/ (the reference, two fixtures with their expect files, an\n"
		    "empty corpus) and student_template/NAME/ (the stub). Its one launcher scales\n"
		    "a vector; comments marked FILL IN say where to make it your lab\n"
		    "(docs/lab-authoring.md). Writes nothing over anything: exits 2 when one of\n"
		    "those folders exists.\n"
		    "\n",
	.opts = {new_lab_opts},
};

/* The folders a lab owns, under the root; each must not exist yet. */
static const char *const lab_folders[] = {"labs", "reference", "student_template"};

static bool valid_name(const char *name)
{
	size_t n = strlen(name);

	if (n < 1 || n > 32 || name[0] < 'a' || name[0] > 'z' || !strcmp(name, "common"))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '_'))
			return false;
	return true;
}

/* text with each of the skeleton's placeholders in it replaced: a new string. */
static char *fill_in(const char *text, const char *const subst[][2], size_t nsubst)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "");
	for (const char *p = text; *p;) {
		size_t k = 0;
		while (k < nsubst && strncmp(p, subst[k][0], strlen(subst[k][0])))
			k++;
		if (k < nsubst) {
			strbuf_addstr(&sb, subst[k][1]);
			p += strlen(subst[k][0]);
		} else
			strbuf_add(&sb, p++, 1);
	}
	return strbuf_detach(&sb);
}

/* Writes data into a new file path (never over one); 0 or -1, said. */
static int write_new(const char *path, const char *data)
{
	size_t len = strlen(data);
	int fd;

	if (make_parent_dirs(path) || (fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666)) < 0)
		return error("cannot write '%s': %s", path, strerror(errno));
	bool ok = write(fd, data, len) == (ssize_t)len;
	int saved = errno;
	if (close(fd) || !ok)
		return error("cannot write '%s': %s", path, strerror(ok ? errno : saved));
	return 0;
}

/*
 * Copies the skeleton's folder from (relative rel) to root: each file NAME.in
 * filled in, LAB in its path replaced by the lab's name; prints each. 0 or -1.
 */
static int copy_skeleton(const char *from, const char *rel, const char *root, const char *name,
			 const char *const subst[][2], size_t nsubst)
{
	DIR *d = opendir(from);
	struct dirent *e;
	struct strlist names = STRLIST_INIT;
	int rc = 0;

	if (!d)
		return error("cannot read the skeleton '%s': %s", from, strerror(errno));
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			strlist_push(&names, e->d_name);
	closedir(d);
	strlist_sort(&names);
	for (size_t i = 0; !rc && i < names.n; i++) {
		char *src = xasprintf("%s/%s", from, names.v[i]);
		char *sub = xasprintf("%s%s%s", rel, *rel ? "/" : "", names.v[i]);
		struct stat st;
		if (stat(src, &st))
			rc = error("cannot read '%s': %s", src, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			rc = copy_skeleton(src, sub, root, name, subst, nsubst);
		else if (strlen(sub) > 3 && !strcmp(sub + strlen(sub) - 3, ".in")) {
			size_t len;
			char *text = read_file(src, &len);
			sub[strlen(sub) - 3] = '\0';
			const char *const in_path[][2] = {{"LAB", name}};
			char *to_rel = fill_in(sub, in_path, 1);
			char *to = xasprintf("%s/%s", root, to_rel);
			char *filled = text ? fill_in(text, subst, nsubst) : NULL;
			rc = !text ? error("cannot read '%s': %s", src, strerror(errno))
				   : write_new(to, filled);
			if (!rc)
				printf("  %s\n", to_rel);
			free(text);
			free(filled);
			free(to_rel);
			free(to);
		}
		free(src);
		free(sub);
	}
	strlist_clear(&names);
	return rc;
}

int cmd_new_lab(int argc, char **argv)
{
	int c;

	while ((c = cmd_getopt(&new_lab_cmd, argc, argv)) >= 0)
		;
	if (c != CMD_END)
		return cmd_stopped(c);
	if (argc - optind != 1) {
		error("new-lab wants one name, the new lab's");
		cmd_usage(&new_lab_cmd, stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[optind];
	if (!valid_name(name)) {
		error("'%s' cannot name a lab: a lowercase letter, then lowercase letters, digits "
		      "and _, at most 32, not 'common' (it names files, symbols and macros)", name);
		return EXIT_USAGE;
	}
	const struct toolchain *tc = toolchain();
	for (size_t i = 0; i < sizeof(lab_folders) / sizeof(*lab_folders); i++) {
		char *path = xasprintf("%s/%s/%s", tc->root, lab_folders[i], name);
		bool there = !access(path, F_OK);
		free(path);
		if (there) {
			error("%s/%s exists already: new-lab writes nothing over anything", lab_folders[i],
			      name);
			return EXIT_USAGE;
		}
	}

	char *skeleton = xasprintf("%s/labs/common/new-lab", tc->root);
	if (access(skeleton, F_OK)) {
		error("no skeleton here (labs/common/new-lab): labs are written in the course's "
		      "repository, not in a student's");
		free(skeleton);
		return EXIT_USAGE;
	}
	char upper[33], title[33];
	for (size_t i = 0; i <= strlen(name); i++)
		upper[i] = name[i] >= 'a' && name[i] <= 'z' ? (char)(name[i] - 'a' + 'A') : name[i];
	snprintf(title, sizeof(title), "%c%s", upper[0], name + 1);
	const char *const subst[][2] = {{"@lab@", name}, {"@LAB@", upper}, {"@Lab@", title}};
	printf("the lab %s, from %s:\n", name, "labs/common/new-lab");
	int rc = 0;
	for (size_t i = 0; !rc && i < sizeof(lab_folders) / sizeof(*lab_folders); i++) {
		char *from = xasprintf("%s/%s", skeleton, lab_folders[i]);
		rc = copy_skeleton(from, lab_folders[i], tc->root, name, subst,
				   sizeof(subst) / sizeof(*subst));
		free(from);
	}
	free(skeleton);
	if (rc) {   /* nothing half made stays */
		for (size_t i = 0; i < sizeof(lab_folders) / sizeof(*lab_folders); i++) {
			char *path = xasprintf("%s/%s/%s", tc->root, lab_folders[i], name);
			remove_tree(path);
			free(path);
		}
		error("the lab %s was not made; nothing of it is left", name);
		return EXIT_INTERNAL;
	}
	printf("next: make (it builds the new lab with the others), then cudalab check-lab %s;\n"
	       "the lines marked FILL IN are yours to write (docs/lab-authoring.md)\n", name);
	return 0;
}
