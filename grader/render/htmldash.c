/*
 * htmldash.c - a class's dashboard (htmldash.h). Derives everything from
 * the runs' result documents and decides nothing; every string of them is
 * escaped, and gnuplot gets numbers only, never a string of a document.
 * Knows nothing of the gradebook: the command loads the runs and writes
 * the students' own pages.
 */
#include "htmldash.h"

#include "doc.h"
#include "leaderboard.h"
#include "htmlreport.h"
#include "result.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *collapse_numbers(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "");
	for (const char *start = s; s && *s; s++) {
		/* a digit inside a name (matmul_k1, float4) is the name's: k1 is not k5 */
		bool in_name = s > start && (isalnum((unsigned char)s[-1]) || s[-1] == '_');
		if (*s >= '0' && *s <= '9' && !in_name) {
			while (s[1] >= '0' && s[1] <= '9')
				s++;
			strbuf_addstr(&sb, "#");
		} else {
			strbuf_add(&sb, s, 1);
		}
	}
	return strbuf_detach(&sb);
}

/* What the class did on one test of the lab (part/name). */
struct test_stat {
	const char *part, *name;   /* the first document's strings */
	int passed, ran;
	double *ratios;            /* a timed kernel's measured ratios */
	size_t nratios;
	size_t *missed, nmissed;   /* the runs (indexes) it ran for and did not pass */
};

/* One failure message, its numbers collapsed, and how often it was given. */
struct failure {
	char *text;
	const char *part, *name;   /* where it was first seen */
	int count;
	size_t *runs, nruns;       /* the runs (indexes) that were given it, each once */
};

/* Adds run r to the list (runs, n) unless it is its last already. */
static void add_run(size_t **runs, size_t *n, size_t r)
{
	if (*n && (*runs)[*n - 1] == r)
		return;
	*runs = xrealloc(*runs, (*n + 1) * sizeof(**runs));
	(*runs)[(*n)++] = r;
}

static struct test_stat *find_test(struct test_stat **stats, size_t *n, json_t *t)
{
	const char *part = doc_str(t, "part"), *name = doc_str(t, "name");

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*stats)[i].part, part) && !strcmp((*stats)[i].name, name))
			return &(*stats)[i];
	*stats = xrealloc(*stats, (*n + 1) * sizeof(**stats));
	(*stats)[*n] = (struct test_stat){.part = part, .name = name};
	return &(*stats)[(*n)++];
}

static void count_failure(struct failure **fails, size_t *n, json_t *t, size_t run)
{
	const char *msg = doc_str(t, "message");
	char *text = collapse_numbers(*msg ? msg : "(no message)");

	/* a page of one checker's output is one message, not a different one per student */
	if (strlen(text) > 400)
		strcpy(text + 397, "...");
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*fails)[i].text, text)) {
			(*fails)[i].count++;
			add_run(&(*fails)[i].runs, &(*fails)[i].nruns, run);
			free(text);
			return;
		}
	*fails = xrealloc(*fails, (*n + 1) * sizeof(**fails));
	(*fails)[(*n)++] = (struct failure){
		.text = text, .part = doc_str(t, "part"), .name = doc_str(t, "name"), .count = 1};
	add_run(&(*fails)[*n - 1].runs, &(*fails)[*n - 1].nruns, run);
}

