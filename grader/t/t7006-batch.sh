#!/bin/bash
# Grading a class: a folder of submissions graded in parallel into the
# gradebook, with a summary; --resume skips what is already there; a
# submission that hangs stalls nobody; a killed batch loses no stored run;
# a failure of the grader itself is retried and never stored as a grade.
# Emulated on the CPU (make check); t3006 does it on a GPU.
# long-running: a class waits out a submission that hangs
. "$(dirname "$0")/lib.sh"
cpu_only
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"

ref=$T_ROOT/reference/grid
# class NAME=SOURCE...: a class folder, one student folder per NAME, with the
# files of SOURCE (the reference, or a fixture)
class() {
	rm -rf class && mkdir class || return 1
	local s
	for s in "$@"; do
		mkdir "class/${s%%=*}" && cp "$ref/answers.txt" "class/${s%%=*}/" &&
			cp -P "${s#*=}"/grid.cu "class/${s%%=*}/" || return 1
	done
}
# alive_in_group PGID: whether a process of the group still runs (zombies aside)
alive_in_group() {
	local want=$1 f st
	for f in /proc/[0-9]*/stat; do
		st=$(cat "$f" 2>/dev/null) || continue
		st=${st##*) }   # "STATE PPID PGRP ..." after the command's name
		set -- $st
		[ "$1" != Z ] && [ "$3" = "$want" ] && return 0
	done
	return 1
}
runs() { sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs"; }
row() { grep "^$1 " out; }

test_expect_success 'a class folder: every student graded, stored, and summed up' '
	rm -f "$CUDALAB_DB" &&
	class ada="$ref" bob="$ref/fixtures/no-bounds" cy="$ref" \
		dee="$ref/fixtures/includes-reference" &&
	test_must_fail_with 4 "$CUDALAB" grade grid class -j 2 &&
	cat out err &&
	row ada | grep -q "43 / 43 *incomplete *ok *emulated" &&
	row bob | grep -q "/ 43 *incomplete *ok" && ! row bob | grep -q "43 / 43" &&
	row cy | grep -q "43 / 43" &&
	row dee | grep -q "0 / 43 *not-built *refused" &&
	grep -q "^4 graded; 1 did not build; 3 provisional, not grades" out &&
	# no GPU here: the class says it runs emulated, never "on GPU 0"
	grep -q "^grading 4 submissions of grid, 2 at once, emulated on the CPU: no GPU found; every run provisional, not a grade" err &&
	grep -q "(2 at once, emulated on the CPU: no GPU found)" out && ! grep -q "on GPU\|, GPU 0" out err &&
	grep -q "graded per minute" out &&
	grep -Eq "^time of all gradings: build [0-9.]+ s, tests [0-9.]+ s \(the safety stage.s checks [0-9.]+ s of it, after the tests emulated\), timing" out &&
	grep -q "^in the tests: setting up data and expected values [0-9.]* s; over the [0-9]* tests that passed" out &&
	[ "$(runs)" = 4 ] &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT group_concat(name) FROM (SELECT name FROM students ORDER BY name)")" = ada,bob,cy,dee ] &&
	[ "$(grep -c "^\[[0-9]/4\] " err)" = 4 ]
'
test_expect_success '--resume skips what the gradebook holds (refused or not), and grades what changed' '
	"$CUDALAB" grade grid class --resume >out 2>err &&
	row ada | grep -q "skipped *- *- *- *already in the gradebook" &&
	row dee | grep -q "skipped *- *- *- *already in the gradebook" &&
	[ "$(runs)" = 4 ] &&
	echo "// a change" >>class/cy/grid.cu &&
	test_must_fail_with 4 "$CUDALAB" grade grid class --resume &&
	row cy | grep -q "43 / 43" && row bob | grep -q skipped && row dee | grep -q skipped &&
	[ "$(runs)" = 5 ] &&
	cp "$ref/grid.cu" class/dee/ &&
	test_must_fail_with 4 "$CUDALAB" grade grid class --resume &&
	row dee | grep -q "43 / 43" && [ "$(runs)" = 6 ]
'
test_expect_success 'several folders, and folders that are submissions themselves' '
	class eve="$ref" fay="$ref" &&
	mkdir -p more/gus && cp "$ref/grid.cu" "$ref/answers.txt" more/gus/ &&
	test_must_fail_with 4 "$CUDALAB" grade grid class more/gus -j 3 &&
	row eve | grep -q "43 / 43" && row fay | grep -q "43 / 43" && row gus | grep -q "43 / 43" &&
	validate_doc --db "$CUDALAB_DB"
'
test_expect_success 'a student folder that is a symbolic link is not graded, and said so' '
	mkdir -p linked/hal linked/jon elsewhere/ivy &&
	cp "$ref/grid.cu" "$ref/answers.txt" linked/hal/ && cp "$ref/grid.cu" "$ref/answers.txt" linked/jon/ &&
	cp "$ref/grid.cu" "$ref/answers.txt" elsewhere/ivy/ && ln -s "$PWD/elsewhere/ivy" linked/ivy &&
	test_must_fail_with 4 "$CUDALAB" grade grid linked &&
	row hal | grep -q "43 / 43" && ! row ivy &&
	grep -q "^warning: .ivy. in .*/linked. is not graded: it is a symbolic link" err
'
test_expect_success 'a student named twice, and one-submission options, are refused' '
	mkdir -p twice/eve && cp "$ref/grid.cu" "$ref/answers.txt" twice/eve/ &&
	test_must_fail_with 2 "$CUDALAB" grade grid class twice &&
	grep -q "two submissions of student .eve." err &&
	test_must_fail_with 2 "$CUDALAB" grade grid class --student x &&
	test_must_fail_with 2 "$CUDALAB" grade grid class -j 0
'
test_expect_success 'a submission that hangs holds up only itself' '
	# a class starts its folders in name order: the hang first, the rest beside it
	class hang="$ref/fixtures/host-loop" x1="$ref" x2="$ref" x3="$ref" &&
	rm -f "$CUDALAB_DB" &&
	test_must_fail_with 4 "$CUDALAB" grade grid class -j 2 &&
	row hang | grep -q "/ 43 *incomplete" &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT s.name FROM runs r JOIN submissions u ON u.id = r.submission_id JOIN students s ON s.id = u.student_id ORDER BY r.id DESC LIMIT 1")" = hang ] &&
	[ "$(runs)" = 4 ] && validate_doc --db "$CUDALAB_DB"
