#!/bin/bash
# A gradebook on a network filesystem, where SQLite's WAL does not work: a
# FUSE mount (bindfs over a folder) stands for NFS, GPFS, Lustre and the
# rest, which cudalab tells apart by statfs(2) the same way. There the
# gradebook is opened in rollback mode with a warning, a class (several
# writers at once) is refused before anything is graded, and a single
# grading still stores its run.
# beside-others: it times nothing, and grades only through cudalab
. "$(dirname "$0")/lib.sh"

command -v bindfs >/dev/null ||
	skip_all "bindfs is not installed (ci/debian-packages.txt lists it, with fuse3)"
[ -c /dev/fuse ] || skip_all "no /dev/fuse here: a FUSE filesystem cannot be mounted"
unmount() {
	fusermount3 -u "$1" 2>/dev/null || fusermount -u "$1" 2>/dev/null || umount "$1" 2>/dev/null
}
mkdir "$T_TMP/disk" "$T_TMP/net"
# unmounted before the folders go: removing them through the mount is not wanted
trap 'unmount "$T_TMP/net"; rm -rf "$T_TMP"' EXIT
bindfs "$T_TMP/disk" "$T_TMP/net" 2>"$T_TMP/mount.err" ||
	skip_all "bindfs cannot mount here: $(tail -n 1 "$T_TMP/mount.err")"
[ "$(stat -f -c %t "$T_TMP/net")" = 65735546 ] ||
	skip_all "the bindfs mount is not FUSE here (statfs type $(stat -f -c %t "$T_TMP/net"))"

# warned FILE: the network filesystem warning, said once, in words a TA reads
warned() {
	[ "$(grep -c "^warning:" "$1")" = 1 ] &&
	grep -q "^warning: the gradebook '.*' is on a network filesystem (FUSE), where SQLite's WAL mode does not work: it is opened in rollback mode instead" "$1" &&
	grep -q "only one cudalab may write it at a time" "$1" ||
		{ say "no warning, or not once:"; cat "$1"; return 1; }
}

test_expect_success 'a gradebook made on a network filesystem is in rollback mode, with a warning' '
	"$CUDALAB" db init --db net/g.db >out 2>err && grep -q "schema version 8" out &&
	warned err &&
	[ "$(sqlite3 net/g.db "PRAGMA journal_mode")" = delete ] &&
	[ -f disk/g.db ] && [ ! -e disk/g.db-wal ]
'
test_expect_success 'on a local disk it is in WAL mode, with no warning' '
	"$CUDALAB" db init --db local.db >out 2>err && [ ! -s err ] &&
	[ "$(sqlite3 local.db "PRAGMA journal_mode")" = wal ]
'
test_expect_success 'a WAL gradebook moved onto a network filesystem is turned back to rollback mode' '
	cp local.db net/moved.db && [ "$(sqlite3 net/moved.db "PRAGMA journal_mode")" = wal ] &&
	"$CUDALAB" db show --db net/moved.db >out 2>err && warned err &&
	[ "$(sqlite3 net/moved.db "PRAGMA journal_mode")" = delete ]
'
# refused CMD...: CMD exits 2 at once, naming the gradebook and its filesystem,
# with nothing graded: no report, no progress of a grading
refused() {
	test_must_fail_with 2 "$@" &&
	grep -q "^error: the gradebook .net/.*. is on a network filesystem (FUSE), where SQLite cannot take the writes of a class.s gradings at once: nothing was graded" err &&
	grep -q "on a local disk (--db /var/tmp/NAME.db" err &&
	[ ! -s out ] && ! grep -q "^grading\|recorded as run\|^warning" err ||
		{ say "out:"; cat out; say "err:"; cat err; return 1; }
}
test_expect_success 'a class into a gradebook on a network filesystem is refused before anything is graded' '
	mkdir -p class/ada class/bob &&
	cp "$T_ROOT"/reference/grid/grid.cu "$T_ROOT"/reference/grid/answers.txt class/ada &&
	cp "$T_ROOT"/reference/grid/grid.cu "$T_ROOT"/reference/grid/answers.txt class/bob &&
	refused "$CUDALAB" grade grid class --db net/class.db -j 2 --emulate &&
	[ ! -e disk/class.db ] &&
	refused "$CUDALAB" grade grid class/ada --resume --db net/class.db --emulate &&
	refused "$CUDALAB" regrade grid --db net/g.db
'
test_expect_success 'a single grading into it still stores its run, in rollback mode' '
	"$CUDALAB" grade grid class/ada --student ada --db net/g.db --emulate -q >out 2>err
	rc=$?
	[ $rc = 4 ] || { say "exit code $rc, expected 4 (emulated)"; cat err; false; } &&
	warned err &&
	[ "$(sqlite3 net/g.db "SELECT count(*) FROM runs")" = 1 ] &&
	[ "$(sqlite3 net/g.db "SELECT st.name || '"' '"' || r.status FROM runs r JOIN submissions s ON s.id = r.submission_id JOIN students st ON st.id = s.student_id")" = "ada incomplete" ] &&
	[ "$(sqlite3 net/g.db "PRAGMA journal_mode")" = delete ] && [ ! -e disk/g.db-wal ] &&
	"$CUDALAB" db show --db net/g.db --run 1 2>/dev/null >doc.json && validate_doc doc.json &&
	[ "$(sqlite3 net/g.db "PRAGMA integrity_check")" = ok ]
'
test_done
