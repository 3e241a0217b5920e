#!/bin/bash
# `cudalab similar LAB [DIR...]` ranks a class's pairs most alike, by sim_c
# (Debian: similarity-tester): on bench/similar-class.sh's class of 34 (32
# independent matmul solutions, a renamed and a reordered copy) the two
# planted pairs come first; what submissions share with the starter is not
# counted, the reference is no submission; the page escapes a submission's
# markup; without sim_c the message names the package; the gradebook's
# latest runs are the class when no folder is named; an archive (past
# terms, found code, the reference) is compared with the class only.
. "$(dirname "$0")/lib.sh"

have_sim() {
	command -v sim_c >/dev/null || { echo "no sim_c here (Debian: similarity-tester)"; exit 77; }
}
# planted CLASS JSON: the ranks of CLASS's two planted pairs in JSON, one a line
planted() {
	while read -r orig copy; do
		jq -r --arg a "$orig" --arg b "$copy" \
			'.pairs[] | select((.a == $a and .b == $b) or (.a == $b and .b == $a)) | .rank' "$2"
	done <"$1/PLANTED"
}

test_expect_success 'without sim_c: exit 128, the Debian package named' '
	mkdir -p two/ada two/bob &&
	cp "$T_ROOT/bench/similar/matmul/index-macro/matmul.cu" two/ada/ &&
	cp "$T_ROOT/bench/similar/matmul/gridstride-2d/matmul.cu" two/bob/ &&
	test_must_fail_with 128 env PATH=/nonexistent "$CUDALAB" similar matmul two &&
	grep -q "sim_c is not installed" err &&
	grep -q "apt-get install similarity-tester" err
'
test_expect_success 'bad input: an unknown lab, fewer than two submissions' '
	test_must_fail_with 2 "$CUDALAB" similar nolab two && grep -q "no lab .nolab." err &&
	test_must_fail_with 2 "$CUDALAB" similar matmul two/ada &&
	grep -q "one submission of matmul (.ada.): nothing to compare" err &&
	mkdir -p empty/cy empty/dee &&
	test_must_fail_with 2 "$CUDALAB" similar matmul empty &&
	grep -q "holds none of the lab.s files" err &&
	grep -q "no submissions of matmul to compare" err &&
	test_must_fail_with 2 "$CUDALAB" similar matmul --db nothing.db &&
	grep -q "no gradebook .nothing.db." err &&
	test_must_fail_with 2 "$CUDALAB" similar matmul two --top x
'
test_expect_success 'the class of 34: the planted pairs rank first' '
	have_sim &&
	"$T_ROOT/bench/similar-class.sh" class >/dev/null &&
	[ "$(ls -d class/*/ | wc -l)" = 34 ] &&
	"$CUDALAB" similar matmul class --json --top 0 >class.json &&
	jq -e ".submissions | length == 34" class.json &&
	planted class class.json | sort -n >ranks && cat ranks &&
	[ "$(cat ranks | tr "\n" " ")" = "1 2 " ] &&
	jq -e ".pairs[0].score == 100 and .pairs[1].score > .pairs[2].score + 10" class.json &&
	# each run: a file and lines in each submission, as sim_c found them
	jq -e ".pairs[0].regions[0] | .file_a == \"matmul.cu\" and (.lines_a | length) == 2
		and .lines_a[0] <= .lines_a[1] and .tokens >= 20" class.json
'
test_expect_success 'the table: most alike first, runs as file:lines in each' '
	have_sim &&
	"$CUDALAB" similar matmul class --top 3 >table && cat table &&
	grep -q "^34 submissions of matmul" table &&
	sed -n 3p table | grep -E "^ +1 +100\.0%" &&
	sed -n 3p table | grep -qE "matmul\.cu:[0-9]+-[0-9]+~matmul\.cu:[0-9]+-[0-9]+" &&
	[ "$(grep -cE "^ +[0-9]+ +[0-9.]+%" table)" = 3 ] &&
	grep -q "more pairs with a run alike" table
'
test_expect_success 'code shared with the starter does not count; the reference is no submission' '
	have_sim &&
	mkdir -p starter/s1 starter/s2 starter/own &&
	cp "$T_ROOT/student_template/matmul/matmul.cu" starter/s1/ &&
	cp "$T_ROOT/student_template/matmul/matmul.cu" starter/s2/ &&
	cp "$T_ROOT/bench/similar/matmul/index-macro/matmul.cu" starter/own/ &&
	"$CUDALAB" similar matmul starter "$T_ROOT/reference/matmul" --json >starter.json 2>err &&
	cat err && grep -q "is the lab.s reference, not a submission: left out" err &&
	jq -e ".submissions | length == 3" starter.json &&
	jq -e ".pairs | length == 0" starter.json &&
	jq -e ".starter == \"student_template/matmul\" and .starter_lines_left_out > 0" starter.json &&
	# the stub itself, kept in, would be the whole of two copies of it
	sim_c -e -n -s starter/s1/matmul.cu starter/s2/matmul.cu | grep -q "\[" &&
	# own code beside the stub: a copy of it is found, the stub aside
	cp -r starter/own starter/own2 &&
	"$CUDALAB" similar matmul starter --json >starter2.json &&
	jq -e "[.pairs[] | select(.a == \"own\" and .b == \"own2\")] | length == 1" starter2.json &&
	jq -e "[.pairs[] | select(.a == \"s1\" or .b == \"s1\")] | length == 0" starter2.json
