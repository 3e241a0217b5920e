# lib.sh - sourced by every end-to-end test (tNNNN-area-detail.sh).
#
#   test_expect_success 'what it checks' 'commands'
#   test_done
#
# A test that needs a GPU calls require_gpu first: under `make check` (no GPU
# expected) the whole script is skipped and says so; under `make check-gpu` a
# missing GPU fails it, so a GPU test never passes silently.
set -u
T_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T_NAME=$(basename "$0" .sh)
BUILD=${BUILD:-$T_ROOT/build}
case $BUILD in /*) ;; *) BUILD=$T_ROOT/$BUILD ;; esac
CUDALAB=$BUILD/bin/cudalab
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/cudalab-$T_NAME.XXXXXX")
trap 'rm -rf "$T_TMP"' EXIT
# A script's own lines run in its folder too, not in the checkout: a quote
# that ends a test's body early runs the rest there, where it can only make
# scratch files (such a slip once left a course copy and logs in grader/t).
cd "$T_TMP" || exit 1
export CUDALAB_DB=$T_TMP/gradebook.db
unset CUDALAB_ROOT
t_pass=0 t_fail=0 t_skip=0 t_count=0 t_known=0
# T_AS: a command line that every cudalab command of the helpers below runs
# under (say, runuser -u NAME --), so a script can grade as another user;
# empty, they run as this shell's user.
T_AS=()

say() { printf '%s\n' "$*"; }

# A test's commands exiting 77 skip it: "ok N - what # skip WHY" (the
# last line of their output says why).
test_expect_success() {
	t_count=$((t_count + 1))
	(cd "$T_TMP" && eval "$2") >"$T_TMP/.out" 2>&1
	local rc=$?
	if [ $rc -eq 0 ]; then
		t_pass=$((t_pass + 1))
		say "ok $t_count - $1"
	elif [ $rc -eq 77 ]; then
		t_skip=$((t_skip + 1))
		say "ok $t_count - $1 # skip $(tail -n 1 "$T_TMP/.out")"
	else
		t_fail=$((t_fail + 1))
		say "not ok $t_count - $1"
		sed 's/^/#   /' "$T_TMP/.out" | head -150
	fi
}

# test_expect_known_breakage 'what it checks' 'why it does not hold yet' 'commands':
# a check that fails today for a known reason (git's test_expect_failure).
# It failing is reported, loudly, as "not ok N - what # TODO known breakage"
# and fails nothing; it holding fails the script: the reason is gone, and
# whatever marks it known must go too, so the list of known breakages stays
# true. Exit 77 skips it, as in test_expect_success.
test_expect_known_breakage() {
	t_count=$((t_count + 1))
	(cd "$T_TMP" && eval "$3") >"$T_TMP/.out" 2>&1
	local rc=$?
	if [ $rc -eq 0 ]; then
		t_fail=$((t_fail + 1))
		say "not ok $t_count - $1 # marked known breakage, but it holds now: remove the marker ($2)"
	elif [ $rc -eq 77 ]; then
		t_skip=$((t_skip + 1))
		say "ok $t_count - $1 # skip $(tail -n 1 "$T_TMP/.out")"
	else
		t_known=$((t_known + 1))
		say "not ok $t_count - $1 # TODO known breakage: $2"
		# its first line and what it found (the end)
		awk -v n="${T_KNOWN_LINES:-3}" 'NF { l[++k] = $0 } END {
			for (i = 1; i <= k; i++) if (i == 1 || i > k - n) print "#   " l[i] }' "$T_TMP/.out"
	fi
}

test_done() {
	local skipped="" known=""
	[ "$t_skip" -eq 0 ] || skipped=", $t_skip skipped"
	[ "$t_known" -eq 0 ] || known=", $t_known known breakage$([ "$t_known" -eq 1 ] || echo s)"
	say "# $T_NAME: $t_pass passed, $t_fail failed$skipped$known"
	[ "$t_fail" -eq 0 ]
	exit $?
}

skip_all() {
	say "# $T_NAME: skipped: $*"
	exit 77
}

gpu_available() {
	"$BUILD/bin/cudalab-probe" 2>/dev/null | grep -qx 'available=1'
}

require_gpu() {
	if [ "${CUDALAB_TEST_MODE:-cpu}" = cpu ]; then
		skip_all "needs a GPU (run make check-gpu)"
	fi
	if ! gpu_available; then
		say "not ok - $T_NAME needs a GPU and none is usable here:"
		"$BUILD/bin/cudalab-probe" | sed 's/^/#   /'
		exit 1
	fi
}

# gpu_or_emulated: a script that runs in both modes, on the GPU under make
# check-gpu and emulated under make check; sets mode (gpu or cpu). Needs a
# usable GPU in the first, skips without the CPU emulator in the second.
gpu_or_emulated() {
	mode=${CUDALAB_TEST_MODE:-cpu}
	if [ "$mode" = gpu ]; then
		require_gpu
	else
		grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"
	fi
}

cpu_only() {
	[ "${CUDALAB_TEST_MODE:-cpu}" = cpu ] || skip_all "runs under make check"
}

# test_must_fail_with CODE CMD...: CMD exits with CODE; its output is in ./out
# and ./err.
test_must_fail_with() {
	local want=$1 rc
	shift
	"$@" >out 2>err
	rc=$?
	[ "$rc" = "$want" ] || { say "exit code $rc, expected $want:"; cat err; return 1; }
}

# wait_for SECONDS WHAT CMD...: runs CMD every 0.2 s until it succeeds;
# after SECONDS, says it waited that long for WHAT and fails, so that a
# test whose condition never comes ends instead of hanging the run.
wait_for() {
	local seconds=$1 what=$2 tries
	shift 2
	for ((tries = seconds * 5; tries > 0; tries--)); do
		"$@" && return 0
		sleep 0.2
	done
	say "waited $seconds s for $what"
	return 1
}

# slurm_cluster_up [OPTION...]: a real single-node Slurm of the script's own
# in $T_TMP/cluster (helpers/slurm-cluster.sh up, with OPTIONs), its env
# sourced; brought down at exit, after whatever T_SLURM_ALSO (shell code)
# cleans. Skips the script, saying why, where Slurm cannot start here.
slurm_cluster_up() {
	local helper=$T_ROOT/grader/t/helpers/slurm-cluster.sh cluster=$T_TMP/cluster
	bash "$helper" up "$cluster" "$@" 2>"$T_TMP/up.err"
	case $? in
	0) ;;
	77) skip_all "$(tail -n 1 "$T_TMP/up.err")" ;;
	*) say "# the cluster did not start: $(cat "$T_TMP/up.err")"; exit 1 ;;
	esac
	. "$cluster/env"
	trap 'scancel --quiet --user=root 2>/dev/null; bash "'"$helper"'" down "'"$cluster"'"
		eval "${T_SLURM_ALSO:-}"; rm -rf "$T_TMP"' EXIT
}

# own_tmpdir WHAT: a new folder for a grading's TMPDIR, outside $T_TMP and one
# the sandbox user may enter (its path on stdout), to see what a grading
# leaves there, or to keep what one killed cannot remove; the caller removes it
own_tmpdir() {
	local d
	d=$(mktemp -d "/tmp/cudalab-$T_NAME-$1.XXXXXX") && chmod 755 "$d" && echo "$d"
}

# lab_of DIR: the lab a submission folder belongs to, from its path
# (reference/<lab>/..., student_template/<lab>, redteam/<lab>/...); matmul
# otherwise.
lab_of() {
	local lab
	lab=$(printf '%s\n' "$1" | sed -n 's#.*/\(reference\|student_template\|redteam\)/\([^/]*\).*#\2#p')
	echo "${lab:-matmul}"
}

