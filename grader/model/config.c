/*
 * config.c - parses lab.conf-style INI files (libinih) and validates them.
 * Knows the file format, not what the grader does with it.
 */
#include "config.h"

#include "leaderboard.h"
#include "scan.h"

#include <dirent.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

struct parse_state {
	struct lab_config *cfg;
	const char *path;
	char msg[256];
};

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

/* A file name a submission may contain: no directories, nothing hidden. */
static bool valid_file_name(const char *s)
{
	return *s && *s != '.' && !strchr(s, '/') && strlen(s) < 128;
}

static int parse_number(const char *v, double *out)
{
	char *end;
	double d = strtod(v, &end);
	if (end == v || *end || d < 0)
		return -1;
	*out = d;
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return -1;
	return 0;
}

static const char *const visibility_names[] = {"visible", "after_due", "hidden"};

const char *test_visibility_name(enum test_visibility v)
{
	return visibility_names[v];
}

int test_visibility_of(const char *word)
{
	for (int v = 0; v < (int)ARRAY_SIZE(visibility_names); v++)
		if (!strcmp(word, visibility_names[v]))
			return v;
	return -1;
}

static struct lab_part *find_or_add_part(struct lab_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nparts; i++)
		if (!strcmp(cfg->parts[i].name, name))
			return &cfg->parts[i];
	cfg->parts = xrealloc(cfg->parts, (cfg->nparts + 1) * sizeof(*cfg->parts));
	struct lab_part *p = &cfg->parts[cfg->nparts++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	p->timeout = 30;
	return p;
}

static int add_tests(struct parse_state *st, struct lab_part *p, const char *value)
{
	struct strlist words = STRLIST_INIT;
	int ret = 0;

	strlist_split(&words, value);
	for (size_t i = 0; i < words.n && !ret; i++) {
		char *colon = strchr(words.v[i], ':'), *vis = colon ? strchr(colon + 1, ':') : NULL;
		int visibility = VIS_UNSET;
		double pts;
		if (vis) {
			*vis++ = '\0';
			visibility = test_visibility_of(vis);
			if (visibility < 0) {
				snprintf(st->msg, sizeof(st->msg), "test '%.64s': visibility '%.32s' "
					 "is not visible, after_due or hidden", words.v[i], vis);
				ret = -1;
				break;
			}
		}
		if (!colon || parse_number(colon + 1, &pts)) {
			snprintf(st->msg, sizeof(st->msg), "test '%s' is not NAME:POINTS or "
				 "NAME:POINTS:VISIBILITY", words.v[i]);
			ret = -1;
			break;
		}
		*colon = '\0';
		if (!valid_name(words.v[i])) {
			snprintf(st->msg, sizeof(st->msg), "bad test name '%s'", words.v[i]);
			ret = -1;
			break;
		}
		for (size_t t = 0; t < p->ntests; t++)
			if (!strcmp(p->tests[t].name, words.v[i])) {
				snprintf(st->msg, sizeof(st->msg), "test '%s' listed twice", words.v[i]);
				ret = -1;
			}
		p->tests = xrealloc(p->tests, (p->ntests + 1) * sizeof(*p->tests));
		p->tests[p->ntests].name = xstrdup(words.v[i]);
		p->tests[p->ntests].visibility = visibility;
		p->tests[p->ntests++].points = pts;
	}
	strlist_clear(&words);
	return ret;
}

/*
 * The numeric keys of [lab]: where each goes, whether it is a count of
 * bytes or things (size_t) or a number of seconds or times (double), and
 * the values it takes: from min to max, or 0 where zero says "no limit".
 */
struct number_key {
	const char *name;
	size_t offset;
	bool size;
	bool zero;   /* 0 is allowed below min */
	double min, max;
};

#define SIZE_KEY(f, zero, min, max) {#f, offsetof(struct lab_config, f), true, zero, min, max}
#define SECONDS_KEY(f, min, max) {#f, offsetof(struct lab_config, f), false, false, min, max}
static const struct number_key number_keys[] = {
	SIZE_KEY(max_file_bytes, false, 1, 1 << 30),
	SECONDS_KEY(build_timeout, 1, 86400),
	SECONDS_KEY(run_timeout, 1, 86400),
	SIZE_KEY(output_limit, false, 1024, 1 << 30),
	SIZE_KEY(build_output_limit, false, 1024, 1 << 30),
	SECONDS_KEY(cpu_limit, 0, 86400 * 7),
	SIZE_KEY(file_limit, true, 1, 1ULL << 40),
	SIZE_KEY(open_files, true, 64, 1 << 20),
	SIZE_KEY(processes, true, 64, 1 << 22),
	SIZE_KEY(memory_limit, true, 256 << 20, 1ULL << 44),
	SECONDS_KEY(emulation_slowdown, 1, 1000),
	SECONDS_KEY(timing_cap, 0.001, 3600),
	SECONDS_KEY(timing_timeout, 0.001, 86400),
};

