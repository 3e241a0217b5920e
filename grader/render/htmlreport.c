/*
 * htmlreport.c - one run's HTML page (htmlreport.h). Derives everything
 * from the result document and decides nothing; every string of it is
 * escaped. Plots are gnuplot's, run as a trusted child on a script of our
 * own text and a data file; no string of the document reaches the script.
 * Knows nothing of the gradebook or of labs.
 */
#include "htmlreport.h"

#include "doc.h"
#include "result.h"
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_add_html(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			strbuf_addstr(sb, "&amp;");
			break;
		case '<':
			strbuf_addstr(sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(sb, "&gt;");
			break;
		case '"':
			strbuf_addstr(sb, "&quot;");
			break;
		case '\'':
			strbuf_addstr(sb, "&#39;");
			break;
		default:
			strbuf_add(sb, s, 1);
		}
	}
}

char *html_escape(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "");
	strbuf_add_html(&sb, s);
	return strbuf_detach(&sb);
}

char *safe_name(const char *s)
{
	char *out = xstrdup(s ? s : "");
	for (char *p = out; *p; p++)
		if (!ident_char(*p) && *p != '.' && *p != '-')
			*p = '_';
	return out;
}

/* A number of the document, or "-" where it was not measured. */
static void add_num(struct strbuf *sb, double v, const char *fmt)
{
	if (isnan(v))
		strbuf_addstr(sb, "-");
	else
		strbuf_addf(sb, fmt, v);
}

static void add_row(struct strbuf *sb, const char *head, const char *text)
{
	strbuf_addf(sb, "<tr><th>%s</th><td>", head);
	strbuf_add_html(sb, text);
	strbuf_addstr(sb, "</td></tr>\n");
}

static void add_pre(struct strbuf *sb, const char *text)
{
	if (!text || !*text)
		return;
	strbuf_addstr(sb, "<pre>");
	strbuf_add_html(sb, text);
	strbuf_addstr(sb, "</pre>\n");
}

static const char *mode_text(const char *mode)
{
	if (!strcmp(mode, "gpu"))
		return "GPU";
	if (!strcmp(mode, "emulated"))
		return "emulated on the CPU: provisional, not a grade";
	if (!strcmp(mode, "cpu"))
		return "CPU (this lab's tests need no GPU)";
	if (!strcmp(mode, "none"))
		return "none: no GPU, and the tests were not run";
	return mode;
}

/* The run's standing, as the terminal report says it (report.c). */
static void add_standing(struct strbuf *sb, json_t *doc)
{
	const char *status = doc_str(doc, "status");

	if (!strcmp(status, "incomplete")) {
		strbuf_addstr(sb, "<p class=\"warn\">");
		if (!strcmp(doc_str(doc, "mode"), "emulated"))
			strbuf_addstr(sb, "PROVISIONAL: emulated on the CPU, not a grade");
		else {
			strbuf_addstr(sb, "INCOMPLETE: ");
			strbuf_add_html(sb, *doc_str(doc, "status_reason")
						    ? doc_str(doc, "status_reason")
						    : "some tests did not run");
			strbuf_addstr(sb, "; not a grade until every test has run");
		}
		strbuf_addstr(sb, "</p>\n");
	} else if (!strcmp(status, "not-built")) {
		strbuf_addstr(sb, "<p class=\"warn\">NOT BUILT: fix the build first</p>\n");
	}
}

