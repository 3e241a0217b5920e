#!/bin/bash
# `cudalab report LAB --class` writes the class's dashboard: a row per
# student (their latest run) with the score as `cudalab db show` writes it
# and a link to their own page, written beside it; each test's pass rate as
# the gradebook counts it; the failures grouped with their numbers
# collapsed; the scores' and pass rates' plots by gnuplot, and without it a
# page that says so and keeps its tables. A student id that is markup stays
# text. Every number on the dashboard and the pages is the gradebook's
# (helpers/dash-check.py looks each up again in its tables). A small class
# graded emulated, with a deadline: the grid reference twice, a fixture that
# fails tests (two days late), one that does not build, and the hostile id;
# and two matmul submissions, whose lab opts in to a leaderboard (under
# pseudonyms, kept by a salt beside the gradebook).
# beside-others: it grades four small submissions, two at once
. "$(dirname "$0")/lib.sh"
cpu_only
gpu_available && skip_all "a GPU is here: the grid lab would not run emulated"
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"
command -v xmllint >/dev/null || skip_all "no xmllint (Debian: libxml2-utils)"

ref=$T_ROOT/reference/grid
evil='<script>x</script>'
well_formed() {
	xmllint --html --noout "$1" 2>"$1.lint" &&
	! grep "parser error" "$1.lint" | grep -v "Tag [A-Za-z]* invalid" || { cat "$1.lint"; false; }
}
escaped() {
	grep -qF "&lt;script&gt;x&lt;/script&gt;" "$1" && ! grep -qi "<script" "$1"
}
# rows PAGE: each student's row as "RUN<tab>SCORE"
rows() {
	sed -n 's|.*<tr class="student"><td>.*</td><td class="num">\([0-9]*\)</td><td class="score">\([^<]*\)</td>.*|\1\t\2|p' "$1"
}

test_expect_success 'a small class, graded emulated, has a dashboard' '
	mkdir -p class/ada class/bob class/cy class/dee &&
	cp "$ref/grid.cu" "$ref/answers.txt" class/ada/ &&
	cp "$ref/grid.cu" "$ref/answers.txt" class/cy/ &&
	cp "$ref/fixtures/no-bounds/grid.cu" "$ref/answers.txt" class/bob/ &&
	cp "$ref/fixtures/includes-reference/grid.cu" "$ref/answers.txt" class/dee/ &&
	# a deadline, and bob two days late
	course_copy grid "$(printf "%s\n" "[deadline]" "due = 2026-12-04 23:59 +01:00" \
		"penalty_per_day = 10")" &&
	printf "%s\n" "ada,2026-12-01 10:00 Z" "bob,2026-12-06 09:00 Z" "cy,2026-12-04 12:00 Z" \
		"dee,2026-12-02 10:00 Z" >times.csv &&
	test_must_fail_with 4 "$(cat cudalab)" grade grid class -j 2 --times times.csv &&
	test_must_fail_with 4 "$CUDALAB" grade grid "$ref" --student "$evil" -q &&
	# a second run of ada: the dashboard shows her latest
	test_must_fail_with 4 "$CUDALAB" grade grid class/ada -q &&
	"$CUDALAB" report grid --class >path && [ "$(cat path)" = class-grid.html ] &&
	well_formed class-grid.html && escaped class-grid.html
'
test_expect_success 'one row per student, their latest run, the score as db show writes it' '
	rows class-grid.html >rows && cat rows &&
	[ "$(wc -l <rows)" = 5 ] &&
	[ "$(wc -l <rows)" = "$(grep -c "<tr class=\"student\">" class-grid.html)" ] &&
	sqlite3 "$CUDALAB_DB" "SELECT max(r.id) FROM runs r JOIN submissions u ON u.id = r.submission_id
		GROUP BY u.student_id ORDER BY 1" >latest &&
	cut -f1 rows | sort -n | diff latest - &&
	while IFS=$(printf "\t") read -r run score; do
		want=$("$CUDALAB" db show --run "$run" | jq -r .score_text) &&
		[ "$score" = "$want" ] || { echo "run $run: \"$score\", db show \"$want\""; exit 1; }
	done <rows &&
	grep -qF "provisional: emulated on the CPU, not a grade" class-grid.html &&
	grep -qF "not built: zero" class-grid.html
'
test_expect_success 'each student links to their own page, which exists' '
	grep -o "<tr class=\"student\"><td><a href=\"[^\"]*\"" class-grid.html |
		sed "s/.*href=\"//; s/\"$//" >links &&
	[ "$(wc -l <links)" = 5 ] &&
	grep -qx "class-grid/_script_x__script_-[0-9]*.html" links &&
	while read -r l; do
		[ -f "$l" ] && well_formed "$l" || { echo "no page $l"; exit 1; }
	done <links &&
	escaped class-grid/_script_x__script_-*.html
'
test_expect_success 'each test'"'"'s pass rate is what the gradebook holds' '
	sed -n "s|<tr class=\"rate\"><td class=\"num\">[0-9]*</td><td>\([^<]*\)</td><td>\([^<]*\)</td><td class=\"num\">\([0-9]*\)</td><td class=\"num\">\([0-9]*\)</td>.*|\1 \2 \3 \4|p" \
		class-grid.html | sort >rates &&
	sqlite3 -separator " " "$CUDALAB_DB" "SELECT part, name, sum(status = '"'pass'"'),
		sum(status != '"'not-run'"') FROM test_results WHERE run_id IN ($(paste -sd, latest))
		GROUP BY part, name" | sort >want &&
	[ "$(wc -l <want)" -gt 5 ] && diff want rates &&
	# the fixture fails some tests, so some rate is below 100%
	awk "\$3 < \$4 { f = 1 } END { exit !f }" rates
