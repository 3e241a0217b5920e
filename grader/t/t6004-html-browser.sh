#!/bin/bash
# The HTML pages in a real browser, headless Chromium: a timed run's page
# (a GPU-like document made from an emulated run, as t6002 makes it) and a
# small class's dashboard (graded emulated, as t6003 grades it) each render
# to a screenshot of the window's size that is not blank, with every plot
# gnuplot drew painted (the SVG present in the DOM after rendering, with
# marks, a box of its own and ink where it is on the screen), no wider than
# the window; and a student id and a compiler message that are <script>
# stay text: no script runs, none is in the rendered DOM, and the browser
# shows each of them as the text it is. The screenshots are kept
# ($CUDALAB_ARTIFACTS/screenshots, else build/artifacts/screenshots).
# beside-others: it grades four small submissions, two at once
. "$(dirname "$0")/lib.sh"
cpu_only
gpu_available && skip_all "a GPU is here: the grid lab would not run emulated"
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"
browser=$(command -v chromium || command -v chromium-browser) ||
	skip_all "no chromium here (Debian: chromium, listed in ci/debian-packages.txt for the tests)"
py=/usr/bin/python3   # Debian's, as validate_doc takes it; the standard library only
[ -x "$py" ] || py=python3
shots=${CUDALAB_ARTIFACTS:-$BUILD/artifacts}/screenshots
say "# $T_NAME: $("$browser" --version 2>/dev/null | head -n 1); screenshots kept in $shots"

ref=$T_ROOT/reference/grid
# Markup that would leave a mark if it ran: the attribute data-pwned on the
# page's root, naming where it came from.
pwn() { printf '<script>document.documentElement.setAttribute("data-pwned", "%s")</script>' "$1"; }
evil=$(pwn id)
# what each of them is on the page, escaped, and in the browser, as text
escaped_prefix='&lt;script&gt;document.documentElement.setAttribute(&quot;data-pwned&quot;'
text_prefix='<script>document.documentElement.setAttribute("data-pwned"'

# browse ARGS...: headless Chromium on ARGS (helpers/chromium-headless.sh says
# with which flags, and why); its messages go to ./chromium.log, and where it
# fails, hangs (killed after 60 s) or says nothing, the test fails with them
browse() {
	local rc
	"$T_ROOT/grader/t/helpers/chromium-headless.sh" "$@" 2>>chromium.log
	rc=$?
	case $rc in
	0) ;;
	124 | 137) say "chromium did not finish within 60 s: killed ($*)"; log_tail ;;
	*) say "chromium exited $rc ($*):"; log_tail ;;
	esac
	return $rc
}

# log_tail: the end of chromium's messages, less the D-Bus ones (a container
# has no system bus; Chromium says so a hundred times and goes on)
log_tail() {
	grep -v "dbus\|D[Bb]us" chromium.log | tail -n 20
}

# shoot PAGE W H: PAGE's screenshot in a window of W x H into PAGE.png, held
# to be a PNG of that size with more than a colour or two, and ink on at
# least 1% of it and at most 90% (a page of one colour, or black, is none)
shoot() {
	local page=$1 w=$2 h=$3 info
	rm -f "$page.png"
	browse --screenshot="$PWD/$page.png" --window-size="$w,$h" "file://$PWD/$page" >/dev/null &&
	[ -s "$page.png" ] || { say "no screenshot of $page"; return 1; }
	info=$("$py" "$T_ROOT/grader/t/helpers/png-info.py" "$page.png") || return 1
	say "$page.png: $info (width height colours ink-per-mille)"
	echo "$info" >"$page.png.info"
	set -- $info
	[ "$1 $2" = "$w $h" ] || { say "the screenshot is $1 x $2, not the window's $w x $h"; return 1; }
	[ "$3" -gt 8 ] && [ "$4" -ge 10 ] && [ "$4" -le 900 ] ||
		{ say "the screenshot of $page is blank: $3 colours, ink on $4 per mille"; return 1; }
}

# dom PAGE: the DOM of PAGE once rendered (Chromium's --dump-dom) into PAGE.dom,
# in a window DOM_W px wide (default 1024: a laptop; 390: a phone)
dom() {
	browse --dump-dom --window-size="${DOM_W:-1024},1400" "file://$PWD/$1" >"$1.dom" && [ -s "$1.dom" ] ||
		{ say "no DOM of $1"; return 1; }
}

