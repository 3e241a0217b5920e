#!/bin/bash
# Without a GPU and with emulation off: the stub, the reference and every
# fixture build and link (or fail to, with the verdict their expect file
# gives), and nothing is graded.
. "$(dirname "$0")/lib.sh"
cpu_only
gpu_available && skip_all "a GPU is here: t3002 grades the fixtures"

for dir in "$T_ROOT"/student_template/*/ "$T_ROOT"/reference/*/ "$T_ROOT"/reference/*/fixtures/*/; do
	dir=${dir%/}
	[ "$(basename "$dir")" = fixtures ] && continue
	# a lab whose tests need no GPU grades without one: t7004
	grep -q '^needs_gpu *= *no' "$T_ROOT/labs/$(lab_of "$dir")/lab.conf" && continue
	name="$(lab_of "$dir")/$(basename "$dir")"
	[ -f "$dir/expect" ] && built=$(awk '$1 == "build" { print $2 }' "$dir/expect") || built=ok
	if [ "$built" = ok ]; then
		test_expect_success "$name builds and links; with no GPU nothing is graded (exit 4)" '
			grade_fixture "'"$dir"'" r.json --no-emulate &&
			[ "$(cat r.json.exit)" = 4 ] &&
			[ "$(jq -r .build.status r.json)" = ok ] &&
			[ "$(jq -r .status r.json)" = incomplete ] &&
			[ "$(jq .provisional r.json)" = true ] &&
			[ "$(jq "[.tests[] | select(.status != \"not-run\")] | length" r.json)" = 0 ] &&
			jq -r ".tests[0].message" r.json | grep -q "not run: no CUDA device"
		'
	else
		test_expect_success "$name gets its verdict: $built" '
			grade_fixture "'"$dir"'" r.json --no-emulate && check_expect r.json "'"$dir"'/expect"
		'
	fi
done
test_done