'
test_expect_success 'failures are grouped with their numbers collapsed' '
	sed -n "/<table class=\"failures\">/,/<\/table>/p" class-grid.html >fails &&
	grep -q "<td class=\"num\">[0-9]*</td><td><pre>" fails &&
	! sed -n "s|.*<td><pre>\([^<]*\)</pre>.*|\1|p" fails | grep -q "[0-9]"
'
test_expect_success 'gnuplot draws the scores and the pass rates' '
	command -v gnuplot >/dev/null || { echo "no gnuplot here (Debian: gnuplot-nox)"; exit 77; }
	[ "$(grep -c "<svg" class-grid.html)" = 2 ] && ! grep -q "could not be drawn" class-grid.html
'
test_expect_success 'without gnuplot the page says so and keeps its tables' '
	PATH=/nonexistent "$CUDALAB" report grid --class --out bare.html >/dev/null &&
	[ "$(grep -c "The plot could not be drawn: gnuplot is not installed here" bare.html)" = 2 ] &&
	! grep -q "<svg" bare.html && well_formed bare.html && escaped bare.html &&
	[ "$(grep -c "<tr class=\"student\">" bare.html)" = 5 ] &&
	grep -q "<tr class=\"rate\">" bare.html && [ -d bare ]
'
test_expect_success '--pages elsewhere: the links lead there, relatively' '
	mkdir -p there && "$CUDALAB" report grid --class --out there/dash.html --pages pages >/dev/null &&
	grep -o "<a href=\"[^\"#][^\"]*\"" there/dash.html | sed "s/.*href=\"//; s/\"$//" >links &&
	[ "$(sort -u links | wc -l)" = 5 ] && ! grep -v "^\.\./pages/" links &&
	# (a student'"'"'s page is linked from their row, and from each drill-down that names them)
	[ "$(wc -l <links)" -gt 5 ] &&
	(cd there && while read -r l; do [ -f "$l" ] || exit 1; done <../links) &&
	test_must_fail_with 2 "$CUDALAB" report nolab --class &&
	test_must_fail_with 2 "$CUDALAB" report grid --class --student ada &&
	# the grader could not write it: its own failure, not bad input
	test_must_fail_with 128 "$CUDALAB" report grid --class --pages /proc/cudalab-pages &&
	grep -q "cannot make the folder ./proc/cudalab-pages." err &&
	test_must_fail_with 128 "$CUDALAB" report grid --class --out /proc/class.html --pages pages
'
test_expect_success '--similar links the similarity page, its URL kept as text' '
	"$CUDALAB" report grid --class --out sim.html --similar "similar/grid.html?a=1&b=\"x" >/dev/null &&
	well_formed sim.html &&
	grep -qF "<a href=\"similar/grid.html?a=1&amp;b=&quot;x\">the class'"'"'s similarity page</a>" sim.html &&
	! grep -q "similarity page" bare.html &&
	test_must_fail_with 2 "$CUDALAB" report --run 1 --similar x.html
'
test_expect_success 'a lab that opts in ends with a leaderboard, students under pseudonyms' '
	# matmul opts in (lab.conf: leaderboard = yes); emulated, no run is ranked
	mkdir -p mmsubs/ann mmsubs/ben &&
	cp "$T_ROOT/reference/matmul/matmul.cu" mmsubs/ann/ &&
	cp "$T_ROOT/reference/matmul/matmul.cu" mmsubs/ben/ &&
	{ "$CUDALAB" grade matmul mmsubs -j 2 --emulate -q >/dev/null 2>&1; true; } &&
	"$CUDALAB" report matmul --class --out mm.html >/dev/null &&
	well_formed mm.html &&
	sed -n "/<h2>Leaderboard<\/h2>/,/<\/table>/p" mm.html >board && cat board &&
	[ "$(grep -c "<td>not ranked</td>" board)" = 2 ] &&
	! grep -q ">ann<\|>ben<" board &&
	# each student'"'"'s page says their pseudonym, the board shows it, and a second
	# report keeps it (the salt beside the gradebook, its owner'"'"'s alone)
	name=$(sed -n "s|.*On the class.s leaderboard you are <strong>\([a-z]*-[a-z]*-[0-9]*\)</strong>.*|\1|p" mm/ann-*.html) &&
	[ -n "$name" ] && grep -qF "<td>$name</td>" board &&
	[ "$(stat -c %a "$CUDALAB_DB.leaderboard-salt")" = 600 ] &&
	"$CUDALAB" report matmul --class --out mm2.html >/dev/null &&
	grep -qF "<td>$name</td>" mm2.html &&
	# a lab that does not opt in has none
	! grep -q "Leaderboard" class-grid.html
'
test_expect_success 'every number on the dashboard and the pages is the gradebook'"'"'s' '
	grep -q "<tr class=\"student\"><td><a href=\"[^\"]*\">bob</a></td>.*<td class=\"num\">2</td><td class=\"num\">[1-9][0-9.]*</td></tr>" class-grid.html &&
	python3 "$T_ROOT/grader/t/helpers/dash-check.py" "$CUDALAB_DB" grid class-grid.html >check &&
	cat check && grep -q "^dash-check: [0-9]* numbers compared, 0 differ$" check &&
	# and it sees a number that is not
	sed "/>bob<\/a>/s|<td class=\"num\">2</td>\(<td class=\"num\">[0-9.]*</td></tr>\)|<td class=\"num\">3</td>\1|" \
		class-grid.html >wrong.html && ! cmp -s class-grid.html wrong.html &&
	cp -r class-grid wrong && test_must_fail_with 1 python3 "$T_ROOT/grader/t/helpers/dash-check.py" \
		"$CUDALAB_DB" grid wrong.html && grep -q "late days: the page says .3." out || { cat out err; false; }
'
test_done
