#!/bin/bash
# The gradebook from the command line: init, runs appended on regrade, show.
# beside-others: it times nothing, and grades only through cudalab
. "$(dirname "$0")/lib.sh"

test_expect_success 'db init creates a gradebook at the latest schema version (8)' '
	"$CUDALAB" db init --db g.db >out && grep -q "schema version 8" out &&
	[ "$(sqlite3 g.db "PRAGMA journal_mode")" = wal ]
'
test_expect_success 'db show on an empty gradebook says so' '
	"$CUDALAB" db show --db g.db >out && grep -q "(no runs)" out
'
test_expect_success 'grading twice appends two runs and keeps both' '
	"$CUDALAB" grade matmul "$T_ROOT/reference/matmul/fixtures/no-compile" --student ada --db g.db -q >/dev/null
	"$CUDALAB" grade matmul "$T_ROOT/reference/matmul/fixtures/no-compile" --student ada --db g.db -q >/dev/null
	[ "$(sqlite3 g.db "SELECT count(*) FROM runs")" = 2 ] &&
	[ "$(sqlite3 g.db "SELECT count(*) FROM submissions")" = 1 ] &&
	[ "$(sqlite3 g.db "SELECT count(*) FROM test_results")" = 40 ]
'
test_expect_success 'db show lists the runs, filtered by student' '
	"$CUDALAB" db show --db g.db --student ada >out &&
	[ "$(grep -c " ada " out)" = 2 ] && grep -q "compile-error" out &&
	"$CUDALAB" db show --db g.db --student nobody | grep -q "(no runs)"
'
test_expect_success 'db show names, under each run, the folder and files it graded' '
	"$CUDALAB" db show --db g.db --student ada >out &&
	sum=$(sha256sum "$T_ROOT/reference/matmul/fixtures/no-compile/matmul.cu" | cut -c1-12) &&
	[ "$(grep -cF "reference/matmul/fixtures/no-compile: matmul.cu $sum" out)" = 2 ] || { cat out; false; }
'
# the run ids a listing shows, in its order: db show's first column, show's second
listed() { awk -v c="$1" '$c ~ /^[0-9]+$/ && NF > 5 { printf "%s ", $c }' "$2"; }
# started DB ID TIME: sets when a run began
started() { sqlite3 "$1" "UPDATE runs SET started_at = '$3' WHERE id = $2"; }
test_expect_success 'db show lists the newest first by when each run began, then by id' '
	# a class stores its runs as they end: the grading that began first may be stored last
	"$CUDALAB" grade matmul "$T_ROOT/reference/matmul/fixtures/no-compile" --student bob --db g.db -q >/dev/null
	cp g.db order.db &&
	started order.db 1 2026-11-22T10:00:02Z && started order.db 2 2026-11-22T10:00:01Z &&
	started order.db 3 2026-11-22T10:00:01Z &&
	"$CUDALAB" db show --db order.db >out && [ "$(listed 1 out)" = "1 3 2 " ] &&
	"$CUDALAB" db show --db order.db --limit 1 >out && [ "$(listed 1 out)" = "1 " ] &&
	"$CUDALAB" show ada --db order.db >out && [ "$(listed 2 out)" = "2 1 " ] &&
	grep -q "latest: matmul 0 / 50 (run 1," out
'
test_expect_success 'db show --run prints the stored result document' '
	"$CUDALAB" db show --db g.db --run 1 >doc.json &&
	[ "$(jq -r .schema doc.json)" = cudalab-result/1 ] &&
	[ "$(jq -r .student doc.json)" = ada ] &&
	[ "$(jq -r .build.status doc.json)" = compile-error ] &&
	validate_doc doc.json && validate_doc --db g.db
'
test_expect_success 'db show --run of a run that does not exist fails' '
	! "$CUDALAB" db show --db g.db --run 99 2>err && grep -q "no run 99" err
'
test_expect_success '$CUDALAB_DB is the default gradebook' '
	"$CUDALAB" db init >/dev/null && [ -f "$CUDALAB_DB" ]
'
# refused NAME CMD...: CMD exits 2 at once, naming the gradebook NAME, with
# nothing graded: no report, no progress of a grading
refused() {
	local name=$1
	shift
	test_must_fail_with 2 "$@" &&
	grep -q "$name" err && [ ! -s out ] && ! grep -q "^grading\|recorded as run" err ||
		{ say "out:"; cat out; say "err:"; cat err; return 1; }
}
test_expect_success 'a gradebook that is not one is refused before anything is graded' '
	ref=$T_ROOT/reference/matmul &&
	echo "student,score" >notes.csv && cp notes.csv notes.before &&
	refused "error: .notes.csv. is not a gradebook: it is not an SQLite database" \
		"$CUDALAB" grade matmul "$ref" --student ada --db notes.csv &&
	cmp notes.csv notes.before &&
	refused "error: .notes.csv. is not a gradebook" "$CUDALAB" test matmul --sub "$ref" --db notes.csv &&
	mkdir -p class/ada class/bob && cp "$ref/matmul.cu" class/ada && cp "$ref/matmul.cu" class/bob &&
	refused "error: .notes.csv. is not a gradebook" "$CUDALAB" grade matmul class --db notes.csv &&
	refused "error: .notes.csv. is not a gradebook" "$CUDALAB" regrade matmul --db notes.csv &&
	sqlite3 other.db "CREATE TABLE grades(student, score)" &&
	refused "error: .other.db. is not a gradebook: an SQLite database of something else" \
		"$CUDALAB" grade matmul class --db other.db &&
	[ "$(sqlite3 other.db "SELECT group_concat(name) FROM sqlite_master")" = grades ] &&
	refused "error: gradebook .class. is a folder" "$CUDALAB" grade matmul class --db class &&
	refused "error: cannot open gradebook .no/such/folder/g.db." \
		"$CUDALAB" grade matmul class --db no/such/folder/g.db
'
test_expect_success 'a gradebook that cannot be written is refused before anything is graded' '
	# as a user who may not write it (root may write anything)
	as_user=
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null || { echo "root, and no setpriv to be another user"; exit 77; }
		as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
		chmod 755 "$T_TMP"
	fi
	# a file it may not write, in a folder it may, and a folder it may not write
	mkdir -m 777 rw && cp g.db rw/ro.db && chmod 444 rw/ro.db &&
	refused "error: gradebook .rw/ro.db. is read-only here (the file, or the folder it is in)" \
		$as_user "$CUDALAB" grade matmul class --db rw/ro.db &&
	refused "error: gradebook .rw/ro.db. is read-only here" \
		$as_user "$CUDALAB" grade matmul class/ada --db rw/ro.db &&
	chmod 755 rw && chmod 666 rw/ro.db && rm -f rw/ro.db-* &&
	refused "error: gradebook .rw/ro.db. is read-only here" \
		$as_user "$CUDALAB" test matmul --sub class/ada --db rw/ro.db
'
test_done
