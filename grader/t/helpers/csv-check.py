#!/usr/bin/env python3
# csv-check.py FILE...: each FILE has RFC 4180's shape: records of fields
# separated by commas, every record (the last too) ended by CRLF, a field
# either quoted (any byte, quotes doubled) or made of printable characters
# without comma or quote (UTF-8 allowed), and as many fields in every record
# as in the header. Also, as OWASP's advice on CSV injection asks, no field
# that starts with = + - @ tab or CR unless it is a number. Prints each
# problem; exits 1 when there is one.
import re
import sys

FIELD = re.compile(rb'"((?:[^"]|"")*)"|([^",\x00-\x1f\x7f]*)')
NUMBER = re.compile(rb"^[-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$")
bad = 0


def problem(path, line, text):
    global bad
    print(f"{path}:{line}: {text}")
    bad = 1


def records(path, data):
    """Yields (line, [field values]) and stops at the first break of the grammar."""
    pos, line = 0, 1
    while pos < len(data):
        fields, start_line = [], line
        while True:
            m = FIELD.match(data, pos)
            value = m.group(1).replace(b'""', b'"') if m.group(1) is not None else m.group(2)
            fields.append(value)
            line += m.group(0).count(b"\n")
            pos = m.end()
            if data.startswith(b",", pos):
                pos += 1
                continue
            if data.startswith(b"\r\n", pos):
                pos += 2
                line += 1
                yield start_line, fields
                break
            what = "the end of the file" if pos >= len(data) else repr(data[pos:pos + 12])
            problem(path, line, f"a field ends at {what}, not at a comma or CRLF")
            return


for path in sys.argv[1:]:
    data = open(path, "rb").read()
    width = None
    for line, fields in records(path, data):
        if width is None:
            width = len(fields)
        elif len(fields) != width:
            problem(path, line, f"{len(fields)} fields, the header has {width}")
        for f in fields:
            if f[:1] in (b"=", b"+", b"-", b"@", b"\t", b"\r") and not NUMBER.match(f):
                problem(path, line, f"the field {f!r} would be a spreadsheet formula")
    if width is None:
        problem(path, 1, "no header")
sys.exit(bad)
