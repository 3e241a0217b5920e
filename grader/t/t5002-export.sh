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
	# emulated, every run of the class is provisional: exit 4
	{ "$CUDALAB" grade grid class -q >out 2>&1; [ $? = 4 ]; } &&
	cp "$ref/grid.cu" class/bob/ &&
	{ "$CUDALAB" grade grid class/bob -q >/dev/null; [ $? = 4 ]; } &&   # emulated: provisional
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs")" = 4 ]
'
test_expect_success 'csv: a row per student, the latest run, every test a column' '
	"$CUDALAB" export grid >grades.csv &&
	head -1 grades.csv | grep -q "^student,score,max_score,bonus_score,final_score,late_days,late_penalty,submitted_at,status,mode,provisional,build,run,started_at,lab_version,index/d1,index/d2" &&
	[ "$(wc -l <grades.csv)" = 4 ] &&
	grep -q "^ada,43,43,0,43,0,0,,incomplete,emulated,yes,ok," grades.csv &&
	grep -q "^bob,43,43,0,43,0,0,,incomplete,emulated,yes,ok,4," grades.csv &&
	grep -q "^\"lee, ann\",43,43," grades.csv &&
	"$CUDALAB" export grid --student bob --out bob.csv && [ "$(wc -l <bob.csv)" = 2 ]
'
test_expect_success 'csv: RFC 4180 with CRLF, each test'"'"'s maximum in a column of its own' '
	python3 "$T_ROOT/grader/t/helpers/csv-check.py" grades.csv &&
	head -1 grades.csv | tr -d "\r" | tr , "\n" | tail -13 >max-columns &&
	[ "$(head -1 max-columns)" = "index/d1 max" ] && ! grep -qv " max$" max-columns &&
	[ "$(grep "^ada," grades.csv | tr -d "\r" | awk -F, "{ for (i = NF - 12; i <= NF; i++) s += \$i; print s }")" = 43 ]
'
test_expect_success 'csv: a test not run (its timing, pending a GPU run) has an empty cell, not 0' '
	{ "$CUDALAB" grade matmul "$T_ROOT/reference/matmul" --student mia --db cells.db -q >/dev/null
	  [ $? = 4 ]; } &&
	"$CUDALAB" export matmul --db cells.db >mm.csv &&
	col=$(head -1 mm.csv | tr -d "\r" | tr , "\n" | grep -n "^k1/time@1024$" | cut -d: -f1) &&
	[ -n "$col" ] && [ "$(grep "^mia," mm.csv | tr -d "\r" | cut -d, -f"$col")" = "" ] &&
	exact=$(head -1 mm.csv | tr -d "\r" | tr , "\n" | grep -n "^k1/exact$" | cut -d: -f1) &&
	[ "$(grep "^mia," mm.csv | tr -d "\r" | cut -d, -f"$exact")" != "" ]
