#!/bin/bash
# On a GPU: every fixture under reference/matmul/fixtures, graded as a class
# (side by side, sharing the GPU, as a course grades its students), gets
# exactly the verdict its expect file pins: the one it gets graded alone.
# beside-others: its GPU work is cudalab gradings, under their GPU locks
. "$(dirname "$0")/lib.sh"
require_gpu

test_fixtures matmul
test_expect_success 'after the fixtures, the matmul reference still grades as before on this GPU' '
	grade_fixture "$T_ROOT/reference/matmul" again.json &&
	[ "$(cat again.json.exit)" = 0 ] && [ "$(jq -r .status again.json)" = complete ] &&
	[ "$(jq "[.tests[] | select(.status != \"pass\")] | length" again.json)" = 0 ] &&
	[ "$(jq .score again.json)" = 62.5 ]
'
test_done