# test_slots: on a GPU, where the scripts that grade run side by side
# (run-tests.sh), "--slots 8" for every grading: eight gradings' tests share
# the GPU at once, so the fixtures that hang, each holding a slot for its
# timeouts, leave room for the rest. Every grading asks for the same number,
# or the ones asking for fewer wait behind the others on the first slots.
test_slots() {
	[ "${CUDALAB_TEST_MODE:-cpu}" != gpu ] || echo --slots 8
}

# validate_doc JSON...: each result document conforms to its schema
# (grader/cudalab-result-1.schema.json), else fails with the validator's
# message for each field that does not; validate_doc --db DB...: every run
# each gradebook holds. Every document the tests make is held to it.
validate_doc() {
	# python3-jsonschema is installed for Debian's python3, which a python3
	# of pyenv or a venv earlier on PATH does not see
	local py=/usr/bin/python3
	[ -x "$py" ] || py=python3
	"$py" "$T_ROOT/grader/t/helpers/validate-doc.py" "$@"
}

# grade_fixture DIR JSON [EXTRA ARGS]: grades DIR (for the lab its path names),
# keeps its exit code in JSON.exit; fails when the document it wrote does not
# conform (validate_doc). With CUDALAB_TEST_LANES set (make check-gpu
# LANES=N), with --lanes N.
grade_fixture() {
	local dir=$1 json=$2
	shift 2
	rm -f "$json"   # a document left by an earlier grading is never taken for this one's
	${T_AS[@]+"${T_AS[@]}"} "$CUDALAB" grade "$(lab_of "$dir")" "$dir" \
		--student "fixture-$(basename "$dir")" -q $(test_slots) \
		--json "$json" ${CUDALAB_TEST_LANES:+--lanes "$CUDALAB_TEST_LANES"} "$@" >"$json.txt" 2>&1
	echo $? >"$json.exit"
	[ ! -f "$json" ] || validate_doc "$json"
}

