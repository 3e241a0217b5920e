#!/bin/bash
# The occupancy lab needs no GPU: with or without one, its tests run natively
# on the CPU and the result is a grade (mode cpu, complete). The reference
# scores full marks, the stub zero, and every fixture gets its pinned verdict.
# beside-others: it times nothing, and grades only through cudalab
. "$(dirname "$0")/lib.sh"

test_expect_success 'the occupancy reference gets full marks on the CPU: a grade (exit 0)' '
	grade_fixture "$T_ROOT/reference/occupancy" r.json &&
	[ "$(cat r.json.exit)" = 0 ] && [ "$(jq -r .mode r.json)" = cpu ] &&
	[ "$(jq -r .status r.json)" = complete ] && [ "$(jq .provisional r.json)" = false ] &&
	[ "$(jq .score r.json)" = 16 ] || { cat r.json.txt; false; }
'
test_expect_success 'the course'"'"'s grading runs the hidden answer checks (tests/hidden/), each after_due' '
	jq -e "[.tests[] | select(.part == \"questions\" and .name != \"format\")] |
		length == 6 and all(.status == \"pass\" and .held_back == false and
			.visibility == \"after_due\")" r.json >/dev/null &&
	jq -e ".tests[] | select(.name == \"format\") | .visibility == \"visible\" and .max_points == 0" r.json >/dev/null &&
	jq -e "[.tests[] | select(.part == \"calculator\")] | all(.visibility == \"visible\")" r.json >/dev/null &&
	! grep -q "graded later" r.json.txt
'
test_expect_success 'exports honour visibility: Gradescope per test, --for-students leaves out what is not shown yet' '
	"$CUDALAB" export occupancy --format gradescope --student fixture-occupancy >gs.json &&
	jq -e "[.tests[] | select(.name | startswith(\"questions: \")) | .visibility] ==
		[\"visible\", \"after_due_date\", \"after_due_date\", \"after_due_date\",
		 \"after_due_date\", \"after_due_date\", \"after_due_date\"]" gs.json >/dev/null &&
	"$CUDALAB" export occupancy >all.csv && grep -q "questions/threads" all.csv &&
	# the lab has no due time: after_due results are not shown yet; the score is the grade
	"$CUDALAB" export occupancy --for-students >students.csv &&
	! grep -q "questions/threads" students.csv && grep -q "questions/format" students.csv &&
	grep -q "^fixture-occupancy,16,16," students.csv &&
	"$CUDALAB" export occupancy --format junit --for-students >students.xml &&
	! grep -q "name=\"threads\"" students.xml && grep -q "name=\"format\"" students.xml &&
	test_must_fail_with 2 "$CUDALAB" export occupancy --format gradescope --for-students &&
	grep -q "for-students is for csv and junit" err
'
test_expect_success 'the run is in the gradebook as a complete cpu run' '
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT mode || \" \" || status FROM runs ORDER BY id DESC LIMIT 1")" = "cpu complete" ]
'
test_expect_success 'the report says the tests ran on the CPU and are a grade' '
	grep -q "^mode        on the CPU: this lab.s tests need no GPU; a grade" r.json.txt
'
test_expect_success 'the occupancy stub fails every test, saying it is not written yet (exit 1)' '
	grade_fixture "$T_ROOT/student_template/occupancy" s.json &&
	[ "$(cat s.json.exit)" = 1 ] && [ "$(jq .score s.json)" = 0 ] &&
	[ "$(jq "[.tests[] | select(.status != \"fail\")] | length" s.json)" = 0 ] &&
	[ "$(jq "[.tests[] | select(.part == \"calculator\") | select(.message | contains(\"not written yet\") | not)] | length" s.json)" = 0 ] &&
	[ "$(jq "[.tests[] | select(.part == \"questions\") | select(.message | contains(\"no answer yet\") | not)] | length" s.json)" = 0 ]
'
test_expect_success 'make test names cudalab'"'"'s exit code, which make itself cannot give' '
	{ make -s -C "$T_ROOT" BUILD="$BUILD" test LAB=occupancy \
		SUB="$T_ROOT/student_template/occupancy" >out 2>&1; [ $? = 2 ]; } &&
	grep -q "^score       0 / 16$" out &&
	grep -q "^make test: cudalab test exited 1 (points lost); make exits 2 for any code but 0: run .*/bin/cudalab test occupancy --sub .*/student_template/occupancy for the code itself$" out ||
		{ cat out; false; }
'
test_expect_success 'each student gets their own questions, the same every time' '
	"$CUDALAB" questions occupancy --student ada >ada1 &&
	"$CUDALAB" questions occupancy --student ada >ada2 &&
	"$CUDALAB" questions occupancy --student bob >bob &&
	cmp -s ada1 ada2 && ! cmp -s ada1 bob &&
	grep -q "^Occupancy questions for ada" ada1 && grep -q "^limiting_resource =$" ada1
'
test_expect_success 'the key of a student is what the grader expects from them' '
	mkdir ada && cp "$T_ROOT/reference/occupancy/occupancy.cu" ada/ &&
	"$CUDALAB" questions occupancy --student ada --key >ada/answers.txt &&
	"$CUDALAB" grade occupancy ada --student ada -q --json a.json >/dev/null &&
	[ "$(jq .score a.json)" = 16 ] &&
	"$CUDALAB" grade occupancy ada --student bob -q --json b.json >/dev/null
	validate_doc a.json b.json &&
	[ "$(jq "[.tests[] | select(.part == \"questions\" and .status == \"pass\")] | length" b.json)" -lt 6 ]
'
# the questions are per student: answers right for one are wrong for another,
# and a bare score would say the reference (or a copied sheet) is wrong
test_expect_success 'answers for another student'"'"'s questions: format and each wrong one say whose they are' '
	grade_fixture "$T_ROOT/reference/occupancy" z.json --student zed &&
	[ "$(cat z.json.exit)" = 1 ] &&
	[ "$(jq "[.tests[] | select(.part == \"calculator\" and .status != \"pass\")] | length" z.json)" = 0 ] &&
	jq -r ".tests[] | select(.part == \"questions\" and .name != \"format\" and .status == \"fail\") | .message" z.json >msg &&
	[ "$(grep -c "^hint: answers.txt answers the questions of student .fixture-occupancy. (its line .student = fixture-occupancy.), but this run grades .zed., whose questions have other numbers" msg)" = \
		"$(jq "[.tests[] | select(.part == \"questions\" and .name != \"format\" and .status == \"fail\")] | length" z.json)" ] &&
	[ -s msg ] && grep -q "cudalab questions occupancy --student zed. prints them$" msg &&
	grep -q "^    hint: answers.txt answers the questions of student .fixture-occupancy." z.json.txt &&
	# and the visible format test, seen before the due date, says whose sheet it is
	jq -r ".tests[] | select(.name == \"format\") | .status + \" \" + .message" z.json >fmt &&
	grep -q "^fail answers.txt is the sheet of .fixture-occupancy. (its line .student = fixture-occupancy.), but this run grades .zed., whose questions have other numbers" fmt &&
	grep -q "(make test LAB=occupancy STUDENT=fixture-occupancy)$" fmt &&
	jq -r ".tests[] | select(.part == \"questions\" and .status == \"fail\") | .message" b.json |
		grep -q "of student .ada.*but this run grades .bob." &&
	# the student graded is the one the sheet names: the usual hint
	cp "$T_ROOT/reference/occupancy/occupancy.cu" "$T_ROOT/reference/occupancy/fixtures/wrong-limit/answers.txt" ada/ &&
	"$CUDALAB" grade occupancy ada --student fixture-wrong-limit -q --json w.json >/dev/null;
	jq -r ".tests[] | select(.name == \"limit\") | .message" w.json | grep -q "^hint: work out how many blocks"
'
test_expect_success 'answers.txt of the wrong form: the visible format test names the line' '
	mkdir form && cp "$T_ROOT/reference/occupancy/occupancy.cu" "$T_ROOT/reference/occupancy/answers.txt" form/ &&
	sed -i "s/^blocks_per_sm = .*/blocks_per_sm = many/" form/answers.txt &&
	line=$(grep -n "^blocks_per_sm" form/answers.txt | cut -d: -f1) &&
	{ "$CUDALAB" grade occupancy form --student fixture-occupancy -q --json f.json >/dev/null; [ $? = 1 ]; } &&
	validate_doc f.json &&
	jq -r ".tests[] | select(.name == \"format\") | .status + \" \" + .message" f.json >msg &&
	grep -qx "fail answers.txt line $line: blocks_per_sm = many: the answer must be a whole number" msg ||
		{ cat msg; false; } &&
	sed -i "s/^blocks_per_sm = .*/blocks = 1/" form/answers.txt &&
	"$CUDALAB" grade occupancy form --student fixture-occupancy -q --json g.json >/dev/null;
	jq -r ".tests[] | select(.name == \"format\") | .message" g.json | grep -q "^answers.txt line $line: no question is named .blocks.;"
'
test_expect_success 'the question sheet links no calculator: the key is a program of its own, from tests/hidden/' '
	# the calculator of cuda_occupancy.h is cudaOcc<Name>; cudaOccupancy* of the runtime asks a GPU
	! nm -C "$BUILD/labs/occupancy/questions" | grep -e "cudaOcc[A-Z]" -e cl_ref_ -e occ_lab_key -e occ_lab_answer &&
	nm "$BUILD/labs/occupancy/key" | grep -q cl_ref_occ_blocks_per_sm &&
	{ "$BUILD/labs/occupancy/questions" --student ada --key 2>err; [ $? = 2 ]; } &&
	grep -q "the key is only available in the course.s repository" err &&
	# the table of the questions asked is what cuda_occupancy.h says
	"$BUILD/labs/occupancy/key" --admissible | cmp - "$T_ROOT/labs/occupancy/tests/occ_admissible.h"
'
test_expect_success 'for 300 students, the reference calculator agrees with cuda_occupancy.h on every answer' '
	for i in $(seq 300); do
		"$CUDALAB" questions occupancy --student "student-$i" --key >/dev/null || exit 1
	done
'
test_expect_success 'a lab without per-student questions says so (exit 2)' '
	"$CUDALAB" questions matmul 2>err; [ $? -eq 2 ] && grep -q "no per-student questions" err
'
test_fixtures occupancy
test_done