'
test_expect_success 'a batch killed midway keeps every run it stored; --resume grades the rest' '
	{ class k1="$ref" k2="$ref" k3="$ref" k4="$ref" k5="$ref" && rm -f "$CUDALAB_DB"; } ||
		exit 1
	# a TMPDIR of its own: a grading killed so cannot remove its work folder
	killed=$(own_tmpdir killed) || exit 1
	TMPDIR=$killed setsid sh -c '"'"'echo $$ >batch.pid; exec "$0" grade grid class -j 1'"'"' "$CUDALAB" \
		>out 2>err &
	for _ in $(seq 300); do
		[ "$(runs 2>/dev/null)" -ge 2 ] 2>/dev/null && break; sleep 0.1
	done &&
	pgid=$(cat batch.pid) && kill -9 -- -"$pgid" && wait
	# until the last worker is gone: one may finish storing its run as it dies
	for _ in $(seq 200); do alive_in_group "$pgid" || break; sleep 0.05; done
	rm -rf "$killed"
	stored=$(runs) &&
	say "killed with $stored runs stored" &&
	[ "$stored" -ge 2 ] && [ "$stored" -lt 5 ] &&
	[ "$(sqlite3 "$CUDALAB_DB" "PRAGMA integrity_check")" = ok ] &&
	test_must_fail_with 4 "$CUDALAB" grade grid class --resume &&
	[ "$(grep -c " skipped .* already in the gradebook$" out)" = "$stored" ] &&
	[ "$(runs)" = 5 ] &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(DISTINCT submission_id) FROM runs")" = 5 ] &&
	validate_doc --db "$CUDALAB_DB"
'
test_expect_success 'Ctrl-C stops a class: its workers end, nothing unfinished is stored, a line says how to go on' '
	# more students than can be graded before the signal comes, even on a fast machine
	{ class i1="$ref" i2="$ref" i3="$ref" i4="$ref" i5="$ref" i6="$ref" i7="$ref" i8="$ref" &&
	  rm -f "$CUDALAB_DB"; } || exit 1
	# a TMPDIR of its own, to see it left clean
	own=$(own_tmpdir own) || exit 1
	TMPDIR=$own setsid sh -c '"'"'echo $$ >batch.pid; exec "$0" grade grid class -j 2'"'"' "$CUDALAB" \
		>out 2>err &
	for _ in $(seq 300); do
		[ "$(runs 2>/dev/null)" -ge 1 ] 2>/dev/null && break; sleep 0.1
	done &&
	pgid=$(cat batch.pid) && kill -INT "$pgid"; wait $!; code=$?
	for _ in $(seq 100); do alive_in_group "$pgid" || break; sleep 0.05; done
	{ ! alive_in_group "$pgid" && [ "$code" = 130 ] &&
	  grep -q "^stopped by signal 2 (Interrupt): [0-9]* graded and stored, [0-9]* not; run the same command with --resume to grade the rest" err &&
	  ! grep -q "tried again later" err &&
	  [ "$(runs)" = "$(sed -n "s/^stopped by signal 2 (Interrupt): \([0-9]*\) graded.*/\1/p" err)" ]; } ||
		{ echo "exit $code, $(runs) runs"; cat err; exit 1; }
	left=$(ls "$own" | grep cudalab-); rm -rf "$own"; [ -z "$left" ] &&
	test_must_fail_with 4 "$CUDALAB" grade grid class --resume && [ "$(runs)" = 8 ]
