#!/bin/bash
# On a GPU: every fixture under reference/matmul/fixtures gets exactly the
# verdict its expect file pins.
. "$(dirname "$0")/lib.sh"
require_gpu

for dir in "$T_ROOT"/reference/matmul/fixtures/*/; do
	dir=${dir%/}
	test_expect_success "$(basename "$dir"): $(grep -m1 '^[a-z0-9]* [a-z*]* ' "$dir/expect" | grep -v '^build\|^exit' || echo verdict)" '
		grade_fixture "'"$dir"'" r.json && check_expect r.json "'"$dir"'/expect"
	'
done
test_done