# exit_code_of JSON: the exit code of the grading that wrote JSON: the
# command's (JSON.exit, grade_fixture) where it was graded alone, else the
# one its document holds (a class's, class_result).
exit_code_of() {
	if [ -f "$1.exit" ]; then cat "$1.exit"; else jq .exit_code "$1"; fi
}

# expect_conceals JSON WHAT: check_expect's "conceals WHAT" (below).
expect_conceals() {
	local json=$1 what=$2 v name found=0
	# every string of the document but the submission's own path and files
	jq -r 'del(.submission, .files) | .. | strings' "$json" >texts
	case $what in
	root)
		if grep -aF -- "$T_ROOT" texts >leak; then
			say "the run names the grader's checkout ($T_ROOT):"; head -3 leak; return 1
		fi
		;;
	secrets)
		for name in ${T_SECRETS:-}; do
			v=${!name:-}
			[ -n "$v" ] || continue
			found=1
			if grep -aqF -- "$v" texts || { [ -f "$json.txt" ] && grep -aqF -- "$v" "$json.txt"; }; then
				say "the run shows the grader's $name"; return 1
			fi
		done
		[ $found = 1 ] || { say "no secret to look for: T_SECRETS names no variable that is set"; return 1; }
		;;
	*) say "conceals what? '$what'"; return 1 ;;
	esac
}

