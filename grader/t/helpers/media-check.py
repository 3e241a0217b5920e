#!/usr/bin/env python3
# media-check.py STUDENT REPORT GRADESCOPE JUNIT CSV PAGE: one run, as each
# medium shows it, gives every test the same points. Reads the terminal
# report's table, Gradescope's results.json, the JUnit export, the CSV
# export's row of STUDENT and the run's page, and takes from each the tests
# it lists with their points: given (a number) or not counted yet (pending a
# GPU run, graded later), out of how many. Every medium must list the
# report's tests, no other, with the same points; the maximum where the
# medium gives one (Gradescope gives none for a test not counted yet, and
# gives a bonus test's as 0: extra credit; a pre-check's tests say theirs
# in their output, having no score). Prints each disagreement, and
# exits 1 when there is one.
import csv
import html
import json
import re
import sys
import xml.etree.ElementTree as ET

NUM = r"\d+(?:\.\d+)?"
bad = 0


def problem(text):
    global bad
    print(text)
    bad = 1


def bare(name):
    return name[: -len(" (bonus)")] if name.endswith(" (bonus)") else name


def num(s):
    return None if s in (None, "", "-") else float(s)


def from_report(path):
    """The table under 'part test result points time': points as 4/4 or -/2.5."""
    tests, inside = {}, False
    for line in open(path, encoding="utf-8"):
        words = line.split()
        if words[:2] == ["part", "test"] and "result" in words:
            inside = True
            continue
        if inside and not words:
            break
        if inside:
            pts = next(w for w in words[2:] if re.fullmatch(rf"(-|{NUM})/{NUM}", w))
            got, most = pts.split("/")
            tests[(words[0], words[1])] = (num(got), float(most))
    return tests


def from_gradescope(path):
    """A pre-check's tests carry no score: their output says what they got and are worth."""
    doc = json.load(open(path, encoding="utf-8"))
    provisional = doc.get("extra_data", {}).get("provisional")
    tests = {}
    for t in doc["tests"]:
        if t["name"] == "build":
            continue
        part, name = t["name"].split(": ", 1)
        bonus = name.endswith(" (bonus)")
        most = t.get("max_score")
        key = (part, bare(name))
        m = re.search(
            rf"worth ({NUM}) (?:bonus )?points in the course's grading \(({NUM}) of them",
            t.get("output", ""),
        )
        if provisional and "score" in t:
            problem(f"{path}: {part}/{name} has a score in a pre-check")
        if provisional and m:
            tests[key] = (float(m.group(2)), float(m.group(1)))
        else:
            tests[key] = (t.get("score"), None if bonus or most is None else most)
    return tests


def from_junit(path):
    tests = {}
    for c in ET.parse(path).getroot().iter("testcase"):
        if c.get("name") == "build":
            continue
        part = c.get("classname").rsplit(".", 1)[1]
        text = " ".join(e.text or "" for e in c)
        m = re.search(rf"({NUM}) of ({NUM}) (?:bonus )?points", text)
        w = re.search(rf"worth ({NUM}) (?:bonus )?points?, not counted", text)
        if m:
            tests[(part, c.get("name"))] = (float(m.group(1)), float(m.group(2)))
        elif w:
            tests[(part, c.get("name"))] = (None, float(w.group(1)))
        else:
            problem(f"{path}: {part}/{c.get('name')} says no points: {text[:120]!r}")
    return tests


def from_csv(path, student):
    rows = list(csv.reader(open(path, encoding="utf-8", newline="")))
    head, row = rows[0], next(r for r in rows[1:] if r[0] == student)
    cells = dict(zip(head, row))
    tests = {}
    for col in head:
        if "/" in col and not col.endswith(" max"):
            part, name = col.split("/", 1)
            tests[(part, name)] = (num(cells[col]), num(cells[col + " max"]))
    return tests


def from_page(path):
    text = open(path, encoding="utf-8").read()
    tests = {}
    for m in re.finditer(
        rf'<td>([^<]*)</td><td>([^<]*)</td><td>[a-z]*</td><td class="verdict">[^<]*</td>'
        rf'<td class="num">(-|{NUM}) / ({NUM})</td>',
        text,
    ):
        key = (html.unescape(m.group(1)), bare(html.unescape(m.group(2))))
        tests[key] = (num(m.group(3)), float(m.group(4)))
    return tests


def same(a, b):
    return (a is None) == (b is None) and (a is None or abs(a - b) < 1e-9)


def main():
    student, report, gs, junit, table, page = sys.argv[1:7]
    want = from_report(report)
    if not want:
        problem(f"{report}: no table of tests")
    for medium, got in (
        ("gradescope", from_gradescope(gs)),
        ("junit", from_junit(junit)),
        ("csv", from_csv(table, student)),
        ("page", from_page(page)),
    ):
        for key in sorted(set(want) | set(got)):
            test = "/".join(key)
            if key not in got:
                problem(f"{medium}: no {test} (the report has it)")
            elif key not in want:
                problem(f"{medium}: {test}, which the report does not have")
            elif not same(got[key][0], want[key][0]) or (
                got[key][1] is not None and not same(got[key][1], want[key][1])
            ):
                problem(f"{medium}: {test} {got[key]}, the report {want[key]}")
    print(f"{len(want)} tests, 4 media checked against the report")
    return bad


sys.exit(main())
