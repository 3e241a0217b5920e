#!/bin/bash
# One run reads the same wherever it is shown: the terminal report, the class
# table and its progress lines, `cudalab db show`, `cudalab show`, the run's
# page, the Gradescope and JUnit exports and the result document's score_text
# all give the final score (bonus included) out
# of the maximum, the bonus said as part of it. Emulated, the timed tests'
# points are pending a GPU run, not lost, and the run stays provisional.
# A stored run's report, made again from its document, is what grading
# printed, to the byte; and every test has the same points in the report,
# the exports and the page (helpers/media-check.py).
# beside-others: it times nothing, and grades only through cudalab
. "$(dirname "$0")/lib.sh"
cpu_only
gpu_available && skip_all "a GPU is here: the timed tests would run"
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"

want="50 / 50 (10 of it bonus), 10 more pending a GPU run"
test_expect_success 'the report: the final score, its bonus, and the points pending a GPU' '
	mkdir -p class/ada && cp "$T_ROOT/reference/matmul/matmul.cu" class/ada/ &&
	{ "$CUDALAB" grade matmul class/ada --json r.json >report 2>report.progress; [ $? = 4 ]; } &&
	grep -qxF "score       $want" report &&
	grep -qx "            PROVISIONAL: emulated on the CPU, not a grade" report &&
	[ "$(grep -Ec "^k[1-5] +time@[0-9]+ +pending \(GPU\) +-/2\.5 " report)" = 5 ] &&
	! grep -q " 0/2\.5" report &&
	[ "$(jq -r .score_text r.json)" = "$want" ] || { cat report report.progress; false; }
'
test_expect_success 'the class table, its progress line, db show and show write it the same' '
	{ "$CUDALAB" grade matmul class -j 1 >table 2>progress; [ $? = 4 ]; } &&
	grep -qF "$want  incomplete" table && grep -q "^ada " table &&
	grep -qF "ada: $want, incomplete, build ok" progress &&
	"$CUDALAB" db show >db && [ "$(grep -cF " $want ok " db)" = 2 ] &&
	"$CUDALAB" show ada >show && [ "$(grep -cF " $want incomplete " show)" = 2 ] &&
	grep -qF "latest: matmul $want (run 2, incomplete)" show ||
		{ cat table progress db show; false; }
'
test_expect_success 'the run page, the Gradescope export and the JUnit export write it the same' '
	"$CUDALAB" report matmul --student ada --out page.html >/dev/null &&
	grep -qF "$want" page.html &&
	"$CUDALAB" export matmul --format gradescope --student ada --out gs.json &&
	jq -r .output gs.json | grep -qF "$want" &&
	"$CUDALAB" export matmul --format junit --student ada --out j.xml &&
	grep -qF "$want" j.xml || { grep -o "[0-9.]* / [0-9.]*[^<]*" page.html | head -3; jq -r .output gs.json | head -5; grep -o "score[^<]*" j.xml | head; false; }
'
# same_report REPORT PROGRESS: the run that PROGRESS says was stored, its
# report read back from the gradebook (db show --run N --report), is REPORT
same_report() {
	local run
	run=$(sed -n "s/.*recorded as run \([0-9]*\) in .*/\1/p" "$2") && [ -n "$run" ] &&
	"$CUDALAB" db show --run "$run" --report >"$1.again" &&
	diff -u "$1" "$1.again" || { echo "run ${run:-?}: the report read back differs"; cat "$2"; false; }
}
test_expect_success 'a stored run'"'"'s report, read back from its document, is what grading printed' '
	same_report report report.progress &&
	# a submission refused before it builds, and one whose lab has a deadline, graded late
	mkdir -p late && cp "$T_ROOT/reference/occupancy/occupancy.cu" "$T_ROOT/reference/occupancy/answers.txt" late/ &&
	{ "$CUDALAB" grade grid "$T_ROOT/reference/grid/fixtures/includes-reference" \
		>refused 2>refused.progress; [ $? = 3 ]; } &&
	grep -q "^build       refused" refused && same_report refused refused.progress &&
	course_copy occupancy "$(printf "%s\n" "[deadline]" "due = 2026-12-04 23:59 +01:00" \
		"penalty_per_day = 10")" &&
	{ "$(cat cudalab)" grade occupancy late --submitted-at "2026-12-06 09:00 Z" >late.report \
		2>late.progress; [ $? = 1 ]; } &&
	grep -q "^submitted   .* 2 days late, -[0-9.]* points$" late.report &&
	same_report late.report late.progress
'
# same_points STUDENT LAB REPORT: the student's latest run of LAB gives every
# test the points REPORT gives it, in each export and on its page
same_points() {
	"$CUDALAB" export "$2" --format gradescope --student "$1" --out "$1.gs.json" &&
	"$CUDALAB" export "$2" --format junit --student "$1" --out "$1.junit.xml" &&
	"$CUDALAB" export "$2" --format csv --out "$1.csv" &&
	"$CUDALAB" report "$2" --student "$1" --out "$1.html" >/dev/null &&
	python3 "$T_ROOT/grader/t/helpers/media-check.py" "$1" "$3" "$1.gs.json" "$1.junit.xml" \
		"$1.csv" "$1.html"
}
test_expect_success 'each test has the same points in the report, the exports and the page' '
	# ada (her latest run, graded in the class, of the same file): tests pending a GPU run,
	# and bonus tests; late: failed tests, and a late penalty
	same_points ada matmul report &&
	same_points late occupancy late.report
'
test_expect_success 'db show --report needs --run' '
	test_must_fail_with 2 "$CUDALAB" db show --report && grep -q "usage:" err
'
test_done