# check_expect JSON EXPECT: the result matches every line of the fixture's
# expect file (exit_code_of for its exit line). A line "sandboxed" (a fixture
# only the sandbox contains) skips the check (77) when the run was not
# sandboxed. A build state or a test status may be several, "crash|fail":
# any of them will do. Lines that look at more than the verdict:
#   conceals root       no text of the run (build log and message, output,
#                       test messages) names the grader's checkout ($T_ROOT);
#                       the submission's own path is left out
#   conceals secrets    nor holds the value of a variable of T_SECRETS (names
#                       of variables the grader's environment has, canaries)
#   no-control          the grader's own report of the run (JSON.txt, from
#                       grade_fixture) holds no control character but newline
#                       and tab: no escape sequence reaches a terminal
#   memory-limited      the run says its programs ran under a memory limit
#                       (.sandbox.memory_limit)
check_expect() {
	local json=$1 expect=$2 ok=0 kind a b text got
	[ -f "$json" ] || { say "no result document"; cat "$json.txt"; return 1; }
	if grep -qx sandboxed "$expect" && [ "$(jq -r '.sandbox.kind // "none"' "$json")" != bubblewrap ]; then
		say "unsandboxed here ($(jq -r '.sandbox.reason // "?"' "$json")): only the sandbox contains it"
		return 77
	fi
	while read -r kind a b text; do
		case $kind in
		'' | '#'* | sandboxed | processes-limited) continue ;;
		conceals)
			text="$a${b:+ $b}${text:+ $text}"
			expect_conceals "$json" "$text" || ok=1
			;;
		no-control)
			if [ ! -f "$json.exit" ]; then
				say "no-control looks at the grader's own report: grade it alone (grade_fixture)"; ok=1
			elif LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$json.txt" >ctl.lines; then
				say "the report carries control characters, here made visible:"
				cat -v ctl.lines | head -5; ok=1
			fi
			;;
		memory-limited)
			[ "$(jq '.sandbox.memory_limit // 0' "$json")" != 0 ] ||
				{ say "no memory limit: the run names none (memory_limit = 0 in lab.conf?)"; ok=1; }
			;;
		exit)
			got=$(exit_code_of "$json")
			# an emulated run that built is never a grade: always 4; a
			# code may be several (0|1)
			[ "${EXPECT_EMULATED:-}" = 1 ] && a=$(echo "$a" | sed -E 's/(^|\|)[01](\||$)/\14\2/g; s/(^|\|)[01](\||$)/\14\2/g')
			case "|$a|" in *"|$got|"*) ;; *) say "exit code $got, expected $a"; ok=1 ;; esac
			;;
		build)
			got=$(jq -r .build.status "$json")
			case "|$a|" in *"|$got|"*) ;; *) say "build $got, expected $a"; ok=1 ;; esac
			text="$b${text:+ $text}"
			if [ -n "$text" ] && ! jq -r '.build.message // ""' "$json" | grep -qF -- "$text"; then
				say "build message lacks '$text':"; jq -r .build.message "$json"; ok=1
			fi
			;;
		log)
			text="$a${b:+ $b}${text:+ $text}"
			jq -r '.build.log // ""' "$json" | grep -qF -- "$text" ||
				{ say "build log lacks '$text'"; ok=1; }
			;;
		*)
			# PART TEST STATUS [TEXT], in one jq: the tests named ('*' is
			# every correctness test of the part; timed kernels are named),
			# then what of them is not as expected
			got=$(jq -r --arg part "$kind" --arg name "$a" --arg status "$b" --arg text "$text" \
				--arg emulated "${EXPECT_EMULATED:-}" '
				[.tests[] | select(.part == $part)] as $in |
				# emulated, a timed kernel of a built submission is never run,
				# unless its part failed a test: then it is "not timed" anywhere
				(if $emulated == "1" and $name != "*" and .build.status == "ok" and
					[$in[] | select(.name == $name) | .kind] == ["timing"] and
					($text | startswith("not timed") | not)
				then ["not-run", "timing needs a GPU"] else [$status, $text] end) as [$status, $text] |
				[$in[] | if $name == "*" then select(.kind == "correctness") else select(.name == $name) end]
				as $sel |
				if $sel == [] then "no test \($part)/\($name)" else
					($sel[] | select(.status as $s | $status | split("|") | index($s) | not) |
						"\(.part)/\(.name) is \(.status), expected \($status): \(.message)"),
					(if $text == "" then empty else $sel[] |
						select((.message // "") | contains($text) | not) |
						"\(.part)/\(.name) message lacks '"'"'\($text)'"'"': \(.message)" end)
				end' "$json")
			[ -z "$got" ] || { say "$got"; ok=1; }
			;;
		esac
	done <"$expect" >"$json.findings"
	# the report's first lines (up to its failures) and its failures
	[ $ok -eq 0 ] || { sed -n '/^failures:/q; p; 8q' "$json.txt"
		sed -n '/^failures:/,$p' "$json.txt" | head -40; cat "$json.findings"
		# what the safety stage did, which the report above does not show
		say "safety: $(jq -c '.safety // null' "$json" | cut -c1-600)"; }
	return $ok
}

# class_fixtures LAB: the fixture folders of LAB that are graded as a class,
# one a line: all but those marked processes-limited, which count the
# machine's processes while they are graded, and so are graded alone. Those
# that pin a timeout come first: each of their timed-out tests waits out its
# whole timeout, and a class starts its gradings in the order given, so the
# others are graded beside them rather than after them.
class_fixtures() {
	local dir
	for dir in "$T_ROOT"/reference/"$1"/fixtures/*/; do
		dir=${dir%/}
		grep -qx processes-limited "$dir/expect" && continue
		awk '$3 == "timeout" { t = 1 } END { exit !t }' "$dir/expect" && echo 0 "$dir" || echo 1 "$dir"
	done | sort -s -k1,1n | cut -d" " -f2-
}

# grade_class LAB [EXTRA ARGS]: grades the fixtures of LAB (class_fixtures)
# as one class, as a course grades its students: one batch whose gradings
# run side by side, each running its tests in one lane and sharing the GPU
# with others, instead of one grading after another. Each fixture is the
# student of its folder's name in the gradebook ./LAB-class.db; the summary
# goes to ./LAB-class.out, the progress lines to ./LAB-class.err; returns the
# batch's exit code. CUDALAB_TEST_JOBS=N (make check-gpu JOBS=N) grades N at
# once, CUDALAB_TEST_LANES=N with --lanes N. With CLASS_DIRS (a file, a
# folder a line), those folders are the class instead of the fixtures.
grade_class() {
	local lab=$1 dirs
	shift
	if [ -n "${CLASS_DIRS:-}" ]; then
		mapfile -t dirs <"$CLASS_DIRS"
	else
		mapfile -t dirs < <(class_fixtures "$lab")
	fi
	rm -f "$lab-class.db"*
	set -- $(test_slots) "$@"
	${T_AS[@]+"${T_AS[@]}"} "$CUDALAB" grade "$lab" "${dirs[@]}" --db "$lab-class.db" "$@" \
		${CUDALAB_TEST_JOBS:+-j "$CUDALAB_TEST_JOBS"} \
		${CUDALAB_TEST_LANES:+--lanes "$CUDALAB_TEST_LANES"} >"$lab-class.out" 2>"$lab-class.err"
}

# class_db LAB: the gradebook of LAB's class: ./LAB-class.db (grade_class),
# else the one test_fixtures's check-lab kept, ./check-lab/LAB.db.
class_db() {
	if [ -f "$1-class.db" ] || [ ! -f "check-lab/$1.db" ]; then
		echo "$1-class.db"
	else
		echo "check-lab/$1.db"
	fi
}

# class_run LAB [NAME]: the id of NAME's latest run in the class gradebook of
# LAB (without NAME, of anyone's); nothing when there is none. check-lab
# grades a fixture NAME as the student fixture-NAME.
class_run() {
	local db
	db=$(class_db "$1")
	[ -f "$db" ] || return 0
	local who
	for who in ${2:+"fixture-$2" "$2"}; do
		${T_AS[@]+"${T_AS[@]}"} "$CUDALAB" db show --db "$db" --lab "$1" --student "$who" --limit 1 |
			awk 'NR == 2 && $1 ~ /^[0-9]+$/ { print $1; f = 1 } END { exit !f }' && return 0
	done
	[ -n "${2:-}" ] ||
	${T_AS[@]+"${T_AS[@]}"} "$CUDALAB" db show --db "$db" --lab "$1" --limit 1 |
		awk 'NR == 2 && $1 ~ /^[0-9]+$/ { print $1 }'
}

# class_result LAB NAME JSON: fixture NAME's run in the class gradebook of
# LAB (grade_class): its result document into JSON, held to the schema
# (validate_doc), and, since a class keeps no report, what the document says
# of it into JSON.txt (report_of).
class_result() {
	local lab=$1 name=$2 json=$3 run
	run=$(class_run "$lab" "$name")
	if [ -z "$run" ]; then
		say "no run of $name in the class: its line of the summary, and the last progress lines:"
		grep -s "^$name " "$lab-class.out" "check-lab/$lab.out"
		tail -n 5 "$lab-class.err" "check-lab/$lab.err" 2>/dev/null
		return 1
	fi
	rm -f "$json.exit"   # the exit code is the document's
	${T_AS[@]+"${T_AS[@]}"} "$CUDALAB" db show --db "$(class_db "$lab")" --run "$run" >"$json" &&
		validate_doc "$json" &&
		report_of "$json" "run $run of the class" >"$json.txt"
}

# report_of JSON WHAT: the first lines and the failures of a report, from a
# result document (check_expect shows them when a verdict is wrong).
report_of() {
	jq -r --arg what "$2" '
		"\(.lab)/\(.student) (\($what)): \(.status), \(.score_text // "\(.score)/\(.max_score)"), exit \(.exit_code), mode \(.mode)",
		"submission  \(.submission) (\([.files[] | "\(.name), \(.bytes) bytes"] | join("; ")))",
		"build       \(.build.status) (\(.build.seconds * 10 | round / 10) s)",
		(.build.message // empty | split("\n")[] | "  \(.)"),
		"gpu         \(if .gpu.available then .gpu.name else "none: \(.gpu.reason // "?")" end)",
		"sandbox     \(.sandbox.kind // "?")\(if .sandbox.reason then ": \(.sandbox.reason)" else "" end)",
		(.status_reason // empty | "status      \(.)"),
		([.tests[] | select(.status != "pass" and .status != "not-run")] |
			if length == 0 then empty else "", "failures:", (.[] |
				"  \(.part) \(.name) (\(.status)):",
				((.message // "(no message)") | split("\n")[] | "    \(.)")) end)
	' "$1"
}

# test_fixtures LAB [SUFFIX [CHECK-LAB ARGS]]: every case of LAB (its
# reference, its stub, each fixture and each real-world corpus case) graded
# as one class by `cudalab check-lab LAB` (under make check-gpu: on the GPU
# and emulated, the two compared), then a test per case, which passes when
# check-lab says the case got its verdict (on both sides, and the same on
# both), and one that check-lab found nothing else wrong (a case without an
# expect file). Its runs stay in ./check-lab/LAB.db, which class_result
# reads. The fixtures marked processes-limited are besides graded alone,
# before the class, their processes counted.
test_fixtures() {
	local lab=$1 suffix=${2:-} dir name
	shift $(($# < 2 ? $# : 2))
	# each graded alone, its processes counted: the grading's own, with all
	# their descendants (peak_processes), whatever else runs
	for dir in "$T_ROOT"/reference/"$lab"/fixtures/*/; do
		dir=${dir%/}
		name=$(basename "$dir")
		grep -qx processes-limited "$dir/expect" || continue
		test_expect_success "$lab/$name gets its verdict$suffix, held to the process limit" '
			processes_limited "'"$lab"'" &&
			peak_processes grade_fixture "'"$dir"'" r.json &&
			check_expect r.json "'"$dir"'/expect" &&
			limit=$(jq .sandbox.processes.limit r.json) &&
			say "at most $(cat peak) processes of the grading at once (limit $limit)" &&
			[ "$(cat peak)" -le $((limit + 64)) ]
		'
	done
	mkdir -p "$T_TMP/check-lab"
	(cd "$T_TMP" && ${T_AS[@]+"${T_AS[@]}"} "$CUDALAB" check-lab "$lab" --runs check-lab "$@" \
		${CUDALAB_TEST_JOBS:+-j "$CUDALAB_TEST_JOBS"} \
		>"check-lab/$lab.out" 2>"check-lab/$lab.err"; echo $? >"check-lab/$lab.rc")
	local out=$T_TMP/check-lab/$lab.out kind
	# what check-lab said, for people to read (CI keeps CUDALAB_ARTIFACTS)
	if [ -n "${CUDALAB_ARTIFACTS:-}" ] && mkdir -p "$CUDALAB_ARTIFACTS/check-lab"; then
		cp "$out" "$CUDALAB_ARTIFACTS/check-lab/$lab-${CUDALAB_TEST_MODE:-cpu}.txt"
	fi
	# a test per case, in the order check-lab lists them: its lines (on
	# each side, and where the two differ) must say ok or known
	while read -r kind name; do
		case $kind in
		fixture) what="$lab/$name" ;;
		corpus) what="$lab corpus case $name" ;;
		*) what="the $lab $kind" ;;
		esac
		test_expect_success "$what gets its verdict$suffix" '
			check_lab_case "'"$out"'" "'"$kind"'" "'"$name"'"
		'
	done < <(check_lab_lines "$out" | awk '$1 != "no_verdict" && !seen[$2 " " $3]++ { print $2, $3 }')
	test_expect_success "check-lab $lab finds nothing else wrong$suffix" '
		rc=$(cat "'"$T_TMP/check-lab/$lab.rc"'")
		grep "^'"$lab"': " "'"$out"'"
		[ "$rc" = 0 ] || { say "check-lab exited $rc; what it said:"; cat "'"$out"'"
			tail -n 20 "'"$T_TMP/check-lab/$lab.err"'"; false; }
	'
}

