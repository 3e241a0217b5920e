#!/bin/bash
# A failure of the machine is the grader's (exit 128, nothing stored, a
# class tries the submission again), never the student's: a full TMPDIR
# (it once stored the reference as compile-error 0/50), a full gradebook
# disk, nvcc killed by a signal the grader did not send or one of its tools
# crashing. nvcc stopped by the grader's own build time limit stays the
# student's verdict. The full disks are small tmpfs mounts this test makes
# (as root); where it cannot mount one, those tests skip, saying why.
. "$(dirname "$0")/lib.sh"
cpu_only
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"

ref=$T_ROOT/reference/matmul
# a root grader runs nvcc and the tests as an unprivileged user, even
# unsandboxed: the stand-in nvcc and the small TMPDIR disks below are in
# this test's folder, which that user must be able to enter
chmod 755 "$T_TMP"
# the mounts made (each test runs in a subshell: a file, not a variable, keeps them)
mounts=$T_TMP/.mounts
cleanup() {
	local m
	[ -f "$mounts" ] && while read -r m; do umount "$m" 2>/dev/null; done <"$mounts"
	rm -rf "$T_TMP"
}
trap cleanup EXIT

# why no small disk can be made here to fill (empty: one can)
mkdir "$T_TMP/probe"
if mount -t tmpfs -o size=64k tmpfs "$T_TMP/probe" 2>"$T_TMP/mount.err"; then
	umount "$T_TMP/probe"
	no_disk=
else
	no_disk="cannot mount a small tmpfs to fill here (as $(id -un): $(tail -n 1 "$T_TMP/mount.err"))"
fi

# small_disk DIR KIB: a tmpfs of KIB KiB at DIR, or exit 77 saying why not
small_disk() {
	[ -z "$no_disk" ] || { say "$no_disk"; exit 77; }
	mkdir -p "$1" && mount -t tmpfs -o size="$2k" tmpfs "$1" && echo "$1" >>"$mounts"
}
# disk DIR: DIR is a small disk made by an earlier test, or exit 77 saying why not
disk() {
	[ -z "$no_disk" ] || { say "$no_disk"; exit 77; }
	mountpoint -q "$1" || { say "'$1' was not made"; false; }
}

# fill DIR KIB: fills the filesystem of DIR but KIB KiB
fill() {
	local avail
	avail=$(df -k --output=avail "$1" | tail -n 1)
	[ "$avail" -gt "$2" ] || return 0
	dd if=/dev/zero of="$1/filler" bs=1k count=$((avail - $2)) 2>/dev/null
	true
}

runs_in() { sqlite3 "$1" "SELECT count(*) FROM runs"; }

test_expect_success 'a full TMPDIR: nvcc cannot write, and that is the machine'"'"'s failure' '
	small_disk "$PWD/tmpdir" 16384 && fill tmpdir 256 &&
	{ TMPDIR=$PWD/tmpdir "$CUDALAB" grade matmul "$ref" --student ada --db t.db --json t.json \
		>out 2>err; rc=$?; } &&
	[ $rc = 128 ] && [ "$(runs_in t.db)" = 0 ] && ! [ -e t.json ] &&
	# the compile, or the question of where nvcc finds headers beside it,
	# whichever the full disk stops first
	grep -q "^error: .*nvcc.* failed for the machine, not the submission: no room left to write on the filesystem of .*tmpdir" err &&
	! grep -q "compile-error" out err || { cat out err; false; }
'
test_expect_success 'a full TMPDIR in a class: tried again, then not graded, nothing stored' '
	disk tmpdir &&
	mkdir -p class/ada class/bob && cp "$ref/matmul.cu" class/ada/ && cp "$ref/matmul.cu" class/bob/ &&
	{ TMPDIR=$PWD/tmpdir "$CUDALAB" grade matmul class -j 1 --db c.db >table 2>progress; rc=$?; } &&
	[ $rc = 128 ] && [ "$(runs_in c.db)" = 0 ] &&
	[ "$(grep -c "SYSTEM ERROR (tried again later): grading failed: a fault of the grader" progress)" = 2 ] &&
	grep -q "^0 graded, 2 NOT graded" table && grep -q "^ada .*SYSTEM" table || { cat table progress; false; }
