/*
 * gsexport.c - a Gradescope submission export as a class (batch.h): the
 * folder that Gradescope's "Export Submissions" unzips to, its
 * submission_metadata.yml naming each submission_<id>/ folder's students
 * (":submitters", each with ":name", ":sid" and ":email") and submission
 * time (":created_at").
 *
 * Owns: reading that file (libyaml) and where in each folder the lab's
 * files are. Must not: grade, or read a submission's files beyond names.
 */
#include "batch.h"

#include "late.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#define GS_METADATA "submission_metadata.yml"

bool gsexport_is(const char *dir)
{
	char *p = xasprintf("%s/%s", dir, GS_METADATA);
	struct stat st;
	bool is = !lstat(p, &st) && S_ISREG(st.st_mode);
	free(p);
	return is;
}

/* The scalar text of node n, or NULL when n is no scalar. */
static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The value of key in mapping m, or NULL. */
static yaml_node_t *map_get(yaml_document_t *d, yaml_node_t *m, const char *key)
{
	if (!m || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const char *k = scalar(yaml_document_get_node(d, p->key));
		if (k && !strcmp(k, key))
			return yaml_document_get_node(d, p->value);
	}
	return NULL;
}

/* Whether path is a folder itself (not a link to one). */
static bool is_folder(const char *path)
{
	struct stat st;
	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * Where in a submission's folder its files are: the folder, its <lab>/, or
 * the one folder it holds (a zip of a folder; a Mac's __MACOSX/ and
 * dot-files do not count), or its <lab>/; else the folder itself, whose
 * grading says which files are missing.
 */
static char *files_in(const char *dir, const char *lab, const struct strlist *files)
{
	char *in = batch_submission_in(dir, lab, files);
	if (in)
		return in;
	DIR *d = opendir(dir);
	struct dirent *e;
	char *one = NULL;
	size_t n = 0;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "__MACOSX"))
			continue;
		n++;
		free(one);
		one = xasprintf("%s/%s", dir, e->d_name);
	}
	if (d)
		closedir(d);
	if (n == 1 && is_folder(one))
		in = batch_submission_in(one, lab, files);
	free(one);
	return in ? in : xstrdup(dir);
}

/* A submission's student: the submitter's sid, else email, else name; NULL. */
static const char *student_of(yaml_document_t *d, yaml_node_t *who)
{
	static const char *const keys[] = {":sid", ":email", ":name"};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = scalar(map_get(d, who, keys[i]));
		if (v && *v && strcmp(v, "~") && strcmp(v, "null"))
			return v;
	}
	return NULL;
}

static void add(struct batch_sub **subs, size_t *n, const char *dir, const char *student,
		time_t at)
{
	*subs = xrealloc(*subs, (*n + 1) * sizeof(**subs));
	(*subs)[(*n)++] = (struct batch_sub){.dir = xstrdup(dir), .student = xstrdup(student),
					     .submitted_at = at,
					     .submitted_from = at ? "Gradescope's " GS_METADATA : NULL};
}

int gsexport_collect(const char *dir, const char *lab, const struct strlist *files,
		     struct batch_sub **subs, size_t *n)
{
	char *path = xasprintf("%s/%s", dir, GS_METADATA);
	FILE *f = fopen(path, "rb");
	yaml_parser_t parser;
	yaml_document_t doc;
	int ret = -1;

	if (!f) {
		error("cannot read '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		error("'%s' is not YAML: line %zu: %s", path, parser.problem_mark.line + 1,
		      parser.problem ? parser.problem : "unreadable");
		yaml_parser_delete(&parser);
		fclose(f);
		free(path);
		return -1;
	}
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		error("'%s' is not a Gradescope export's metadata: no submission_<id> entries", path);
		goto out;
	}
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		const char *key = scalar(yaml_document_get_node(&doc, p->key));
		yaml_node_t *entry = yaml_document_get_node(&doc, p->value);
		/* a folder of the export, named by Gradescope: one name, never a path */
		if (!key || !*key || key[0] == '.' || strchr(key, '/')) {
			error("'%s': an entry that names no folder of the export ('%s')", path,
			      key ? key : "not text");
			goto out;
		}
		char *folder = xasprintf("%s/%s", dir, key);
		if (!is_folder(folder)) {
			warning("'%s' names '%s', which the export does not hold as a folder: not "
				"graded", path, key);
			free(folder);
			continue;
		}
		char *where = files_in(folder, lab, files);
		const char *created = scalar(map_get(&doc, entry, ":created_at"));
		time_t at = 0;
		if (created && late_parse_time(created, &at)) {
			warning("'%s': %s's :created_at '%s' is no time: graded without one", path,
				key, created);
			at = 0;
		}
		yaml_node_t *who = map_get(&doc, entry, ":submitters");
		size_t before = *n;
		if (who && who->type == YAML_SEQUENCE_NODE)
			/* a group's submission is each member's */
			for (yaml_node_item_t *i = who->data.sequence.items.start;
			     i < who->data.sequence.items.top; i++) {
				const char *s = student_of(&doc, yaml_document_get_node(&doc, *i));
				if (s)
					add(subs, n, where, s, at);
			}
		if (*n == before) {
			warning("'%s': %s names no submitter with a sid, email or name: graded as '%s'",
				path, key, key);
			add(subs, n, where, key, at);
		}
		free(where);
		free(folder);
	}
	ret = 0;
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);
	free(path);
	return ret;
}
