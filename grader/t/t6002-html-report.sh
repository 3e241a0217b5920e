#!/bin/bash
# `cudalab report` writes one run's page: well-formed HTML with every test,
# its verdict and the score as `cudalab db show` writes it; a student id
# that is markup stays text; a timed run gets gnuplot's plot inlined (a
# GPU-like document, made from an emulated one, since emulated runs have no
# timing), and without gnuplot the page says why the plot is missing.
# beside-others: it grades one small lab once, emulated
. "$(dirname "$0")/lib.sh"
cpu_only
gpu_available && skip_all "a GPU is here: the grid lab would not run emulated"
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"
command -v xmllint >/dev/null || skip_all "no xmllint (Debian: libxml2-utils)"

evil='<script>alert(1)</script>'
# well_formed PAGE: xmllint's HTML parser accepts it; it knows no SVG
# elements (HTML 4), so only those may be named as unknown tags
well_formed() {
	xmllint --html --noout "$1" 2>"$1.lint" &&
	! grep "parser error" "$1.lint" | grep -v "Tag [A-Za-z]* invalid" || { cat "$1.lint"; false; }
}
# escaped PAGE: the hostile id is on the page as text, never as a tag
escaped() {
	grep -qF "&lt;script&gt;alert(1)&lt;/script&gt;" "$1" && ! grep -qi "<script" "$1"
}

test_expect_success 'the grid reference, graded emulated, has a page' '
	"$CUDALAB" grade grid "$T_ROOT/reference/grid" --student "$evil" -q --json r.json \
		>grade.out 2>&1; [ $? = 4 ] &&
	"$CUDALAB" report --run 1 >path && f=$(cat path) &&
	[ "$f" = "report-_script_alert_1___script_-grid-1.html" ] && [ -f "$f" ] &&
	well_formed "$f" &&
	# a phone'"'"'s width is the page'"'"'s (t6004 renders it at 390 px); one main landmark
	grep -qxF "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">" "$f" &&
	[ "$(grep -c "^<main>$" "$f")" = 1 ] && [ "$(grep -c "^</main>$" "$f")" = 1 ] ||
		{ cat grade.out; false; }
'
test_expect_success 'the page holds each test, its verdict, and the score as db show writes it' '
	f=report-_script_alert_1___script_-grid-1.html &&
	jq -r ".tests[] | [.part, .name, .status] | @tsv" r.json >tests &&
	[ "$(wc -l <tests)" -gt 5 ] &&
	while IFS=$(printf "\t") read -r part name status; do
		grep -qF "<td>$part</td><td>$name</td><td>correctness</td><td class=\"verdict\">$status</td>" "$f" ||
			{ echo "no row for $part $name $status"; exit 1; }
	done <tests &&
	score=$("$CUDALAB" db show --run 1 | jq -r .score_text) && [ -n "$score" ] &&
	grep -qF "<td class=\"score\"><strong>$score</strong></td>" "$f" &&
	grep -qF "PROVISIONAL: emulated on the CPU, not a grade" "$f" &&
	grep -qF "$(jq -r ".files[0].sha256" r.json)" "$f"
'
test_expect_success 'the page gives the command that grades it again, the same: folder, student, seed' '
	f=report-_script_alert_1___script_-grid-1.html &&
	python3 -c "import html, re, sys