'
test_expect_success '... and graded once the disk has room again (--resume)' '
	disk tmpdir && rm -f tmpdir/filler &&
	{ TMPDIR=$PWD/tmpdir "$CUDALAB" grade matmul class -j 1 --db c.db --resume >table 2>progress; rc=$?; } &&
	[ $rc = 4 ] && [ "$(runs_in c.db)" = 2 ] || { cat table progress; false; }
'
test_expect_success 'a full gradebook disk: exit 128 (not a usage error), nothing stored' '
	small_disk "$PWD/gb" 1024 && CUDALAB_DB=$PWD/gb/g.db "$CUDALAB" db init >/dev/null && fill gb 0 &&
	{ "$CUDALAB" grade matmul "$ref" --student ada --db gb/g.db >out 2>err; rc=$?; } &&
	[ $rc = 128 ] && grep -q "is its disk full" err &&
	rm gb/filler && [ "$(runs_in gb/g.db)" = 0 ] || { cat out err; false; }
'
test_expect_success 'a gradebook disk with no room for a run, in a class: the class stops at the first, in SQLite'"'"'s words' '
	disk gb && fill gb 48 &&
	{ "$CUDALAB" grade matmul class -j 1 --db gb/g.db >table 2>progress; rc=$?; } &&
	[ $rc = 128 ] &&
	[ "$(grep -c "SYSTEM ERROR: the run was not stored in the gradebook .gb/g.db.: database or disk is full" progress)" = 1 ] &&
	! grep -q "tried again later" progress &&
	grep -q "^error: the class stopped at ada: the run was not stored in the gradebook .gb/g.db.: .*disk is full.*\. 1 more submission was not graded: once the gradebook can store runs again" progress &&
	grep -q "^bob .*SYSTEM .*not graded: the class stopped when the gradebook did not store a run" table &&
	grep -q "^0 graded, 2 NOT graded" table &&
	rm gb/filler && [ "$(runs_in gb/g.db)" = 0 ] || { cat table progress; false; }
'

# a cudalab whose nvcc is a stand-in: as nvcc on --version and on the
# grader's question of where it finds headers (a preprocessing of
# /dev/null), else it does what the file nvcc.mode says (the real one where
# it says nothing). Its build time limit is long, so that the real nvcc is
# never stopped by it on a loaded machine; the test of the limit shortens it.
real_nvcc=$(sed -n "s/^nvcc = //p" "$BUILD/toolchain.conf")
fake_nvcc() {
	course_copy matmul "[lab]
build_timeout = 120" &&
	cat >"$PWD/nvcc" <<-EOF &&
	#!/bin/sh
	for a; do case "\$a" in --version | /dev/null) exec "$real_nvcc" "\$@" ;; esac; done
	case \$(cat "$PWD/nvcc.mode" 2>/dev/null) in
	segv) kill -SEGV \$\$ ;;
	kill) kill -KILL \$\$ ;;
	tool) "$real_nvcc" "\$@"; echo "nvcc error   : 'cicc' died due to signal 11 (Invalid memory reference)"; exit 255 ;;
	hang) sleep 60 ;;
	esac
	exec "$real_nvcc" "\$@"
	EOF
	chmod +x "$PWD/nvcc" &&
	sed -i "s|^nvcc = .*|nvcc = $PWD/nvcc|" course/build/toolchain.conf
}
# fake_grade MODE JSON: grades the reference with the stand-in nvcc in MODE
# (unsandboxed: the sandbox does not see the stand-in in this test's folder)
fake_grade() {
	echo "$1" >nvcc.mode
	CUDALAB_NO_SANDBOX=1 "$(cat cudalab)" grade matmul "$ref" --student ada --db f.db --json "$2" \
		>"$2.out" 2>"$2.err"
	echo $? >"$2.exit"
}

