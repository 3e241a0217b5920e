#!/usr/bin/python3
"""validate-doc.py - holds result documents to their schema, cudalab-result/1
(grader/cudalab-result-1.schema.json), with python3-jsonschema.

  validate-doc.py FILE...       each FILE a result document ('-': standard input)
  validate-doc.py --db DB...    every run's document (runs.result_json) in each gradebook
  validate-doc.py --fields      every field the schema names, one path a line
                                (tests[].timing.ratio), for docs/result-document.md's list

Each document that does not conform gets one line per violation, 'WHAT: at
PATH: MESSAGE'; the exit code is then 1, and 2 when a file cannot be read,
is not JSON, or python3-jsonschema is missing.

Run it with Debian's python3 (/usr/bin/python3): python3-jsonschema is
installed for that one, not for a python3 of pyenv or a venv earlier on PATH.
"""
import json
import os
import sqlite3
import sys

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "cudalab-result-1.schema.json")
MAX_ERRORS = 20   # per document: the first ones say what is wrong


def fail(message):
    """Exit 2, which no verdict on a document gives."""
    print("validate-doc: %s" % message, file=sys.stderr)
    sys.exit(2)


# where a machine without package access unpacked the Debian packages
# (ci/deps.sh): python3-jsonschema and the two it needs import from there
# into another python3 too (pyrsistent falls back from its C extension)
if os.environ.get("DEPS_PREFIX"):
    sys.path.append(os.path.join(os.environ["DEPS_PREFIX"], "usr/lib/python3/dist-packages"))
try:
    import jsonschema
except ImportError as e:
    fail("%s cannot import jsonschema (%s): python3-jsonschema, python3-attr and "
         "python3-pyrsistent are in ci/debian-packages.txt, and make deps installs them"
         % (sys.executable, e))


def where(doc, path):
    """PATH as a JSON pointer; a test is named after its index: /tests/3 (k1/exact)/status."""
    out, node = "", doc
    for key in path:
        out += "/%s" % key
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            node = None
        if len(out.split("/")) == 3 and out.startswith("/tests/") and isinstance(node, dict):
            out += " (%s/%s)" % (node.get("part"), node.get("name"))
    return out or "/"


def check(validator, what, text):
    """The violations of one document, printed; their count, or -1 for one that is not JSON."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        print("%s: not JSON: %s" % (what, e))
        return -1
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    for e in errors[:MAX_ERRORS]:
        print("%s: at %s: %s" % (what, where(doc, e.absolute_path), e.message))
    if len(errors) > MAX_ERRORS:
        print("%s: ... and %d more" % (what, len(errors) - MAX_ERRORS))
    return len(errors)


def fields(schema, node, prefix, out):
    """Every property path under node ($refs followed, arrays as [])."""
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
    for name, sub in node.get("properties", {}).items():
        path = prefix + name
        out.append(path)
        while "$ref" in sub:
            sub = schema["$defs"][sub["$ref"].rsplit("/", 1)[1]]
        if "items" in sub:
            fields(schema, sub["items"], path + "[].", out)
        else:
            fields(schema, sub, path + ".", out)
    return out


def main(argv):
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    if argv == ["--fields"]:
        print("\n".join(fields(schema, schema, "", [])))
        return 0
    validator = jsonschema.Draft202012Validator(schema)
    bad = unreadable = 0
    if argv[:1] == ["--db"]:
        if len(argv) < 2:
            fail("usage: validate-doc.py --db GRADEBOOK...")
        for db in argv[1:]:
            if not os.path.exists(db):
                print("%s: no such gradebook" % db)
                unreadable += 1
                continue
            con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
            for run, text in con.execute("SELECT id, result_json FROM runs ORDER BY id"):
                n = check(validator, "%s run %d" % (db, run), text)
                bad += n > 0
                unreadable += n < 0
            con.close()
    else:
        if not argv:
            fail("usage: validate-doc.py FILE... | --db GRADEBOOK... | --fields")
        for path in argv:
            try:
                text = sys.stdin.read() if path == "-" else open(path).read()
            except OSError as e:
                print("%s: %s" % (path, e.strerror))
                unreadable += 1
                continue
            n = check(validator, path, text)
            bad += n > 0
            unreadable += n < 0
    return 2 if unreadable else 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
