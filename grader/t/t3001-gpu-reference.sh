#!/bin/bash
# On a GPU: the reference scores full marks, the stub scores zero without
# crashing anything. The reference timed against itself gets every timing
# point, with each ratio within 2 % of 1; the measurements reach the result
# document, the report and the gradebook (the cheating fixtures are in
# t3002).
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
test_expect_success 'the reference gets every timing point, each ratio within 2 % of 1' '
	[ "$(jq -r .timing.ran r.json)" = true ] &&
	[ "$(jq "[.tests[] | select(.kind == \"timing\")] | length" r.json)" = 5 ] &&
	[ "$(jq "[.tests[] | select(.kind == \"timing\" and .points == .max_points)] | length" r.json)" = 5 ] &&
	[ "$(jq "[.tests[] | select(.kind == \"timing\") | .timing |
		select(.ratio > 0.98 and .ratio < 1.02)] | length" r.json)" = 5 ] || {
		jq -c ".tests[] | select(.kind == \"timing\") | .timing" r.json; false; }
'
test_expect_success 'each timed kernel has its medians, samples, spread and the floor' '
	[ "$(jq "[.tests[] | select(.kind == \"timing\") | .timing |
		select(.samples >= 6 or .capped) | select(.student_ms > .floor_ms) |
		select(.student_spread < 0.05 and .reference_gflops > 0) |
		select(.flagged == false)] | length" r.json)" = 5 ]
'
test_expect_success 'the report shows GFLOP/s, ratio and points, and the cuBLAS ceiling' '
	grep -q "^timing on .*against the reference" r.json.txt &&
	grep -Eq "^k4 +time@3072 +[0-9]+ GFLOP/s +[0-9]+ GFLOP/s +(0\.9|1\.0)[0-9]+ +2\.5/2\.5" r.json.txt &&
	grep -q "^cuBLAS at N=3072: .* TFLOP/s" r.json.txt
'
test_expect_success 'the gradebook holds one timings row per timed kernel' '
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM timings WHERE flagged = 0 AND ratio
		BETWEEN 0.98 AND 1.02")" = 5 ] &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM test_results WHERE kind = '"'"'timing'"'"'
		AND status = '"'"'pass'"'"'")" = 5 ]
'
# how long the phase takes is a benchmark's to say (bench/make-test.sh), not a
# test's: on a GPU shared with another grading's load it took 5.6 s, not 1.4
test_expect_success 'the timing phase says how long it took, where the benchmarks read it' '
	jq -e ".timing.seconds > 0 and .phases.timing == .timing.seconds and
		.phases.timing < .seconds" r.json >/dev/null || { jq "{seconds, phases, t: .timing.seconds}" r.json; false; }
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
