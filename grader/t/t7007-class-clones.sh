#!/bin/bash
# A class of clones of the student repository `make handout` makes: each
# student's work is in <clone>/<lab>/, and the student is the clone's folder,
# whether the class folder or each clone's lab folder is given. Emulated on
# the CPU (make check).
. "$(dirname "$0")/lib.sh"
cpu_only
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"

# clone NAME SOURCE: clones/NAME shaped as a handout clone (ci/handout.sh),
# its matmul/matmul.cu from SOURCE
clone() {
	local c=clones/$1
	mkdir -p "$c/.git" "$c/grader" "$c/labs/matmul" "$c/matmul" "$c/grid" "$c/prebuilt" &&
	touch "$c/Makefile" "$c/README.md" &&
	cp "$T_ROOT/student_template/grid/"* "$c/grid/" &&
	cp "$T_ROOT/labs/matmul/lab.conf" "$c/labs/matmul/" &&
	cp "$2/matmul.cu" "$c/matmul/"
}
row() { grep "^$1 " out; }
students() {
	sqlite3 "$CUDALAB_DB" "SELECT group_concat(name) FROM (SELECT name FROM students ORDER BY name)"
}

test_expect_success 'a folder of handout clones is graded as a class, each under its name; __MACOSX/ is none' '
	clone ada "$T_ROOT/reference/matmul" &&
	clone bob "$T_ROOT/student_template/matmul" &&
	clone cy "$T_ROOT/reference/matmul/fixtures/no-compile" &&
	# the class unzipped from a zip made on a Mac: its __MACOSX/ is no student
	mkdir -p clones/__MACOSX/ada && printf "\0\5" >clones/__MACOSX/ada/._matmul.cu &&
	"$CUDALAB" grade matmul clones/ -j 2 >out 2>err; rc=$?
	cat out err && [ $rc = 4 ] &&
	row ada | grep -q " 50 / 50 .*incomplete *ok *emulated" &&
	row bob | grep -q " 0 / 50.* incomplete *ok *emulated" &&
	row cy | grep -q " 0 / 50.* not-built *compile-error" &&
	grep -q "^3 graded; 1 did not build" out &&
	[ "$(students)" = ada,bob,cy ] &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs")" = 3 ] &&
	! grep -q "missing file" out err
'
test_expect_success 'each clone is graded from its lab folder' '
	for s in ada bob cy; do
		run=$(sqlite3 "$CUDALAB_DB" "SELECT r.id FROM runs r JOIN submissions b ON b.id = r.submission_id JOIN students s ON s.id = b.student_id WHERE s.name = '"'"'$s'"'"'") &&
		"$CUDALAB" db show --run "$run" | jq -r .submission >sub &&
		[ "$(cat sub)" = "$PWD/clones/$s/matmul" ] || { say "$s: $(cat sub)"; exit 1; }
	done
'
test_expect_success 'clones/*/matmul names the same students, not one named matmul' '
	"$CUDALAB" grade matmul clones/*/matmul --resume >out 2>err &&
	cat out &&
	row ada | grep -q skipped && row bob | grep -q skipped && row cy | grep -q skipped &&
	! grep -q "two submissions" err && [ "$(students)" = ada,bob,cy ] &&
	# one clone, or one clone lab folder, is its student too
	"$CUDALAB" grade matmul clones/bob --resume >out 2>err && row bob | grep -q skipped &&
	"$CUDALAB" grade matmul clones/bob/matmul --resume >out 2>err && row bob | grep -q skipped &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs")" = 3 ]
'
test_done
