#!/usr/bin/env python3
# json-schema-check.py SCHEMA FILE...: each FILE is valid against SCHEMA
# (JSON Schema draft 7, python3-jsonschema). Prints every error with where
# it is; exits 1 when a file is not valid, 2 when the schema itself is not.
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
try:
    jsonschema.Draft7Validator.check_schema(schema)
except jsonschema.SchemaError as e:
    print(f"{sys.argv[1]}: not a valid schema: {e.message}")
    sys.exit(2)
validator = jsonschema.Draft7Validator(schema)
bad = 0
for path in sys.argv[2:]:
    for e in validator.iter_errors(json.load(open(path))):
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print(f"{path}: {where}: {e.message}")
        bad = 1
sys.exit(bad)