static const struct number_key *number_key_of(const char *name)
{
	for (size_t i = 0; i < sizeof(number_keys) / sizeof(number_keys[0]); i++)
		if (!strcmp(number_keys[i].name, name))
			return &number_keys[i];
	return NULL;
}

static bool number_in_range(const struct number_key *k, double d)
{
	if (k->zero && d == 0)
		return true;
	return d >= k->min && d <= k->max && (!k->size || d == floor(d));
}

/* "'key' must be ... , not 'value'" into buf. */
static void number_range_text(const struct number_key *k, char *buf, size_t len,
			      const char *value)
{
	snprintf(buf, len, "'%s' must be %s from %.15g to %.15g%s, not '%.64s'", k->name,
		 k->size ? "a whole number" : "a number", k->min, k->max,
		 k->zero ? " (or 0: no limit)" : "", value);
}

static int lab_key(struct parse_state *st, const char *key, const char *value)
{
	struct lab_config *cfg = st->cfg;
	double d;

	if (!strcmp(key, "name") || !strcmp(key, "title") || !strcmp(key, "version")) {
		char **field = key[0] == 'n' ? &cfg->name : key[0] == 't' ? &cfg->title : &cfg->version;
		free(*field);
		*field = xstrdup(value);
		return 0;
	}
	if (!strcmp(key, "files")) {
		size_t first = cfg->files.n;
		strlist_split(&cfg->files, value);
		for (size_t i = first; i < cfg->files.n; i++)
			if (!valid_file_name(cfg->files.v[i])) {
				snprintf(st->msg, sizeof(st->msg), "bad file name '%s'", cfg->files.v[i]);
				return -1;
			}
		return 0;
	}
	if (!strcmp(key, "symbols")) {
		strlist_split(&cfg->symbols, value);
		return 0;
	}
	if (!strcmp(key, "inline_asm")) {
		cfg->inline_asm = scan_parse_asm_policy(value);
		if (cfg->inline_asm < 0) {
			snprintf(st->msg, sizeof(st->msg), "inline_asm must be no, device or yes");
			return -1;
		}
		return 0;
	}
	if (!strcmp(key, "strict_barriers") || !strcmp(key, "needs_gpu")) {
		if (parse_bool(value, key[0] == 's' ? &cfg->strict_barriers : &cfg->needs_gpu)) {
			snprintf(st->msg, sizeof(st->msg), "%s must be yes or no", key);
			return -1;
		}
		return 0;
	}
	if (!strcmp(key, "leaderboard")) {
		if (leaderboard_parse(value, &cfg->leaderboard)) {
			snprintf(st->msg, sizeof(st->msg), "leaderboard must be no, yes (pseudonyms) "
				 "or names");
			return -1;
		}
		return 0;
	}
	const struct number_key *k = number_key_of(key);
	if (!k) {
		snprintf(st->msg, sizeof(st->msg), "unknown key '%s' in [lab]", key);
		return -1;
	}
	if (parse_number(value, &d) || !number_in_range(k, d)) {
		number_range_text(k, st->msg, sizeof(st->msg), value);
		return -1;
	}
	if (k->size)
		*(size_t *)((char *)cfg + k->offset) = (size_t)d;
	else
		*(double *)((char *)cfg + k->offset) = d;
	return 0;
}

