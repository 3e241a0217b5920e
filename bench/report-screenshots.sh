#!/bin/bash
# report-screenshots.sh [GRADEBOOK LAB [STUDENT]]: the pictures that
# docs/commands/report.md shows of the HTML reports, taken in headless
# Chromium (grader/t/helpers/chromium-headless.sh): the class's dashboard
# (`cudalab report LAB --class`) into docs/report-class.png and one
# student's page into docs/report-student.png. The student: STUDENT, else
# the one whose latest run built and failed something, a timed one first,
# then the highest score.
# Without a gradebook, a class of N (default 30) matmul submissions made by
# bench/make-class.sh is graded into a fresh one first: emulated where there
# is no GPU (minutes on two cores), on the GPU where there is one.
# Environment: N (class size), OUT (folder, default docs/), WIDTH (window,
# default 1280), MAX_HEIGHT (a page taller than this is cut, default 5000:
# the whole dashboard of a class of 30), PAGES (which to take, default
# "class student"; "phone" is the student's page in a phone's 390-px window,
# into docs/report-student-phone.png; "drilldown" the dashboard's commonest
# failures with the first two opened to their students, the page's own
# styles kept, into docs/report-drilldown.png).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cudalab=$root/build/bin/cudalab
browser=$root/grader/t/helpers/chromium-headless.sh
out=${OUT:-docs} width=${WIDTH:-1280} max_height=${MAX_HEIGHT:-5000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s all

if [ $# -ge 2 ]; then
	db=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") lab=$2 student=${3:-}
else
	[ $# -eq 0 ] || { echo "usage: bench/report-screenshots.sh [GRADEBOOK LAB [STUDENT]]" >&2; exit 2; }
	db=$tmp/gradebook.db lab=matmul student=
	bench/make-class.sh "${N:-30}" "$tmp/class"
	t0=$EPOCHREALTIME
	# 0: every grading done; 4: besides, every one provisional (emulated)
	"$cudalab" grade matmul "$tmp/class" --db "$db" >"$tmp/grade.out" 2>"$tmp/grade.err" ||
		[ $? = 4 ] || { tail -n 20 "$tmp/grade.err" >&2; exit 1; }
	awk -v a="$t0" -v b="$EPOCHREALTIME" -v n="${N:-30}" \
		'BEGIN { printf "graded %d submissions in %.0f s\n", n, b - a }'
fi
[[ $lab =~ ^[A-Za-z0-9_-]+$ ]] || { echo "report-screenshots: not a lab's name: '$lab'" >&2; exit 2; }
if [ -z "$student" ]; then
	student=$(sqlite3 "$db" "
		WITH latest AS (SELECT max(r.id) AS id FROM runs r
			JOIN submissions s ON s.id = r.submission_id JOIN labs l ON l.id = s.lab_id
			WHERE l.name = '$lab' GROUP BY s.student_id)
		SELECT st.name FROM latest JOIN runs r ON r.id = latest.id
			JOIN submissions s ON s.id = r.submission_id JOIN students st ON st.id = s.student_id
		WHERE r.build = 'ok' AND EXISTS (SELECT 1 FROM test_results t
			WHERE t.run_id = r.id AND t.status IN ('fail', 'crash', 'timeout'))
		ORDER BY EXISTS (SELECT 1 FROM timings t WHERE t.run_id = r.id) DESC,
			r.score DESC, st.name LIMIT 1")
	[ -n "$student" ] || { echo "report-screenshots: no run of '$lab' built and failed a test" >&2; exit 1; }
fi

"$cudalab" report "$lab" --class --db "$db" --out "$tmp/class.html" >/dev/null
"$cudalab" report "$lab" --student "$student" --db "$db" --out "$tmp/student.html" >/dev/null
# the drill-down: the dashboard's head, then its "Commonest failures" alone, two rows opened
{ sed -n '1,/<body>/p' "$tmp/class.html"
  sed -n '/^<h2>Commonest failures<\/h2>$/,/^<\/table>$/p' "$tmp/class.html" |
	sed '0,/<details>/s//<details open>/' | sed '0,/<details>/s//<details open>/'
  echo '</body></html>'; } >"$tmp/drilldown.html"

# height PAGE: the page's height in a window WIDTH wide, from a copy of it
# with a script that says so (the page itself holds none)
height() {
	{ sed '/^<\/body>$/,$d' "$1"; echo '<script>var p = document.createElement("pre");'
	  echo 'p.id = "height"; p.textContent = document.documentElement.scrollHeight;'
	  echo 'document.body.appendChild(p);</script>'; sed -n '/^<\/body>$/,$p' "$1"; } >"$1.h.html"
	"$browser" --dump-dom --window-size="$width,800" "file://$1.h.html" 2>>"$tmp/chromium.log" |
		sed -n 's|.*<pre id="height">\([0-9]*\)</pre>.*|\1|p'
}

mkdir -p "$out"
for page in ${PAGES:-class student}; do
	w=$width src=$page png=report-$page.png
	[ "$page" != phone ] || w=390 src=student png=report-student-phone.png
	[ "$page" != drilldown ] || src=drilldown
	[ -f "$tmp/$src.html" ] || { echo "report-screenshots: no page '$page' (class, student, phone)" >&2; exit 2; }
	h=$(width=$w height "$tmp/$src.html")
	[ -n "$h" ] || { echo "report-screenshots: chromium did not measure the $page page:" >&2
		grep -v "dbus\|DBus" "$tmp/chromium.log" | tail -n 20 >&2; exit 1; }
	[ "$h" -le "$max_height" ] || h=$max_height
	"$browser" --screenshot="$root/$out/$png" --window-size="$w,$h" \
		"file://$tmp/$src.html" >/dev/null 2>>"$tmp/chromium.log" ||
		{ grep -v "dbus\|DBus" "$tmp/chromium.log" | tail -n 20 >&2; exit 1; }
	echo "$out/$png: $w x $h, $([ "$page" = class ] || [ "$page" = drilldown ] && echo "the class of '$lab'" ||
		echo "$student's latest run of '$lab'")"
done
