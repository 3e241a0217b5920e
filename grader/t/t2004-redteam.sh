#!/bin/bash
# The red-team corpus: hostile submissions written as a student who wants
# the points without the work (grader/t/redteam/<lab>/<case>/, listed in
# grader/t/redteam/INDEX.md), each held to the verdict a careful TA would
# give (its expect file).
# long-running: four classes of hostile submissions, three waiting out the
# safety stage's time limit, and builds that exhaust memory
# beside-others: its GPU work is cudalab gradings, under their GPU locks
#
# A case with an `open` file is a known breakage: the grader does not give
# that verdict yet, for the reason the file names; it is reported as such
# and fails nothing, until it holds, which fails the script until the
# marker goes.
#
# Under make check the cases are graded emulated (the occupancy lab runs
# natively, as always), under make check-gpu on the GPU; each lab's cases
# as one class, but those whose verdict looks at the grader's own report or
# at a memory limit, graded alone. CUDALAB_REDTEAM_USER=NAME, run as root:
# every grading runs as that ordinary user, with a work folder and
# gradebooks of its own. REDTEAM_CASES=GLOB grades only the cases whose
# <lab>/<case> matches (an extended glob); REDTEAM_JOBS=N grades N of a
# class at once (3).
. "$(dirname "$0")/lib.sh"

