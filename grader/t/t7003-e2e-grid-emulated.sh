#!/bin/bash
# Without a GPU, on the CPU emulator: the grid lab's reference passes every
# test, the stub fails every test with a message that says what to do, and
# every grid fixture gets the verdict its expect file pins.
. "$(dirname "$0")/lib.sh"
cpu_only
gpu_available && skip_all "a GPU is here: t3003 grades the grid lab on it"
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"

test_expect_success 'the grid reference passes every test emulated (exit 4, provisional)' '
	grade_fixture "$T_ROOT/reference/grid" r.json &&
	[ "$(cat r.json.exit)" = 4 ] && [ "$(jq -r .mode r.json)" = emulated ] &&
	[ "$(jq "[.tests[] | select(.status != \"pass\")] | length" r.json)" = 0 ] &&
	[ "$(jq .score r.json)" = 43 ] && [ "$(jq .max_score r.json)" = 43 ] || {
		jq -r ".tests[] | select(.status != \"pass\") | .message" r.json; false; }
'
test_expect_success 'the grid stub fails every test, each with what to do' '
	grade_fixture "$T_ROOT/student_template/grid" s.json &&
	[ "$(jq "[.tests[] | select(.status != \"fail\")] | length" s.json)" = 0 ] &&
	[ "$(jq .score s.json)" = 0 ] &&
	[ "$(jq "[.tests[] | select(.message | test(\"launched no kernel|no answer yet|not yet implemented\") | not)] | length" s.json)" = 0 ] || {
		jq -r ".tests[] | .message" s.json; false; }
'
export EXPECT_EMULATED=1
# three at once: two of the fixtures spend a minute each waiting out timeouts
# (one of them asleep), and the third grading keeps a CPU busy meanwhile
test_fixtures grid " emulated" --emulate -j 3
test_expect_success 'after the hostile fixtures, the reference still grades as before' '
	grade_fixture "$T_ROOT/reference/grid" again.json &&
	[ "$(cat again.json.exit)" = 4 ] && [ "$(jq .score again.json)" = 43 ]
'
test_done
