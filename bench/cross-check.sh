#!/bin/bash
# The emulator's parity report. For each lab with fixtures or corpus cases
# (or the LABs named), grades the reference, the stub, every fixture and
# every corpus case as one class on the GPU and, at the same time, as one
# class on the CPU emulator, then compares each submission's build verdict
# and each correctness test's verdict. Prints every difference, per lab and
# in total how many agree. Exits 0 when all agree (a difference that the
# case's open file names is known, not counted), 1 when any differs, 2 on
# bad usage or when the GPU half could not run on a GPU.
# Usage: bench/cross-check.sh [--emulated-only] [--out FILE] [--keep DIR] [LAB...]
#   --emulated-only  no GPU here: grade the emulated half only and hold each
#                    case to its expect file (the reference: every correctness
#                    test passes; the stub: every one fails). No parity claimed.
#   --out FILE       write the report as Markdown too
#   --keep DIR       keep each half's class gradebook and summary there
#                    (DIR/gpu/LAB-class.db, ...: where each grading's time went)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$PWD
me=bench/cross-check.sh

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }
bad_usage() { echo "cross-check.sh: $*" >&2; usage | sed -n 9p >&2; exit 2; }

emulated_only=0 out='' keep='' labs=()
while [ $# -gt 0 ]; do
	case $1 in
	--emulated-only) emulated_only=1 ;;
	--out) [ $# -ge 2 ] || bad_usage "--out wants a file"; out=$2; shift ;;
	--out=*) out=${1#--out=} ;;
	--keep) [ $# -ge 2 ] || bad_usage "--keep wants a folder"; keep=$2; shift ;;
	--keep=*) keep=${1#--keep=} ;;
	-h | --help) usage; exit 0 ;;
	-*) bad_usage "unknown option '$1'" ;;
	*) labs+=("$1") ;;
	esac
	shift
done
if [ -n "$out" ]; then
	case $out in /*) ;; *) out=$OLDPWD/$out ;; esac   # relative to where it was run
	: >"$out" || bad_usage "cannot write '$out'"
fi
if [ -n "$keep" ]; then
	case $keep in /*) ;; *) keep=$OLDPWD/$keep ;; esac
	mkdir -p "$keep/gpu" "$keep/emulated" || bad_usage "cannot make '$keep'"
fi

# the labs: those named, else every one with fixtures or corpus cases
if [ ${#labs[@]} = 0 ]; then
	mapfile -t labs < <({
		find reference -mindepth 3 -maxdepth 3 -type d -path 'reference/*/fixtures/*' | cut -d/ -f2
		find reference -mindepth 3 -maxdepth 3 -type d -path 'reference/*/corpus/*' | cut -d/ -f2
	} | sort -u)
fi
for lab in "${labs[@]}"; do
	[ -f "labs/$lab/lab.conf" ] || bad_usage "no lab '$lab' (labs/$lab/lab.conf)"
done

# the build folder: $BUILD where it is set (make check BUILD=...), as make takes it
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
make -s all || exit 2   # make reads $BUILD from the environment too
grep -q '^emu_cxxflags' "$build/toolchain.conf" || {
	echo "cross-check.sh: no CPU emulator on this machine ($build/toolchain.conf)" >&2; exit 2; }
if [ $emulated_only = 0 ] && ! "$build/bin/cudalab-probe" 2>/dev/null | grep -qx 'available=1'; then
	echo "cross-check.sh: no usable GPU here, so no GPU half to compare with:" >&2
	"$build/bin/cudalab-probe" 2>&1 | sed 's/^/    /' >&2
	echo "(--emulated-only grades the emulated half alone, held to the expect files)" >&2
	exit 2
fi

export BUILD=$build
# the grader's test helpers (class_run, class_result, check_expect); $0 sits
# one folder higher than a test script, so the paths they derive are set here
# shellcheck source=grader/t/lib.sh disable=SC1091
source grader/t/lib.sh
# shellcheck disable=SC2034  # T_ROOT is lib.sh's
T_ROOT=$root CUDALAB=$BUILD/bin/cudalab
# lib.sh leaves us in its scratch folder; the lab paths below are the checkout's
cd "$root" || exit 2
md=$T_TMP/report.md

# md LINE...: lines of the Markdown report's body (after the totals)
md() { printf '%s\n' "$@" >>"$md"; }
# cell TEXT: TEXT fit for a Markdown table cell
cell() { printf '%s' "$1" | sed 's/|/\\|/g; s/`/'"'"'/g'; }

# submissions LAB: the folders graded for LAB, one a line: the fixtures that
# pin a timeout first (each waits out its timeouts, so the rest are graded
# beside it), then the reference and the stub (copies, see below), the other
# fixtures and the corpus cases. Each is graded as the student of its
# folder's name.
submissions() {
	local lab=$1 dir
	for dir in "$root/reference/$lab"/fixtures/*/; do
		[ -d "$dir" ] || continue
		awk '$3 == "timeout" { t = 1 } END { exit !t }' "$dir/expect" && echo "${dir%/}"
	done
	echo "$T_TMP/$lab/base/reference"
	echo "$T_TMP/$lab/base/stub"
	for dir in "$root/reference/$lab"/fixtures/*/; do
		[ -d "$dir" ] || continue
		awk '$3 == "timeout" { t = 1 } END { exit !t }' "$dir/expect" || echo "${dir%/}"
	done
	for dir in "$root/reference/$lab"/corpus/*/; do
		[ -d "$dir" ] && echo "${dir%/}"
	done
}