test_expect_success 'the stand-in nvcc builds the reference as nvcc does' '
	fake_nvcc && fake_grade none n.json &&
	[ "$(cat n.json.exit)" = 4 ] && [ "$(jq -r .build.status n.json)" = ok ] || { cat n.json.out n.json.err; false; }
'
for mode in segv kill tool; do
	test_expect_success "nvcc ended by a signal no limit of the grader's sent ($mode): exit 128, nothing stored" '
		before=$(runs_in f.db) &&
		fake_grade '$mode' m.json &&
		[ "$(cat m.json.exit)" = 128 ] && ! [ -e m.json ] && [ "$(runs_in f.db)" = "$before" ] &&
		grep -q "^error: nvcc on .matmul.cu. failed for the machine, not the submission: " m.json.err ||
			{ cat m.json.out m.json.err; false; }
	'
done
test_expect_success 'in a class, tried again, then not graded' '
	echo kill >nvcc.mode &&
	{ CUDALAB_NO_SANDBOX=1 "$(cat cudalab)" grade matmul class -j 1 --db k.db >table 2>progress; rc=$?; } &&
	[ $rc = 128 ] && [ "$(runs_in k.db)" = 0 ] &&
	[ "$(grep -c "SYSTEM ERROR (tried again later)" progress)" = 2 ] || { cat table progress; false; }
'
test_expect_success 'nvcc stopped at the build time limit is still the student'"'"'s compile error' '
	printf "[lab]\nbuild_timeout = 3\n" >>course/root/labs/matmul/lab.conf &&
	fake_grade hang h.json &&
	[ "$(cat h.json.exit)" = 3 ] && [ "$(jq -r .build.status h.json)" = compile-error ] &&
	jq -r .build.message h.json | grep -q "timed out after 3 s" || { cat h.json.out h.json.err; false; }
'
# A lab's own harness can fail too: a setup hook that asserts (setup-misuse,
# labs/common/t/setup_misuse.cu) ends the test binary before any test, with
# no submission code run. The harness says so; the grader stops, saying it is
# the lab's failure, and stores nothing.
test_expect_success 'a lab whose setup hook asserts: the harness says what and where' '
	mkdir logs && { echo seed=5 | "$BUILD/t/setup-misuse" --xml-dir logs >out 2>err; rc=$?; } &&
	[ $rc = 2 ] && grep -q "^harness: the setup hook of lab misuse ended the test binary" err &&
	grep -q "outside every test" logs/setup-ended || { echo "exit ${rc:-}"; cat err; false; }
'
test_expect_success '... and the grader stops: the lab failed, not the submission; nothing stored' '
	mkdir misuse && cd misuse && course_copy occupancy "" &&
	# the course build with the occupancy judge replaced by setup-misuse
	rm course/build/labs && mkdir course/build/labs &&
	for d in "$BUILD"/labs/*; do ln -s "$d" course/build/labs/; done &&
	rm course/build/labs/occupancy && mkdir course/build/labs/occupancy &&
	for f in "$BUILD"/labs/occupancy/*; do ln -s "$f" course/build/labs/occupancy/; done &&
	ln -sf "$BUILD/t/setup-misuse" course/build/labs/occupancy/judge &&
	{ "$(cat cudalab)" grade occupancy "$T_ROOT/reference/occupancy" --student ada \
		--db misuse.db >out 2>err; rc=$?; } &&
	[ $rc = 128 ] && grep -q "the lab.s test harness failed, not the submission: the setup hook of lab misuse" err &&
	[ "$(runs_in misuse.db)" = 0 ] || { echo "exit ${rc:-}"; cat out err; false; }
'
test_done
