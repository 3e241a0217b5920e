#!/bin/bash
# Without a GPU the tests run on the CPU emulator: the reference passes
# everything, the stub fails everything without crashing, and every fixture
# gets the verdict its expect file pins for the GPU. An emulated run is never
# a grade: mode "emulated", provisional, exit 4.
# long-running: the matmul fixtures as a class, one waiting out a timeout
. "$(dirname "$0")/lib.sh"
cpu_only
gpu_available && skip_all "a GPU is here: the GPU tests grade the fixtures"
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"

test_expect_success 'the reference passes every test emulated, provisionally (exit 4)' '
	t0=$EPOCHREALTIME
	grade_fixture "$T_ROOT/reference/matmul" r.json &&
	awk -v a="$t0" -v b="$EPOCHREALTIME" "BEGIN { printf \"emulated suite: %.1f s\\n\", b - a }" &&
	[ "$(cat r.json.exit)" = 4 ] && [ "$(jq -r .mode r.json)" = emulated ] &&
	[ "$(jq -r .status r.json)" = incomplete ] && [ "$(jq .provisional r.json)" = true ] &&
	[ "$(jq "[.tests[] | select(.kind == \"correctness\" and .status != \"pass\")] | length" r.json)" = 0 ] || {
		jq -r ".tests[] | select(.status != \"pass\") | .message" r.json; false; }
'
test_expect_success 'emulated, the timed kernels are not run (never zero), with the reason' '
	[ "$(jq "[.tests[] | select(.kind == \"timing\" and .status == \"not-run\")] | length" r.json)" = 5 ] &&
	jq -r ".tests[] | select(.kind == \"timing\") | .message" r.json | grep -q "timing needs a GPU" &&
	grep -q "^timing      not run: timing needs a GPU" r.json.txt
'
test_expect_success 'the emulated run is in the gradebook as emulated' '
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT mode || \" \" || status FROM runs ORDER BY id DESC LIMIT 1")" = "emulated incomplete" ]
'
test_expect_success 'the stub fails every test emulated, each saying it launched nothing' '
	grade_fixture "$T_ROOT/student_template/matmul" s.json &&
	[ "$(cat s.json.exit)" = 4 ] &&
	[ "$(jq "[.tests[] | select(.kind == \"correctness\" and .status != \"fail\")] | length" s.json)" = 0 ] &&
	[ "$(jq "[.tests[] | select(.kind == \"correctness\") | select(.message | contains(\"launched no kernel\") | not)] | length" s.json)" = 0 ]
'
test_expect_success 'where the tests spent their time is in the document, as the judge saw it' '
	passed=$(jq "[.tests[] | select(.kind == \"correctness\" and .status == \"pass\")] | length" r.json) &&
	jq -e ".phases.in_tests | .counted == $passed and .setup > 0 and .start > 0 and .calls > 0
		and .requests > 0" r.json >/dev/null &&
	# a test that fails stops where it failed: the stub counts none
	jq -e ".phases.in_tests | .counted == 0 and .calls == 0 and .setup > 0" s.json >/dev/null ||
		{ jq .phases r.json s.json; false; }
'
test_expect_success 'the report says the run is emulated' '
	grep -q "EMULATED on the CPU" r.json.txt && grep -q "PROVISIONAL" r.json.txt
'
export EXPECT_EMULATED=1
# two at once: while one grading compiles (one CPU) the other has the second
test_fixtures matmul " emulated" --emulate -j 2
test_expect_success 'a part whose test ran out of time runs no more of its tests' '
	class_result matmul hang h.json &&
	jq -r ".tests[] | select(.part == \"k2\" and .kind == \"correctness\") |
		\"\(.name) \(.status) \(.message | split(\"\n\")[0])\"" h.json >k2 &&
	grep -q "^exact timeout did not finish" k2 &&
	# in one lane (a class; --lanes 0 starts all three at once)
	if [ "${CUDALAB_TEST_LANES:-1}" = 1 ]; then
		grep -q "^random timeout not run: k2 exact, a test of the same part, ran out of time first" k2 &&
		grep -q "^config timeout not run: k2 exact" k2
	fi || { cat k2; false; }
'
test_expect_success 'a missing __syncthreads() is named by the reverse-order re-run' '
	class_result matmul missing-sync m.json &&
	jq -r ".tests[] | select(.part == \"k5\" and .name == \"exact\") | .message" m.json >msg &&
	grep -q "the result depends on the order in which threads run" msg &&
	grep -q "missing __syncthreads()" msg &&
	[ "$(jq -r ".tests[] | select(.part == \"k1\" and .name == \"exact\") | .message" m.json | grep -c "order in which")" = 0 ]
'
test_expect_success 'a shared-memory overflow is named by the AddressSanitizer re-run' '
	class_result matmul shared-overflow o.json &&
	jq -r ".tests[] | select(.part == \"k5\" and .name == \"exact\") | .message" o.json >msg &&
	grep -q "thread (15,15,0) of block (0,0,0) made an out-of-bounds write" msg &&
	grep -q "0 bytes past the end of a 1024-byte __shared__ array" msg &&
	grep -q "run again on the CPU with AddressSanitizer: heap-buffer-overflow" msg &&
	grep -q "WRITE of size 4" msg && grep -q "matmul_k5_kernel.* matmul.cu:17" msg &&
	grep -q "made by CUDA thread (15,15,0) of block (0,0,0)" msg
'
test_done
