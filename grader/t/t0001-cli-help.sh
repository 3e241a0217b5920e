#!/bin/bash
# Every command answers -h, and the command line refuses what it cannot do.
# beside-others: it times nothing, and grades only through cudalab
. "$(dirname "$0")/lib.sh"

test_expect_success 'cudalab -h lists the commands' '
	"$CUDALAB" -h >out && grep -q "cudalab test LAB" out && grep -q "cudalab db" out
'
for cmd in test grade labs questions db rewrite gpus similar; do
	test_expect_success "cudalab $cmd -h prints its usage and exits 0" '
		"$CUDALAB" '"$cmd"' -h >out && grep -q "usage: cudalab '"$cmd"'" out
	'
done
test_expect_success 'no command or an unknown one is a usage error (2)' '
	"$CUDALAB"; [ $? -eq 2 ] && { "$CUDALAB" frobnicate; [ $? -eq 2 ]; }
'
test_expect_success 'grade without a folder, or with an empty --student, is a usage error' '
	"$CUDALAB" grade matmul; [ $? -eq 2 ] &&
	{ "$CUDALAB" grade matmul "$T_ROOT/reference/matmul" --student ""; [ $? -eq 2 ]; } &&
	{ "$CUDALAB" grade matmul /no/such/folder 2>err; [ $? -eq 2 ]; } &&
	grep -q "submission folder ./no/such/folder. does not exist" err
'
test_expect_success 'an unknown lab is a usage error that lists the labs' '
	labs=$(cd "$T_ROOT/labs" && ls -d */lab.conf | sed "s|/lab.conf||" | sort | tr "\n" " ") &&
	"$CUDALAB" test nolab --no-db 2>err; [ $? -eq 2 ] && grep -qF "no lab '"'"'nolab'"'"'; the labs are: ${labs% }" err
'
test_expect_success 'a submission folder that does not exist is a usage error' '
	"$CUDALAB" grade matmul /nonexistent --student x 2>err; [ $? -eq 2 ] && grep -q "does not exist" err
'
test_expect_success 'a file for a submission folder is named a file, with the folder that holds it' '
	"$CUDALAB" test matmul --sub "$T_ROOT/reference/matmul/matmul.cu" --no-db 2>err; [ $? -eq 2 ] &&
	grep -qF "matmul/matmul.cu'"'"' is a file, not a folder: name the folder that holds it, '"'"'$T_ROOT/reference/matmul'"'"'" err
'
test_expect_success 'cudalab labs lists the labs with their parts and points' '
	"$CUDALAB" labs >out &&
	grep -q "^matmul: .*(50 points + 12.5 bonus)" out &&
	grep -q "k5 .*\[bonus\]: exact=4 random=4 config=2 time@3072=2.5" out &&
	grep -q "none from 3 times" out &&
	grep -q "^grid: .*(43 points)" out && grep -q "questions .*vector=2 image=4 picture=3" out &&
	grep -q "^occupancy: .*(16 points)" out &&
	grep -q "^coalescing: .*(39 points)" out &&
	grep -q "strided .*: exact=4 stride-1=0 stride-2=0" out &&
	grep -q "none from the second: time-rows 1.15..2.5, rows-vs-cols 0.5..0.9" out
'
test_expect_success 'cudalab labs --where LAB says where the material of that lab lives, with counts' '
	"$CUDALAB" labs --where grid >out &&
	[ "$(grep -c "^[a-z]*: " out)" = 1 ] && grep -q "^grid: " out &&
	fixtures=$(ls -d "$T_ROOT"/reference/grid/fixtures/*/ | wc -l) &&
	grep -qx "    fixtures        reference/grid/fixtures ($fixtures)" out &&
	grep -qx "    corpus          reference/grid/corpus ($(ls -d "$T_ROOT"/reference/grid/corpus/*/ | wc -l))" out &&
	grep -qx "    red team        grader/t/redteam/grid ($(ls -d "$T_ROOT"/grader/t/redteam/grid/*/ | wc -l))" out &&
	"$CUDALAB" labs --where occupancy >out && grep -qx "    corpus          reference/occupancy/corpus (none)" out &&
	"$CUDALAB" labs grid nolab >out 2>err; [ $? -eq 2 ] && grep -q "no lab .nolab.; the labs are:" err
'
test_expect_success 'make help lists the targets' '
	make -s -C "$T_ROOT" help >out && grep -q "make test LAB=name" out && grep -q check-gpu out
'
test_expect_success 'make says so when it cannot find nvcc' '
	! make -s -C "$T_ROOT" BUILD="$T_TMP/build" NVCC= all >out 2>&1 &&
	grep -q "nvcc not found: put the CUDA Toolkit.s bin on PATH, or set CUDA_HOME" out
'
test_expect_success 'make test without LAB says how to call it' '
	! make -s -C "$T_ROOT" test >out 2>&1 && grep -q "usage: make test LAB=<lab>" out
'
test_expect_success '--seed takes a whole number up to 2^53 - 1, and nothing else' '
	for s in abc 12abc -1 +5 " 5" "" 1e3; do
		test_must_fail_with 2 "$CUDALAB" grade matmul "$T_ROOT/reference/matmul" --seed "$s" &&
		grep -q "error: --seed wants a whole number from 0 to 9007199254740991 (2^53 - 1), not .$s." err || exit 1
	done &&
	for s in 9007199254740992 18446744073709551615 99999999999999999999999; do
		test_must_fail_with 2 "$CUDALAB" test matmul --seed "$s" --no-db &&
		grep -q "error: --seed $s is above 2^53 - 1 (9007199254740991): JSON readers such as jq" err || exit 1
	done &&
	[ ! -e "$CUDALAB_DB" ]
'
test_expect_success 'a seed given, and every fresh one, is read back from the document as it was' '
	f=$T_ROOT/reference/matmul/fixtures/no-compile &&
	for s in 9007199254740991 0 00042; do
		"$CUDALAB" grade matmul "$f" --seed $s --json r.json -q >/dev/null
		[ "$(jq .seed r.json)" = $((10#$s)) ] || { say "--seed $s: $(jq .seed r.json)"; exit 1; }
	done &&
	# a random 64-bit seed is below 2^53 once in 2048 times
	for i in 1 2 3 4 5 6; do
		"$CUDALAB" grade matmul "$f" --json r.json -q >/dev/null
		text=$(grep -o "\"seed\": *[0-9-]*" r.json | grep -o "[0-9-]*$") &&
		[ "$(jq .seed r.json)" = "$text" ] && [ "$text" -ge 0 ] && [ "$text" -le 9007199254740991 ] ||
			{ say "fresh seed $text, read back as $(jq .seed r.json)"; exit 1; }
	done
'
test_expect_success 'without $USER, the student is the user running it, and show finds the run' '
	me=$(id -un) && f=$T_ROOT/reference/matmul/fixtures/no-compile &&
	(unset USER && "$CUDALAB" test matmul --sub "$f" --json r.json -q >/dev/null)
	[ "$(jq -r .student r.json)" = "$me" ] &&
	"$CUDALAB" show "$me" >out && grep -q "compile-error" out &&
	(USER= && "$CUDALAB" test matmul --sub "$f" --json r.json --no-db -q >/dev/null)
	[ "$(jq -r .student r.json)" = "$me" ] &&
	(unset USER && "$CUDALAB" questions occupancy) >q &&
	"$CUDALAB" questions occupancy --student "$me" >q.me && cmp q q.me &&
	"$CUDALAB" test -h | grep -q "default: \$USER, else the name of"
'
test_done
