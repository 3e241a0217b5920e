/*
 * leaderboard.c - a timed lab's leaderboard (leaderboard.h).
 */
#include "leaderboard.h"

#include "doc.h"
#include "intake.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int leaderboard_parse(const char *value, int *mode)
{
	if (!strcasecmp(value, "no") || !strcasecmp(value, "false") || !strcmp(value, "0"))
		*mode = LEADERBOARD_OFF;
	else if (!strcasecmp(value, "yes") || !strcasecmp(value, "true") ||
		 !strcmp(value, "1") || !strcasecmp(value, "pseudonyms"))
		*mode = LEADERBOARD_PSEUDONYMS;
	else if (!strcasecmp(value, "names"))
		*mode = LEADERBOARD_NAMES;
	else
		return -1;
	return 0;
}

bool leaderboard_rows_speed(const struct timing_row *rows, size_t n, bool provisional,
			    double *speed)
{
	size_t used = 0;
	double logs = 0;

	if (provisional)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct timing_row *r = &rows[i];
		if (!leaderboard_against_reference(r))
			continue;   /* against another launcher of the submission's: not a speed */
		if (!r->measured || r->flagged || !(r->student_ms > 0) || !(r->reference_ms > 0))
			return false;
		logs += log(r->reference_ms / r->student_ms);
		used++;
	}
	if (!used)
		return false;
	*speed = exp(logs / (double)used);
	return true;
}

bool leaderboard_speed(json_t *doc, double *speed)
{
	struct timing_row *rows;
	size_t n = doc_timing_rows(doc, &rows);
	bool ranked = leaderboard_rows_speed(
		rows, n, json_is_true(json_object_get(doc, "provisional")), speed);

	free(rows);
	return ranked;
}

static const char *const adjectives[] = {
	"amber", "azure", "bold", "brisk", "calm", "cobalt", "coral", "crimson", "deft", "eager",
	"fleet", "gentle", "golden", "hazel", "ivory", "jade", "keen", "lively", "lunar", "mellow",
	"misty", "nimble", "olive", "quiet", "rapid", "rustic", "scarlet", "silver", "solar",
	"swift", "teal", "vivid"};
static const char *const nouns[] = {
	"badger", "bison", "crane", "falcon", "ferret", "finch", "gecko", "heron", "ibis", "jackal",
	"koala", "lemur", "lynx", "marten", "newt", "ocelot", "otter", "panda", "puffin", "quail",
	"raven", "robin", "salmon", "stoat", "swift", "tapir", "tern", "turtle", "viper", "walrus",
	"wren", "yak"};

char *leaderboard_pseudonym(const char *salt, const char *lab, const char *student)
{
	char *text = xasprintf("%s\n%s\n%s", salt, lab, student), hex[65];

	sha256_hex(text, strlen(text), hex);
	free(text);
	unsigned long long bits = 0;
	sscanf(hex, "%16llx", &bits);   /* the hash's first 64 bits */
	/*
	 * 32 x 32 x 10^6 names: two of a class of 300 share one with odds of
	 * about 1 in 23,000, and the dashboard says so where two do
	 * (htmldash.c's leaderboard).
	 */
	return xasprintf("%s-%s-%06llu", adjectives[bits % 32], nouns[(bits / 32) % 32],
			 (bits / 1024) % 1000000);
}

int leaderboard_salt(const char *db_path, char **salt)
{
	char *path = xasprintf("%s.leaderboard-salt", db_path);
	int ret = -1;

	for (int tries = 0; tries < 2 && ret; tries++) {
		size_t len;
		char *text = access(path, F_OK) ? NULL : read_file(path, &len);
		if (!text && !access(path, F_OK))
			break;   /* there, and read_file said why it cannot be read */
		if (text) {
			text[strcspn(text, "\n")] = '\0';
			if (strlen(text) >= 32) {
				*salt = text;
				ret = 0;
			} else {
				free(text);
				error("'%s' holds no salt (32 characters or more): remove it for a new "
				      "one, which changes every pseudonym", path);
				break;
			}
			continue;
		}
		/* none yet: made once, the owner's alone (another maker may win the race) */
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST) {
			error("cannot make '%s' for the leaderboard's pseudonyms: %s", path,
			      strerror(errno));
			break;
		}
		if (fd >= 0) {
			char token[33], line[70];
			random_token(token);
			snprintf(line, sizeof(line), "%s\n", token);
			bool ok = write(fd, line, strlen(line)) == (ssize_t)strlen(line);
			if (close(fd) || !ok) {
				error("cannot write '%s': %s", path, strerror(errno));
				unlink(path);
				break;
			}
		}
	}
	free(path);
	return ret;
}