static void add_files(struct strbuf *sb, json_t *doc)
{
	json_t *files = json_object_get(doc, "files"), *f;
	size_t i;

	strbuf_addstr(sb, "<h2>Submission</h2>\n");
	if (!json_array_size(files)) {
		strbuf_addstr(sb, "<p>No files were graded.</p>\n");
		return;
	}
	strbuf_addstr(sb, "<table>\n<tr><th>file</th><th>bytes</th><th>sha256</th></tr>\n");
	json_array_foreach(files, i, f) {
		strbuf_addstr(sb, "<tr><td>");
		strbuf_add_html(sb, doc_str(f, "name"));
		strbuf_addstr(sb, "</td><td class=\"num\">");
		add_num(sb, doc_num(f, "bytes"), "%.0f");
		strbuf_addstr(sb, "</td><td><code>");
		strbuf_add_html(sb, doc_str(f, "sha256"));
		strbuf_addstr(sb, "</code></td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

static void add_build(struct strbuf *sb, json_t *doc)
{
	json_t *b = json_object_get(doc, "build");

	strbuf_addstr(sb, "<h2>Build</h2>\n<table class=\"facts\">\n");
	add_row(sb, "status", doc_str(b, "status"));
	strbuf_addstr(sb, "<tr><th>seconds</th><td>");
	add_num(sb, doc_num(b, "seconds"), "%.1f");
	strbuf_addstr(sb, "</td></tr>\n</table>\n");
	add_pre(sb, doc_str(b, "message"));
	if (*doc_str(b, "log")) {
		strbuf_addstr(sb, "<h3>Compiler diagnostics</h3>\n");
		add_pre(sb, doc_str(b, "log"));
	}
}

/* A test's points, "1.5 / 2.5", or "- / 2.5" where they are not counted yet. */
static void add_points(struct strbuf *sb, const struct test_view *v)
{
	if (v->pending || v->later)
		strbuf_addstr(sb, "-");
	else
		add_num(sb, v->points, "%g");
	strbuf_addstr(sb, " / ");
	add_num(sb, v->max_points, "%g");
}

static void add_tests(struct strbuf *sb, json_t *doc)
{
	json_t *tests = json_object_get(doc, "tests"), *t;
	size_t i;

	strbuf_addstr(sb, "<h2>Tests</h2>\n<table>\n<tr><th>part</th><th>test</th><th>kind</th>"
			  "<th>verdict</th><th>points</th><th>message</th></tr>\n");
	json_array_foreach(tests, i, t) {
		/* pending a GPU run, or graded later: as in every other medium (doc.h) */
		struct test_view v = doc_test_view(doc, t);
		char *cls = safe_name(v.status);

		strbuf_addf(sb, "<tr class=\"%s\"><td>", cls);
		free(cls);
		strbuf_add_html(sb, doc_str(t, "part"));
		strbuf_addstr(sb, "</td><td>");
		strbuf_add_html(sb, doc_str(t, "name"));
		if (json_is_true(json_object_get(t, "bonus")))
			strbuf_addstr(sb, " (bonus)");
		strbuf_addstr(sb, "</td><td>");
		strbuf_add_html(sb, doc_str(t, "kind"));
		strbuf_addstr(sb, "</td><td class=\"verdict\">");
		strbuf_add_html(sb, test_view_verdict(&v));
		strbuf_addstr(sb, "</td><td class=\"num\">");
		add_points(sb, &v);
		strbuf_addstr(sb, "</td><td>");
		add_pre(sb, doc_str(t, "message"));
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

/* The library's GFLOP/s at size (the cuBLAS ceiling), NAN when not measured. */
static double ceiling_at(json_t *timing, double size)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(timing, "ceilings"), i, c)
		if (doc_num(c, "size") == size)
			return doc_num(c, "gflops");
	return NAN;
}

/*
 * One metric's plot: "gflops" (with the ceiling per size and the device's
 * FP32 peak) or "gbs" (with its copy bandwidth). The data file carries the
 * numbers and a sanitized label per kernel; the script is ours alone.
 */
struct metric {
	const char *key, *unit, *ceiling_title, *line_key, *line_title;
};
static const struct metric metrics[] = {
	{"gflops", "GFLOP/s", "cuBLAS", "peak_gflops", "device FP32 peak"},
	{"gbs", "GB/s", NULL, "copy_gbs", "device copy bandwidth"},
};

/*
 * The kernel a timed test compares with, when not the reference: the
 * coalescing lab's rows-vs-cols times the student's rows against the
 * student's own columns. NULL for a comparison with the reference.
 */
static const char *baseline_of(json_t *t)
{
	const char *b = doc_str(json_object_get(t, "timing"), "baseline");
	return *b ? b : NULL;
}

/* t measured in m against the reference (what the plots show) */
static bool measured(json_t *t, const struct metric *m)
{
	json_t *tm = json_object_get(t, "timing");
	char key[32];

	if (baseline_of(t))
		return false;

	snprintf(key, sizeof(key), "student_%s", m->key);
	return !strcmp(doc_str(t, "kind"), "timing") &&
	       json_is_true(json_object_get(tm, "measured")) && !isnan(doc_num(tm, key));
}

static void fmt_num(struct strbuf *sb, double v)
{
	if (isnan(v))
		strbuf_addstr(sb, " ?");
	else
		strbuf_addf(sb, " %.6g", v);
}

int gnuplot_svg(const char *script, const char *data, char **svg, char **why)
{
	char *gnuplot = path_lookup("gnuplot"), *dir = NULL, *path, *out = NULL;
	const char *tmp = getenv("TMPDIR");
	struct run_result res = {0};
	size_t len;
	int ret = -1;

	*svg = NULL;
	*why = NULL;
	if (!gnuplot) {
		*why = xstrdup("gnuplot is not installed here (Debian: gnuplot-nox)");
		return -1;
	}
	dir = xasprintf("%s/cudalab-plot.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		*why = xasprintf("cannot make a folder for gnuplot under '%s'", tmp && *tmp ? tmp : "/tmp");
		goto out;
	}
	path = xasprintf("%s/data", dir);
	ret = write_file_atomic(path, data, strlen(data));
	free(path);
	if (ret) {
		*why = xstrdup("cannot write gnuplot's data file");
		goto out;
	}
	path = xasprintf("%s/plot.gp", dir);
	ret = write_file_atomic(path, script, strlen(script));
	free(path);
	if (ret) {
		*why = xstrdup("cannot write gnuplot's script");
		goto out;
	}
	const char *argv[] = {gnuplot, "plot.gp", NULL};
	struct run_spec spec = {.argv = argv, .cwd = dir, .timeout = 60};
	ret = -1;
	if (run_one(&spec, &res))
		goto out;
	if (!res.started || res.timed_out || res.signal || res.exit_code) {
		char *how = run_describe(&spec, &res);
		*why = xasprintf("gnuplot %s%s%s", how, res.output && *res.output ? ": " : "",
				 res.output ? res.output : "");
		free(how);
		goto out;
	}
	path = xasprintf("%s/plot.svg", dir);
	report_quiet = true;   /* a missing file is said on the page */
	out = read_file(path, &len);
	report_quiet = false;
	free(path);
	const char *start = out ? strstr(out, "<svg") : NULL;
	if (!start) {
		*why = xstrdup("gnuplot wrote no SVG");
		goto out;
	}
	*svg = xstrdup(start);
	ret = 0;
out:
	run_result_release(&res);
	if (dir && *dir)
		remove_tree(dir);
	free(dir);
	free(out);
	free(gnuplot);
	return ret;
}

void html_add_plot(struct strbuf *sb, const char *script, const char *data, const char *caption)
{
	char *svg, *why;

	strbuf_addstr(sb, "<figure class=\"plot\">\n");
	if (!gnuplot_svg(script, data, &svg, &why)) {
		/* named by its caption, not by gnuplot's own <title>Gnuplot</title> */
		const char *gtitle = strstr(svg, "<title>Gnuplot</title>");
		strbuf_addstr(sb, "<svg role=\"img\" aria-label=\"");
		strbuf_add_html(sb, caption);
		strbuf_addstr(sb, "\"");
		if (gtitle) {
			strbuf_add(sb, svg + 4, (size_t)(gtitle - svg) - 4);
			strbuf_addstr(sb, "<title>");
			strbuf_add_html(sb, caption);
			strbuf_addstr(sb, "</title>");
			strbuf_addstr(sb, gtitle + strlen("<title>Gnuplot</title>"));
		} else {
			strbuf_addstr(sb, svg + 4);
		}
		free(svg);
	} else {
		strbuf_addstr(sb, "<p class=\"warn\">The plot could not be drawn: ");
		strbuf_add_html(sb, why);
		strbuf_addstr(sb, ".</p>\n");
		free(why);
	}
	strbuf_addstr(sb, "<figcaption>");
	strbuf_add_html(sb, caption);
	strbuf_addstr(sb, "</figcaption>\n</figure>\n");
}

/* m's plot of doc, or why it could not be drawn, appended to sb. */
static void add_plot(struct strbuf *sb, json_t *doc, const struct metric *m)
{
	json_t *timing = json_object_get(doc, "timing"), *tests = json_object_get(doc, "tests"), *t;
	struct strbuf data = STRBUF_INIT, script = STRBUF_INIT;
	char skey[32], rkey[32];
	double line = doc_num(timing, m->line_key), lo = INFINITY, hi = 0;
	size_t i;

	snprintf(skey, sizeof(skey), "student_%s", m->key);
	snprintf(rkey, sizeof(rkey), "reference_%s", m->key);
	strbuf_addstr(&data, "");
	json_array_foreach(tests, i, t) {
		json_t *tm = json_object_get(t, "timing");
		if (!measured(t, m))
			continue;
		char *part = safe_name(doc_str(t, "part")), *name = safe_name(doc_str(t, "name"));
		strbuf_addf(&data, "%s:%s", part, name);
		free(part);
		free(name);
		double v[] = {doc_num(tm, skey), doc_num(tm, rkey),
			      m->ceiling_title ? ceiling_at(timing, doc_num(tm, "size")) : NAN};
		for (size_t k = 0; k < ARRAY_SIZE(v); k++) {
			fmt_num(&data, v[k]);
			if (v[k] > 0) {
				lo = fmin(lo, v[k]);
				hi = fmax(hi, v[k]);
			}
		}
		strbuf_addstr(&data, "\n");
	}
	if (line > 0)
		hi = fmax(hi, line);
	/*
	 * A naive kernel at a hundredth of the library's rate is a sliver on a
	 * linear axis: past a factor of 30 between the least and the most, the
	 * axis is logarithmic, from a little under the least.
	 */
	char yrange[96] = "set yrange [0:*]\n";
	if (hi > 0 && lo < INFINITY && hi / lo > 30)
		snprintf(yrange, sizeof(yrange), "set logscale y 10\nset yrange [%.6g:%.6g]\n",
			 pow(10, floor(log10(lo))), pow(10, ceil(log10(hi * 1.05))));
	/* noenhanced: a label's '_' and '@' are text, not markup */
	strbuf_addf(&script,
		    HTML_PLOT_TERMINAL
		    "set datafile missing '?'\n"
		    "set style data histograms\n"
		    "set style histogram clustered gap 1\n"
		    "set style fill solid 0.8 border -1\n"
		    "%s"
		    "set xtics rotate by -30\n"
		    "set key outside top center horizontal\n"
		    "set grid ytics\n"
		    "set ylabel '%s%s'\n"
		    "plot 'data' using 2:xtic(1) title 'your kernel', "
		    "'' using 3 title 'reference'",
		    yrange, m->unit, strstr(yrange, "log") ? " (log scale)" : "");
	if (m->ceiling_title)
		strbuf_addf(&script, ", '' using 0:4 with linespoints lw 2 pt 7 title '%s'",
			    m->ceiling_title);
	if (!isnan(line))
		strbuf_addf(&script, ", %.6g with lines dt 2 lw 2 title '%s (%.0f %s)'", line,
			    m->line_title, line, m->unit);
	strbuf_addstr(&script, "\n");
	char *caption = xasprintf("Your kernels against the reference, %s", m->unit);
	html_add_plot(sb, script.buf, data.buf, caption);
	free(caption);
	strbuf_release(&data);
	strbuf_release(&script);
}

/*
 * A series: the measured timed kernels of one part whose names are one
 * prefix and a number (stride1, stride2 ... stride32), three or more of
 * them: their bandwidth is plotted against the number. The coalescing lab's
 * strided copy is one; a lab that names kernels so gets its curve.
 */
#define SERIES_MAX 64
struct series_point {
	long n;
	double student, reference;
};

/* The prefix of t's kernel into prefix and its number into *n, or false. */
static bool series_name(json_t *t, char *prefix, size_t size, long *n)
{
	const char *k = doc_str(json_object_get(t, "timing"), "kernel");
	size_t len = strlen(k), digits = strspn(k + strcspn(k, "0123456789"), "0123456789");
	size_t at = len - digits;

	if (!digits || !at || at >= size || k[at + digits] || strcspn(k, "0123456789") != at ||
	    digits > 6)
		return false;
	memcpy(prefix, k, at);
	prefix[at] = '\0';
	*n = strtol(k + at, NULL, 10);
	return true;
}

static int by_n(const void *a, const void *b)
{
	const struct series_point *x = a, *y = b;
	return (x->n > y->n) - (x->n < y->n);
}

/* The series of part and prefix in doc, its points sorted by number. */
static size_t series_points(json_t *doc, const char *part, const char *prefix,
			    struct series_point *pts)
{
	json_t *t;
	size_t i, np = 0;

	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		json_t *tm = json_object_get(t, "timing");
		char p[64];
		long n;
		if (np == SERIES_MAX || !measured(t, &metrics[1]) || strcmp(doc_str(t, "part"), part) ||
		    !series_name(t, p, sizeof(p), &n) || strcmp(p, prefix))
			continue;
		pts[np++] = (struct series_point){n, doc_num(tm, "student_gbs"),
						  doc_num(tm, "reference_gbs")};
	}
	qsort(pts, np, sizeof(*pts), by_n);
	return np;
}

static void add_series_plot(struct strbuf *sb, json_t *doc, const char *part, const char *prefix,
			    const struct series_point *pts, size_t np)
{
	double line = doc_num(json_object_get(doc, "timing"), "copy_gbs");
	struct strbuf data = STRBUF_INIT, script = STRBUF_INIT;

	strbuf_addstr(&data, "");
	for (size_t i = 0; i < np; i++) {
		strbuf_addf(&data, "%ld", pts[i].n);
		fmt_num(&data, pts[i].student);
		fmt_num(&data, pts[i].reference);
		strbuf_addstr(&data, "\n");
	}
	strbuf_addstr(&script, HTML_PLOT_TERMINAL
		      "set datafile missing '?'\n"
		      "set logscale x 2\n"
		      "set yrange [0:*]\n"
		      "set key outside top center horizontal\n"
		      "set grid xtics ytics\n"
		      "set xlabel 'the number in the kernel name (log scale)'\n"
		      "set ylabel 'GB/s'\n"
		      "plot 'data' using 1:2 with linespoints lw 2 pt 7 title 'your kernel', "
		      "'' using 1:3 with linespoints lw 2 pt 5 dt 3 title 'reference'");
	if (!isnan(line))
		strbuf_addf(&script, ", %.6g with lines dt 2 lw 2 title 'device copy bandwidth (%.0f GB/s)'",
			    line, line);
	strbuf_addstr(&script, "\n");
	struct strbuf caption = STRBUF_INIT;
	strbuf_addf(&caption, "Bandwidth against the number in the kernel's name: %s%ld to %s%ld (part %s), yours and the reference's",
		    prefix, pts[0].n, prefix, pts[np - 1].n, part);
	html_add_plot(sb, script.buf, data.buf, caption.buf);
	strbuf_release(&caption);
	strbuf_release(&data);
	strbuf_release(&script);
}

/* Every series of doc, each plotted once, in the order the tests come. */
static void add_series(struct strbuf *sb, json_t *doc)
{
	json_t *tests = json_object_get(doc, "tests"), *t, *u;
	struct series_point pts[SERIES_MAX];
	size_t i, j;

	json_array_foreach(tests, i, t) {
		char prefix[64], p[64];
		long n;
		bool seen = false;
		if (!measured(t, &metrics[1]) || !series_name(t, prefix, sizeof(prefix), &n))
			continue;
		/* a series is drawn where its first member comes */
		json_array_foreach(tests, j, u) {
			if (j >= i)
				break;
			seen |= measured(u, &metrics[1]) && series_name(u, p, sizeof(p), &n) &&
				!strcmp(p, prefix) && !strcmp(doc_str(u, "part"), doc_str(t, "part"));
		}
		size_t np = seen ? 0 : series_points(doc, doc_str(t, "part"), prefix, pts);
		if (np >= 3)
			add_series_plot(sb, doc, doc_str(t, "part"), prefix, pts, np);
	}
}

/* The sectors tests: what Nsight Compute, or the emulator's trace, counted. */
static void add_sectors(struct strbuf *sb, json_t *doc)
{
	struct sectors_row *rows;
	size_t n = doc_sectors_rows(doc, &rows);

	if (!n) {
		free(rows);
		return;
	}
	strbuf_addstr(sb, "<h2>Memory requests: sectors per request</h2>\n"
			  "<p>Each time a warp loads or stores, the memory system moves 32-byte "
			  "sectors. A warp reading 32 consecutive floats needs 4 of them; up to 32 "
			  "when every thread's float lies in a sector of its own.</p>\n"
			  "<table>\n<tr><th>part</th><th>test</th><th>kernel</th><th>verdict</th>"
			  "<th>points</th><th>loads: sectors per request</th>"
			  "<th>stores: sectors per request</th><th>load requests</th>"
			  "<th>store requests</th><th>counted by</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		const struct sectors_row *m = &rows[i];
		const double cols[] = {m->load_per_request, m->store_per_request, m->load_requests,
				       m->store_requests};
		char *cls = safe_name(m->test.status);
		strbuf_addf(sb, "<tr class=\"%s\"><td>", cls);
		free(cls);
		strbuf_add_html(sb, m->test.part);
		strbuf_addstr(sb, "</td><td>");
		strbuf_add_html(sb, m->test.name);
		strbuf_addstr(sb, "</td><td><code>");
		strbuf_add_html(sb, m->call);
		strbuf_addstr(sb, "</code></td><td class=\"verdict\">");
		strbuf_add_html(sb, test_view_verdict(&m->test));
		strbuf_addstr(sb, "</td><td class=\"num\">");
		add_points(sb, &m->test);
		strbuf_addstr(sb, "</td>");
		for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
			strbuf_addstr(sb, "<td class=\"num\">");
			add_num(sb, m->measured ? cols[c] : NAN, c < 2 ? "%.2f" : "%.0f");
			strbuf_addstr(sb, "</td>");
		}
		strbuf_addstr(sb, "<td>");
		strbuf_add_html(sb, m->measured ? m->source : "not counted");
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	free(rows);
}

static void add_timing(struct strbuf *sb, json_t *doc)
{
	json_t *timing = json_object_get(doc, "timing"), *tests = json_object_get(doc, "tests"), *t;
	bool any = false, plotted = false;
	size_t i;

	json_array_foreach(tests, i, t)
		any |= !strcmp(doc_str(t, "kind"), "timing");
	if (!any)
		return;
	strbuf_addstr(sb, "<h2>Timed kernels</h2>\n");
	if (!json_is_true(json_object_get(timing, "ran"))) {
		strbuf_addstr(sb, "<p>Not timed: ");
		strbuf_add_html(sb, *doc_str(timing, "reason") ? doc_str(timing, "reason")
							       : "the timing driver did not run");
		strbuf_addstr(sb, ".</p>\n");
	}
	for (size_t k = 0; k < ARRAY_SIZE(metrics); k++) {
		const struct metric *m = &metrics[k];
		bool has = false;

		json_array_foreach(tests, i, t)
			has |= measured(t, m);
		/* a kernel with arithmetic is plotted in GFLOP/s only */
		if (!has || plotted)
			continue;
		plotted = true;
		add_plot(sb, doc, m);
	}
	add_series(sb, doc);
	strbuf_addstr(sb, "<table>\n<tr><th>part</th><th>test</th><th>your ms</th>"
			  "<th>reference ms</th><th>ratio</th><th>your GFLOP/s</th>"
			  "<th>reference GFLOP/s</th><th>your GB/s</th><th>reference GB/s</th></tr>\n");
	struct timing_row *rows;
	size_t n = doc_timing_rows(doc, &rows);
	for (size_t r = 0; r < n; r++) {
		const struct timing_row *m = &rows[r];
		const double cols[] = {m->student_ms,       m->reference_ms, m->ratio,
				       m->student_gflops,   m->reference_gflops, m->student_gbs,
				       m->reference_gbs};
		strbuf_addstr(sb, "<tr><td>");
		strbuf_add_html(sb, m->test.part);
		strbuf_addstr(sb, "</td><td>");
		strbuf_add_html(sb, m->test.name);
		if (*m->baseline) {
			/* its "your" columns are subject's, its "reference" columns baseline's */
			strbuf_addstr(sb, "<br><small>the first columns: ");
			strbuf_add_html(sb, m->subject);
			strbuf_addstr(sb, "; the reference's: ");
			strbuf_add_html(sb, m->baseline);
			strbuf_addstr(sb, "</small>");
		}
		strbuf_addstr(sb, "</td>");
		for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
			/* GFLOP/s in the thousands as a whole number: 17000, not 1.7e+04 */
			strbuf_addstr(sb, "<td class=\"num\">");
			add_num(sb, cols[c], fabs(cols[c]) >= 1e4 ? "%.0f" : "%.4g");
			strbuf_addstr(sb, "</td>");
		}
		strbuf_addstr(sb, "</tr>\n");
	}
	free(rows);
	strbuf_addstr(sb, "</table>\n<table class=\"facts\">\n<tr><th>device FP32 peak</th><td>");
	add_num(sb, doc_num(timing, "peak_gflops"), "%.0f GFLOP/s");
	strbuf_addstr(sb, "</td></tr>\n<tr><th>device copy bandwidth</th><td>");
	add_num(sb, doc_num(timing, "copy_gbs"), "%.0f GB/s");
	strbuf_addstr(sb, "</td></tr>\n</table>\n");
}

const char html_style[] =
	"body{font-family:sans-serif;max-width:70em;margin:1em auto;padding:0 1em;color:#222}\n"
	"table{border-collapse:collapse;margin:.5em 0}\n"
	"th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}\n"
	"td.num{text-align:right}\n"
	/* a number, a verdict or a short score broken over two lines reads as two */
	"td.num,td.verdict{white-space:nowrap}\n"
	"td.score{min-width:8em}\n"
	"table.facts th{background:#f4f4f4}\n"
	"pre{margin:0;white-space:pre-wrap;font-size:90%}\n"
	"pre.source{border:1px solid #ccc;padding:.3em;overflow-x:auto}\n"
	"pre.source .ln{color:#555;user-select:none}\n"
	"pre.source mark{background:#ffe08a}\n"
	"tr.pass td.verdict{color:#060}\n"
	"tr.fail td.verdict,tr.crash td.verdict,tr.timeout td.verdict{color:#a00;font-weight:bold}\n"
	".warn{color:#a00;font-weight:bold}\n"
	"figure.plot svg{max-width:100%;height:auto}\n"
	/* a phone: a table wider than the screen scrolls in its place, the text
	 * keeps its size */
	"@media (max-width:40em){body{margin:.5em auto;padding:0 .5em}"
	"table{display:block;overflow-x:auto;max-width:100%}}\n"
	/* a long word (a student's id, a path) breaks rather than widen the page */
	"h1,h2,h3,p,li,figcaption{overflow-wrap:anywhere}\n";

void html_open(struct strbuf *sb, const char *extra_style, const char *const *title)
{
	strbuf_addstr(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			  "<title>cudalab: ");
	for (size_t i = 0; title[i]; i++) {
		if (i)
			strbuf_addstr(sb, ", ");
		strbuf_add_html(sb, title[i]);
	}
	strbuf_addf(sb, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n<main>\n", html_style,
		    extra_style ? extra_style : "");
}

void html_close(struct strbuf *sb)
{
	strbuf_addstr(sb, "</main>\n</body>\n</html>\n");
}

/*
 * The command that grades the run's submission again as this run was
 * graded: its folder, student and seed (the same inputs), and where it ran
 * on the CPU emulator, --emulate. Each word quoted for the shell where it
 * needs it (a student's id is theirs to choose), then escaped for HTML.
 */
static void add_reproduce(struct strbuf *sb, json_t *doc)
{
	json_t *seed = json_object_get(doc, "seed");
	struct strbuf cmd = STRBUF_INIT;

	if (!*doc_str(doc, "submission"))
		return;
	strbuf_addstr(&cmd, "cudalab grade ");
	strbuf_add_shell_word(&cmd, doc_str(doc, "lab"));
	strbuf_addstr(&cmd, " ");
	strbuf_add_shell_word(&cmd, doc_str(doc, "submission"));
	strbuf_addstr(&cmd, " --student ");
	strbuf_add_shell_word(&cmd, doc_str(doc, "student"));
	if (json_is_integer(seed) && json_integer_value(seed) >= 0)
		strbuf_addf(&cmd, " --seed %" JSON_INTEGER_FORMAT, json_integer_value(seed));
	if (!strcmp(doc_str(doc, "mode"), "emulated"))
		strbuf_addstr(&cmd, " --emulate");
	strbuf_addstr(sb, "<tr><th>reproduce</th><td><code>");
	strbuf_add_html(sb, cmd.buf);
	strbuf_addstr(sb, "</code></td></tr>\n");
	strbuf_release(&cmd);
}

/* The student's runs of this lab, newest first, this one marked. */
static void add_history(struct strbuf *sb, const struct run_summary *hist, size_t n,
			long long run_id)
{
	char score[SCORE_TEXT_MAX];

	if (n < 2)
		return;   /* this run alone: nothing to compare it with */
	strbuf_addstr(sb, "<h2>History</h2>\n<p>Every run of this lab for this student in the "
			  "gradebook, newest first.</p>\n<table>\n<tr><th>run</th><th>started</th>"
			  "<th>mode</th><th>status</th><th>score</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		struct score_view v = run_score_view(&hist[i]);
		bool this = hist[i].id == run_id;

		strbuf_addf(sb, "<tr%s><td class=\"num\">%s%lld%s</td><td>",
			    this ? " aria-current=\"page\"" : "", this ? "<strong>" : "", hist[i].id,
			    this ? " (this run)</strong>" : "");
		strbuf_add_html(sb, hist[i].started_at ? hist[i].started_at : "");
		strbuf_addstr(sb, "</td><td>");
		strbuf_add_html(sb, mode_text(hist[i].mode ? hist[i].mode : ""));
		strbuf_addstr(sb, "</td><td>");
		strbuf_add_html(sb, hist[i].status ? hist[i].status : "");
		strbuf_addstr(sb, "</td><td class=\"num\">");
		strbuf_add_html(sb, score_text(score, &v));
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

/* the lines of a file the source view shows at most */
#define SOURCE_LINES_MAX 5000

/* Marks in marked[1..nlines] each line that text names as "name:LINE". */
static void mark_named_lines(const char *text, const char *name, bool *marked, size_t nlines)
{
	size_t n = strlen(name);

	for (const char *p = text; n && (p = strstr(p, name)); p += n) {
		/* the whole name: not the tail of a longer one (xgrid.cu) */
		if (p > text && (ident_char(p[-1]) || p[-1] == '.' || p[-1] == '-'))
			continue;
		if (p[n] != ':' || p[n + 1] < '1' || p[n + 1] > '9')
			continue;
		unsigned long line = strtoul(p + n + 1, NULL, 10);
		if (line >= 1 && line <= nlines)
			marked[line] = true;
	}
}

/* Every message of the run a line of source may be named in: the build's,
 * its compiler's, and each test's that did not pass. */
static void mark_from_doc(json_t *doc, const char *name, bool *marked, size_t nlines)
{
	json_t *b = json_object_get(doc, "build"), *t;
	size_t i;

	mark_named_lines(doc_str(b, "message"), name, marked, nlines);
	mark_named_lines(doc_str(b, "log"), name, marked, nlines);
	json_array_foreach(json_object_get(doc, "tests"), i, t)
		if (strcmp(doc_str(t, "status"), "pass"))
			mark_named_lines(doc_str(t, "message"), name, marked, nlines);
}

/* The submitted files, numbered, the lines a message names marked. */
static void add_sources(struct strbuf *sb, json_t *doc, const struct html_source *src, size_t n)
{
	if (!n)
		return;
	strbuf_addstr(sb, "<h2>Source</h2>\n<p>The files as they were graded; a line that a "
			  "message above names (<code>file:line</code>) is marked.</p>\n");
	for (size_t f = 0; f < n; f++) {
		size_t nlines = 0, shown = 0;
		for (size_t i = 0; i < src[f].len; i++)
			nlines += src[f].text[i] == '\n';
		if (src[f].len && src[f].text[src[f].len - 1] != '\n')
			nlines++;
		bool *marked = xcalloc(nlines + 1, sizeof(bool));
		mark_from_doc(doc, src[f].name, marked, nlines);
		strbuf_addstr(sb, "<h3>");
		strbuf_add_html(sb, src[f].name);
		strbuf_addstr(sb, "</h3>\n<pre class=\"source\">");
		const char *p = src[f].text, *end = src[f].text + src[f].len;
		for (size_t line = 1; p < end && line <= SOURCE_LINES_MAX; line++, shown++) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
			char *vis = visible_text(p, len, false);
			strbuf_addf(sb, "%s<span class=\"ln\">%5zu</span> ",
				    marked[line] ? "<mark>" : "", line);
			strbuf_add_html(sb, vis);
			strbuf_addstr(sb, marked[line] ? "</mark>\n" : "\n");
			free(vis);
			p = nl ? nl + 1 : end;
		}
		strbuf_addstr(sb, "</pre>\n");
		if (shown < nlines)
			strbuf_addf(sb, "<p>(%zu more lines not shown)</p>\n", nlines - shown);
		free(marked);
	}
}

int html_report(json_t *doc, long long run_id, char **page)
{
	return html_report_page(doc, run_id, NULL, page);
}

int html_report_page(json_t *doc, long long run_id, const struct html_extras *x, char **page)
{
	struct strbuf sb = STRBUF_INIT;
	struct score_view view = doc_score_view(doc);
	char score[SCORE_TEXT_MAX], run[32];
	json_t *gpu = json_object_get(doc, "gpu");

	if (!json_is_object(doc))
		return error("not a result document: not a JSON object");
	snprintf(run, sizeof(run), run_id > 0 ? "%lld" : "-", run_id);
	char *run_title = xasprintf("run %s", run);
	html_open(&sb, NULL,
		  (const char *const[]){doc_str(doc, "student"), doc_str(doc, "lab"), run_title, NULL});
	free(run_title);
	strbuf_addstr(&sb, "<h1>");
	strbuf_add_html(&sb, doc_str(doc, "lab_title"));
	strbuf_addstr(&sb, ": ");
	strbuf_add_html(&sb, doc_str(doc, "student"));
	strbuf_addstr(&sb, "</h1>\n<table class=\"facts\">\n");
	add_row(&sb, "student", doc_str(doc, "student"));
	strbuf_addstr(&sb, "<tr><th>lab</th><td>");
	strbuf_add_html(&sb, doc_str(doc, "lab"));
	strbuf_addstr(&sb, " (version ");
	strbuf_add_html(&sb, doc_str(doc, "lab_version"));
	strbuf_addstr(&sb, ")</td></tr>\n");
	add_row(&sb, "run", run);
	add_row(&sb, "started", doc_str(doc, "started_at"));
	if (*doc_str(doc, "submitted_at"))
		add_row(&sb, "submitted", doc_str(doc, "submitted_at"));
	add_row(&sb, "mode", mode_text(doc_str(doc, "mode")));
	add_row(&sb, "GPU", json_is_true(json_object_get(gpu, "available")) ? doc_str(gpu, "name")
									     : "none");
	add_row(&sb, "status", doc_str(doc, "status"));
	strbuf_addstr(&sb, "<tr><th>score</th><td class=\"score\"><strong>");
	strbuf_add_html(&sb, score_text(score, &view));
	strbuf_addstr(&sb, "</strong></td></tr>\n");
	add_reproduce(&sb, doc);
	strbuf_addstr(&sb, "</table>\n");
	add_standing(&sb, doc);
	add_files(&sb, doc);
	add_build(&sb, doc);
	add_tests(&sb, doc);
	add_timing(&sb, doc);
	if (x && x->board_name) {
		strbuf_addstr(&sb, "<p class=\"board\">On the class's leaderboard you are "
				   "<strong>");
		strbuf_add_html(&sb, x->board_name);
		strbuf_addstr(&sb, "</strong>: a pseudonym, which only your own page shows.</p>\n");
	}
	add_sectors(&sb, doc);
	if (x) {
		add_sources(&sb, doc, x->sources, x->nsources);
		add_history(&sb, x->hist, x->nhist, run_id);
	}
	strbuf_addstr(&sb, "<p><small>Made by <code>cudalab report</code> from the run's result "
			   "document (schema ");
	strbuf_add_html(&sb, doc_str(doc, "schema"));
	strbuf_addstr(&sb, ").</small></p>\n");
	html_close(&sb);
	*page = strbuf_detach(&sb);
	return 0;
}
