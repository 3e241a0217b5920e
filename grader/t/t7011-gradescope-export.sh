#!/bin/bash
# A Gradescope submission export ("Export Submissions", unzipped) graded as a
# class: its submission_metadata.yml names each submission_<id>/ folder's
# submitters and time, so each run is the student's (their SID, else their
# email), at the time they submitted, late where it was; a group's
# submission is each member's; the lab's files are found in a folder a zip
# of a folder made. Emulated on the CPU (make check); a GPU grades it the
# same way.
. "$(dirname "$0")/lib.sh"
cpu_only
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"

ref=$T_ROOT/reference/matmul stub=$T_ROOT/student_template/matmul
# the export, as Gradescope writes it: Ruby's YAML (keys with a colon, times
# with nanoseconds), each entry's score, history and results beside
export_of() {
	local e=$1
	mkdir -p "$e/submission_101" "$e/submission_102/handin" "$e/submission_102/__MACOSX/handin" \
		"$e/submission_104/matmul" "$e/submission_105" &&
	cp "$ref/matmul.cu" "$e/submission_101/" &&
	cp "$stub/matmul.cu" "$e/submission_102/handin/" &&
	printf '\0\5\26\7' >"$e/submission_102/__MACOSX/handin/._matmul.cu" &&
	cp "$ref/matmul.cu" "$e/submission_104/matmul/" &&
	cp "$ref/matmul.cu" "$e/submission_105/" &&
	cat >"$e/submission_metadata.yml" <<'EOF'
---
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: s101
    :email: ada@example.edu
  :created_at: 2026-12-03 10:15:02.365935000 -07:00
  :score: 50.0
  :status: processed
  :history: []
  :results:
    score: 50.0
    output: |-
      **matmul**: 50 / 50, **provisional**

      A pre-check: "quoted", and a line with: a colon
    tests:
    - name: 'k1: exact'
      status: passed
submission_102:
  :submitters:
  - :name: Bo Group
    :sid:
    :email: bo@example.edu
  - :name: Cy Group
    :sid: s103
    :email: cy@example.edu
  :created_at: 2026-12-04 23:00:00.000001000 +01:00
  :score: 0.0
  :history:
  - :created_at: 2026-12-02 09:00:00.000000000 +01:00
    :score: 0.0
submission_104:
  :submitters:
  - :name: Di Late
    :sid: s104
    :email: di@example.edu
  :created_at: 2026-12-06 09:00:00.000000000 Z
  :score: 50.0
submission_106:
  :submitters:
  - :name: Ed Gone
    :sid: s106
  :created_at: 2026-12-01 09:00:00.000000000 Z
EOF
}
test_expect_success 'an export is a class: each submission its submitters'"'"', at its time, late where it was' '
	course_copy matmul "$(printf "%s\n" "[deadline]" "due = 2026-12-04 23:59 +01:00" "penalty_per_day = 10")" &&
	export_of gs &&
	{ "$(cat cudalab)" grade matmul gs -j 2 >out 2>err; [ $? = 4 ]; } &&
	cat out &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT group_concat(name) FROM (SELECT name FROM students ORDER BY name)")" = \
		"bo@example.edu,s101,s103,s104" ] &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs")" = 4 ] &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT s.name || \"|\" || r.submitted_at || \"|\" || r.late_days FROM runs r
		JOIN submissions b ON b.id = r.submission_id JOIN students s ON s.id = b.student_id
		ORDER BY s.name" | tr "\n" " ")" = \
		"bo@example.edu|2026-12-04T22:00:00Z|0 s101|2026-12-03T17:15:02Z|0 s103|2026-12-04T22:00:00Z|0 s104|2026-12-06T09:00:00Z|2 " ] &&
	# an entry whose folder is not in the export is said, not graded; a folder the metadata
	# does not name is no one'"'"'s
	grep -q "names .submission_106., which the export does not hold as a folder: not graded" err &&
	! grep -q "submission_105" out
'
test_expect_success 'the files are found where a zip put them: a Mac'"'"'s folder, the lab'"'"'s folder' '
	for s in bo@example.edu s103 s104; do
		run=$(sqlite3 "$CUDALAB_DB" "SELECT r.id FROM runs r JOIN submissions b ON b.id = r.submission_id
			JOIN students t ON t.id = b.student_id WHERE t.name = '"'"'$s'"'"'") &&
		"$CUDALAB" db show --run "$run" | jq -r .submission >sub || exit 1
		case $s in
		s104) [ "$(cat sub)" = "$PWD/gs/submission_104/matmul" ] ;;
		*) [ "$(cat sub)" = "$PWD/gs/submission_102/handin" ] ;;
		esac || { say "$s: $(cat sub)"; exit 1; }
	done
'
test_expect_success 'a metadata file that is not YAML, or names a path, is refused before grading' '
	mkdir -p bad && printf "submission_1:\n  - [unclosed\n" >bad/submission_metadata.yml &&
	{ "$CUDALAB" grade matmul bad -j 1 >out 2>err; [ $? = 2 ]; } &&
	grep -q "bad/submission_metadata.yml. is not YAML: line [0-9]" err &&
	printf "../../etc:\n  :submitters: []\n" >bad/submission_metadata.yml &&
	{ "$CUDALAB" grade matmul bad -j 1 >out 2>err; [ $? = 2 ]; } &&
	grep -q "an entry that names no folder of the export (.\.\./\.\./etc.)" err &&
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs")" = 4 ]
'
test_done