static int part_key(struct parse_state *st, struct lab_part *p, const char *key, const char *value)
{
	if (!strcmp(key, "title")) {
		free(p->title);
		p->title = xstrdup(value);
	} else if (!strcmp(key, "timeout")) {
		if (parse_number(value, &p->timeout) || p->timeout <= 0) {
			snprintf(st->msg, sizeof(st->msg), "timeout must be a positive number of seconds");
			return -1;
		}
	} else if (!strcmp(key, "bonus")) {
		if (parse_bool(value, &p->bonus)) {
			snprintf(st->msg, sizeof(st->msg), "bonus must be yes or no");
			return -1;
		}
	} else if (!strcmp(key, "visibility")) {
		int v = test_visibility_of(value);
		if (v < 0) {
			snprintf(st->msg, sizeof(st->msg), "visibility must be visible, after_due or "
				 "hidden, not '%.64s'", value);
			return -1;
		}
		p->visibility = v;
	} else if (!strcmp(key, "tests")) {
		return add_tests(st, p, value);
	} else if (!strcmp(key, "safety")) {
		strlist_split(&p->safety, value);
	} else {
		snprintf(st->msg, sizeof(st->msg), "unknown key '%s' in [part %s]", key, p->name);
		return -1;
	}
	return 0;
}

static struct lab_timing *find_or_add_timing(struct lab_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->ntimings; i++)
		if (!strcmp(cfg->timings[i].name, name))
			return &cfg->timings[i];
	cfg->timings = xrealloc(cfg->timings, (cfg->ntimings + 1) * sizeof(*cfg->timings));
	struct lab_timing *t = &cfg->timings[cfg->ntimings++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->full_ratio = 1.15;
	t->zero_ratio = 3.0;
	return t;
}

static int timing_key(struct parse_state *st, struct lab_timing *t, const char *key,
		      const char *value)
{
	double d;

	if (!strcmp(key, "part") || !strcmp(key, "kernel")) {
		char **field = key[0] == 'p' ? &t->part : &t->kernel;
		if (!valid_name(value)) {
			snprintf(st->msg, sizeof(st->msg), "bad %s name '%s'", key, value);
			return -1;
		}
		free(*field);
		*field = xstrdup(value);
		return 0;
	}
	if (parse_number(value, &d)) {
		snprintf(st->msg, sizeof(st->msg), "'%s' must be a number, not '%s'", key, value);
		return -1;
	}
	if (!strcmp(key, "size") && d >= 1 && d <= 1 << 30 && d == (int)d)
		t->size = (int)d;
	else if (!strcmp(key, "points") && d >= 0)
		t->points = d;
	else if (!strcmp(key, "full_ratio") && d > 0)
		t->full_ratio = d;
	else if (!strcmp(key, "zero_ratio") && d > 0)
		t->zero_ratio = d;
	else {
		snprintf(st->msg, sizeof(st->msg), "bad key or value '%s = %s' in [timing %s]", key,
			 value, t->name);
		return -1;
	}
	return 0;
}

static struct lab_sectors *find_or_add_sectors(struct lab_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nsectors; i++)
		if (!strcmp(cfg->sectors[i].name, name))
			return &cfg->sectors[i];
	cfg->sectors = xrealloc(cfg->sectors, (cfg->nsectors + 1) * sizeof(*cfg->sectors));
	struct lab_sectors *s = &cfg->sectors[cfg->nsectors++];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	return s;
}

static int sectors_key(struct parse_state *st, struct lab_sectors *s, const char *key,
		       const char *value)
{
	double d;

	if (!strcmp(key, "part") || !strcmp(key, "call") || !strcmp(key, "judge")) {
		char **field = key[0] == 'p' ? &s->part : key[0] == 'c' ? &s->call : &s->judge;
		if (!valid_name(value) && !(key[0] == 'j' && strchr(value, '@'))) {
			snprintf(st->msg, sizeof(st->msg), "bad %s name '%s'", key, value);
			return -1;
		}
		free(*field);
		*field = xstrdup(value);
		return 0;
	}
	if (parse_number(value, &d) || d < 0) {
		snprintf(st->msg, sizeof(st->msg), "'%s' must be a number of at least 0, not '%s'",
			 key, value);
		return -1;
	}
	if (!strcmp(key, "points"))
		s->points = d;
	else if (!strcmp(key, "max_load") && (d == 0 || d >= 1))
		s->max_load = d;
	else if (!strcmp(key, "max_store") && (d == 0 || d >= 1))
		s->max_store = d;
	else {
		snprintf(st->msg, sizeof(st->msg), "bad key or value '%s = %s' in [sectors %s]", key,
			 value, s->name);
		return -1;
	}
	return 0;
}