# probe PAGE: a copy of PAGE with a script that measures it as rendered in a
# window of 1024 x 1400; its findings, a line each, into PAGE.probe:
#   svg I marks=N series=S drawn=D bbox=WxH box=LEFT,TOP,WIDTH,HEIGHT
#                     each <svg>: its marks (paths, rectangles...), gnuplot's
#                     data series (a group each) and how many of them have
#                     a box that is not empty (getBBox: something drawn),
#                     getBBox() of the whole, its box on the page
#   scripts N         script elements other than the probe
#   pwned VALUE       data-pwned on the root, "none" when no script set it
#   text N            times the hostile markup is text the browser shows
#   width PAGE WINDOW the page's width (scrollWidth) and the window's
# The pages themselves hold no script; only this copy does.
probe() {
	grep -qx "</body>" "$1" || { say "$1 has no line </body>"; return 1; }
	{ sed '/^<\/body>$/,$d' "$1"; echo '<script id="cudalab-probe">'; probe_js; echo '</script>'
	  sed -n '/^<\/body>$/,$p' "$1"; } >"$1.probe.html" &&
	dom "$1.probe.html" &&
	sed -n '/<pre id="cudalab-probe-out">/,/<\/pre>/p' "$1.probe.html.dom" |
		sed 's/<[^>]*>//g; /^$/d' >"$1.probe" &&
	[ -s "$1.probe" ] || { say "the probe of $1 said nothing"; return 1; }
	sed 's/^/  /' "$1.probe"
}
probe_js() {
	cat <<EOF
(function () {
	var out = [], i = 0, root = document.documentElement, text = document.body.innerText,
	    hostile = '$text_prefix', n = 0, at = 0;
	document.querySelectorAll("svg").forEach(function (s) {
		var b = s.getBBox(), r = s.getBoundingClientRect(), drawn = 0,
		    series = s.querySelectorAll("g[id^=gnuplot_plot_]");
		series.forEach(function (g) {
			var gb = g.getBBox();
			drawn += gb.width > 0 && gb.height > 0;
		});
		out.push("svg " + i++ + " marks=" +
			s.querySelectorAll("path,polyline,polygon,rect,line,circle").length +
			" series=" + series.length + " drawn=" + drawn +
			" bbox=" + Math.round(b.width) + "x" + Math.round(b.height) +
			" box=" + [r.left, r.top + window.scrollY, r.width, r.height].map(Math.round).join(","));
	});
	out.push("scripts " + document.querySelectorAll("script:not(#cudalab-probe)").length);
	out.push("pwned " + (root.getAttribute("data-pwned") || "none"));
	while ((at = text.indexOf(hostile, at)) >= 0) { n++; at++; }
	out.push("text " + n);
	out.push("width " + root.scrollWidth + " " + window.innerWidth);
	var pre = document.createElement("pre");
	pre.id = "cudalab-probe-out";
	pre.textContent = out.join("\\n");
	document.body.appendChild(pre);
})();
EOF
}

