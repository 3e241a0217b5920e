#!/bin/bash
# Grades out of the gradebook: each student's latest run of a lab as CSV (an
# LMS import), Gradescope's results.json (its documented fields) and JUnit XML
# (well-formed, one suite per student); and regrading the latest submissions.
. "$(dirname "$0")/lib.sh"
cpu_only
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"

ref=$T_ROOT/reference/grid
test_expect_success 'a class graded, and graded again: the gradebook to export' '
	mkdir -p class/ada class/"lee, ann" class/bob &&
	cp "$ref/grid.cu" "$ref/answers.txt" class/ada/ &&
	cp "$ref/grid.cu" "$ref/answers.txt" class/"lee, ann"/ &&
	cp "$ref/fixtures/no-bounds/grid.cu" "$ref/answers.txt" class/bob/ &&
	"$CUDALAB" grade grid class -q >out 2>&1 &&
	cp "$ref/grid.cu" class/bob/ &&
	{ "$CUDALAB" grade grid class/bob -q >/dev/null; [ $? = 4 ]; } &&   # emulated: provisional
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs")" = 4 ]
'
test_expect_success 'csv: a row per student, the latest run, every test a column' '
	"$CUDALAB" export grid >grades.csv &&
	head -1 grades.csv | grep -q "^student,score,max_score,bonus_score,status,mode,provisional,build,run,started_at,lab_version,index/d1,index/d2" &&
	[ "$(wc -l <grades.csv)" = 4 ] &&
	grep -q "^ada,43,43,0,incomplete,emulated,yes,ok," grades.csv &&
	grep -q "^bob,43,43,0,incomplete,emulated,yes,ok,4," grades.csv &&
	grep -q "^\"lee, ann\",43,43," grades.csv &&
	"$CUDALAB" export grid --student bob --out bob.csv && [ "$(wc -l <bob.csv)" = 2 ]
'
test_expect_success 'gradescope: results.json with the documented fields, per student' '
	"$CUDALAB" export grid --format gradescope --out gs &&
	[ "$(ls gs | wc -l)" = 3 ] && [ -f "gs/lee, ann.json" ] &&
	for f in gs/*.json; do
		jq -e "(.score | type) == \"number\" and (.tests | length) == 13 and
			([.tests[] | select((.status == \"passed\" or .status == \"failed\") and
				(.score | type) == \"number\" and (.max_score | type) == \"number\" and
				(.name | type) == \"string\" and .visibility == \"visible\")] | length) == 13 and
			([.tests[].score] | add) == .score and .stdout_visibility == \"hidden\"" "$f" >/dev/null ||
			{ cat "$f"; exit 1; }
	done &&
	"$CUDALAB" export grid --format gradescope --student ada | jq -e ".score == 43" >/dev/null
'
test_expect_success 'junit: well-formed XML, a suite per student, failures counted' '
	"$CUDALAB" grade grid "$ref/fixtures/no-bounds" --student cy -q >/dev/null; [ $? = 4 ] &&
	"$CUDALAB" export grid --format junit --out grades.xml &&
	if command -v xmllint >/dev/null; then xmllint --noout grades.xml; else
		say "xmllint is not installed: the XML is checked by jq-free greps only"; fi &&
	[ "$(grep -c "<testsuite " grades.xml)" = 4 ] &&
	grep -q "<testsuite name=\"grid.cy\" tests=\"13\" failures=\"[1-9][0-9]*\"" grades.xml &&
	grep -q "<failure message=\"fail: 0 of 6 points\">" grades.xml &&
	[ "$(grep -c "<testcase " grades.xml)" = 52 ]
'
test_expect_success 'regrade: the latest folders graded again as new runs, with what changed' '
	cp "$ref/fixtures/no-bounds/grid.cu" class/ada/ &&
	before=$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs") &&
	"$CUDALAB" regrade grid --student ada -q >out 2>&1 &&
	grep -q "^  ada: score 43 -> 25; picture/exact pass -> fail" out &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs")" = $((before + 1)) ] &&
	"$CUDALAB" regrade grid -q >out 2>&1 &&
	grep -q "nothing: every score and verdict is what it was" out &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs")" = $((before + 5)) ] &&
	test_must_fail_with 2 "$CUDALAB" regrade matmul
'
test_expect_success 'show: a student'"'"'s history, oldest first, with each change of score' '
	"$CUDALAB" show ada >out &&
	grep -q "^ada: 3 runs" out &&
	[ "$(grep -c "^grid " out)" = 3 ] &&
	grep -q "^grid .* 25/43 .* -18$" out &&
	grep -q "^latest: grid 25/43 (run [0-9]*, incomplete)" out &&
	test_must_fail_with 2 "$CUDALAB" show nobody
'
test_expect_success 'usage: an unknown format, a lab with no runs' '
	test_must_fail_with 2 "$CUDALAB" export grid --format pdf &&
	test_must_fail_with 2 "$CUDALAB" export matmul && grep -q "has no run of lab .matmul." err &&
	test_must_fail_with 2 "$CUDALAB" export grid --format gradescope
'
test_done
