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
export CUDALAB_DB=$T_TMP/gradebook.db
unset CUDALAB_ROOT
t_pass=0 t_fail=0 t_skip=0 t_count=0

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

test_done() {
	local skipped=""
	[ "$t_skip" -eq 0 ] || skipped=", $t_skip skipped"
	say "# $T_NAME: $t_pass passed, $t_fail failed$skipped"
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

# lab_of DIR: the lab a submission folder belongs to, from its path
# (reference/<lab>/..., student_template/<lab>); matmul otherwise.
lab_of() {
	local lab
	lab=$(printf '%s\n' "$1" | sed -n 's#.*/\(reference\|student_template\)/\([^/]*\).*#\2#p')
	echo "${lab:-matmul}"
}

# grade_fixture DIR JSON [EXTRA ARGS]: grades DIR (for the lab its path names),
# keeps its exit code in JSON.exit. With CUDALAB_TEST_LANES set (make
# check-gpu LANES=N), with --lanes N.
grade_fixture() {
	local dir=$1 json=$2
	shift 2
	"$CUDALAB" grade "$(lab_of "$dir")" "$dir" --student "fixture-$(basename "$dir")" -q \
		--json "$json" ${CUDALAB_TEST_LANES:+--lanes "$CUDALAB_TEST_LANES"} "$@" >"$json.txt" 2>&1
	echo $? >"$json.exit"
}

# check_expect JSON EXPECT: the result matches every line of the fixture's
# expect file. A line "sandboxed" (a fixture only the sandbox contains)
# skips the check (77) when the run was not sandboxed.
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
		exit)
			got=$(cat "$json.exit")
			# an emulated run that built is never a grade: always 4
			[ "${EXPECT_EMULATED:-}" = 1 ] && [ "$a" -le 1 ] && a=4
			[ "$got" = "$a" ] || { say "exit code $got, expected $a"; ok=1; }
			;;
		build)
			got=$(jq -r .build.status "$json")
			[ "$got" = "$a" ] || { say "build $got, expected $a"; ok=1; }
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
			local part=$kind name=$a status=$b
			local sel=".tests[] | select(.part == \"$part\")"
			# emulated, a timed kernel of a built submission is never run
			if [ "${EXPECT_EMULATED:-}" = 1 ] && [ "$name" != '*' ] &&
				[ "$(jq -r "$sel | select(.name == \"$name\") | .kind" "$json")" = timing ] &&
				[ "$(jq -r .build.status "$json")" = ok ]; then
				status=not-run text="timing needs a GPU"
			fi
			# '*' is every correctness test of the part; timed kernels are named
			if [ "$name" = '*' ]; then
				sel="$sel | select(.kind == \"correctness\")"
			else
				sel="$sel | select(.name == \"$name\")"
			fi
			local n
			n=$(jq "[$sel] | length" "$json")
			[ "$n" -gt 0 ] || { say "no test $part/$name"; ok=1; continue; }
			local wrong
			wrong=$(jq -r "$sel | select(.status != \"$status\") | \"\(.part)/\(.name) is \(.status), expected $status: \(.message)\"" "$json")
			[ -z "$wrong" ] || { say "$wrong"; ok=1; }
			if [ -n "$text" ]; then
				wrong=$(jq -r --arg t "$text" "$sel | select((.message // \"\") | contains(\$t) | not) | \"\(.part)/\(.name) message lacks '\(\$t)': \(.message)\"" "$json")
				[ -z "$wrong" ] || { say "$wrong"; ok=1; }
			fi
			;;
		esac
	done <"$expect" >"$json.findings"
	[ $ok -eq 0 ] || { head -8 "$json.txt"; sed -n '/^failures:/,$p' "$json.txt" | head -40
		cat "$json.findings"; }
	return $ok
}

# test_fixtures LAB [SUFFIX]: one test per fixture of LAB, each graded and held
# to its expect file (EXPECT_EMULATED=1 for the emulated verdicts).
test_fixtures() {
	local lab=$1 suffix=${2:-} dir
	for dir in "$T_ROOT"/reference/"$lab"/fixtures/*/; do
		dir=${dir%/}
		if grep -qx processes-limited "$dir/expect"; then
			test_expect_success "$lab/$(basename "$dir") gets its verdict$suffix, held to the process limit" '
				processes_limited "'"$lab"'" &&
				peak_processes grade_fixture "'"$dir"'" r.json &&
				check_expect r.json "'"$dir"'/expect" &&
				limit=$(jq .sandbox.processes.limit r.json) &&
				say "at most $(cat peak) processes more than before (limit $limit)" &&
				[ "$(cat peak)" -le $((limit + 64)) ]
			'
			continue
		fi
		test_expect_success "$lab/$(basename "$dir") gets its verdict$suffix" '
			grade_fixture "'"$dir"'" r.json && check_expect r.json "'"$dir"'/expect"
		'
	done
}

# processes_limited LAB: exits 77 (skip) unless the grader holds the programs
# of a LAB grading to a process limit here; a fork bomb never runs without one.
processes_limited() {
	grade_fixture "$T_ROOT/reference/$1" limits.json
	[ "$(jq '.sandbox.processes.limit // 0' limits.json)" -gt 0 ] || {
		say "no process limit here: $(jq -r '.sandbox.processes.reason // "?"' limits.json)"
		exit 77
	}
}

# peak_processes CMD...: runs CMD while counting the machine's processes
# every 0.1 s; the most there were beyond the count before goes to ./peak.
peak_processes() {
	local base rc
	base=$(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)
	echo 0 >peak
	rm -f peak.stop
	(
		max=0
		while [ ! -e peak.stop ]; do
			n=$(($(find /proc -maxdepth 1 -name '[0-9]*' | wc -l) - base))
			[ $n -le $max ] || { max=$n; echo $max >peak; }
			sleep 0.1
		done
	) &
	"$@"
	rc=$?
	touch peak.stop
	wait
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
	sed "s|^root = .*|root = $c/root|" "$BUILD/toolchain.conf" >"$c/build/toolchain.conf" &&
	echo "$c/build/bin/cudalab" >cudalab
}
