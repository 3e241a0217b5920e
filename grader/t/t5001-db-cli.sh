#!/bin/bash
# The gradebook from the command line: init, runs appended on regrade, show.
# beside-others: it times nothing, and grades only through cudalab
. "$(dirname "$0")/lib.sh"

test_expect_success 'db init creates a gradebook at the latest schema version (6)' '
	"$CUDALAB" db init --db g.db >out && grep -q "schema version 6" out &&
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
test_done