static int by_count(const void *a, const void *b)
{
	const struct failure *x = a, *y = b;
	return (y->count > x->count) - (y->count < x->count);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v (sorted, n > 0). */
static double median(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void add_cell(struct strbuf *sb, const char *text)
{
	strbuf_addstr(sb, "<td>");
	strbuf_add_html(sb, text);
	strbuf_addstr(sb, "</td>");
}

/*
 * The drill-down: a cell with how many students, opening (a <details>, no
 * script) to each of them, linked to their page.
 */
static void add_who(struct strbuf *sb, const struct dash_run *runs, const size_t *idx, size_t n)
{
	if (!n) {
		strbuf_addstr(sb, "<td class=\"num\">0</td>");
		return;
	}
	strbuf_addf(sb, "<td class=\"who\"><details><summary>%zu</summary>", n);
	for (size_t i = 0; i < n; i++) {
		const struct dash_run *r = &runs[idx[i]];
		if (i)
			strbuf_addstr(sb, ", ");
		if (r->link) {
			strbuf_addstr(sb, "<a href=\"");
			strbuf_add_html(sb, r->link);
			strbuf_addstr(sb, "\">");
		}
		strbuf_add_html(sb, doc_str(r->doc, "student"));
		if (r->link)
			strbuf_addstr(sb, "</a>");
	}
	strbuf_addstr(sb, "</details></td>");
}

/* A run's standing, said plainly: whether its score is a grade. */
static const char *standing(json_t *doc)
{
	const char *status = doc_str(doc, "status"), *mode = doc_str(doc, "mode");

	if (!strcmp(status, "not-built"))
		return "not built: zero";
	if (!strcmp(status, "incomplete"))
		return !strcmp(mode, "emulated") ? "provisional: emulated on the CPU, not a grade"
						 : "provisional: some tests did not run";
	if (!strcmp(status, "complete"))
		return "complete: a grade";
	return status;
}

/* The students' table, its rows in the order of order[] (indices into runs), of class row. */
static void add_student_table(struct strbuf *sb, const struct dash_run *runs, const size_t *order,
			      size_t n, const char *row)
{
	char score[SCORE_TEXT_MAX];

	strbuf_addstr(sb, "<table class=\"students\">\n<tr><th>student</th>"
			  "<th>run</th><th>score</th><th>status</th><th>mode</th><th>build</th>"
			  "<th>late days</th><th>late penalty</th></tr>\n");
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		json_t *doc = runs[i].doc;
		struct score_view view = doc_score_view(doc);

		strbuf_addf(sb, "<tr class=\"%s\"><td>", row);
		if (runs[i].link) {
			strbuf_addstr(sb, "<a href=\"");
			strbuf_add_html(sb, runs[i].link);
			strbuf_addstr(sb, "\">");
		}
		strbuf_add_html(sb, doc_str(doc, "student"));
		if (runs[i].link)
			strbuf_addstr(sb, "</a>");
		strbuf_addf(sb, "</td><td class=\"num\">%lld</td><td class=\"score\">", runs[i].id);
		strbuf_add_html(sb, score_text(score, &view));
		strbuf_addstr(sb, "</td>");
		add_cell(sb, standing(doc));
		add_cell(sb, doc_str(doc, "mode"));
		add_cell(sb, doc_str(json_object_get(doc, "build"), "status"));
		strbuf_addf(sb, "<td class=\"num\">%g</td><td class=\"num\">%g</td></tr>\n",
			    doc_late(doc, "days"), doc_late(doc, "penalty"));
	}
	strbuf_addstr(sb, "</table>\n");
}

/* qsort's context: the runs the indices sorted point into */
static const struct dash_run *sorting;

/* A score for sorting: NaN (not built, none yet) below every number. */
static double sort_score(size_t i)
{
	double s = doc_final_score(sorting[i].doc);
	return isnan(s) ? -INFINITY : s;
}

static int by_score(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	double sa = sort_score(a), sb = sort_score(b);

	return sa != sb ? (sa > sb ? -1 : 1) : (a > b) - (a < b);
}

static int by_late(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	double la = doc_late(sorting[a].doc, "days"), lb = doc_late(sorting[b].doc, "days");

	if (isnan(la))
		la = -1;
	if (isnan(lb))
		lb = -1;
	return la != lb ? (la > lb ? -1 : 1) : (a > b) - (a < b);
}

/*
 * The students: a row each in the order given (by id), then the same
 * table sorted by score and by late days, each in a <details> that opens
 * with no script (a link to its id opens it in current browsers). Only
 * the first table's rows are class "student": one row per student.
 */
static void add_students(struct strbuf *sb, const struct dash_run *runs, size_t n)
{
	size_t *order = xcalloc(n ? n : 1, sizeof(*order));
	static const struct {
		const char *id, *what;
		int (*cmp)(const void *, const void *);
	} sorts[] = {{"by-score", "by score, highest first", by_score},
		     {"by-late", "by late days, most first", by_late}};

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	strbuf_addstr(sb, "<h2>Students</h2>\n<p class=\"sorts\">Sorted by id; the same ");
	for (size_t s = 0; s < ARRAY_SIZE(sorts); s++)
		strbuf_addf(sb, "%s<a href=\"#students-%s\">%s</a>", s ? ", " : "", sorts[s].id,
			    sorts[s].what);
	strbuf_addstr(sb, " below.</p>\n");
	add_student_table(sb, runs, order, n, "student");
	sorting = runs;
	for (size_t s = 0; s < ARRAY_SIZE(sorts); s++) {
		for (size_t i = 0; i < n; i++)
			order[i] = i;
		qsort(order, n, sizeof(*order), sorts[s].cmp);
		strbuf_addf(sb, "<details class=\"sorted\" id=\"students-%s\"><summary>The students "
				"%s</summary>\n", sorts[s].id, sorts[s].what);
		add_student_table(sb, runs, order, n, "student-sorted");
		strbuf_addstr(sb, "</details>\n");
	}
	sorting = NULL;
	free(order);
}

/* The scores' histogram: ten bins from 0 to the lab's points. */
static void add_distribution(struct strbuf *sb, const struct dash_run *runs, size_t n)
{
	struct strbuf data = STRBUF_INIT, script = STRBUF_INIT;
	double max = 0, width;
	int bins[10] = {0};

	for (size_t i = 0; i < n; i++)
		if (doc_num(runs[i].doc, "max_score") > max)
			max = doc_num(runs[i].doc, "max_score");
	if (!(max > 0))
		max = 1;
	width = max / 10;
	for (size_t i = 0; i < n; i++) {
		double s = doc_final_score(runs[i].doc);
		int b = isnan(s) ? 0 : (int)floor(s / width);
		bins[b < 0 ? 0 : b > 9 ? 9 : b]++;   /* bonus beyond the points: the top bin */
	}
	strbuf_addstr(sb, "<h2>Scores</h2>\n");
	strbuf_addstr(&data, "");
	int most = 1;
	for (int b = 0; b < 10; b++) {
		strbuf_addf(&data, "%.6g %d\n", (b + 0.5) * width, bins[b]);
		most = bins[b] > most ? bins[b] : most;
	}
	/* whole students on the axis: a tic a student, or (more than ten) whole numbers */
	strbuf_addf(&script,
		    HTML_PLOT_TERMINAL
		    "set style fill solid 0.8 border -1\n"
		    "set boxwidth %.6g\n"
		    "set xrange [0:%.6g]\n"
		    "set yrange [0:%d]\n"
		    "set xtics %.6g\n"
		    "%s"
		    "set format y '%%.0f'\n"
		    "set grid ytics\n"
		    "set xlabel 'score (late penalty taken)'\n"
		    "set ylabel 'students'\n"
		    "plot 'data' using 1:2 with boxes notitle\n",
		    width * 0.95, max, most + (most + 9) / 10, width,
		    most <= 10 ? "set ytics 1\n" : "set ytics autofreq\n");
	html_add_plot(sb, script.buf, data.buf, "The class's scores, ten bins up to the lab's points");
	strbuf_addstr(sb, "<table>\n<tr><th>scores</th><th>students</th></tr>\n");
	for (int b = 0; b < 10; b++)
		strbuf_addf(sb, "<tr><td>%.4g to %.4g</td><td class=\"num\">%d</td></tr>\n",
			    b * width, (b + 1) * width, bins[b]);
	strbuf_addstr(sb, "</table>\n");
	strbuf_release(&data);
	strbuf_release(&script);
}

static void add_pass_rates(struct strbuf *sb, const struct test_stat *stats, size_t n,
			   const struct dash_run *runs)
{
	struct strbuf data = STRBUF_INIT, script = STRBUF_INIT;

	strbuf_addstr(sb, "<h2>Tests</h2>\n");
	if (!n) {
		strbuf_addstr(sb, "<p>No tests.</p>\n");
		return;
	}
	/* a test no one's submission ran has no rate: no bar (its row says -) */
	strbuf_addstr(&data, "");
	for (size_t i = 0; i < n; i++)
		if (stats[i].ran)
			strbuf_addf(&data, "%zu %.6g\n", i + 1,
				    100.0 * stats[i].passed / stats[i].ran);
	/* the tests by their number in the table: no name of theirs reaches gnuplot */
	strbuf_addf(&script,
		    HTML_PLOT_TERMINAL
		    "set style fill solid 0.8 border -1\n"
		    "set boxwidth 0.8\n"
		    "set xrange [0.4:%.1f]\n"
		    "set yrange [0:100]\n"
		    "set xtics 1\n"
		    "set grid ytics\n"
		    "set xlabel 'test (# of the table)'\n"
		    "set ylabel 'passed of those that ran (%%)'\n"
		    "plot 'data' using 1:2 with boxes notitle\n",
		    n + 0.6);
	if (data.len)
		html_add_plot(sb, script.buf, data.buf,
			      "Each test's pass rate over the class, of those it ran for");
	else
		strbuf_addstr(sb, "<p>No test ran for any student: no pass rate to plot.</p>\n");
	strbuf_addstr(sb, "<table class=\"pass-rates\">\n<tr><th>#</th><th>part</th><th>test</th>"
			  "<th>passed</th><th>ran</th><th>pass rate</th><th>did not pass</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(sb, "<tr class=\"rate\"><td class=\"num\">%zu</td>", i + 1);
		add_cell(sb, stats[i].part);
		add_cell(sb, stats[i].name);
		strbuf_addf(sb, "<td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num\">",
			    stats[i].passed, stats[i].ran);
		if (stats[i].ran)
			strbuf_addf(sb, "%.0f%%", 100.0 * stats[i].passed / stats[i].ran);
		else
			strbuf_addstr(sb, "-");
		strbuf_addstr(sb, "</td>");
		add_who(sb, runs, stats[i].missed, stats[i].nmissed);
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	strbuf_release(&data);
	strbuf_release(&script);
}

static void add_failures(struct strbuf *sb, struct failure *fails, size_t n,
			 const struct dash_run *runs)
{
	strbuf_addstr(sb, "<h2>Commonest failures</h2>\n");
	if (!n) {
		strbuf_addstr(sb, "<p>No test failed.</p>\n");
		return;
	}
	qsort(fails, n, sizeof(*fails), by_count);
	strbuf_addstr(sb, "<p>The messages of failed, crashed and timed-out tests, with each "
			  "number made <code>#</code>, so that those differing only in numbers "
			  "count as one; the ten given most often.</p>\n"
			  "<table class=\"failures\">\n<tr><th>times</th><th>message</th>"
			  "<th>first seen in</th><th>students</th></tr>\n");
	for (size_t i = 0; i < n && i < 10; i++) {
		strbuf_addf(sb, "<tr><td class=\"num\">%d</td><td><pre>", fails[i].count);
		strbuf_add_html(sb, fails[i].text);
		strbuf_addstr(sb, "</pre></td><td>");
		strbuf_add_html(sb, fails[i].part);
		strbuf_addstr(sb, "/");
		strbuf_add_html(sb, fails[i].name);
		strbuf_addstr(sb, "</td>");
		add_who(sb, runs, fails[i].runs, fails[i].nruns);
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

/* A run's place on the leaderboard. */
struct board_row {
	size_t run;        /* index into runs */
	bool ranked;
	double speed;
	char *shown;       /* the name it is shown under */
};

static int by_speed(const void *x, const void *y)
{
	const struct board_row *a = x, *b = y;

	if (a->ranked != b->ranked)
		return a->ranked ? -1 : 1;
	if (a->ranked && a->speed != b->speed)
		return a->speed > b->speed ? -1 : 1;
	return strcmp(a->shown, b->shown);
}

/* The timed test part/name of rows, or NULL. */
static const struct timing_row *timing_of_test(const struct timing_row *rows, size_t n,
					       const char *part, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].test.part, part) && !strcmp(rows[i].test.name, name))
			return &rows[i];
	return NULL;
}