'
test_expect_success 'one class of a lab per gradebook at a time: a second is refused, naming the first' '
	{ class k1="$ref" k2="$ref" && rm -f "$CUDALAB_DB" && "$CUDALAB" db init >/dev/null; } || exit 1
	"$CUDALAB" grade grid class -j 1 >out 2>err & first=$!
	until [ "$(cat "$CUDALAB_DB-class-grid.lock" 2>/dev/null)" = "$first" ]; do
		kill -0 "$first" 2>/dev/null || break; sleep 0.1
	done &&
	{ "$CUDALAB" grade grid class --resume >out2 2>err2; rc=$?; }
	wait "$first"; frc=$?
	[ $rc = 2 ] && [ $frc = 4 ] &&
	grep -q "^error: another class of grid is being graded into the gradebook .* (by process $first): one class of a lab per gradebook at a time" err2 &&
	[ "$(runs)" = 2 ] &&
	# once it ended, the lock is free again
	"$CUDALAB" grade grid class --resume >out 2>err2 && row k1 | grep -q skipped ||
		{ cat err2; false; }
'
test_expect_success 'a class whose grader is killed: its workers end with it, storing nothing more' '
	{ class j1="$ref" j2="$ref" j3="$ref" j4="$ref" && rm -f "$CUDALAB_DB"; } || exit 1
	"$CUDALAB" grade grid class -j 2 >out 2>err & parent=$!
	for _ in $(seq 300); do
		[ "$(runs 2>/dev/null)" -ge 1 ] 2>/dev/null && break; sleep 0.1
	done &&
	kill -9 "$parent"; wait "$parent"
	# the workers are told (their parent died) and end, however busy the
	# machine: waited for, not guessed
	for _ in $(seq 1200); do
		pgrep -f "grade grid class -j 2" >/dev/null || break; sleep 0.1
	done
	! pgrep -f "grade grid class -j 2" >/dev/null &&
	# those that were grading stored nothing: j4 was never started, and of
	# j2 and j3 only one caught committing as the class died could be stored
	stored=$(runs) && [ "$stored" -le 3 ] && sleep 1 && [ "$(runs)" = "$stored" ]
'
test_expect_success 'a failure of the grader is tried again, reported, and never stored' '
	class s1="$ref" s2="$ref" &&
	rm -f "$CUDALAB_DB" && "$CUDALAB" db init >/dev/null &&
	(export TMPDIR=$PWD/no-such-folder && test_must_fail_with 128 "$CUDALAB" grade grid class) &&
	row s1 | grep -q "SYSTEM .*grading failed: a fault of the grader" &&
	grep -q "2 NOT graded (system errors: not charged to the students" out &&
	grep -q "SYSTEM ERROR (tried again later)" err &&
	[ "$(runs)" = 0 ]
'
test_expect_success 'a GPU that stops answering mid-grading: a failure of the system, not stored' '
	# a probe that finds a GPU once, and none from then on: the GPU lost
	# between the build and the end of the tests
	course_copy grid "" && lost=$(cat cudalab) &&
	printf "%s\n" "#!/bin/sh" "n=\$(cat \"\$0.n\" 2>/dev/null || echo 0)" \
		"echo \$((n + 1)) >\"\$0.n\"" \
		"[ \$n = 0 ] && printf \"available=1\\nname=Lost GPU\\ncc=90\\n\" && exit 0" \
		"printf \"available=0\\nreason=cudaErrorNoDevice: no CUDA-capable device is detected\\n\"" \
		>probe.sh && chmod +x probe.sh && ./probe.sh >first && ./probe.sh >second && rm probe.sh.n &&
	grep -q "available=1" first && grep -q "available=0" second &&
	sed -i "s|^probe = .*|probe = $PWD/probe.sh|" course/build/toolchain.conf &&
	class s1="$ref" &&
	rm -f "$CUDALAB_DB" && "$CUDALAB" db init >/dev/null &&
	test_must_fail_with 128 "$lost" grade grid class/s1 &&
	grep -q "the GPU (Lost GPU) stopped answering during the grading: cudaErrorNoDevice" err &&
	# in a class on a machine with GPUs, one found missing is not emulated
	rm probe.sh.n && test_must_fail_with 128 "$lost" grade grid class --gpus 0 &&
	cat out &&
	row s1 | grep -q "SYSTEM .*no GPU answered (cudaErrorNoDevice: no CUDA-capable device is detected) on a machine that has one" &&
	[ "$(runs)" = 0 ]
'
test_done