'
test_expect_success 'the page: pairs side by side, runs marked, a submission.s markup escaped' '
	have_sim &&
	mkdir -p page/ada "page/<b>bob" page/cy &&
	cp "$T_ROOT/bench/similar/matmul/torch-inline-tile/matmul.cu" page/ada/ &&
	{ echo "/* <script>alert(1)</script> */"; cat page/ada/matmul.cu; } >"page/<b>bob/matmul.cu" &&
	cp "$T_ROOT/bench/similar/matmul/gridstride-2d/matmul.cu" page/cy/ &&
	"$CUDALAB" similar matmul page --html page.html >table && cat table &&
	grep -q "^page: page.html" table &&
	grep -qF "&lt;script&gt;alert(1)&lt;/script&gt;" page.html &&
	grep -qF "&lt;b&gt;bob" page.html &&
	! grep -qi "<script" page.html && ! grep -q "<b>bob" page.html &&
	grep -q "<span class=\"r0\"" page.html &&
	# each file a block the keyboard reaches (tab), named; line numbers that can be read
	grep -qF "<pre class=\"code\" tabindex=\"0\" aria-label=\"matmul.cu of ada\">" page.html &&
	grep -qF "<pre class=\"code\" tabindex=\"0\" aria-label=\"matmul.cu of &lt;b&gt;bob\">" page.html &&
	grep -qF "pre.code .ln{color:#595959" page.html &&
	grep -qxF "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">" page.html &&
	grep -q "id=\"pair-1\"" page.html &&
	if command -v xmllint >/dev/null; then
		# (its parser is HTML 4'"'"'s: it knows no <main>, HTML 5'"'"'s landmark)
		xmllint --html --noout page.html 2>lint; ! grep "parser error" lint | grep -v "Tag main invalid" | grep -q .
	fi
'
test_expect_success 'an archive: compared with the class, never with itself; one of the class is enough' '
	have_sim &&
	mkdir -p arch/now/ada arch/now/bob arch/2024/ada arch/2025/ada arch/2025/cy &&
	cp "$T_ROOT/bench/similar/matmul/index-macro/matmul.cu" arch/now/ada/ &&
	cp "$T_ROOT/bench/similar/matmul/gridstride-2d/matmul.cu" arch/now/bob/ &&
	# a past term handed in what ada hands in now, and two terms share a name
	cp arch/now/ada/matmul.cu arch/2024/ada/ &&
	cp arch/now/ada/matmul.cu arch/2025/ada/ &&
	cp "$T_ROOT/bench/similar/matmul/torch-inline-tile/matmul.cu" arch/2025/cy/ &&
	"$CUDALAB" similar matmul arch/now --archive arch/2024 --archive arch/2025/ \
		--archive "$T_ROOT/reference/matmul" --json --top 0 >arch.json &&
	jq -e "[.submissions[] | select(.archived)] | length == 4" arch.json &&
	jq -e "[.submissions[] | select(.archived | not) | .student] == [\"ada\", \"bob\"]" arch.json &&
	jq -e ".pairs[0].a == \"ada\" and (.pairs[0].b | test(\"^archive/202[45]/ada$\")) and .pairs[0].score == 100" arch.json &&
	jq -e ".pairs[1].score == 100" arch.json &&
	# the archive against itself: never, though its two adas are one file
	jq -e "[.pairs[] | select((.a | startswith(\"archive/\")) and (.b | startswith(\"archive/\")))] | length == 0" arch.json &&
	jq -e "[.submissions[] | select(.student == \"archive/matmul/reference\")] | length == 1" arch.json &&
	"$CUDALAB" similar matmul arch/now/ada --archive arch/2024 >table && cat table &&
	grep -q "^1 submission of matmul and 1 of the archive" table &&
	grep -qE "^ +1 +100\.0% +ada +archive/2024/ada" table &&
	test_must_fail_with 2 "$CUDALAB" similar matmul arch/now --archive arch/none &&
	grep -q "arch/none" err
'
test_expect_success 'no folder named: the latest run of each student in the gradebook' '
	have_sim &&
	mkdir -p gb/ada gb/bob &&
	cp "$T_ROOT/bench/similar/matmul/index-macro/matmul.cu" gb/ada/ &&
	cp class/index-macro-reordered/matmul.cu gb/bob/ &&
	# a build error keeps it quick: a run is stored all the same
	echo "this does not compile" >>gb/ada/matmul.cu &&
	echo "this does not compile" >>gb/bob/matmul.cu &&
	{ "$CUDALAB" grade matmul gb -j 2 --emulate -q >/dev/null 2>&1; true; } &&
	sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs" | grep -qx 2 &&
	"$CUDALAB" similar matmul --json >gb.json &&
	jq -e ".submissions | length == 2" gb.json &&
	jq -e ".pairs[0] | .a == \"ada\" and .b == \"bob\" and .score > 80" gb.json &&
	echo "/* later */" >>gb/bob/matmul.cu &&
	"$CUDALAB" similar matmul >table 2>err &&
	grep -q "bob: .*changed since it was graded" err
'
test_done
