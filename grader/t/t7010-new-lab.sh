#!/bin/bash
# cudalab new-lab writes a lab that builds and passes cudalab check-lab as
# it is, in a copy of the project that has only the grader and the labs'
# common code (so that make builds the grader and that lab, not every lab):
# emulated under make check, on the GPU and emulated, compared, under make
# check-gpu. A bad name, a lab that exists and a skeleton it cannot read are
# refused, and leave nothing behind.
# long-running: builds the grader and a lab from nothing
# beside-others: its GPU work is cudalab gradings, under their GPU locks
. "$(dirname "$0")/lib.sh"

gpu_or_emulated

# a copy of the project without its labs: the grader, its gradebook schema,
# the labs' common code and what make reads
P=$T_TMP/project
mkdir -p "$P/labs" &&
	cp -r "$T_ROOT/Makefile" "$T_ROOT/ci" "$T_ROOT/db" "$T_ROOT/grader" "$P/" &&
	cp -r "$T_ROOT/labs/common" "$P/labs/" || skip_all "cannot copy the project"
NEW=$P/build/bin/cudalab

test_expect_success 'the copy builds the grader' '
	make -C "$P" -s -j"$(nproc)" build/bin/cudalab build/toolchain.conf >make.out 2>&1 ||
		{ tail -n 20 make.out; false; }
'
test_expect_success 'a name that cannot name a lab is refused, and nothing is written' '
	for bad in Vscale 1lab "a-b" common "" "$(printf "%040d" 0)"; do
		test_must_fail_with 2 "$NEW" new-lab "$bad" &&
		grep -q "cannot name a lab" err || { echo "name: $bad"; cat err; return 1; }
	done &&
	[ ! -e "$P/reference" ] && [ ! -e "$P/student_template" ] &&
	[ "$(ls "$P/labs")" = common ]
'
test_expect_success 'new-lab writes the lab, each file listed, nothing marked unfilled' '
	"$NEW" new-lab vscale >out 2>err &&
	grep -q "^  labs/vscale/lab.conf$" out &&
	grep -q "^  labs/vscale/tests/check_vscale.cu$" out &&
	grep -q "^  reference/vscale/fixtures/one-block/expect$" out &&
	grep -q "^  student_template/vscale/vscale.cu$" out &&
	[ "$(grep -c "^  " out)" = "$(find "$T_ROOT/labs/common/new-lab" -name "*.in" | wc -l)" ] &&
	[ -d "$P/reference/vscale/corpus" ] &&
	grep -q "^void vscale_scale(" "$P/labs/vscale/vscale.h" &&
	grep -q "^#define VSCALE_BLOCK 256" "$P/labs/vscale/vscale.h" &&
	! grep -rn "@[A-Za-z]*@" "$P/labs/vscale" "$P/reference/vscale" "$P/student_template/vscale" ||
		{ cat out err; false; }
'
test_expect_success 'a lab that exists is refused, and left as it was' '
	sum=$(cat "$P"/labs/vscale/*.h "$P"/reference/vscale/*.cu | cksum) &&
	test_must_fail_with 2 "$NEW" new-lab vscale &&
	grep -q "^error: labs/vscale exists already" err &&
	[ "$(cat "$P"/labs/vscale/*.h "$P"/reference/vscale/*.cu | cksum)" = "$sum" ]
'
test_expect_success 'make builds the new lab with the grader' '
	make -C "$P" -s -j"$(nproc)" all >make.out 2>&1 &&
	[ -x "$P/build/labs/vscale/judge" ] && [ -x "$P/build/labs/vscale/timer" ] ||
		{ tail -n 30 make.out; false; }
'
if [ "$mode" = gpu ]; then
	test_expect_success 'check-lab holds the new lab on the GPU and emulated, the two agreeing' '
		"$NEW" check-lab vscale >out 2>err &&
		grep -qx "vscale: 8 as expected, 0 differ, 0 skipped, 0 not graded, 0 without a verdict, 0 known differences" out &&
		grep -q "^vscale: the GPU and the emulator agree on 4 of 4 cases" out ||
			{ cat out; tail -n 20 err; false; }
	'
else
	test_expect_success 'check-lab holds the new lab emulated: its reference, stub and two fixtures' '
		"$NEW" check-lab vscale --emulate >out 2>err &&
		grep -qx "vscale: 4 as expected, 0 differ, 0 skipped, 0 not graded, 0 without a verdict, 0 known differences" out ||
			{ cat out; tail -n 20 err; false; }
	'
fi
test_expect_success 'a skeleton it cannot read: nothing of the lab is left' '
	ln -sf nowhere "$P/labs/common/new-lab/reference/LAB/fixtures/one-block/expect.in" &&
	test_must_fail_with 128 "$NEW" new-lab other &&
	grep -q "^error: the lab other was not made; nothing of it is left" err &&
	[ ! -e "$P/labs/other" ] && [ ! -e "$P/reference/other" ] && [ ! -e "$P/student_template/other" ]
'
test_done
