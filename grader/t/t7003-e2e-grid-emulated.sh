#!/bin/bash
# Without a GPU, on the CPU emulator: the grid lab's reference passes every
# test, the stub fails every test with a message that says what to do, and
# every grid fixture gets the verdict its expect file pins.
# long-running: the grid fixtures as a class, two waiting out two timeouts each
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
# Emulated, a test's time runs while it sleeps, not only while it computes:
# one that sleeps forever is ended after its limit (30 s), by its clock, not
# by the wall-clock backstop (4 times that), however busy the machine is (as
# it is in the class above: three gradings at once).
test_expect_success 'a test that sleeps forever is ended after its limit, not the backstop' '
	[ -r /proc/self/schedstat ] || { echo "no schedstat here: sleeps meet the backstop"; exit 77; }
	class_result grid sleeps-forever sleeps.json &&
	[ "$(jq -r "[.tests[] | select(.part == \"picture\") | .status] | unique | join(\" \")" sleeps.json)" = timeout ] &&
	jq -e "[.tests[] | select(.part == \"picture\") | .seconds < 45] | all" sleeps.json >/dev/null || {
		jq -c "[.tests[] | select(.part == \"picture\") | {name, seconds}]" sleeps.json; false; }
'
# A test that passes although a cudaMalloc found the device full says so to
# the grader (on a GPU it is run again with the GPU to itself); one whose
# allocation failed because the test asked for it (host/errors) does not.
test_expect_success 'a test that passed short of device memory says so, and no other test does' '
	"$CUDALAB" grade grid "$T_ROOT/reference/grid/fixtures/probes-memory" --keep \
		--db probe.db >probe.out 2>&1
	validate_doc --db probe.db &&
	work=$(sed -n "s/^work folder kept: //p" probe.out) &&
	judge=$(sed -n "s/^judge.s folder kept: //p" probe.out) && [ -d "$judge/logs" ] &&
	short=$(grep -l "^out of memory\$" "$judge"/logs/*.done | xargs -n1 basename | sort | xargs) &&
	rm -rf "$work" "$judge" &&
	[ "$short" = "test_grid_picture_config.done test_grid_picture_exact.done" ] || {
		echo "short of memory: ${short:-none}"; false; }
'
test_expect_success 'after the hostile fixtures, the reference still grades as before' '
	grade_fixture "$T_ROOT/reference/grid" again.json &&
	[ "$(cat again.json.exit)" = 4 ] && [ "$(jq .score again.json)" = 43 ]
'
test_done
