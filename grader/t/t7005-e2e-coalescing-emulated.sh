#!/bin/bash
# Without a GPU, on the CPU emulator: the coalescing lab's reference passes
# every correctness test, and its memory requests, counted by the emulator's
# trace, are those Nsight Compute counts on a GPU (timing is not run: it needs
# a GPU); the stub fails every test with a message that says what to do; and
# every fixture gets the verdict its expect file pins.
. "$(dirname "$0")/lib.sh"
cpu_only
gpu_available && skip_all "a GPU is here: t3005 grades the coalescing lab on it"
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"

test_expect_success 'the coalescing reference passes every correctness test emulated (exit 4)' '
	grade_fixture "$T_ROOT/reference/coalescing" r.json &&
	[ "$(cat r.json.exit)" = 4 ] && [ "$(jq -r .mode r.json)" = emulated ] &&
	[ "$(jq "[.tests[] | select(.kind == \"correctness\" and .status != \"pass\")] | length" r.json)" = 0 ] &&
	[ "$(jq "[.tests[] | select(.kind == \"timing\" and .status != \"not-run\")] | length" r.json)" = 0 ] &&
	[ "$(jq .score r.json)" = 28 ] && [ "$(jq .max_score r.json)" = 39 ] || {
		jq -r ".tests[] | select(.status != \"pass\") | .message" r.json; false; }
'
test_expect_success 'the coalescing stub fails every test, each with what to do' '
	grade_fixture "$T_ROOT/student_template/coalescing" s.json &&
	[ "$(jq "[.tests[] | select(.kind == \"correctness\" and .status != \"fail\")] | length" s.json)" = 0 ] &&
	[ "$(jq .score s.json)" = 0 ] &&
	[ "$(jq "[.tests[] | select(.kind == \"correctness\") | select(.message | test(\"launched no kernel\") | not)] | length" s.json)" = 0 ] || {
		jq -r ".tests[] | .message" s.json; false; }
'
test_expect_success 'the terminal report lists every timed test as pending a GPU, saying why' '
	grep -q "^timing      not run: timing needs a GPU" r.json.txt &&
	grep -Eq "^scale +rows-vs-cols +pending \(GPU\) +-/3" r.json.txt
'
test_expect_success 'the trace counts the sectors per request that Nsight Compute counts on a GPU' '
	spr() { jq -r ".tests[] | select(.name == \"$1\") | .sectors | select(.source == \"the emulator'"'"'s trace\") |
		\"\(.load_sectors_per_request) \(.store_sectors_per_request)\"" r.json; } &&
	[ "$(spr coalesced-rows)" = "4 4" ] && [ "$(spr coalesced-tiled)" = "4 4" ] &&
	[ "$(spr sectors-cols)" = "32 32" ] && [ "$(spr sectors-naive)" = "4 32" ] &&
	[ "$(spr sectors-stride32)" = "32 4" ] &&
	grep -q "^memory requests, 32-byte sectors per warp-wide request (the emulator.s trace):" r.json.txt
'
export EXPECT_EMULATED=1
test_fixtures coalescing " emulated" --emulate -j 2
test_expect_success 'bench/cross-check.sh --emulated-only holds the lab to its expect files, open files known' '
	n=$(( 2 + $(find "$T_ROOT/reference/coalescing/fixtures" "$T_ROOT/reference/coalescing/corpus" \
		-mindepth 1 -maxdepth 1 -type d | wc -l) )) &&
	"$T_ROOT/bench/cross-check.sh" --emulated-only --keep kept coalescing >xc.out 2>xc.err || {
		cat xc.out xc.err; false; } &&
	grep -Eq "^coalescing: $n submissions graded emulated: [0-9]+ as their expect file says, 0 not, [0-9]+ known \(an open file\), 0 skipped$" xc.out &&
	# the reference and the stub were graded, not empty folders named so
	printf "SELECT count(*) FROM runs r JOIN submissions s ON s.id = r.submission_id
		JOIN students t ON t.id = s.student_id WHERE t.name IN (\047reference\047, \047stub\047)
		AND json_extract(r.result_json, \047\$.build.status\047) = \047ok\047;\n" >q.sql &&
	[ "$(sqlite3 kept/emulated/coalescing-class.db <q.sql)" = 2 ] || {
		cat xc.out; false; }
'
test_done