/*
 * The leaderboard (lab.conf opts in): each student's latest run by its speed
 * against the reference, fastest first, then each timed kernel's rate; runs
 * not ranked after, saying so. A kernel timed against another launcher of
 * the submission (in any run) has no column. Under pseudonyms, no name and
 * no link to a student's page: the board may be shown to the class.
 */
static void add_leaderboard(struct strbuf *sb, const char *lab, const struct dash_run *runs,
			    size_t n, const struct dash_board *board)
{
	struct board_row *rows = xcalloc(n ? n : 1, sizeof(*rows));
	struct timing_row **t = xcalloc(n ? n : 1, sizeof(*t)), *cols = NULL;
	size_t *nt = xcalloc(n ? n : 1, sizeof(*nt)), ncols = 0;
	bool names = board->mode == LEADERBOARD_NAMES;

	for (size_t r = 0; r < n; r++) {
		const char *student = doc_str(runs[r].doc, "student");
		rows[r] = (struct board_row){.run = r};
		rows[r].shown = names ? xstrdup(student)
				      : leaderboard_pseudonym(board->salt, lab, student);
		nt[r] = doc_timing_rows(runs[r].doc, &t[r]);
		rows[r].ranked = leaderboard_rows_speed(
			t[r], nt[r], json_is_true(json_object_get(runs[r].doc, "provisional")),
			&rows[r].speed);
		if (nt[r] > ncols) {
			cols = t[r];
			ncols = nt[r];
		}
	}
	bool *own = xcalloc(ncols + 1, sizeof(*own));   /* against the submission's own launcher */
	for (size_t c = 0; c < ncols; c++)
		for (size_t r = 0; r < n; r++) {
			const struct timing_row *m = timing_of_test(t[r], nt[r], cols[c].test.part,
								    cols[c].test.name);
			own[c] |= m && !leaderboard_against_reference(m);
		}
	/* two students under one pseudonym: said, with the way out */
	const char *shared = NULL;
	for (size_t i = 0; i < n && !names && !shared; i++)
		for (size_t j = i + 1; j < n && !shared; j++)
			if (!strcmp(rows[i].shown, rows[j].shown))
				shared = rows[i].shown;
	qsort(rows, n, sizeof(*rows), by_speed);
	strbuf_addf(sb, "<h2>Leaderboard</h2>\n<p>Each student's latest run by how fast its "
			"kernels ran against the reference's: the geometric mean over the timed "
			"kernels of the reference's time over theirs (2 is twice as fast), "
			"fastest first. A run is ranked once every timed kernel was measured on "
			"a GPU and none was flagged.%s</p>\n<table class=\"board\">\n<tr><th>rank"
			"</th><th>%s</th><th>speed</th>",
		    names ? "" : " Students are shown under pseudonyms; each finds theirs on "
				 "their own page.", names ? "student" : "pseudonym");
	for (size_t c = 0; c < ncols; c++)
		if (!own[c]) {
			strbuf_addstr(sb, "<th>");
			strbuf_add_html(sb, cols[c].test.part);
			strbuf_addstr(sb, " ");
			strbuf_add_html(sb, cols[c].test.name);
			strbuf_addstr(sb, "</th>");
		}
	strbuf_addstr(sb, "</tr>\n");
	for (size_t i = 0, rank = 0; i < n; i++) {
		size_t r = rows[i].run;
		if (rows[i].ranked)
			strbuf_addf(sb, "<tr><td class=\"num\">%zu</td>", ++rank);
		else
			strbuf_addstr(sb, "<tr><td>-</td>");
		add_cell(sb, rows[i].shown);
		if (rows[i].ranked)
			strbuf_addf(sb, "<td class=\"num\">%.3f</td>", rows[i].speed);
		else
			strbuf_addstr(sb, "<td>not ranked</td>");
		for (size_t c = 0; c < ncols; c++) {
			if (own[c])
				continue;
			const struct timing_row *m = timing_of_test(t[r], nt[r], cols[c].test.part,
								    cols[c].test.name);
			if (m && m->measured && isfinite(m->student_gflops))
				strbuf_addf(sb, "<td class=\"num\">%.0f GFLOP/s</td>",
					    m->student_gflops);
			else if (m && m->measured && isfinite(m->student_gbs))
				strbuf_addf(sb, "<td class=\"num\">%.0f GB/s</td>", m->student_gbs);
			else
				strbuf_addstr(sb, "<td>-</td>");
		}
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	if (shared) {
		strbuf_addstr(sb, "<p class=\"warn\">Two students share the pseudonym ");
		strbuf_add_html(sb, shared);
		strbuf_addstr(sb, ": remove the gradebook's .leaderboard-salt file to draw new "
				  "pseudonyms for everyone.</p>\n");
	}
	for (size_t i = 0; i < n; i++) {
		free(rows[i].shown);
		free(t[i]);
	}
	free(own);
	free(rows);
	free(t);
	free(nt);
}

static void add_kernels(struct strbuf *sb, struct test_stat *stats, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= stats[i].nratios > 0;
	if (!any)
		return;
	strbuf_addstr(sb, "<h2>Timed kernels</h2>\n<p>Each kernel's time over the reference's "
			  "(1 is as fast; lower is faster), over the students it was measured "
			  "for.</p>\n<table class=\"kernels\">\n<tr><th>part</th><th>test</th>"
			  "<th>measured</th><th>min</th><th>median</th><th>max</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		struct test_stat *s = &stats[i];
		if (!s->nratios)
			continue;
		qsort(s->ratios, s->nratios, sizeof(*s->ratios), by_value);
		strbuf_addstr(sb, "<tr>");
		add_cell(sb, s->part);
		add_cell(sb, s->name);
		strbuf_addf(sb, "<td class=\"num\">%zu</td><td class=\"num\">%.4g</td>"
				"<td class=\"num\">%.4g</td><td class=\"num\">%.4g</td></tr>\n",
			    s->nratios, s->ratios[0], median(s->ratios, s->nratios),
			    s->ratios[s->nratios - 1]);
	}
	strbuf_addstr(sb, "</table>\n");
}

int html_dashboard(const char *lab, const struct dash_run *runs, size_t n, const char *similar,
		   const struct dash_board *board, char **page)
{
	struct strbuf sb = STRBUF_INIT;
	struct test_stat *stats = NULL;
	struct failure *fails = NULL;
	size_t nstats = 0, nfails = 0, provisional = 0, unbuilt = 0;
	const char *title = n ? doc_str(runs[0].doc, "lab_title") : "";
	json_t *t;
	size_t i;

	for (size_t r = 0; r < n; r++) {
		if (!json_is_object(runs[r].doc))
			return error("run %lld: not a result document", runs[r].id);
		provisional += !strcmp(doc_str(runs[r].doc, "status"), "incomplete");
		unbuilt += !strcmp(doc_str(runs[r].doc, "status"), "not-built");
		json_array_foreach(json_object_get(runs[r].doc, "tests"), i, t) {
			struct test_stat *s = find_test(&stats, &nstats, t);
			const char *status = doc_str(t, "status");
			json_t *tm = json_object_get(t, "timing");

			if (strcmp(status, "not-run"))
				s->ran++;
			if (!strcmp(status, "pass"))
				s->passed++;
			else if (strcmp(status, "not-run")) {
				count_failure(&fails, &nfails, t, r);
				add_run(&s->missed, &s->nmissed, r);
			}
			if (json_is_true(json_object_get(tm, "measured")) &&
			    !isnan(doc_num(tm, "ratio"))) {
				s->ratios = xrealloc(s->ratios, (s->nratios + 1) * sizeof(double));
				s->ratios[s->nratios++] = doc_num(tm, "ratio");
			}
		}
	}
	html_open(&sb, NULL, (const char *const[]){lab, "the class", NULL});
	strbuf_addstr(&sb, "<h1>");
	strbuf_add_html(&sb, *title ? title : lab);
	strbuf_addstr(&sb, ": the class</h1>\n");
	strbuf_addf(&sb, "<p class=\"summary\">%zu students, each by their latest run of <code>", n);
	strbuf_add_html(&sb, lab);
	strbuf_addf(&sb, "</code>; %zu did not build.</p>\n", unbuilt);
	if (provisional)
		strbuf_addf(&sb, "<p class=\"warn\">%zu of the runs are provisional, not grades: "
				 "some of their tests did not run (emulated on the CPU, or no "
				 "GPU).</p>\n", provisional);
	if (similar) {
		strbuf_addstr(&sb, "<p>Copies: <a href=\"");
		strbuf_add_html(&sb, similar);
		strbuf_addstr(&sb, "\">the class's similarity page</a> (<code>cudalab "
				   "similar</code>).</p>\n");
	}
	add_students(&sb, runs, n);
	add_distribution(&sb, runs, n);
	add_pass_rates(&sb, stats, nstats, runs);
	add_failures(&sb, fails, nfails, runs);
	add_kernels(&sb, stats, nstats);
	if (board && board->mode != LEADERBOARD_OFF)
		add_leaderboard(&sb, lab, runs, n, board);
	strbuf_addstr(&sb, "<p><small>Made by <code>cudalab report --class</code> from the "
			   "runs' result documents.</small></p>\n");
	html_close(&sb);
	*page = strbuf_detach(&sb);
	for (i = 0; i < nstats; i++) {
		free(stats[i].ratios);
		free(stats[i].missed);
	}
	free(stats);
	for (i = 0; i < nfails; i++) {
		free(fails[i].text);
		free(fails[i].runs);
	}
	free(fails);
	return 0;
}