# CHECK_LAB_CASE: awk that reads a case line of check-lab's output into v
# (its verdict, two words joined by _: NOT_GRADED), k (its kind) and n (its name).
CHECK_LAB_CASE='v = $1; k = $2; n = $3
	if (v == "NOT" || v == "HOLDS" || v == "no") { v = v "_" $2; k = $3; n = $4 }
	sub(/:.*/, "", n)'

# check_lab_lines OUT: the case lines of check-lab's output OUT, each as VERDICT KIND NAME.
check_lab_lines() {
	awk '/^  [A-Za-z]/ { '"$CHECK_LAB_CASE"'; print v, k, n }' "$1"
}

# check_lab_case OUT KIND NAME: check-lab's output OUT says each of its lines
# of case NAME (of KIND: fixture, corpus, reference, stub) is ok or known;
# else prints them, with what is said under each.
check_lab_case() {
	awk -v kind="$2" -v name="$3" '
		/^  [A-Za-z]/ { '"$CHECK_LAB_CASE"'
			mine = k == kind && n == name
			if (mine) { lines++; if (v != "ok" && v != "known" && v != "skipped") bad++ }
		}
		!/^  [A-Za-z]/ && !/^      / { mine = 0 }   # a heading, a lab'"'"'s line
		mine { print }
		END { if (!lines) print "check-lab said nothing of this case"; exit !(lines && !bad) }' "$1"
}