gpu_or_emulated
RT=$T_ROOT/grader/t/redteam
# every lab with cases here, those with the most cases first (they take longest)
LABS=$(for d in "$RT"/*/; do
	l=$(basename "$d")
	[ -f "$T_ROOT/labs/$l/lab.conf" ] && echo "$(find "$d" -mindepth 1 -maxdepth 1 -type d | wc -l) $l"
done | sort -k1,1rn -k2 | cut -d" " -f2)

# Canaries in the grader's environment: a case that shows one has read the
# grader's environment (check_expect's "conceals secrets").
export GITHUB_TOKEN=ghp_redteam$$canary$RANDOM$RANDOM AWS_SECRET_ACCESS_KEY=redteam/$$/canary/$RANDOM
T_SECRETS="GITHUB_TOKEN AWS_SECRET_ACCESS_KEY"

# Who grades: this shell's user, or CUDALAB_REDTEAM_USER (as root only).
as=root
[ "$(id -u)" = 0 ] || as=user
if [ -n "${CUDALAB_REDTEAM_USER:-}" ]; then
	[ "$(id -u)" = 0 ] || skip_all "CUDALAB_REDTEAM_USER needs the script to run as root"
	id -u "$CUDALAB_REDTEAM_USER" >/dev/null 2>&1 ||
		skip_all "no user '$CUDALAB_REDTEAM_USER' on this machine"
	[ "$(id -u "$CUDALAB_REDTEAM_USER")" != 0 ] || skip_all "CUDALAB_REDTEAM_USER is root"
	# its own folder: the gradebooks, the documents, the work folders
	chown "$CUDALAB_REDTEAM_USER" "$T_TMP" && chmod 755 "$T_TMP" ||
		skip_all "cannot give $CUDALAB_REDTEAM_USER a folder"
	T_AS=(setpriv --reuid="$CUDALAB_REDTEAM_USER" --regid="$(id -g "$CUDALAB_REDTEAM_USER")"
	      --init-groups --inh-caps=-all --)
	as=user
fi
say "# graded as $as ($(${T_AS[@]+"${T_AS[@]}"} id -un)), $([ "$mode" = gpu ] && echo "on the GPU" || echo emulated)"

# The memory cap around the cases that exhaust memory (an outer safety net,
# never what their verdict counts on: see "memory-limited" in lib.sh): a
# memory cgroup of REDTEAM_CAP_MIB MiB, or nothing where none can be made
# here (those cases are then skipped). It must stay above the grader's own
# limit, which is to stop them first.
CAP_MIB=${REDTEAM_CAP_MIB:-6144}
cap_dir=
make_cap() {
	local d
	for d in /sys/fs/cgroup/unified /sys/fs/cgroup /sys/fs/cgroup/memory; do
		[ -w "$d" ] || continue
		if [ -f "$d/cgroup.controllers" ] && grep -qw memory "$d/cgroup.controllers" &&
		   mkdir "$d/cudalab-redteam-$$" 2>/dev/null; then
			if echo $((CAP_MIB << 20)) >"$d/cudalab-redteam-$$/memory.max" 2>/dev/null; then
				echo 0 >"$d/cudalab-redteam-$$/memory.swap.max" 2>/dev/null
				cap_dir=$d/cudalab-redteam-$$; return 0
			fi
			rmdir "$d/cudalab-redteam-$$"
		elif [ -f "$d/memory.limit_in_bytes" ] && mkdir "$d/cudalab-redteam-$$" 2>/dev/null; then
			if echo $((CAP_MIB << 20)) >"$d/cudalab-redteam-$$/memory.limit_in_bytes"; then
				echo $((CAP_MIB << 20)) >"$d/cudalab-redteam-$$/memory.memsw.limit_in_bytes" 2>/dev/null
				cap_dir=$d/cudalab-redteam-$$; return 0
			fi
			rmdir "$d/cudalab-redteam-$$"
		fi
	done
	return 1
}
drop_cap() {
	[ -n "$cap_dir" ] || return 0
	local p
	for p in $(cat "$cap_dir/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	rmdir "$cap_dir" 2>/dev/null
}
trap 'drop_cap; rm -rf "$T_TMP"' EXIT

# The cases: "LAB CASE" a line, those REDTEAM_CASES picks.
cases() {
	local lab dir
	for lab in $LABS; do
		for dir in "$RT/$lab"/*/; do
			dir=${dir%/}
			[ -f "$dir/expect" ] || continue
			# shellcheck disable=SC2053
			[[ $lab/${dir##*/} == ${REDTEAM_CASES:-*} ]] && echo "$lab ${dir##*/}"
		done
	done
}

# How a case is graded: capped (under the memory cap, alone), alone (the
# grader's own report is looked at, or it is graded under a name or from a
# folder of its own), or class.
how_graded() {
	local dir=$RT/$1/$2
	if grep -qx memory-limited "$dir/expect"; then
		echo capped
	elif grep -qx no-control "$dir/expect" || [ -f "$dir/student" ] || [ -f "$dir/folder" ]; then
		echo alone
	else
		echo class
	fi
}

# The attack class of a case: the first line of its ATTACK note, "class: NAME".
attack_class() {
	sed -n '1s/^class: *\([a-z-]*\).*/\1/p' "$RT/$1/$2/ATTACK"
}

# Why a case is open here, from its `open` file: each line is a reason,
# which may start with qualifiers saying where it holds (root: or user:, the
# grader's user; cpu: or gpu:, make check or make check-gpu); the first
# line whose qualifiers all hold here. Nothing: not open here.
open_reason() {
	local f=$RT/$1/$2/open line q ok
	[ -f "$f" ] || return 0
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		ok=1
		while q=${line%%:*}; [ "$q" != "$line" ] && case $q in root | user | cpu | gpu) true ;; *) false ;; esac; do
			[ "$q" = "$as" ] || [ "$q" = "$mode" ] || ok=0
			line=${line#*:}
			line=${line# }
		done
		[ $ok = 1 ] && { echo "$line"; return 0; }
	done <"$f"
}

# grade_args LAB: how each grading of LAB is made here.
grade_args() {
	[ "$mode" = gpu ] || [ "$1" = occupancy ] || echo --emulate
}

# expect_mode LAB: EXPECT_EMULATED's value for LAB (an emulated run is never
# a grade; the occupancy lab's native run is).
expect_mode() {
	[ "$mode" = gpu ] || [ "$1" = occupancy ] || echo 1
}

# graded_alone LAB CASE JSON: the case graded alone, the way how_graded says.
graded_alone() {
	local lab=$1 name=$2 json=$3 dir=$RT/$1/$2 student folder
	local args=($(grade_args "$lab"))
	if [ -f "$dir/student" ]; then
		student=$(printf '%b' "$(cat "$dir/student")")
		args+=(--student "$student")
	fi
	if [ -f "$dir/folder" ]; then
		# a copy of the submission in a folder of that name, which is then
		# its path, under a redteam/LAB folder so that lab_of knows its lab
		folder=$(printf '%b' "$(cat "$dir/folder")")
		rm -rf "copies/$name" && mkdir -p "copies/$name/redteam/$lab/$folder" &&
		find "$dir" -maxdepth 1 -type f ! -name expect ! -name ATTACK ! -name open \
			! -name folder ! -name student -exec cp {} "copies/$name/redteam/$lab/$folder/" \; &&
		chmod -R a+rX copies || return 1
		dir=$PWD/copies/$name/redteam/$lab/$folder
	fi
	if [ "$(how_graded "$lab" "$name")" = capped ]; then
		[ -n "$cap_dir" ] || { say "no memory cgroup can be made here: a case that exhausts memory is not run without one"; exit 77; }
		local saved=(${T_AS[@]+"${T_AS[@]}"})
		T_AS=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cap_dir" ${saved[@]+"${saved[@]}"})
		grade_fixture "$dir" "$json" "${args[@]}"
		local rc=$?
		T_AS=(${saved[@]+"${saved[@]}"})
		return $rc
	fi
	grade_fixture "$dir" "$json" "${args[@]}"
}

mapfile -t all < <(cases)
[ ${#all[@]} -gt 0 ] || skip_all "no case matches '${REDTEAM_CASES:-*}'"
grep -qx capped < <(for c in "${all[@]}"; do how_graded $c; done) && make_cap

# Each lab's class, all four at once, in the background: the cases that
# wait out a time limit hold a CPU no longer than the others need one.
class_pids=()
for lab in $LABS; do
	# those that wait out the safety stage's time limit first, so that the
	# others are graded beside them rather than after them
	for c in "${all[@]}"; do
		set -- $c
		[ "$1" = "$lab" ] && [ "$(how_graded "$1" "$2")" = class ] &&
			echo "$([ "$(attack_class "$1" "$2")" = dodge ] && echo 0 || echo 1) $RT/$1/$2"
	done | sort -s -k1,1n | cut -d" " -f2- >"$T_TMP/$lab.dirs"
	[ -s "$T_TMP/$lab.dirs" ] || continue
	# three at a time (REDTEAM_JOBS: a machine with CPUs to spare): a
	# grading that waits holds no CPU
	(cd "$T_TMP" && CLASS_DIRS=$lab.dirs grade_class "$lab" $(grade_args "$lab") -j "${REDTEAM_JOBS:-3}" \
		2>/dev/null; echo $? >"$lab-class.rc") &
	class_pids+=($!)
done

tally=$T_TMP/tally
: >"$tally"
# hold LAB CASE HOW: one test for the case, known breakage where it is open.
hold() {
	local lab=$1 name=$2 how=$3 why before_fail=$t_fail before_known=$t_known before_skip=$t_skip
	local cls outcome get
	cls=$(attack_class "$lab" "$name")
	why=$(open_reason "$lab" "$name")
	if [ "$how" = class ]; then
		get="class_result $lab $name r.json"
	else
		get="graded_alone $lab $name r.json"
	fi
	local body="EXPECT_EMULATED=$(expect_mode "$lab"); $get && check_expect r.json \"$RT/$lab/$name/expect\""
	if [ -n "$why" ]; then
		test_expect_known_breakage "$lab/$name ($cls) gets the honest verdict" "$why" "$body"
	else
		test_expect_success "$lab/$name ($cls) gets the honest verdict" "$body"
	fi
	if [ $t_skip -gt $before_skip ]; then outcome=skipped
	elif [ $t_known -gt $before_known ]; then outcome=open
	elif [ $t_fail -gt $before_fail ]; then outcome=failed
	else outcome=honest
	fi
	echo "${cls:-?} $outcome" >>"$tally"
}

# the cases graded alone first, while the classes run
for c in "${all[@]}"; do
	set -- $c
	how=$(how_graded "$1" "$2")
	[ "$how" = class ] || hold "$1" "$2" "$how"
done
[ ${#class_pids[@]} -eq 0 ] || wait "${class_pids[@]}"
for lab in $LABS; do
	[ -s "$T_TMP/$lab.dirs" ] || continue
	want=0
	[ "$(expect_mode "$lab")" != 1 ] || want=4
	test_expect_success "the $lab cases are graded as a class, each stored" '
		rc=$(cat "'"$lab"'-class.rc")
		cat "'"$lab"'-class.out"
		[ "$rc" = '"$want"' ] || { say "exit code $rc, expected '"$want"'"; false; } &&
		grep -q "^$(wc -l <"'"$lab"'.dirs") graded;" "'"$lab"'-class.out"
	'
	for c in "${all[@]}"; do
		set -- $c
		[ "$1" = "$lab" ] && [ "$(how_graded "$1" "$2")" = class ] && hold "$1" "$2" class
	done
done

test_expect_success 'every case has its ATTACK note, naming its attack class first' '
	for d in "$RT"/*/*/; do
		[ -n "$(attack_class "$(basename "${d%/*/}")" "$(basename "$d")")" ] ||
			{ say "$d: no ATTACK note whose first line is \"class: NAME\""; exit 1; }
	done
'

# the counts, per attack class
say "# red-team corpus ($as, $([ "$mode" = gpu ] && echo gpu || echo emulated)): $(wc -l <"$tally") cases," \
	"$(grep -c ' honest$' "$tally") honest verdicts, $(grep -c ' open$' "$tally") known breakages," \
	"$(grep -c ' failed$' "$tally") failed, $(grep -c ' skipped$' "$tally") skipped"
awk '{ n[$1]++; s[$1, $2]++ } END {
	for (c in n)
		printf "#   %-10s %2d cases: %2d honest, %2d open%s%s\n", c, n[c], s[c, "honest"], s[c, "open"],
			s[c, "failed"] ? sprintf(", %d failed", s[c, "failed"]) : "",
			s[c, "skipped"] ? sprintf(", %d skipped", s[c, "skipped"]) : ""
}' "$tally" | sort
test_done