/* The list an [audit] key adds to; NULL for a key that is none. */
static struct strlist *audit_list(struct lab_config *cfg, const char *key)
{
	return !strcmp(key, "allow_undefined") ? &cfg->allow_undefined :
	       !strcmp(key, "deny_defined") ? &cfg->deny_defined :
	       !strcmp(key, "allow_weak") ? &cfg->allow_weak :
	       !strcmp(key, "allow_sections") ? &cfg->allow_sections :
	       !strcmp(key, "emulated_allow_undefined") ? &cfg->emulated_allow_undefined :
	       !strcmp(key, "emulated_allow_weak") ? &cfg->emulated_allow_weak :
	       !strcmp(key, "emulated_deny_defined") ? &cfg->emulated_deny_defined :
	       !strcmp(key, "forbid_names") ? &cfg->forbid_names :
	       !strcmp(key, "forbid_calls") ? &cfg->forbid_calls : NULL;
}

static int handler(void *user, const char *section, const char *key, const char *value)
{
	struct parse_state *st = user;
	int ret;

	if (!strcmp(section, "lab")) {
		ret = lab_key(st, key, value);
	} else if (!strcmp(section, "audit") && audit_list(st->cfg, key)) {
		strlist_split(audit_list(st->cfg, key), value);
		ret = 0;
	} else if (!strncmp(section, "part ", 5)) {
		const char *name = section + 5;
		if (!valid_name(name)) {
			snprintf(st->msg, sizeof(st->msg), "bad part name '%s'", name);
			ret = -1;
		} else {
			ret = part_key(st, find_or_add_part(st->cfg, name), key, value);
		}
	} else if (!strncmp(section, "timing ", 7)) {
		const char *name = section + 7;
		if (!valid_name(name)) {
			snprintf(st->msg, sizeof(st->msg), "bad timing name '%s'", name);
			ret = -1;
		} else {
			ret = timing_key(st, find_or_add_timing(st->cfg, name), key, value);
		}
	} else if (!strncmp(section, "sectors ", 8)) {
		const char *name = section + 8;
		if (!valid_name(name)) {
			snprintf(st->msg, sizeof(st->msg), "bad sectors name '%s'", name);
			ret = -1;
		} else {
			ret = sectors_key(st, find_or_add_sectors(st->cfg, name), key, value);
		}
	} else if (!strcmp(section, "deadline")) {
		ret = late_deadline_key(&st->cfg->deadline, key, value, st->msg, sizeof(st->msg));
	} else if (!strcmp(section, "extensions")) {
		ret = late_extension_key(&st->cfg->deadline, key, value, st->msg, sizeof(st->msg));
	} else {
		snprintf(st->msg, sizeof(st->msg), "unknown key '%s' in [%s]", key, section);
		ret = -1;
	}
	return ret ? 0 : 1;
}

void config_init(struct lab_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->max_file_bytes = 256 * 1024;
	cfg->build_timeout = 120;
	cfg->run_timeout = 300;
	cfg->output_limit = 64 * 1024;
	cfg->build_output_limit = 64 * 1024;
	cfg->cpu_limit = -1;   /* 4 times run_timeout, once that is known */
	cfg->file_limit = 256ul << 20;
	cfg->open_files = 1024;
	cfg->processes = 512;
	cfg->memory_limit = 4ul << 30;
	cfg->emulation_slowdown = 10;
	cfg->timing_cap = 1.0;
	cfg->timing_timeout = 30;
	cfg->needs_gpu = true;
	cfg->deadline.max_days = -1;
}

int config_parse(const char *path, struct lab_config *cfg)
{
	struct parse_state st = {cfg, path, ""};
	char *text = read_file(path, NULL);
	int ret, lineno = 1;

	if (!text)
		return -1;
	/* inih reads a line in pieces of INI_MAX_LINE: refuse longer ones outright */
	for (const char *l = text; *l; lineno++) {
		size_t n = strcspn(l, "\n");
		if (n >= INI_MAX_LINE - 1) {
			free(text);
			return error("%s:%d: line longer than %d characters: split the list over "
				     "several lines with the same key", path, lineno, INI_MAX_LINE - 2);
		}
		l += n + (l[n] == '\n');
	}
	ret = ini_parse_string(text, handler, &st);
	free(text);
	if (ret)
		return error("%s:%d: %s", path, ret, st.msg[0] ? st.msg : "syntax error");
	return 0;
}