'
# valid_gradescope FILE...: each is valid against the schema written from
# Gradescope's specification of results.json
valid_gradescope() {
	python3 -c 'import jsonschema' 2>/dev/null ||
		{ say "python3-jsonschema is not installed (ci/debian-packages.txt lists it)"; return 1; }
	python3 "$T_ROOT/grader/t/helpers/json-schema-check.py" \
		"$T_ROOT/grader/t/schemas/gradescope-results.schema.json" "$@"
}
# an emulated run: a pre-check, said in the output and in extra_data, its
# score recorded as 0; a "build" test, then every test passed or failed,
# with no score: its points in its output and extra_data
gs_emulated='(.tests | length) == 14 and .tests[0].name == "build" and .tests[0].status == "passed" and
	([.tests[1:][] | select((.status == "passed" or .status == "failed") and
		(has("score") or has("max_score") | not) and (.extra_data.points | type) == "number" and
		(.output | test("worth [0-9.]+ points in the course.s grading")) and
		(.number | test("^[0-9]+[.][0-9]+$")) and .visibility == "visible")] | length) == 13 and
	.score == 0 and ([.tests[].extra_data.points // 0] | add) == .extra_data.final_score and
	.stdout_visibility == "hidden" and
	.output_format == "md" and (.output | contains("A pre-check, not a grade")) and
	.extra_data.provisional == true and .extra_data.mode == "emulated" and
	(.extra_data.run | type) == "number" and (.extra_data.seed | test("^[0-9]+$")) and
	(.extra_data.files[0].sha256 | test("^[0-9a-f]{64}$"))'
test_expect_success 'gradescope: results.json valid against its specification, per student; a pre-check says so' '
	"$CUDALAB" export grid --format gradescope --out gs &&
	[ "$(ls gs | wc -l)" = 3 ] && [ -f "gs/lee, ann.json" ] &&
	valid_gradescope gs/*.json &&
	for f in gs/*.json; do jq -e "$gs_emulated" "$f" >/dev/null || { cat "$f"; exit 1; }; done &&
	# a pre-check records 0: its own score is in extra_data and the output
	"$CUDALAB" export grid --format gradescope --student ada |
		jq -e ".score == 0 and .extra_data.final_score == 43 and
			([.tests[] | select(has(\"score\") or has(\"max_score\"))] | length) == 0" >/dev/null
'
# a submission that did not build: the build test failed with the compiler's
# errors in a code block, every test failed with 0 points; bonus tests are
# worth 0 (extra credit), so the maxima add up to the lab's
gs_not_built='.score == 0 and .tests[0].name == "build" and .tests[0].status == "failed" and
	.tests[0].output_format == "md" and (.tests[0].output | contains("```text\n") and
		contains("error: expected a")) and (.output | contains("error: expected a")) and
	([.tests[1:][] | select(.status == "failed" and .score == 0)] | length) == 20 and
	([.tests[].max_score // 0] | add) == 50 and .extra_data.max_score == 50 and
	([.tests[] | select(.tags | index("bonus")) | select(.max_score == 0 and
		(.name | endswith("(bonus)")))] | length) == 4'
nc=$T_ROOT/reference/matmul/fixtures/no-compile
test_expect_success 'gradescope: a submission that did not build shows the compiler'"'"'s errors; bonus is extra credit' '
	export CUDALAB_DB=$PWD/mm.db &&
	test_must_fail_with 3 "$CUDALAB" grade matmul "$nc" --student nc -q &&
	"$CUDALAB" export matmul --format gradescope --student nc >nc.json &&
	valid_gradescope nc.json &&
	jq -e "$gs_not_built" nc.json >/dev/null || { cat nc.json; exit 1; }
'
test_expect_success 'gradescope: student names give one file each, never hidden, never shared' '
	export CUDALAB_DB=$PWD/mm.db &&
	for s in .dot a/b a%2Fb; do test_must_fail_with 3 "$CUDALAB" grade matmul "$nc" --student "$s" -q ||
		exit 1; done &&
	"$CUDALAB" export matmul --format gradescope --out names &&
	[ "$(ls -A names | LC_ALL=C sort | tr "\n" " ")" = "%2Edot.json a%252Fb.json a%2Fb.json nc.json " ] &&
	[ "$(jq -r .extra_data.student names/a%2Fb.json)" = a/b ] &&
	[ "$(jq -r .extra_data.student names/a%252Fb.json)" = a%2Fb ] &&
	[ "$(jq -r .extra_data.student names/%2Edot.json)" = .dot ]
'
# a student's name a spreadsheet would run: a quoted cell, a quote first
formula_row=$(cat <<'EOF'
"'=HYPERLINK(""x"")",0,50,
EOF
)
test_expect_success 'csv: no cell is a spreadsheet formula, whatever the student'"'"'s name' '
	export CUDALAB_DB=$PWD/mm.db &&
	for s in "=HYPERLINK(\"x\")" "@SUM(A1)" "-1"; do
		test_must_fail_with 3 "$CUDALAB" grade matmul "$nc" --student "$s" -q || exit 1; done &&
	"$CUDALAB" export matmul >mm.csv &&
	python3 "$T_ROOT/grader/t/helpers/csv-check.py" mm.csv &&
	grep -qF "$formula_row" mm.csv && grep -q "^\"'"'"'@SUM(A1)\",0,50," mm.csv &&
	grep -q "^\"'"'"'-1\",0,50," mm.csv
'
# a provisional run that ran no test: each test pending, with neither a
# score nor a status, and what it is worth in its output and extra_data
gs_pending='.extra_data.provisional == true and .extra_data.mode == "none" and
	(.output | contains("A pre-check, not a grade")) and .tests[0].status == "passed" and
	([.tests[1:][] | select(has("score") or has("status") or has("max_score"))] | length) == 0 and
	([.tests[1:][] | select((.tags | index("not-run")) and (.output | contains("not counted"))
		and .extra_data.max_points > 0)] | length) == 13'
test_expect_success 'gradescope: a test a provisional run did not run is neither passed nor failed' '
	export CUDALAB_DB=$PWD/none.db &&
	test_must_fail_with 4 "$CUDALAB" grade grid "$ref" --student solo --no-emulate -q &&
	"$CUDALAB" export grid --format gradescope --out one &&   # one student: still a folder
	[ -f one/solo.json ] && valid_gradescope one/solo.json &&
	jq -e "$gs_pending" one/solo.json >/dev/null || { cat one/solo.json; exit 1; }
'
# valid_junit FILE...: valid against the schema of what GitLab and Jenkins
# read, with counts that add up and no test case twice
valid_junit() {
	xmllint --noout --schema "$T_ROOT/grader/t/schemas/junit.xsd" "$@" &&
		python3 "$T_ROOT/grader/t/helpers/junit-check.py" "$@"
}
test_expect_success 'junit: valid for GitLab and Jenkins; a class names the student in each classname' '
	test_must_fail_with 4 "$CUDALAB" grade grid "$ref/fixtures/no-bounds" --student cy -q &&
	"$CUDALAB" export grid --format junit --out grades.xml &&
	valid_junit grades.xml &&
	[ "$(grep -c "<testsuite " grades.xml)" = 4 ] &&
	grep -q "<testsuite name=\"grid.cy\" tests=\"14\" failures=\"[1-9][0-9]*\"" grades.xml &&
	[ "$(grep -c "<testcase " grades.xml)" = 56 ] &&
	grep -q "<testcase classname=\"grid.cy.picture\" name=\"exact\"" grades.xml &&
	grep -q "<testcase classname=\"grid.cy\" name=\"build\"" grades.xml &&
	# the points in the failure'"'"'s text (GitLab shows it) and in system-out
	grep -q "<failure message=\"fail: 0 of 6 points\" type=\"fail\">fail: 0 of 6 points$" grades.xml &&
	grep -q "<system-out>pass: 3 of 3 points</system-out>" grades.xml &&
	"$CUDALAB" export grid --format junit --student cy >cy.xml && valid_junit cy.xml &&
	grep -q "<testcase classname=\"grid.picture\" name=\"exact\"" cy.xml
'
test_expect_success 'junit: a build that failed is a failed test with the compiler'"'"'s errors' '
	CUDALAB_DB=$PWD/mm.db "$CUDALAB" export matmul --format junit --student nc --out nc.xml &&
	valid_junit nc.xml &&
	grep -q "<testsuite name=\"matmul.nc\" tests=\"21\" failures=\"1\" errors=\"0\" skipped=\"20\"" nc.xml &&
	sed -n "/classname=\"matmul\" name=\"build\"/,/<\/testcase>/p" nc.xml >build.xml &&
	grep -q "<failure message=\"compile-error: nvcc failed on " build.xml &&
	grep -q "error: expected a" build.xml &&
	grep -q "skipped message=\"not run: the submission was not built\">not run: the submission was not built (0 of 4 points)<" nc.xml &&
	CUDALAB_DB=$PWD/none.db "$CUDALAB" export grid --format junit --out none.xml &&
	valid_junit none.xml &&
	grep -q "(worth 6 points, not counted in this provisional score)</skipped>" none.xml &&
	grep -q "^provisional: no CUDA device" none.xml
'
test_expect_success 'the validators refuse what the platforms would not read' '
	jq ".tests[1].status = \"not-run\"" nc.json >bad1.json && ! valid_gradescope bad1.json >out &&
	grep -q "tests/1/status" out &&
	jq ".tests[1].max_points = 4" nc.json >bad2.json && ! valid_gradescope bad2.json >out &&
	jq "del(.score)" nc.json >bad3.json && ! valid_gradescope bad3.json >out &&
	sed "0,/ classname=\"[^\"]*\"/s///" nc.xml >bad.xml && ! valid_junit bad.xml 2>/dev/null &&
	sed "0,/tests=\"21\"/s//tests=\"20\"/" nc.xml >bad.xml && xmllint --noout bad.xml &&
	! valid_junit bad.xml >out 2>&1 && grep -q "testsuites: tests=20, but the suites have 21" out &&
	sed "s/<testcase classname=\"grid.cy.picture\"/<testcase classname=\"grid.ada.picture\"/" \
		grades.xml >bad.xml && ! valid_junit bad.xml >out 2>&1 && grep -q "appears twice" out &&
	tr -d "\r" <grades.csv >bad.csv && ! python3 "$T_ROOT/grader/t/helpers/csv-check.py" bad.csv &&
	printf "a,b\r\n=1+1,2\r\n" >bad.csv && ! python3 "$T_ROOT/grader/t/helpers/csv-check.py" bad.csv &&
	printf "a,b\r\n\"x\"y,2\r\n" >bad.csv && ! python3 "$T_ROOT/grader/t/helpers/csv-check.py" bad.csv &&
	printf "a,b\r\n1\r\n" >bad.csv && ! python3 "$T_ROOT/grader/t/helpers/csv-check.py" bad.csv
'
test_expect_success 'regrade: the files each run graded, graded again as new runs, whatever the folder holds now' '
	cp "$ref/fixtures/no-bounds/grid.cu" class/ada/ &&
	before=$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs") &&
	{ "$CUDALAB" regrade grid --student ada -q >out 2>&1; [ $? = 4 ]; } &&
	grep -q "^warning: ada: the folder graded last (.*/class/ada.) holds other files now: its run.s files are graded again, from the gradebook.s copy" out &&
	grep -q "^warning: 1 folder changed since it was graded: each is a new submission, which .cudalab grade grid FOLDER. grades" out &&
	grep -q "nothing: every score and verdict is what it was" out &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs")" = $((before + 1)) ] &&
	# the new run names the folder the files came from, and the files it graded
	sqlite3 "$CUDALAB_DB" "SELECT json_extract(result_json, \"\$.submission\") FROM runs ORDER BY id DESC LIMIT 1" | grep -q "/class/ada$" &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT json_extract(result_json, \"\$.files[0].sha256\") FROM runs ORDER BY id DESC LIMIT 1")" = "$(sha256sum "$ref/grid.cu" | cut -d" " -f1)" ] &&
	# the changed folder is a new submission: grade grades it
	{ "$CUDALAB" grade grid class/ada -q >/dev/null 2>&1; [ $? = 4 ]; } &&
	{ "$CUDALAB" regrade grid -q >out 2>&1; [ $? = 4 ]; } &&
	! grep -q "holds other files" out &&
	grep -q "nothing: every score and verdict is what it was" out &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs")" = $((before + 6)) ] &&
	validate_doc --db "$CUDALAB_DB" &&
	test_must_fail_with 2 "$CUDALAB" regrade matmul
