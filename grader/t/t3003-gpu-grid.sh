#!/bin/bash
# On a GPU: the grid lab's reference scores full marks, the stub zero with a
# message on every test, and every grid fixture gets its pinned verdict, the
# fixtures graded as a class (the fork bomb alone, its processes counted).
# beside-others: its GPU work is cudalab gradings, under their GPU locks
. "$(dirname "$0")/lib.sh"
require_gpu

test_expect_success 'the grid reference passes every test (exit 0)' '
	grade_fixture "$T_ROOT/reference/grid" r.json &&
	[ "$(cat r.json.exit)" = 0 ] &&
	[ "$(jq .score r.json)" = 43 ] && [ "$(jq -r .status r.json)" = complete ] || {
		cat r.json.txt; false; }
'
test_expect_success 'the grid stub fails every test, each with what to do (exit 1)' '
	grade_fixture "$T_ROOT/student_template/grid" s.json &&
	[ "$(cat s.json.exit)" = 1 ] && [ "$(jq .score s.json)" = 0 ] &&
	[ "$(jq "[.tests[] | select(.message | test(\"launched no kernel|no answer yet|not yet implemented\") | not)] | length" s.json)" = 0 ]
'
test_fixtures grid
test_expect_success 'after the hostile fixtures, the reference still grades as before' '
	grade_fixture "$T_ROOT/reference/grid" again.json &&
	[ "$(cat again.json.exit)" = 0 ] && [ "$(jq .score again.json)" = 43 ]
'
test_done
