#!/bin/bash
# Without a GPU and with emulation off: the stub, the reference and every
# fixture build and link (or fail to, with the verdict their expect file
# gives), and nothing is graded.
# long-running: every fixture of three labs is built with nvcc
. "$(dirname "$0")/lib.sh"
cpu_only
gpu_available && skip_all "a GPU is here: t3002 grades the fixtures"

# a lab whose tests need no GPU grades without one: t7004
needs_gpu() { ! grep -q '^needs_gpu *= *no' "$T_ROOT/labs/$1/lab.conf"; }

# Each lab's reference and fixtures are built as one class, two at once (the
# builds are most of the time, and nothing runs); the stub alone, since its
# folder has the lab's name, as the reference's has.
for dir in "$T_ROOT"/reference/*/; do
	lab=$(basename "$dir")
	needs_gpu "$lab" || continue
	test_expect_success "$lab: the reference and the fixtures are built as a class" '
		"$CUDALAB" grade '"$lab"' "$T_ROOT/reference/'"$lab"'" "$T_ROOT"/reference/'"$lab"'/fixtures/*/ \
			--db '"$lab"'-class.db --no-emulate -j 2 >'"$lab"'-class.out 2>'"$lab"'-class.err
		rc=$?
		cat '"$lab"'-class.out
		# nothing ran: every run that built is provisional, and so is the class
		[ $rc = 4 ] || { say "exit code $rc, expected 4:"; tail -n 20 '"$lab"'-class.err; false; } &&
		grep -q "^grading .* with no tests run: no GPU found, and --no-emulate; every run provisional" '"$lab"'-class.err
	'
done

for dir in "$T_ROOT"/student_template/*/ "$T_ROOT"/reference/*/ "$T_ROOT"/reference/*/fixtures/*/; do
	dir=${dir%/}
	[ "$(basename "$dir")" = fixtures ] && continue
	lab=$(lab_of "$dir")
	needs_gpu "$lab" || continue
	name="$lab/$(basename "$dir")"
	case $dir in
	"$T_ROOT"/student_template/*) get='grade_fixture "'"$dir"'" r.json --no-emulate' ;;
	# a folder named after the lab is the student of the folder above it
	"$T_ROOT/reference/$lab") get='class_result '"$lab"' reference r.json' ;;
	*) get='class_result '"$lab"' "'"$(basename "$dir")"'" r.json' ;;
	esac
	[ -f "$dir/expect" ] && built=$(awk '$1 == "build" { print $2 }' "$dir/expect") || built=ok
	if [ "$built" = ok ]; then
		test_expect_success "$name builds and links; with no GPU nothing is graded (exit 4)" '
			'"$get"' &&
			[ "$(exit_code_of r.json)" = 4 ] &&
			jq -e ".build.status == \"ok\" and .status == \"incomplete\" and .provisional == true and
				([.tests[] | select(.status != \"not-run\")] | length) == 0 and
				(.tests[0].message | contains(\"not run: no CUDA device\"))" r.json >/dev/null || {
				jq -c "{build: .build.status, status, provisional, test: .tests[0]}" r.json; false; }
		'
	else
		test_expect_success "$name gets its verdict: $built" '
			'"$get"' && check_expect r.json "'"$dir"'/expect"
		'
	fi
done
test_done