# processes_limited LAB: exits 77 (skip) unless the grader holds the programs
# of a LAB grading to a process limit here; a fork bomb never runs without one.
# A grading of the lab's reference says.
processes_limited() {
	grade_fixture "$T_ROOT/reference/$1" limits.json || return 1
	[ "$(jq '.sandbox.processes.limit // 0' limits.json)" -gt 0 ] || {
		say "no process limit here: $(jq -r '.sandbox.processes.reason // "?"' limits.json)"
		exit 77
	}
}

# tree_processes PID: how many processes PID and its descendants are. The
# grader is a child subreaper, so a grading's orphans stay among them; a
# process of a sandbox's PID namespace is a descendant of its bubblewrap.
# What else runs on the machine (a parallel build, another grading) does
# not count: a CI runner is shared.
tree_processes() {
	# "/proc/PID/status:PPid:<tab>PPID" for each process (-s: one that ended since
	# the glob is not an error)
	grep -s '^PPid:' /proc/[0-9]*/status | awk -v root="$1" '
		{ split($1, p, "/"); parent[p[3]] = $2 }
		END {
			n = 0
			for (pid in parent) {
				for (q = pid; q != root && q in parent && q != parent[q]; q = parent[q])
					;
				n += q == root
			}
			print n
		}'
}