'
test_expect_success 'regrade: a folder that is gone is graded from the gradebook'"'"'s copy' '
	mv class/bob bob-away &&
	{ "$CUDALAB" regrade grid --student bob -q >out 2>&1; rc=$?; mv bob-away class/bob; [ $rc = 4 ]; } &&
	grep -q "^warning: bob: the folder graded last (.*/class/bob.) is gone: its run.s files are graded again" out &&
	grep -q "nothing: every score and verdict is what it was" out
'
test_expect_success 'show: a student'"'"'s history, oldest first, with each change of score' '
	"$CUDALAB" show ada >out &&
	grep -q "^ada: 4 runs" out &&
	[ "$(grep -c "^grid " out)" = 4 ] &&
	# under each run, the folder and files (sha256) it graded
	[ "$(grep -c "^ *[^ ].*/class/ada: grid.cu [0-9a-f]\{12\}, answers.txt [0-9a-f]\{12\}$" out)" = 4 ] &&
	grep -q "^grid .* 25 / 43 .* -18$" out &&
	grep -q "^latest: grid 25 / 43 (run [0-9]*, incomplete)" out &&
	test_must_fail_with 2 "$CUDALAB" show nobody
'
test_expect_success 'deadline: times from a file, extensions, the penalty stored and exported' '
	course_copy grid "$(printf "%s\n" "[deadline]" "due = 2026-12-04 23:59 +01:00" \
		"grace = 10m" "penalty_per_day = 10" "max_late_days = 3" "[extensions]" "ada = 2d")" &&
	late=$(cat cudalab) && export CUDALAB_DB=$PWD/late.db &&
	for s in ada bob cy dan; do mkdir -p late/$s && cp "$ref/grid.cu" "$ref/answers.txt" late/$s/; done &&
	# as a spreadsheet writes it: a byte-order mark, quotes, CRLF
	printf "\357\273\277ada,2026-12-06 20:00 Z\r\n\"bob\", 2026-12-06T10:00:00+01:00\r\n# late\r\n" >times.csv &&
	printf "%s\n" "cy,2026-12-09 09:00 Z" "eve,2026-12-01 10:00 Z" >>times.csv &&
	{ "$late" grade grid late --times times.csv >out 2>&1; [ $? = 4 ]; } &&
	grep -q "^bob  *34.4 / 43 (late: -8.6) " out && grep -q "^cy  *0 / 43 (late: -43) " out &&
	grep -q "times.csv:5: no submission of .eve." out &&
	grep -q "dan: no time in .*times.csv.: the late policy is not applied" out &&
	[ "$(sqlite3 late.db "SELECT name, late_days, round(late_penalty, 2), submitted_at FROM runs
		JOIN submissions s ON s.id = submission_id JOIN students t ON t.id = s.student_id
		ORDER BY name" | tr "\n" " ")" = "ada|0|0.0|2026-12-06T20:00:00Z bob|2|8.6|2026-12-06T09:00:00Z cy|5|43.0|2026-12-09T09:00:00Z dan|0|0.0| " ] &&
	"$late" export grid >late.csv &&
	grep -q "^bob,43,43,0,34.4,2,8.6,2026-12-06T09:00:00Z," late.csv &&
	grep -q "^cy,43,43,0,0,5,43," late.csv &&
	"$late" export grid --format gradescope --student bob >bob.json &&
	jq -e ".score == 0 and .extra_data.final_score == 34.4 and (.output | contains(\"2 day(s) late\"))" bob.json >/dev/null &&
	{ "$late" grade grid late/bob --student zed --json one.json -q >/dev/null; [ $? = 4 ]; } &&
	jq -e ".late.applied == false and .final_score == 43" one.json >/dev/null &&
	validate_doc one.json &&
	{ "$late" regrade grid --student bob -q >/dev/null 2>&1; [ $? = 4 ]; } &&
	[ "$(sqlite3 late.db "SELECT submitted_at, late_days FROM runs ORDER BY id DESC LIMIT 1")" = "2026-12-06T09:00:00Z|2" ] &&
	echo "bob = 3d" >>course/root/labs/grid/lab.conf &&
	{ "$late" regrade grid --student bob -q >out 2>&1; [ $? = 4 ]; } &&
	grep -q "^  bob: final 34.4 -> 43$" out && validate_doc --db late.db &&
	"$late" show cy >out && grep -q "^grid .* 0 / 43 (late: -43) " out &&
	grep -q "^latest: grid 0 / 43 (late: -43) (run [0-9]*, incomplete)" out &&
	printf "%s\n" "Student,Time" "ada,2026-12-06 10:00 Z" "bob,in a while" >bad.csv &&
	test_must_fail_with 2 "$late" grade grid late --times bad.csv &&
	grep -q "bad.csv:3: .in a while. is not a time" err
'
test_expect_success 'usage: an unknown format, a lab with no runs' '
	test_must_fail_with 2 "$CUDALAB" export grid --format pdf &&
	test_must_fail_with 2 "$CUDALAB" export matmul && grep -q "has no run of lab .matmul." err &&
	test_must_fail_with 2 "$CUDALAB" export grid --format gradescope
'
test_done
