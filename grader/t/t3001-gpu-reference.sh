#!/bin/bash
# On a GPU: the reference scores full marks, the stub scores zero without
# crashing anything.
. "$(dirname "$0")/lib.sh"
require_gpu

test_expect_success 'the reference passes every test, bonus included (exit 0)' '
	grade_fixture "$T_ROOT/reference/matmul" r.json &&
	[ "$(cat r.json.exit)" = 0 ] || { cat r.json.txt; false; } &&
	[ "$(jq -r .status r.json)" = complete ] &&
	[ "$(jq "[.tests[] | select(.status != \"pass\")] | length" r.json)" = 0 ] &&
	[ "$(jq .score r.json)" = 62.5 ] && [ "$(jq .max_score r.json)" = 50 ] &&
	[ "$(jq -r .gpu.available r.json)" = true ]
'
test_expect_success 'the stub fails every test, each with a helpful message (exit 1)' '
	grade_fixture "$T_ROOT/student_template/matmul" s.json &&
	[ "$(cat s.json.exit)" = 1 ] &&
	[ "$(jq "[.tests[] | select(.status != \"fail\")] | length" s.json)" = 0 ] &&
	[ "$(jq "[.tests[] | select(.kind == \"correctness\") | select(.message | contains(\"launched no kernel\") | not)] | length" s.json)" = 0 ] &&
	[ "$(jq "[.tests[] | select(.kind == \"timing\") | select(.message | contains(\"not timed\") | not)] | length" s.json)" = 0 ] &&
	[ "$(jq .score s.json)" = 0 ]
'
test_expect_success 'the same seed gives the same verdicts' '
	seed=$(jq .seed r.json) &&
	grade_fixture "$T_ROOT/reference/matmul" again.json --seed "$seed" &&
	[ "$(jq .seed again.json)" = "$seed" ] && [ "$(cat again.json.exit)" = 0 ]
'
test_done
