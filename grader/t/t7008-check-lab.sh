#!/bin/bash
# cudalab check-lab grades a lab's reference, stub, fixtures and corpus as a
# class and holds each run to its verdict (the expect file; full marks; every
# correctness test failed), without a test script written for the lab. On
# the occupancy lab (its tests run natively, on any machine): every case
# holds; a verdict that is wrong, and a case with none, fail it and are named.
# beside-others: it grades through cudalab only, on the CPU
. "$(dirname "$0")/lib.sh"
cpu_only

cases=$((2 + $(find "$T_ROOT/reference/occupancy/fixtures" -mindepth 1 -maxdepth 1 -type d | wc -l)))
cases=$((cases + $(find "$T_ROOT/reference/occupancy/corpus" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l)))

test_expect_success 'every case of the occupancy lab holds to its verdict' '
	"$CUDALAB" check-lab occupancy --runs runs >out 2>err &&
	grep -qx "occupancy: $cases as expected, 0 differ, 0 skipped, 0 not graded, 0 without a verdict, 0 known differences" out &&
	grep -q "^  ok  *reference occupancy: 16 / 16$" out &&
	grep -q "^  ok  *stub  *occupancy: 0 / 16$" out &&
	[ "$(grep -c "^  ok  *fixture " out)" = $((cases - 2)) ] &&
	# the runs are kept, one per case, and the gradebook of the lab is named
	[ "$(sqlite3 runs/occupancy.db "SELECT count(*) FROM runs")" = $cases ] &&
	grep -qx "occupancy: the cases. runs: runs/occupancy.db (cudalab db show --db ...)" err ||
		{ cat out err; false; }
'

# a course whose occupancy fixtures are the real ones, but one with a wrong
# verdict (wrong-limit "passes everything") and one with no verdict at all
test_expect_success 'a wrong verdict, and a case without one: exit 1, each named' '
	course_copy occupancy "" &&
	fx=course/root/reference/occupancy/fixtures &&
	rm course/root/reference && mkdir course/root/reference &&
	for d in "$T_ROOT"/reference/*; do ln -s "$d" course/root/reference/; done &&
	# a copy: intake refuses a submission of symlinks
	rm course/root/reference/occupancy && cp -r "$T_ROOT/reference/occupancy" course/root/reference/ &&
	printf "%s\n" "exit 0" "build ok" "calculator * pass" "questions * pass" >"$fx/wrong-limit/expect" &&
	cp -r "$T_ROOT/reference/occupancy/fixtures/floor-warps" "$fx/unjudged" && rm "$fx/unjudged/expect" &&
	{ "$(cat cudalab)" check-lab occupancy >out 2>err; rc=$?; } &&
	[ $rc = 1 ] &&
	grep -q "^  DIFFERS  *fixture  *wrong-limit: 15 / 16$" out &&
	grep -q "^      exit code 1, expected 0$" out &&
	grep -q "^      questions/limit is fail, expected pass: " out &&
	grep -q "^  no verdict fixture unjudged (no expect file" out &&
	grep -qx "occupancy: $((cases - 1)) as expected, 1 differ, 0 skipped, 0 not graded, 1 without a verdict, 0 known differences" out ||
		{ echo "exit ${rc:-}"; cat out err; false; }
'
test_expect_success 'a known difference (an open file) fails nothing; one that holds now fails' '
	fx=course/root/reference/occupancy/fixtures &&
	rm -r "$fx/unjudged" && echo "the verdict a course wants later" >"$fx/wrong-limit/open" &&
	"$(cat cudalab)" check-lab occupancy >out 2>err &&
	grep -q "^  known  *fixture  *wrong-limit: 15 / 16$" out &&
	grep -q "^      known: the verdict a course wants later$" out &&
	grep -qx "occupancy: $((cases - 1)) as expected, 0 differ, 0 skipped, 0 not graded, 0 without a verdict, 1 known differences" out &&
	# a mark for GPU runs only is no mark here: the difference counts
	echo "gpu: on a GPU only" >"$fx/wrong-limit/open" &&
	test_must_fail_with 1 "$(cat cudalab)" check-lab occupancy &&
	grep -q "^  DIFFERS  *fixture  *wrong-limit" out &&
	echo "cpu: here too" >"$fx/wrong-limit/open" &&
	"$(cat cudalab)" check-lab occupancy >out 2>err &&
	grep -q "^      known: here too$" out &&
	echo "a mark left behind" >"$fx/floor-warps/open" &&
	test_must_fail_with 1 "$(cat cudalab)" check-lab occupancy &&
	grep -q "^  HOLDS NOW  *fixture  *floor-warps" out &&
	grep -q "it has an open file (a mark left behind), but gets its verdict: remove the file" out &&
	# a race whose outcome varies: holding is no failure, and said
	echo "sometimes: a race that may go right" >"$fx/floor-warps/open" &&
	echo "cpu: sometimes: here too" >"$fx/wrong-limit/open" &&
	"$(cat cudalab)" check-lab occupancy >out 2>err &&
	grep -q "^  ok  *fixture  *floor-warps" out &&
	grep -q "^      held this time; its open file says it may not: sometimes: a race" out &&
	grep -q "^      known: sometimes: here too$" out &&
	grep -qx "occupancy: $((cases - 1)) as expected, 0 differ, 0 skipped, 0 not graded, 0 without a verdict, 1 known differences" out ||
		{ cat out err; false; }
'
test_expect_success 'a lab that does not exist is a usage error, naming the labs there are' '
	test_must_fail_with 2 "$CUDALAB" check-lab nosuchlab && grep -q "occupancy" err
'
test_expect_success 'without a GPU: --no-emulate fails for a lab that needs one, and a lab that needs none is graded' '
	! gpu_available || { echo "a GPU is here"; exit 77; }
	test_must_fail_with 128 "$CUDALAB" check-lab grid --no-emulate &&
	grep -q "^error: grid: --no-emulate, but no GPU to grade on here: " err &&
	! grep -q "grading" err &&
	"$CUDALAB" check-lab occupancy --no-emulate >out 2>err &&
	grep -q "^occupancy: $cases as expected, 0 differ" out ||
		{ cat out err; false; }
'
test_done
