#!/bin/bash
# On a GPU: a class graded in parallel gets the grades each submission gets
# alone. The reference copies graded side by side score full marks with
# timing ratios near 1 (each timing phase has the GPU to itself), every
# fixture in the class gets the build and status its expect file pins, and
# every run is stored. (A class with a hanging submission is t3002's: every
# matmul fixture, hang among them, graded as one.)
. "$(dirname "$0")/lib.sh"
require_gpu

test_expect_success 'a class of reference copies and fixtures, graded at once' '
	mkdir class &&
	for f in kernel-fault defines-main slow-k4 cached-result; do
		mkdir class/$f && cp "$T_ROOT/reference/matmul/fixtures/$f/matmul.cu" class/$f/ || exit 1
	done &&
	for i in 1 2 3 4 5 6; do
		mkdir class/ref$i && cp "$T_ROOT/reference/matmul/matmul.cu" class/ref$i/ || exit 1
	done &&
	"$CUDALAB" grade matmul class -j 8 $(test_slots) >out 2>err; rc=$?
	cat out && [ $rc = 0 ] &&
	[ "$(grep -c "62.5 / 50 (12.5 of it bonus) *complete *ok *gpu" out)" = 6 ] &&
	grep -q "^defines-main .*not-built *audit-failed" out &&
	grep -q "^10 graded; 1 did not build" out &&
	grep -q "^the GPU was in use" out &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs WHERE mode = '"'"'gpu'"'"' OR build != '"'"'ok'"'"'")" = 10 ] &&
	ratios=$(sqlite3 "$CUDALAB_DB" "SELECT min(ratio), max(ratio), count(*) FROM timings t JOIN runs r ON r.id = t.run_id JOIN submissions s ON s.id = r.submission_id JOIN students st ON st.id = s.student_id WHERE st.name LIKE '"'"'ref%'"'"'") &&
	say "reference copies side by side, ratio min|max|count: $ratios" &&
	echo "$ratios" | awk -F"|" "{ exit !(\$1 > 0.97 && \$2 < 1.03 && \$3 == 30) }"
'
test_expect_success 'each fixture in the class got its own verdict' '
	for f in kernel-fault slow-k4 cached-result; do
		run=$(sqlite3 "$CUDALAB_DB" "SELECT r.id FROM runs r JOIN submissions s ON s.id = r.submission_id JOIN students st ON st.id = s.student_id WHERE st.name = '"'"'$f'"'"'") &&
		"$CUDALAB" db show --run "$run" >$f.json && validate_doc $f.json &&
		report_of $f.json "run $run of the class" >$f.json.txt &&
		check_expect $f.json "$T_ROOT/reference/matmul/fixtures/$f/expect" || exit 1
	done
'
test_done