m = re.search(r\"<tr><th>reproduce</th><td><code>(.*?)</code>\", open(sys.argv[1]).read())
print(html.unescape(m.group(1)))" "$f" >cmd && cat cmd &&
	grep -q "^cudalab grade grid $T_ROOT/reference/grid --student .<script>alert(1)</script>. --seed [0-9]* --emulate$" cmd &&
	# run as the page gives it (the student id quoted for the shell), into a gradebook of its own
	sed "s|^cudalab |\"\$CUDALAB\" |" cmd >cmd.sh &&
	{ CUDALAB=$CUDALAB CUDALAB_DB=$PWD/again.db bash -c "$(cat cmd.sh) -q --json again.json" >/dev/null 2>&1; [ $? = 4 ]; } &&
	[ "$(jq -c "[.student, .seed, [.tests[] | .status]]" again.json)" = \
		"$(jq -c "[.student, .seed, [.tests[] | .status]]" r.json)" ]
'
test_expect_success 'a student id that is markup stays text' '
	escaped report-_script_alert_1___script_-grid-1.html
'
test_expect_success 'LAB --student finds the latest run; --out names the page' '
	"$CUDALAB" report grid --student "$evil" --out latest.html >path &&
	[ "$(cat path)" = latest.html ] && grep -qF "<tr><th>run</th><td>1</td></tr>" latest.html &&
	# the folders of --out are made, as export --out makes them
	"$CUDALAB" report grid --student "$evil" --out new/deeper/page.html >/dev/null &&
	cmp latest.html new/deeper/page.html &&
	test_must_fail_with 2 "$CUDALAB" report grid --student nobody &&
	test_must_fail_with 2 "$CUDALAB" report --run 1 --doc r.json
'
# history_rows PAGE: the rows of PAGE's history as RUN|SCORE, in its order,
# "*" before the run marked as the page's own
history_rows() {
	python3 - "$1" <<-'PY'
	import html, re, sys
	t = open(sys.argv[1]).read().split("<h2>History</h2>")[1].split("</table>")[0]
	for cur, run, score in re.findall(r'<tr( aria-current="page")?><td class="num">(?:<strong>)?(\d+).*?<td class="num">(.*?)</td></tr>', t):
	    print(("*" if cur else "") + run + "|" + html.unescape(score))
	PY
}
test_expect_success 'a student'"'"'s page lists their runs of the lab, newest first, this one marked' '
	"$CUDALAB" grade grid "$T_ROOT/student_template/grid" --student "$evil" -q >stub.out 2>&1
	[ $? = 4 ] || { cat stub.out; false; }
	"$CUDALAB" report --run 2 --out two.html >/dev/null && well_formed two.html &&
	"$CUDALAB" report --run 1 --out one.html >/dev/null &&
	s1=$("$CUDALAB" db show --run 1 | jq -r .score_text) &&
	s2=$("$CUDALAB" db show --run 2 | jq -r .score_text) && [ "$s1" != "$s2" ] &&
	history_rows two.html >two.rows && cat two.rows &&
	[ "$(cat two.rows)" = "$(printf "*2|%s\n1|%s" "$s2" "$s1")" ] &&
	history_rows one.html >one.rows && [ "$(cat one.rows)" = "$(printf "2|%s\n*1|%s" "$s2" "$s1")" ] &&
	escaped two.html &&
	# a page from a document alone (--doc) has no gradebook, and no history
	"$CUDALAB" report --doc r.json --out doc.html >/dev/null && ! grep -q "<h2>History</h2>" doc.html
'
test_expect_success 'the page shows the source as graded, the lines a message names marked' '
	fx=$T_ROOT/reference/grid/fixtures/asm-syscall &&
	"$CUDALAB" grade grid "$fx" --db src.db -q --json src.json >src.out 2>&1
	jq -r .build.message src.json | grep -q "^grid.cu:13: " &&
	"$CUDALAB" report --run 1 --db src.db --out src.html >/dev/null && well_formed src.html &&
	grep -qxF "<h3>grid.cu</h3>" src.html &&
	# every line of the file, numbered, and only line 13 marked
	[ "$(grep -c "<span class=\"ln\">" src.html)" = \
		"$(( $(wc -l <"$fx/grid.cu") + $(wc -l <"$fx/answers.txt") ))" ] &&
	[ "$(grep -c "^<mark>" src.html)" = 1 ] &&
	grep -q "^<mark><span class=\"ln\">   13</span> " src.html &&
	# the text, escaped: the file'"'"'s quotes are entities on the page
	grep -qF "QUIETLY(&quot;syscall&quot;" src.html &&
	"$CUDALAB" report --doc src.json --out src-doc.html >/dev/null && ! grep -q "<h2>Source</h2>" src-doc.html
'
# A GPU run's document: the emulated one with a timed kernel, its
# measurement, the cuBLAS ceiling and the device's peak, and a kernel name
# that is markup (it reaches gnuplot only through a sanitized data file).
jq ".mode = \"gpu\" | .status = \"complete\" | .provisional = false |
    .timing += {ran: true, reason: null, peak_gflops: 51000, copy_gbs: 3000,
	ceilings: [{name: \"cuBLAS\", size: 2048, ms: 0.5, gflops: 34000}]} |
    .tests += [{part: \"speed\", name: \"time@2048\", id: \"time_grid_k\", status: \"pass\",
	points: 2, max_points: 2.5, bonus: false, message: \"$evil\", seconds: 1, kind: \"timing\",
	timing: {kernel: \"k;system(1)\", size: 2048, measured: true, student_ms: 1.0,
		reference_ms: 0.6, ratio: 1.66, student_gflops: 17000, reference_gflops: 28000,
		student_gbs: null, reference_gbs: null}}]" \
	"$T_TMP/r.json" >"$T_TMP/timed.json"
test_expect_success 'a timed run gets gnuplot'"'"'s plot: bars, the ceiling and the peak' '
	command -v gnuplot >/dev/null || { echo "no gnuplot here (Debian: gnuplot-nox)"; exit 77; }
	"$CUDALAB" report --doc timed.json --out timed.html >/dev/null &&
	well_formed timed.html && escaped timed.html &&
	[ "$(grep -c "<svg" timed.html)" = 1 ] && grep -q "</svg>" timed.html &&
	[ "$(grep -c "<polygon" timed.html)" -ge 2 ] &&
	grep -qF "cuBLAS" timed.html && grep -qF "device FP32 peak (51000 GFLOP/s)" timed.html &&
	grep -qF "speed:time_2048" timed.html && ! grep -q "could not be drawn" timed.html &&
	# the plot is named by its caption, for a screen reader, not "Gnuplot"
	cap=$(sed -n "s/.*<figcaption>\(.*\)<\/figcaption>.*/\1/p" timed.html) && [ -n "$cap" ] &&
	grep -qF "<svg role=\"img\" aria-label=\"$cap\"" timed.html &&
	grep -qF "<title>$cap</title>" timed.html && ! grep -q "<title>Gnuplot</title>" timed.html
'
test_expect_success 'without gnuplot the page says why, and holds everything else' '
	PATH=/nonexistent "$CUDALAB" report --doc timed.json --out bare.html >/dev/null &&
	grep -qF "The plot could not be drawn: gnuplot is not installed here" bare.html &&
	! grep -q "<svg" bare.html && well_formed bare.html && escaped bare.html &&
	grep -qF "<td>speed</td><td>time@2048</td><td>timing</td><td class=\"verdict\">pass</td>" bare.html
'
# A coalescing run on the H100 (grader/t/data: the fixture cols-as-rows,
# as `cudalab grade coalescing --json` wrote it there): its strided copy's
# bandwidth against the stride, and the sectors Nsight Compute counted.
coal=$T_ROOT/grader/t/data/coalescing-h100-cols-as-rows.json
test_expect_success 'a coalescing run: the stride curve, from the document' '
	command -v gnuplot >/dev/null || { echo "no gnuplot here (Debian: gnuplot-nox)"; exit 77; }
	"$CUDALAB" report --doc "$coal" --out coal.html >/dev/null && well_formed coal.html &&
	[ "$(grep -c "<svg" coal.html)" = 2 ] && ! grep -q "could not be drawn" coal.html &&
	grep -qF "stride1 to stride32 (part strided)" coal.html &&
	jq -r ".tests[] | select(.timing.kernel // \"\" | test(\"^stride[0-9]+$\")) |
		[.name, .timing.student_gbs, .timing.reference_gbs] | @tsv" "$coal" >strides &&
	[ "$(wc -l <strides)" = 6 ] &&
	while IFS=$(printf "\t") read -r name mine ref; do
		row=$(grep -F "<tr><td>strided</td><td>$name</td>" coal.html) &&
		for v in "$mine" "$ref"; do
			echo "$row" | grep -qF ">$(printf %.4g "$v")</td>" ||
				{ echo "$name: no $v in: $row"; exit 1; }
		done
	done <strides
'
test_expect_success 'rows-vs-cols, timed against the student'"'"'s own kernel, is not plotted as the reference' '
	grep -q "the reference.s: your coal_scale_cols" coal.html &&
	! sed -n "/<svg/,/<\/svg>/p" coal.html | grep -q "rows-vs-cols" &&
	sed -n "/<svg/,/<\/svg>/p" coal.html | grep -q "scale:time-rows"
'
test_expect_success 'a coalescing run: the sectors table holds what the document counted' '
	jq -r ".tests[] | select(.kind == \"sectors\") | [.name, .sectors.call, .status,
		.sectors.load_sectors_per_request, .sectors.store_sectors_per_request] | @tsv" \
		"$coal" >sectors && [ "$(wc -l <sectors)" = 5 ] &&
	while IFS=$(printf "\t") read -r name call status ld st; do
		grep -qF "<td>$name</td><td><code>$call</code></td><td class=\"verdict\">$status</td>" coal.html &&
		grep -F "<td>$name</td><td><code>$call</code>" coal.html |
			grep -qF "<td class=\"num\">$(printf %.2f "$ld")</td><td class=\"num\">$(printf %.2f "$st")</td>" ||
			{ echo "no row for $name $call $status $ld $st"; exit 1; }
	done <sectors &&
	grep -qF "<td>coalesced-rows</td><td><code>scale_rows</code></td><td class=\"verdict\">fail</td>" coal.html
'
test_expect_success 'the Gradescope export embeds the same measurements, as Markdown tables' '
	mkdir -p spool/results && echo coalescing >spool/lab &&
	printf "0\tcols-as-rows\t/nonexistent\t\n" >spool/roster.tsv &&
	cp "$coal" spool/results/cols-as-rows.json &&
	"$CUDALAB" collect coalescing spool --db gs.db >collect.out 2>&1 &&
	! grep -q "error" collect.out &&
	"$CUDALAB" export coalescing --format gradescope --student cols-as-rows --db gs.db >gs.json &&
	python3 "$T_ROOT/grader/t/helpers/json-schema-check.py" \
		"$T_ROOT/grader/t/schemas/gradescope-results.schema.json" gs.json &&
	jq -r .output gs.json >gs.md &&
	grep -qF "| scale/rows-vs-cols (against your coal\\_scale\\_cols) |" gs.md &&
	jq -r ".tests[] | select(.kind == \"timing\" and .timing.measured) |
		[.part, .name, .timing.student_ms, .timing.ratio] | @tsv" "$coal" >timed &&
	[ "$(wc -l <timed)" = 10 ] &&
	while IFS=$(printf "\t") read -r part name ms ratio; do
		grep -F "| $part/$name" gs.md | grep -qF "| $(printf %.4g "$ms") |" &&
		grep -F "| $part/$name" gs.md | grep -qF "| $(printf %.3f "$ratio") |" ||
			{ echo "no row for $part/$name $ms $ratio"; exit 1; }
	done <timed &&
	grep -qF "| strided/sectors-stride32 | stride32 | 32.00 | 4.00 |" gs.md
'
test_done
