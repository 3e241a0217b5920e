/*
 * htmlsimilar.c - the side-by-side page of cudalab similar (htmlsimilar.h).
 * Derives everything from what similar.c found and decides nothing; every
 * string that comes from a submission (its text, its student's id) goes
 * through strbuf_add_html. Needs no script and no network.
 */
#include "htmlsimilar.h"

#include "htmlreport.h"

#include <string.h>

/* The marks of runs alike: run k of a pair is class r(k % SIM_MARKS). */
#define SIM_MARKS 8
static const char similar_style[] =
	"table.side{width:100%;table-layout:fixed}\n"
	"table.side td{width:50%;overflow-x:auto}\n"
	"pre.code{font-size:80%;white-space:pre;line-height:1.25;overflow-x:auto}\n"
	/* 7:1 on white, above 4.5:1 on every mark's colour */
	"pre.code .ln{color:#595959;user-select:none}\n"
	"pre.code:focus{outline:2px solid #06c}\n"
	".r0{background:#ffe08a}.r1{background:#a8e6ff}.r2{background:#c6f5b0}\n"
	".r3{background:#ffc2d9}.r4{background:#dcc8ff}.r5{background:#ffd0a8}\n"
	".r6{background:#b8f0e0}.r7{background:#e8e8a0}\n";

/* The pair's run whose lines hold line of file on side a (or b), or -1. */
static long run_at(const struct sim_pair *p, bool side_a, size_t file, size_t line)
{
	for (size_t r = 0; r < p->nregions; r++) {
		const struct sim_region *g = &p->regions[r];
		if (side_a ? g->file_a == file && line >= g->a_first && line <= g->a_last
			   : g->file_b == file && line >= g->b_first && line <= g->b_last)
			return (long)r;
	}
	return -1;
}

/* Each file of submission sub, its lines numbered, those of the pair's runs marked. */
static void add_side(struct strbuf *sb, const struct sim_class *c, const struct sim_pair *p,
		     bool side_a)
{
	size_t sub = side_a ? p->a : p->b;

	strbuf_addstr(sb, "<td><h3>");
	strbuf_add_html(sb, c->students[sub]);
	strbuf_addstr(sb, "</h3>\n");
	for (size_t f = 0; f < c->nfiles; f++) {
		if (c->files[f].sub != sub)
			continue;
		const char *s = c->files[f].text;
		strbuf_addstr(sb, "<p><code>");
		strbuf_add_html(sb, c->files[f].name);
		/* a scrolling block: reached with the keyboard (tab), named */
		strbuf_addstr(sb, "</code></p>\n<pre class=\"code\" tabindex=\"0\" aria-label=\"");
		strbuf_add_html(sb, c->files[f].name);
		strbuf_addstr(sb, " of ");
		strbuf_add_html(sb, c->students[sub]);
		strbuf_addstr(sb, "\">");
		for (size_t line = 1; *s; line++) {
			size_t n = strcspn(s, "\n");
			char *text = xstrndup(s, n);
			long r = run_at(p, side_a, f, line);
			if (r >= 0)
				strbuf_addf(sb, "<span class=\"r%ld\" title=\"run %ld\">", r % SIM_MARKS,
					    r + 1);
			strbuf_addf(sb, "<span class=\"ln\">%4zu </span>", line);
			strbuf_add_html(sb, text);
			if (r >= 0)
				strbuf_addstr(sb, "</span>");
			strbuf_addstr(sb, "\n");
			free(text);
			s += n + (s[n] == '\n');
		}
		strbuf_addstr(sb, "</pre>\n");
	}
	strbuf_addstr(sb, "</td>");
}

static void add_lines(struct strbuf *sb, const struct sim_class *c, size_t file, size_t first,
		      size_t last)
{
	strbuf_add_html(sb, c->files[file].name);
	strbuf_addf(sb, first == last ? ":%zu" : ":%zu-%zu", first, last);
}