int config_validate(struct lab_config *cfg, const char *path)
{
	if (cfg->cpu_limit < 0)
		cfg->cpu_limit = 4 * cfg->run_timeout;
	if (!cfg->name || !valid_name(cfg->name))
		return error("%s: [lab] needs a name of lower-case letters, digits, '_' or '-'", path);
	if (!cfg->files.n)
		return error("%s: [lab] lists no files", path);
	if (!cfg->nparts)
		return error("%s: no [part ...] sections", path);
	for (size_t i = 0; i < cfg->nparts; i++) {
		struct lab_part *p = &cfg->parts[i];
		if (!p->ntests)
			return error("%s: [part %s] has no tests", path, p->name);
		/* `visibility =` may come after `tests =`: a test's own is settled here */
		for (size_t t = 0; t < p->ntests; t++)
			if (p->tests[t].visibility == VIS_UNSET)
				p->tests[t].visibility = p->visibility;
	}
	for (size_t i = 0; i < cfg->nparts; i++)
		for (size_t k = 0; k < cfg->parts[i].safety.n; k++) {
			const struct lab_part *p = &cfg->parts[i];
			bool found = false;
			for (size_t t = 0; t < p->ntests; t++)
				found |= !strcmp(p->tests[t].name, p->safety.v[k]);
			if (!found)
				return error("%s: [part %s]: safety names '%s', which is not one of its "
					     "tests", path, p->name, p->safety.v[k]);
		}
	if (cfg->run_timeout <= 0 || cfg->build_timeout <= 0)
		return error("%s: timeouts must be positive", path);
	if (!cfg->deadline.set && (cfg->deadline.next || cfg->deadline.per_day ||
				   cfg->deadline.grace || cfg->deadline.max_days >= 0))
		return error("%s: a late policy or extensions, but no [deadline] due = ...", path);
	if (cfg->leaderboard != LEADERBOARD_OFF && !cfg->ntimings)
		return error("%s: leaderboard ranks the timed kernels, and this lab has no [timing] "
			     "section", path);
	for (size_t i = 0; i < cfg->ntimings; i++) {
		struct lab_timing *t = &cfg->timings[i];
		if (!t->part)
			t->part = xstrdup(t->name);
		if (!t->kernel)
			t->kernel = xstrdup(t->name);
		const struct lab_part *p = lab_find_part(cfg, t->part);
		if (!p)
			return error("%s: [timing %s] times part '%s', which has no [part] section",
				     path, t->name, t->part);
		if (!t->size)
			return error("%s: [timing %s] needs a size", path, t->name);
		if (t->zero_ratio <= t->full_ratio)
			return error("%s: [timing %s]: zero_ratio must be above full_ratio", path,
				     t->name);
		free(t->test);
		t->test = strcmp(t->name, t->part) ? xstrdup(t->name) : xasprintf("time@%d", t->size);
		for (size_t k = 0; k < p->ntests; k++)
			if (!strcmp(p->tests[k].name, t->test))
				return error("%s: [timing %s]: part %s already has a test '%s'", path,
					     t->name, t->part, t->test);
		for (size_t j = 0; j < i; j++) {
			const struct lab_timing *o = &cfg->timings[j];
			if (!strcmp(o->kernel, t->kernel) && o->size == t->size)
				return error("%s: [timing %s] and [timing %s] are the same kernel "
					     "and size", path, o->name, t->name);
		}
	}
	for (size_t i = 0; i < cfg->nsectors; i++) {
		struct lab_sectors *s = &cfg->sectors[i];
		const struct lab_part *p = s->part ? lab_find_part(cfg, s->part) : NULL;
		if (!p)
			return error("%s: [sectors %s] needs the part = of a [part] section", path,
				     s->name);
		if (!s->call)
			s->call = xstrdup(s->name);
		for (size_t k = 0; k < p->ntests; k++)
			if (!strcmp(p->tests[k].name, s->name))
				return error("%s: [sectors %s]: part %s already has a test '%s'", path,
					     s->name, s->part, s->name);
		for (size_t k = 0; k < cfg->ntimings; k++)
			if (!strcmp(cfg->timings[k].part, s->part) &&
			    !strcmp(cfg->timings[k].test, s->name))
				return error("%s: [sectors %s]: part %s already has a timed test "
					     "'%s'", path, s->name, s->part, s->name);
		bool judge_ok = !s->judge;
		for (size_t k = 0; k < cfg->ntimings && !judge_ok; k++)
			judge_ok = !strcmp(cfg->timings[k].part, s->part) &&
				   !strcmp(cfg->timings[k].test, s->judge);
		if (!judge_ok)
			return error("%s: [sectors %s]: judge = %s is not a timed test of part %s",
				     path, s->name, s->judge, s->part);
	}
	return 0;
}