# peak_processes CMD...: runs CMD (in a subshell: what it sets stays there)
# while counting its processes with all their descendants (tree_processes)
# every 0.1 s; the most there were goes to ./peak.
peak_processes() {
	local rc sampler pid
	echo 0 >peak
	rm -f peak.stop
	"$@" &
	pid=$!
	(
		max=0
		while [ ! -e peak.stop ]; do
			n=$(tree_processes "$pid")
			[ "$n" -le $max ] || { max=$n; echo $max >peak; }
			sleep 0.1
		done
	) &
	sampler=$!
	wait "$pid"
	rc=$?
	touch peak.stop
	wait "$sampler"   # only it: the caller may have other jobs under way
	return $rc
}

# course_copy LAB CONF: a cudalab whose lab LAB has CONF added to its
# lab.conf (a deadline, say), the rest of the course and the build as they
# are; its path goes to ./cudalab. The checkout is never written.
course_copy() {
	local lab=$1 conf=$2 c=$PWD/course f
	mkdir -p "$c/root/labs/$lab" "$c/build/bin" &&
	for f in "$T_ROOT"/*; do
		[ "$(basename "$f")" = labs ] || ln -s "$f" "$c/root/"
	done &&
	for f in "$T_ROOT"/labs/*; do
		[ "$(basename "$f")" = "$lab" ] || ln -s "$f" "$c/root/labs/"
	done &&
	for f in "$T_ROOT/labs/$lab"/*; do
		[ "$(basename "$f")" = lab.conf ] || ln -s "$f" "$c/root/labs/$lab/"
	done &&
	{ cat "$T_ROOT/labs/$lab/lab.conf"; printf '%s\n' "$conf"; } >"$c/root/labs/$lab/lab.conf" &&
	for f in "$BUILD"/*; do
		case $(basename "$f") in bin | toolchain.conf) ;; *) ln -s "$f" "$c/build/" ;; esac
	done &&
	cp "$CUDALAB" "$c/build/bin/" &&
	sed -e "s|^root = .*|root = $c/root|" -e "s|^build = .*|build = $c/build|" \
		"$BUILD/toolchain.conf" >"$c/build/toolchain.conf" &&
	echo "$c/build/bin/cudalab" >cudalab
}