# origin DIR: what a graded folder is (reference, stub, fixture, corpus)
origin() {
	case $1 in
	"$T_TMP"/*) basename "$1" ;;
	*/fixtures/*) echo fixture ;;
	*) echo corpus ;;
	esac
}

# grade_half LAB MODE DIR...: the class of DIRs graded in ./MODE/LAB-class.db
# (MODE gpu: --no-emulate, so a grading never falls back to the emulator);
# the batch's exit code into ./MODE/LAB.rc, its seconds into ./MODE/LAB.s.
grade_half() {
	local lab=$1 mode=$2 start=$SECONDS jobs
	shift 2
	jobs=$(nproc)
	# both halves at once: each takes half the CPUs
	[ $emulated_only = 1 ] || jobs=$(( jobs / 2 > 0 ? jobs / 2 : 1 ))
	(
		cd "$T_TMP/$mode" || exit 2
		rm -f "$lab-class.db"*
		"$CUDALAB" grade "$lab" "$@" --db "$lab-class.db" -j "$jobs" \
			"$([ "$mode" = gpu ] && echo --no-emulate || echo --emulate)" \
			>"$lab-class.out" 2>"$lab-class.err"
	)
	echo $? >"$T_TMP/$mode/$lab.rc"
	echo $((SECONDS - start)) >"$T_TMP/$mode/$lab.s"
	[ -z "$keep" ] || cp "$T_TMP/$mode/$lab-class".{db,out,err} "$keep/$mode/" 2>/dev/null
	return 0
}

# The jq definitions both halves' documents are read with. line1: a
# message's first line, and where that line only announces what follows
# (it ends in ':', as "the CPU emulator cannot build 'x.cu':" does), the
# first line that says error, or else the next. built: the build verdict,
# "ok (mode none)" where nvcc built it but the tests ran nowhere (the CPU
# emulator could not build it), with the message that says why.
jq_defs='
	def line1: (. // "") | tostring | split("\n") | map(select(test("\\S"))) |
		if length == 0 then "" elif (.[0] | endswith(":")) | not then .[0]
		else "\(.[0]) \(((.[1:] | map(select(test("error"; "i"))) | .[0]) // .[1]) | sub("^\\s+"; ""))"
		end | gsub("[\t\u001f]"; " ");
	def built: if .build.status == "ok" and .mode == "none" then "ok (mode none)" else .build.status end;
	def built_why: if .build.status == "ok" and .mode == "none" then .status_reason else .build.message end;
'

# compare GPU_JSON EMU_JSON: one line per verdict compared, fields split by
# \x1f: what (build or test), part/test, the GPU's status, the emulator's,
# the first line of each one's message. The tests are compared when both
# built and ran; one that only one half has is "absent" in the other.
compare() {
	jq -rn --slurpfile g "$1" --slurpfile e "$2" "$jq_defs"'
		def key: "\(.part)/\(.name)";
		def verdicts: [.tests[] | select(.kind == "correctness") | {key: key, value: .}] | from_entries;
		$g[0] as $g | $e[0] as $e |
		["build", "build", ($g | built), ($e | built), ($g | built_why | line1), ($e | built_why | line1)],
		(if ($g | built) == "ok" and ($e | built) == "ok" then
			($g | verdicts) as $gv | ($e | verdicts) as $ev |
			[$g.tests[] | select(.kind == "correctness") | key] as $gk |
			($gk + ([$e.tests[] | select(.kind == "correctness") | key] - $gk))[] as $k |
			["test", $k, ($gv[$k].status // "absent"), ($ev[$k].status // "absent"),
				($gv[$k].message | line1), ($ev[$k].message | line1)]
		else empty end) | join("\u001f")'
}

# expect_of LAB DIR JSON: the expect file DIR's emulated verdicts are held
# to: its own, or for the reference and the stub (which have none), one
# written here from the parts JSON has correctness tests in.
expect_of() {
	local dir=$1 json=$2 want
	case $(origin "$dir") in
	reference) want=pass ;;
	stub) want=fail ;;
	*) echo "$dir/expect"; return ;;
	esac
	{
		echo "build ok"
		jq -r --arg want "$want" \
			'[.tests[] | select(.kind == "correctness") | .part] | unique[] | "\(.) * \($want)"' "$json"
	} >"$json.expect"
	echo "$json.expect"
}

# open_for DIR MODE: the reason DIR's open file gives for a difference the
# grader knows of (docs/commands/check-lab.md), where it holds for MODE
# (gpu or emulated: "gpu: " and "cpu: " first limit it to one); empty: none
open_for() {
	local why
	[ -f "$1/open" ] || return 0
	why=$(head -n 1 "$1/open")
	case $why in
	"gpu: "*) [ "$2" = gpu ] && why=${why#gpu: } || why= ;;
	"cpu: "*) [ "$2" = emulated ] && why=${why#cpu: } || why= ;;
	esac
	printf '%s' "$why"
}

# findings FILE: the first line of each of check_expect's findings in FILE
# (a message it quotes goes on over lines of its own), at most 200 columns;
# the whole FILE when none is recognised (class_result's words)
findings() {
	grep -E '^([A-Za-z0-9_.-]+/[A-Za-z0-9_.*-]+ (is |message lacks )|build |exit code |no test |no run |no result )' "$1" |
		cut -c1-200 | grep . || cat "$1"
}

mkdir -p "$T_TMP/gpu" "$T_TMP/emulated"
all_subs=0 all_builds=0 all_builds_same=0 all_tests=0 all_same=0 all_diff=0
all_expected=0 all_unexpected=0 all_skipped=0 all_known=0
gpu_bad=0 gpu_name=
where="on $(hostname) at $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null)"
git diff --quiet HEAD -- 2>/dev/null || where+=" (with changes)"
if [ $emulated_only = 1 ]; then
	echo "# cross-check --emulated-only: the GPU half was NOT run. Each submission's emulated"
	echo "# verdicts are held to its expect file (the reference: every correctness test passes;"
	echo "# the stub: every one fails). This says nothing of parity with the GPU."
else
	echo "# cross-check: each submission graded on the GPU and emulated; correctness verdicts compared"
fi
: >"$md"
declare -A summary_md

for lab in "${labs[@]}"; do
	if [ "$(sed -n 's/^needs_gpu *= *//p' "labs/$lab/lab.conf" | sed 's/[ ;].*//')" = no ]; then
		echo "# $lab: skipped: its tests call no CUDA (needs_gpu = no), so they run on the CPU in both modes"
		summary_md[$lab]="| $lab | skipped: its tests run on the CPU in both modes (needs_gpu = no) |"
		continue
	fi
	# the reference and the stub, copied to folders named as they are to be
	# reported: the class intake does not follow symlinked submission folders,
	# and graded in place both would be the student of the lab's name
	mkdir -p "$T_TMP/$lab/base/reference" "$T_TMP/$lab/base/stub"
	find "reference/$lab" -maxdepth 1 -type f -exec cp -p {} "$T_TMP/$lab/base/reference/" \;
	find "student_template/$lab" -maxdepth 1 -type f -exec cp -p {} "$T_TMP/$lab/base/stub/" \;
	mapfile -t dirs < <(submissions "$lab")
	dup=$(for d in "${dirs[@]}"; do basename "$d"; done | sort | uniq -d | head -1)
	[ -z "$dup" ] || { echo "cross-check.sh: two $lab submissions named '$dup'" >&2; exit 2; }

	if [ $emulated_only = 1 ]; then
		echo "# $lab: grading ${#dirs[@]} submissions emulated..." >&2
		grade_half "$lab" emulated "${dirs[@]}"
		echo "# $lab: ${#dirs[@]} submissions graded emulated in $(cat "$T_TMP/emulated/$lab.s") s"
	else
		echo "# $lab: grading ${#dirs[@]} submissions on the GPU and emulated at once..." >&2
		grade_half "$lab" gpu "${dirs[@]}" &
		grade_half "$lab" emulated "${dirs[@]}" &
		wait
		echo "# $lab: ${#dirs[@]} submissions graded in $(cat "$T_TMP/gpu/$lab.s") s on the GPU" \
			"and $(cat "$T_TMP/emulated/$lab.s") s emulated, at once"
	fi
	for mode in gpu emulated; do
		[ -f "$T_TMP/$mode/$lab.rc" ] || continue
		rc=$(cat "$T_TMP/$mode/$lab.rc")
		# 4: graded, every run provisional, as every emulated one is
		[ "$rc" = 0 ] || { [ $mode = emulated ] && [ "$rc" = 4 ]; } ||
			{ echo "# $lab: the $mode class exited $rc; its last lines:"
			tail -n 5 "$T_TMP/$mode/$lab-class.err" | sed 's/^/#     /'; }
	done

	subs=0 builds=0 builds_same=0 tests=0 same=0 diff=0 expected=0 unexpected=0 skipped=0 known=0
	diff_md=()
	for dir in "${dirs[@]}"; do
		name=$(basename "$dir")
		if [ $emulated_only = 1 ]; then
			subs=$((subs + 1))
			cd "$T_TMP/emulated" || exit 2
			rm -f e.json e.json.*
			if class_result "$lab" "$name" e.json >e.missing 2>&1; then
				EXPECT_EMULATED=1 check_expect e.json "$(expect_of "$dir" e.json)" >e.said 2>&1
				rc=$?
			else
				rc=1 && cp e.missing e.json.findings
			fi
			cd "$root" || exit 2
			case $rc in
			0) expected=$((expected + 1)) ;;
			77) skipped=$((skipped + 1))
			    echo "$lab/$name ($(origin "$dir")): skipped: $(tail -n 1 "$T_TMP/emulated/e.said")" ;;
			*) why=$(open_for "$dir" emulated)
			   if [ -n "$why" ]; then
				known=$((known + 1))
				echo "$lab/$name ($(origin "$dir")): known: $why"
				diff_md+=("| $lab/$name | $(origin "$dir") | known: $(cell "$why") |")
				continue
			   fi
			   unexpected=$((unexpected + 1))
			   if [ -f "$T_TMP/emulated/e.json" ] &&
			      [ "$(jq -r "$jq_defs built" "$T_TMP/emulated/e.json")" = "ok (mode none)" ]; then
				# every test not run, each finding saying why: once is enough
				jq -r "$jq_defs"' "built, but no test ran: \(built_why | line1)"' \
					"$T_TMP/emulated/e.json" >"$T_TMP/emulated/e.short"
			   else
				findings "$T_TMP/emulated/e.json.findings" >"$T_TMP/emulated/e.short"
			   fi
			   echo "$lab/$name ($(origin "$dir")): not as its expect file says:"
			   sed 's/^/    /' "$T_TMP/emulated/e.short"
			   diff_md+=("| $lab/$name | $(origin "$dir") | $(cell "$(awk 'NR > 1 { printf "; " } { printf "%s", $0 }' "$T_TMP/emulated/e.short")") |") ;;
			esac
			continue
		fi
		missing=
		for mode in gpu emulated; do
			(cd "$T_TMP/$mode" && class_result "$lab" "$name" "$name.json" >"$name.missing" 2>&1) ||
				missing+=" $mode"
		done
		g=$T_TMP/gpu/$name.json e=$T_TMP/emulated/$name.json
		if [ -n "$missing" ]; then
			# a grading that stored no run: a fault of the grader or the
			# machine. The GPU's: no GPU verdict, so no parity verdict; the
			# emulator's alone: a difference
			echo "$lab/$name: no run stored by the${missing} class; its summary line:"
			for mode in $missing; do
				grep "^$name " "$T_TMP/$mode/$lab-class.out" | sed "s/^/    $mode: /"
			done
			case $missing in
			*gpu*) gpu_bad=1 ;;
			*) subs=$((subs + 1)) diff=$((diff + 1))
			   diff_md+=("| $lab/$name | run | stored | no run stored | | |") ;;
			esac
			continue
		fi
		[ -n "$gpu_name" ] || gpu_name=$(jq -r 'select(.mode == "gpu") | .gpu.name' "$g")
		if [ "$(jq -r .build.status "$g")" = ok ] && [ "$(jq -r .mode "$g")" != gpu ]; then
			echo "$lab/$name: the GPU half ran in mode $(jq -r .mode "$g"), not on a GPU:" \
				"$(jq -r '.status_reason // .gpu.reason // "?"' "$g")"
			gpu_bad=1
			continue
		fi
		subs=$((subs + 1))
		while IFS=$'\x1f' read -r what key gs es gm em; do
			if [ "$what" = build ]; then
				builds=$((builds + 1))
			else
				tests=$((tests + 1))
			fi
			if [ "$gs" = "$es" ]; then
				if [ "$what" = build ]; then
					builds_same=$((builds_same + 1))
				else
					same=$((same + 1))
				fi
				continue
			fi
			why=$(open_for "$dir" gpu)
			[ -n "$why" ] || why=$(open_for "$dir" emulated)
			if [ -n "$why" ]; then
				known=$((known + 1))
				echo "$lab/$name $key: gpu=$gs emulated=$es (known: $why)"
				diff_md+=("| $lab/$name | $key | $gs | $es | known: $(cell "$why") | |")
				continue
			fi
			diff=$((diff + 1))
			echo "$lab/$name $key: gpu=$gs emulated=$es"
			echo "    gpu:      ${gm:-(no message)}"
			echo "    emulated: ${em:-(no message)}"
			diff_md+=("| $lab/$name | $key | $gs | $es | $(cell "$gm") | $(cell "$em") |")
		done < <(compare "$g" "$e")
	done

	if [ $emulated_only = 1 ]; then
		echo "$lab: $subs submissions graded emulated: $expected as their expect file says," \
			"$unexpected not, $known known (an open file), $skipped skipped"
		summary_md[$lab]="| $lab | $subs | $expected | $unexpected | $known | $skipped |"
		[ ${#diff_md[@]} = 0 ] || { md "## $lab: not as the expect file says (or known)" "" \
			"| submission | kind | what differs |" "|---|---|---|" "${diff_md[@]}" ""; }
		all_expected=$((all_expected + expected)) all_unexpected=$((all_unexpected + unexpected))
		all_skipped=$((all_skipped + skipped)) all_known=$((all_known + known))
	else
		echo "$lab: $subs submissions compared, builds agreeing $builds_same of $builds," \
			"$tests correctness tests compared, $same agreeing; $diff differences, $known known (an open file)"
		summary_md[$lab]="| $lab | $subs | $builds_same of $builds | $tests | $same | $diff | $known |"
		[ ${#diff_md[@]} = 0 ] || { md "## $lab: differences (and known ones)" "" \
			"| submission | part/test | GPU | emulated | GPU message | emulated message |" \
			"|---|---|---|---|---|---|" "${diff_md[@]}" ""; }
		all_builds=$((all_builds + builds)) all_builds_same=$((all_builds_same + builds_same))
		all_tests=$((all_tests + tests)) all_same=$((all_same + same)) all_diff=$((all_diff + diff))
		all_known=$((all_known + known))
	fi
	all_subs=$((all_subs + subs))
done

# the Markdown report: where it ran, the totals, then the body
{
	if [ $emulated_only = 1 ]; then
		echo "# Emulated verdicts against the expect files (the GPU half was not run)"
		echo
		echo "Written by \`$me --emulated-only\` $where."
		echo "**The GPU half was not run: this is no parity check.** Each submission's"
		echo "emulated verdicts are held to its \`expect\` file (the reference: every"
		echo "correctness test passes; the stub: every one fails)."
		echo
		echo "| lab | submissions | as expected | not | known (an open file) | skipped |"
		echo "|---|---|---|---|---|---|"
	else
		echo "# Parity report: the GPU and the CPU emulator"
		echo
		echo "Written by \`$me\` $where; GPU: ${gpu_name:-none answered}."
		echo "Each submission (the reference, the stub, every fixture and every corpus"
		echo "case) graded as a class on the GPU and, at the same time, emulated; its build"
		echo "verdict and each correctness test's verdict compared."
		echo
		echo "| lab | submissions | builds agreeing | tests compared | tests agreeing | differences | known (an open file) |"
		echo "|---|---|---|---|---|---|---|"
	fi
	for lab in "${labs[@]}"; do echo "${summary_md[$lab]}"; done
	if [ $emulated_only = 1 ]; then
		echo "| total | $all_subs | $all_expected | $all_unexpected | $all_known | $all_skipped |"
	else
		echo "| total | $all_subs | $all_builds_same of $all_builds | $all_tests | $all_same | $all_diff | $all_known |"
	fi
	echo
	cat "$md"
} >"$md.final"
[ -z "$out" ] || cp "$md.final" "$out"

if [ $emulated_only = 1 ]; then
	echo "total: $all_subs submissions graded emulated: $all_expected as their expect file says," \
		"$all_unexpected not, $all_known known (an open file), $all_skipped skipped" \
		"(the GPU half was not run: no parity claimed)"
	[ "$all_unexpected" = 0 ]
	exit $?
fi
echo "total: $all_subs submissions compared, builds agreeing $all_builds_same of $all_builds," \
	"$all_tests correctness tests compared, $all_same agreeing; $all_diff differences," \
	"$all_known known (an open file)"
if [ $gpu_bad = 1 ]; then
	echo "the GPU half did not run on a GPU for every submission: no parity verdict"
	exit 2
fi
[ "$all_diff" = 0 ]