const struct lab_part *lab_find_part(const struct lab_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nparts; i++)
		if (!strcmp(cfg->parts[i].name, name))
			return &cfg->parts[i];
	return NULL;
}

int config_load(const char *root, const char *lab, struct lab_config *cfg)
{
	char *common = xasprintf("%s/labs/common/audit.conf", root);
	char *path = xasprintf("%s/labs/%s/lab.conf", root, lab);
	int ret = -1;

	config_init(cfg);
	if (!valid_name(lab)) {
		error("no lab '%s'", lab);
		goto out;
	}
	if (access(path, F_OK)) {
		error("no lab '%s' (no %s)", lab, path);
		goto out;
	}
	if (config_parse(common, cfg) || config_parse(path, cfg) || config_validate(cfg, path))
		goto out;
	if (strcmp(cfg->name, lab)) {
		error("%s: name is '%s', but the folder is '%s'", path, cfg->name, lab);
		goto out;
	}
	cfg->dir = xasprintf("%s/labs/%s", root, lab);
	ret = 0;
out:
	free(common);
	free(path);
	return ret;
}

void config_free(struct lab_config *cfg)
{
	free(cfg->name);
	free(cfg->title);
	free(cfg->version);
	free(cfg->dir);
	strlist_clear(&cfg->files);
	strlist_clear(&cfg->symbols);
	strlist_clear(&cfg->allow_undefined);
	strlist_clear(&cfg->deny_defined);
	strlist_clear(&cfg->allow_weak);
	strlist_clear(&cfg->allow_sections);
	strlist_clear(&cfg->emulated_allow_undefined);
	strlist_clear(&cfg->emulated_allow_weak);
	strlist_clear(&cfg->emulated_deny_defined);
	strlist_clear(&cfg->forbid_names);
	strlist_clear(&cfg->forbid_calls);
	late_deadline_free(&cfg->deadline);
	for (size_t i = 0; i < cfg->nparts; i++) {
		for (size_t t = 0; t < cfg->parts[i].ntests; t++)
			free(cfg->parts[i].tests[t].name);
		free(cfg->parts[i].tests);
		strlist_clear(&cfg->parts[i].safety);
		free(cfg->parts[i].name);
		free(cfg->parts[i].title);
	}
	free(cfg->parts);
	for (size_t i = 0; i < cfg->ntimings; i++) {
		free(cfg->timings[i].name);
		free(cfg->timings[i].part);
		free(cfg->timings[i].kernel);
		free(cfg->timings[i].test);
	}
	for (size_t i = 0; i < cfg->nsectors; i++) {
		free(cfg->sectors[i].name);
		free(cfg->sectors[i].part);
		free(cfg->sectors[i].call);
		free(cfg->sectors[i].judge);
	}
	free(cfg->timings);
	free(cfg->sectors);
	memset(cfg, 0, sizeof(*cfg));
}

double lab_max_points(const struct lab_config *cfg, bool with_bonus)
{
	double sum = 0;
	for (size_t i = 0; i < cfg->nparts; i++)
		if (with_bonus || !cfg->parts[i].bonus)
			for (size_t t = 0; t < cfg->parts[i].ntests; t++)
				sum += cfg->parts[i].tests[t].points;
	for (size_t i = 0; i < cfg->ntimings; i++)
		if (with_bonus || !lab_find_part(cfg, cfg->timings[i].part)->bonus)
			sum += cfg->timings[i].points;
	for (size_t i = 0; i < cfg->nsectors; i++)
		if (with_bonus || !lab_find_part(cfg, cfg->sectors[i].part)->bonus)
			sum += cfg->sectors[i].points;
	return sum;
}

int config_list_labs(const char *root, struct strlist *names)
{
	char *dir = xasprintf("%s/labs", root);
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		error("cannot open '%s'", dir);
		free(dir);
		return -1;
	}
	while ((e = readdir(d))) {
		char *conf = xasprintf("%s/%s/lab.conf", dir, e->d_name);
		if (e->d_name[0] != '.' && !access(conf, F_OK))
			strlist_push(names, e->d_name);
		free(conf);
	}
	closedir(d);
	free(dir);
	strlist_sort(names);
	return 0;
}