# plots PAGE N SHOT: PAGE has N plots (probe), each with marks and every
# data series of it drawn, within the window's width, and painted: in
# the screenshot SHOT (when it reaches down to it) the plot's box holds
# more than a colour and ink on at least 2% of it
plots() {
	local page=$1 want=$2 shot=$3 n=0 line marks series drawn bw bh x y w h info
	[ "$(grep -c '^svg ' "$page.probe")" = "$want" ] ||
		{ say "$page: $(grep -c '^svg ' "$page.probe") plots, $want expected"; return 1; }
	while read -r line; do
		set -- $line
		marks=${3#marks=} series=${4#series=} drawn=${5#drawn=}
		bw=${6#bbox=} && bh=${bw#*x} && bw=${bw%x*}
		IFS=, read -r x y w h <<<"${7#box=}"
		[ "$marks" -ge 5 ] && [ "$series" -ge 1 ] && [ "$drawn" = "$series" ] &&
		[ "$bw" -gt 100 ] && [ "$bh" -gt 50 ] ||
			{ say "$page: plot $2 is empty, or some of its data series are: $line"; return 1; }
		[ "$w" -gt 100 ] && [ $((x + w)) -le 1024 ] ||
			{ say "$page: plot $2 is not within the window: $line"; return 1; }
		[ $((y + h)) -le "$(cut -d" " -f2 "$shot.info")" ] ||
			{ say "$page: plot $2 is below the screenshot (a taller window is needed): $line"; return 1; }
		info=$("$py" "$T_ROOT/grader/t/helpers/png-info.py" "$shot" "$x" "$y" "$w" "$h") || return 1
		set -- $info
		[ "$5" -gt 2 ] && [ "$6" -ge 20 ] ||
			{ say "$page: plot at $x,$y ${w}x$h is not painted: $5 colours, ink $6 per mille"; return 1; }
		n=$((n + 1))
	done < <(grep '^svg ' "$page.probe")
	say "$page: $n plots, each painted"
}

# escaped PAGE: no script in PAGE as rendered, none ran, and every time the
# page holds the hostile markup (escaped, in its body) the browser shows it
# as text (but in the dashboard's sorted copies of its students' table,
# closed <details> that no text of the page's shows until opened)
escaped() {
	local want
	want=$(sed -n '/<body>/,$p' "$1" | sed '/<details class="sorted"/,/<\/details>/d' |
		grep -oF "$escaped_prefix" | wc -l)
	[ "$want" -ge 1 ] || { say "$1 does not hold the hostile markup at all"; return 1; }
	! grep -qi "<script" "$1.dom" || { say "a script element in the DOM of $1:"; grep -i "<script" "$1.dom"; return 1; }
	! grep -q 'data-pwned="' "$1.dom" || { say "a script of $1 ran"; return 1; }
	grep -qx "scripts 0" "$1.probe" && grep -qx "pwned none" "$1.probe" &&
	grep -qx "text $want" "$1.probe" ||
		{ say "$1: the hostile markup is $want times on the page, as text in the browser:"; cat "$1.probe"; return 1; }
}

# within PAGE: the page is no wider than the window (no table pushes it out)
within() {
	set -- $(grep '^width ' "$1.probe") - 0 1
	[ "$2" -le "$3" ] || { say "the page is $2 px wide in a window of $3"; return 1; }
}

test_expect_success 'a small class graded emulated, and a timed run of a hostile id with a hostile warning' '
	mkdir -p subs/ada subs/bob subs/cy warn &&
	cp "$ref/grid.cu" "$ref/answers.txt" subs/ada/ &&
	cp "$ref/fixtures/no-bounds/grid.cu" "$ref/answers.txt" subs/bob/ &&
	cp "$ref/fixtures/includes-reference/grid.cu" "$ref/answers.txt" subs/cy/ &&
	{ printf "#warning %s\n" "$(pwn log)"; cat "$ref/grid.cu"; } >warn/grid.cu &&
	cp "$ref/answers.txt" warn/ &&
	test_must_fail_with 4 "$CUDALAB" grade grid subs -j 2 &&
	test_must_fail_with 4 "$CUDALAB" grade grid warn --student "$evil" -q --json r.json &&
	jq -r .build.log r.json | grep -qF "$(pwn log)" &&
	# the GPU run this would have been (t6002): a timed kernel, its
	# measurement, the cuBLAS ceiling and the device peak
	jq --arg evil "$(pwn message)" ".mode = \"gpu\" | .status = \"complete\" | .provisional = false |
	    .timing += {ran: true, reason: null, peak_gflops: 51000, copy_gbs: 3000,
		ceilings: [{name: \"cuBLAS\", size: 2048, ms: 0.5, gflops: 34000}]} |
	    .tests += [{part: \"speed\", name: \"time@2048\", id: \"time_grid_k\", status: \"pass\",
		points: 2, max_points: 2.5, bonus: false, message: \$evil, seconds: 1, kind: \"timing\",
		timing: {kernel: \"k\", size: 2048, measured: true, student_ms: 1.0,
			reference_ms: 0.6, ratio: 1.66, student_gflops: 17000, reference_gflops: 28000,
			student_gbs: null, reference_gbs: null}}]" r.json >timed.json &&
	"$CUDALAB" report --doc timed.json --out run.html >/dev/null &&
	"$CUDALAB" report grid --class --out class.html >/dev/null &&
	[ "$(grep -c "<tr class=\"student\">" class.html)" = 4 ]
'
test_expect_success 'the run'"'"'s page renders in Chromium: a screenshot of the window, not blank' '
	shoot run.html 1024 2000
'
test_expect_success 'the class'"'"'s dashboard renders: a screenshot of the window, not blank' '
	shoot class.html 1024 2000
'
test_expect_success 'the run'"'"'s page has its plot, drawn and painted, within the window' '
	command -v gnuplot >/dev/null || { echo "no gnuplot here (Debian: gnuplot-nox)"; exit 77; }
	probe run.html && plots run.html 1 run.html.png && within run.html
'
test_expect_success 'the dashboard has its two plots, drawn and painted, within the window' '
	command -v gnuplot >/dev/null || { echo "no gnuplot here (Debian: gnuplot-nox)"; exit 77; }
	probe class.html && plots class.html 2 class.html.png && within class.html
'
test_expect_success 'on a phone (390 px) the pages fit the screen: wide tables scroll in their place' '
	grep -qF "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">" run.html &&
	cp run.html phone-run.html && cp class.html phone-class.html &&
	DOM_W=390 probe phone-run.html && within phone-run.html &&
	DOM_W=390 probe phone-class.html && within phone-class.html &&
	shoot phone-run.html 390 844 && shoot phone-class.html 390 844
'
test_expect_success 'a student id, a compiler warning and a message that are <script> stay text on the run'"'"'s page' '
	dom run.html && { [ -s run.html.probe ] || probe run.html; } && escaped run.html &&
	# the id, the warning and the message: each is on the page
	grep -qF "$(pwn id | sed "s/</\&lt;/g; s/>/\&gt;/g; s/\"/\&quot;/g")" run.html &&
	grep -qF "#warning &lt;script&gt;" run.html &&
	grep -qF "&quot;message&quot;)&lt;/script&gt;" run.html
'
test_expect_success 'a student id that is <script> stays text on the dashboard' '
	dom class.html && { [ -s class.html.probe ] || probe class.html; } && escaped class.html
'
test_expect_success "the screenshots are kept for CI, in $shots" '
	mkdir -p "$shots" && cp run.html.png "$shots/report-run.png" &&
	cp class.html.png "$shots/report-class.png" && ls -l "$shots"
'
test_done
