#!/usr/bin/env python3
# junit-check.py FILE...: what an XSD cannot say of a JUnit export. Each
# suite's tests, failures, errors and skipped attributes count its test
# cases and their outcomes (Jenkins shows the attributes; GitLab counts the
# elements), the root's add them up, and no two test cases share a
# classname and a name (GitLab keeps the first and drops the others).
# Prints each problem; exits 1 when there is one.
import sys
import xml.etree.ElementTree as ET

KINDS = ("failure", "error", "skipped")
bad = 0


def problem(path, text):
    global bad
    print(f"{path}: {text}")
    bad = 1


for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seen = set()
    for s in suites:
        cases = s.findall("testcase")
        got = {"tests": len(cases), "failures": 0, "errors": 0, "skipped": 0}
        for c in cases:
            key = (c.get("classname"), c.get("name"))
            if key in seen:
                problem(path, f"test case {key} appears twice: GitLab shows the first only")
            seen.add(key)
            outcome = [k for k in KINDS if c.find(k) is not None]
            if len(outcome) > 1:
                problem(path, f"test case {key} is {' and '.join(outcome)}")
            for k in outcome:
                got["failures" if k == "failure" else "errors" if k == "error" else k] += 1
        for k, v in got.items():
            totals[k] += v
            if s.get(k) is not None and int(s.get(k)) != v:
                problem(path, f"suite {s.get('name')}: {k}={s.get(k)}, but it has {v}")
    if root.tag == "testsuites":
        for k, v in totals.items():
            if root.get(k) is not None and int(root.get(k)) != v:
                problem(path, f"testsuites: {k}={root.get(k)}, but the suites have {v}")
sys.exit(bad)