char *html_similar(const struct sim_class *c, const char *lab, const char *title,
		   const char *starter, size_t top)
{
	struct strbuf sb = STRBUF_INIT;
	size_t shown = top && top < c->npairs ? top : c->npairs;

	html_open(&sb, similar_style, (const char *const[]){lab, "submissions alike", NULL});
	strbuf_addstr(&sb, "<h1>");
	strbuf_add_html(&sb, title && *title ? title : lab);
	strbuf_addstr(&sb, ": submissions alike</h1>\n<p class=\"summary\">");
	strbuf_addf(&sb, "%zu submissions of <code>", c->nsubs);
	strbuf_add_html(&sb, lab);
	strbuf_addf(&sb, "</code> compared by sim_c (Debian: similarity-tester), on tokens, in runs "
			 "of %u tokens or more; ", c->min_run ? c->min_run : SIMILAR_MIN_RUN);
	if (starter) {
		strbuf_addstr(&sb, "what each shares with the starter (<code>");
		strbuf_add_html(&sb, starter);
		strbuf_addf(&sb, "</code>, %zu lines over the class) is left out. ",
			    c->starter_lines_removed);
	} else {
		strbuf_addstr(&sb, "the lab has no starter to leave out. ");
	}
	strbuf_addf(&sb, "%zu pairs share a run; the %zu most alike are below. The score is the "
			 "share of both submissions' tokens in runs alike. A pair alike is a "
			 "question for a person, not a verdict.</p>\n", c->npairs, shown);
	if (!shown) {
		strbuf_addstr(&sb, "<p>No two submissions share a run of tokens.</p>\n");
		html_close(&sb);
		return strbuf_detach(&sb);
	}
	strbuf_addstr(&sb, "<table>\n<tr><th>rank</th><th>score</th><th>student</th><th>student</th>"
			   "<th>of the first</th><th>of the second</th><th>runs</th></tr>\n");
	for (size_t i = 0; i < shown; i++) {
		const struct sim_pair *p = &c->pairs[i];
		strbuf_addf(&sb, "<tr><td class=\"num\"><a href=\"#pair-%zu\">%zu</a></td>"
				 "<td class=\"num\">%.1f%%</td><td>", i + 1, i + 1, 100 * p->score);
		strbuf_add_html(&sb, c->students[p->a]);
		strbuf_addstr(&sb, "</td><td>");
		strbuf_add_html(&sb, c->students[p->b]);
		strbuf_addf(&sb, "</td><td class=\"num\">%.0f%%</td><td class=\"num\">%.0f%%</td>"
				 "<td class=\"num\">%zu</td></tr>\n", 100 * p->of_a, 100 * p->of_b,
			    p->nregions);
	}
	strbuf_addstr(&sb, "</table>\n");
	for (size_t i = 0; i < shown; i++) {
		const struct sim_pair *p = &c->pairs[i];
		strbuf_addf(&sb, "<h2 id=\"pair-%zu\">%zu. ", i + 1, i + 1);
		strbuf_add_html(&sb, c->students[p->a]);
		strbuf_addstr(&sb, " and ");
		strbuf_add_html(&sb, c->students[p->b]);
		strbuf_addf(&sb, ": %.1f%%</h2>\n<table>\n<tr><th>run</th><th>", 100 * p->score);
		strbuf_add_html(&sb, c->students[p->a]);
		strbuf_addstr(&sb, "</th><th>");
		strbuf_add_html(&sb, c->students[p->b]);
		strbuf_addstr(&sb, "</th><th>tokens</th></tr>\n");
		for (size_t r = 0; r < p->nregions; r++) {
			const struct sim_region *g = &p->regions[r];
			strbuf_addf(&sb, "<tr><td class=\"r%zu\">%zu</td><td>", r % SIM_MARKS, r + 1);
			add_lines(&sb, c, g->file_a, g->a_first, g->a_last);
			strbuf_addstr(&sb, "</td><td>");
			add_lines(&sb, c, g->file_b, g->b_first, g->b_last);
			strbuf_addf(&sb, "</td><td class=\"num\">%zu</td></tr>\n", g->tokens);
		}
		strbuf_addstr(&sb, "</table>\n<table class=\"side\"><tr>");
		add_side(&sb, c, p, true);
		add_side(&sb, c, p, false);
		strbuf_addstr(&sb, "</tr></table>\n");
	}
	html_close(&sb);
	return strbuf_detach(&sb);
}
