#!/usr/bin/python3
"""dash-check.py - holds a class dashboard and its students' pages to the
gradebook they were made from: every number on them is looked up again with
SQL, in the gradebook's own tables (runs, test_results, timings), not in the
result documents the pages were made from.

  dash-check.py DB LAB DASHBOARD

DASHBOARD is what `cudalab report LAB --class` wrote; the students' pages are
found through its links. Prints one line per number that differs, and a
closing count of the numbers compared; exits 1 when any differs, 2 when a
file cannot be read.

Checked, for each student's latest run (the gradebook's max(runs.id)):
the row's run, score (final, maximum, bonus, late penalty), mode, build,
late days and penalty; the score bins; each test's passed and ran counts
and rate, and who did not pass it; each grouped failure message's count and
students; each timed kernel's
measured count, min, median and max ratio. On each student's page: the
score, each test's verdict and points, each timed kernel's milliseconds,
ratio and rates.
"""
import html.parser
import math
import os
import re
import sqlite3
import statistics
import sys


class Tables(html.parser.HTMLParser):
    """The page's tables, as lists of rows of cell texts, each with its class,
    the h2 before it, and the links of its first cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.h2, self.in_h2 = [], "", False
        self.cell = None
        self.facts = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "h2":
            self.in_h2, self.h2 = True, ""
        elif tag == "table":
            self.tables.append({"class": a.get("class", ""), "h2": self.h2, "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append({"class": a.get("class", ""), "cells": [],
                                            "href": None})
        elif tag in ("td", "th") and self.tables and self.tables[-1]["rows"]:
            self.cell = []
        elif tag == "a" and self.tables and self.tables[-1]["rows"]:
            self.tables[-1]["rows"][-1]["href"] = a.get("href")
        elif tag == "br" and self.cell is not None:
            self.cell.append("\n")

    def handle_endtag(self, tag):
        if tag == "h2":
            self.in_h2 = False
        elif tag == "summary" and self.cell is not None:
            self.cell.append("\n")   # a drill-down: its count, then its students
        elif tag in ("td", "th") and self.cell is not None:
            self.tables[-1]["rows"][-1]["cells"].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data):
        if self.in_h2:
            self.h2 += data
        if self.cell is not None:
            self.cell.append(data)


def parse(path):
    t = Tables()
    try:
        with open(path, encoding="utf-8") as f:
            t.feed(f.read())
    except OSError as e:
        print("dash-check: cannot read '%s': %s" % (path, e), file=sys.stderr)
        sys.exit(2)
    return t.tables


def table(tables, h2, cls=None):
    """the rows below the header of the first table under heading h2 (of class cls)"""
    for t in tables:
        if t["h2"] == h2 and (cls is None or t["class"] == cls):
            return t["rows"][1:]
    return None


class Checker:
    def __init__(self):
        self.compared = self.differ = 0

    def same(self, where, shown, want):
        """shown (page text) against want (the gradebook's value)"""
        self.compared += 1
        ok = shown == want
        if not ok and isinstance(want, float):
            try:
                v = float(shown)
                ok = math.isclose(v, want, rel_tol=1e-3, abs_tol=1e-3)
            except ValueError:
                ok = False
        if not ok:
            self.differ += 1
            print("%s: the page says %r, the gradebook %r" % (where, shown, want))


def g4(v):
    return "-" if v is None else "%.4g" % v


SCORE = re.compile(r"^(-?[0-9.]+) / ([0-9.]+)(?: \((?:([0-9.]+) of it bonus)?(?:; )?"
                   r"(?:late: -([0-9.]+))?\))?")


def check_score(c, where, text, run):
    m = SCORE.match(text)
    if not m:
        c.same(where + " score", text, "a score")
        return
    c.same(where + " score", m.group(1), float(run["score"] - run["late_penalty"]))
    c.same(where + " maximum", m.group(2), float(run["max_score"]))
    c.same(where + " bonus", m.group(3) or "0", float(run["bonus_score"]))
    c.same(where + " late penalty", m.group(4) or "0", float(run["late_penalty"]))


def collapse(s):
    """Each number made '#', but a digit inside a name (matmul_k1) kept."""
    s = re.sub(r"(?<![A-Za-z0-9_])[0-9]+", "#", s if s else "(no message)")
    return s[:397] + "..." if len(s) > 400 else s


def main():
    if len(sys.argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    db_path, lab, dash = sys.argv[1:]
    if not os.path.isfile(db_path):
        print("dash-check: no gradebook '%s'" % db_path, file=sys.stderr)
        sys.exit(2)
    db = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    db.row_factory = sqlite3.Row
    runs = {r["id"]: r for r in db.execute(
        "SELECT r.*, s.name AS student FROM runs r JOIN submissions b ON b.id = r.submission_id"
        " JOIN students s ON s.id = b.student_id JOIN labs l ON l.id = b.lab_id WHERE r.id IN"
        " (SELECT max(r.id) FROM runs r JOIN submissions b ON r.submission_id = b.id"
        "  JOIN labs l ON l.id = b.lab_id WHERE l.name = ? GROUP BY b.student_id)", (lab,))}
    ids = ",".join(str(i) for i in runs) or "0"
    tests = db.execute("SELECT * FROM test_results WHERE run_id IN (%s)" % ids).fetchall()
    timings = db.execute("SELECT * FROM timings WHERE run_id IN (%s)" % ids).fetchall()
    c = Checker()
    tables = parse(dash)

    # the students
    rows = table(tables, "Students", "students") or []
    c.same("students", str(len(rows)), str(len(runs)))
    pages = {}
    for r in rows:
        cells = r["cells"]
        run = runs.get(int(cells[1])) if cells[1].isdigit() else None
        if not run:
            c.same("row of %r: run" % cells[0], cells[1], "a latest run")
            continue
        w = "row of %r (run %d)" % (cells[0], run["id"])
        c.same(w + " student", cells[0], run["student"])
        check_score(c, w, cells[2], run)
        c.same(w + " mode", cells[4], run["mode"])
        c.same(w + " build", cells[5], run["build"])
        c.same(w + " late days", cells[6], "%g" % run["late_days"])
        c.same(w + " late penalty", cells[7], float(run["late_penalty"]))
        if r["href"]:
            pages[run["id"]] = os.path.join(os.path.dirname(dash), r["href"])
    c.same("pages linked", str(len(pages)), str(len(runs)))
    order = [int(r["cells"][1]) for r in rows if r["cells"][1].isdigit()]

    def who(rids):
        """a drill-down cell: how many, then each student, in the page's order"""
        rids = [rid for rid in order if rid in rids]
        return "%d\n%s" % (len(rids), ", ".join(runs[rid]["student"] for rid in rids)) if rids else "0"

    # the score bins
    top = max((r["max_score"] for r in runs.values()), default=0) or 1
    width = top / 10
    bins = [0] * 10
    for r in runs.values():
        b = math.floor((r["score"] - r["late_penalty"]) / width)
        bins[min(max(b, 0), 9)] += 1
    for i, r in enumerate(table(tables, "Scores") or []):
        c.same("scores %s" % r["cells"][0], r["cells"][1], str(bins[i]))

    # each test's pass rate
    stat = {}
    for t in tests:
        s = stat.setdefault((t["part"], t["name"]), [0, 0])
        s[0] += t["status"] == "pass"
        s[1] += t["status"] != "not-run"
    shown = table(tables, "Tests", "pass-rates") or []
    c.same("tests listed", str(len(shown)), str(len(stat)))
    for r in shown:
        _, part, name, passed, ran, rate, missed = r["cells"]
        s = stat.get((part, name), [None, None])
        c.same("test %s/%s did not pass" % (part, name), missed,
               who({t["run_id"] for t in tests if (t["part"], t["name"]) == (part, name)
                    and t["status"] not in ("pass", "not-run")}))
        c.same("test %s/%s passed" % (part, name), passed, str(s[0]))
        c.same("test %s/%s ran" % (part, name), ran, str(s[1]))
        if s[1]:
            c.same("test %s/%s rate" % (part, name), rate, "%.0f%%" % (100.0 * s[0] / s[1]))

    # the failures, grouped
    fails = {}
    for t in tests:
        if t["status"] in ("fail", "crash", "timeout"):
            k = collapse(t["message"])
            fails[k] = fails.get(k, 0) + 1
    for r in table(tables, "Commonest failures") or []:
        c.same("failure %r" % r["cells"][1][:60], r["cells"][0], str(fails.get(r["cells"][1])))
        c.same("failure %r students" % r["cells"][1][:60], r["cells"][3],
               who({t["run_id"] for t in tests if t["status"] in ("fail", "crash", "timeout")
                    and collapse(t["message"]) == r["cells"][1]}))

    # the timed kernels over the class
    ratios = {}
    for t in timings:
        if t["ratio"] is not None:
            ratios.setdefault((t["part"], t["name"]), []).append(t["ratio"])
    shown = table(tables, "Timed kernels", "kernels") or []
    c.same("timed kernels listed", str(len(shown)), str(len(ratios)))
    for r in shown:
        part, name, n, lo, med, hi = r["cells"]
        v = sorted(ratios.get((part, name), [float("nan")]))
        w = "kernel %s/%s" % (part, name)
        c.same(w + " measured", n, str(len(v)))
        c.same(w + " min", lo, g4(v[0]))
        c.same(w + " median", med, g4(statistics.median(v)))
        c.same(w + " max", hi, g4(v[-1]))

    # each student's page
    for rid, path in sorted(pages.items()):
        run, t = runs[rid], parse(path)
        w = "page of %r (run %d)" % (run["student"], rid)
        facts = {}
        for tb in t:
            if tb["class"] == "facts":
                for r in tb["rows"]:
                    if len(r["cells"]) == 2:
                        facts.setdefault(r["cells"][0], r["cells"][1])
        c.same(w + " run", facts.get("run"), str(rid))
        check_score(c, w, facts.get("score", ""), run)
        mine = {(x["part"], x["name"]): x for x in tests if x["run_id"] == rid}
        rows = table(t, "Tests") or []
        c.same(w + " tests", str(len(rows)), str(len(mine)))
        for r in rows:
            part, name, kind, verdict, points, _ = r["cells"]
            x = mine.get((part, re.sub(r" \(bonus\)$", "", name)))
            if not x:
                c.same(w + " test %s/%s" % (part, name), "listed", "in the gradebook")
                continue
            want = x["status"]
            if verdict in ("pending (GPU)", "graded later"):
                want = verdict if x["status"] == "not-run" else x["status"]
            c.same(w + " %s/%s verdict" % (part, name), verdict, want)
            got, _, most = points.partition(" / ")
            if got != "-":
                c.same(w + " %s/%s points" % (part, name), got, float(x["points"]))
            c.same(w + " %s/%s max points" % (part, name), most, float(x["max_points"]))
        mine = {(x["part"], x["name"]): x for x in timings if x["run_id"] == rid}
        rows = [r for r in (table(t, "Timed kernels") or []) if len(r["cells"]) == 9]
        # a timed test that was not measured is listed with no number
        timed = [r for r in rows if any(v != "-" for v in r["cells"][2:])]
        c.same(w + " timed kernels measured", str(len(timed)), str(len(mine)))
        for r in timed:
            part, name = r["cells"][0], r["cells"][1].split("\n")[0]
            x = mine.get((part, name))
            if not x:
                c.same(w + " kernel %s/%s" % (part, name), "listed", "in the gradebook")
                continue
            for col, key in zip(r["cells"][2:], ("student_ms", "reference_ms", "ratio",
                                                 "student_gflops", "reference_gflops",
                                                 "student_gbs", "reference_gbs")):
                c.same(w + " %s/%s %s" % (part, name, key), col, g4(x[key]))
    print("dash-check: %d numbers compared, %d differ" % (c.compared, c.differ))
    sys.exit(1 if c.differ else 0)


if __name__ == "__main__":
    main()
