#!/bin/bash
# Control characters in what the untrusted side says are shown, never obeyed:
# a submission whose #warning clears the screen, sets the clipboard (OSC 52)
# and says "ALL TESTS PASSED", whose launcher prints escape sequences, graded
# from a folder whose name holds some too. The terminal report, the class
# table and its progress lines, db show, show, the result document (as jq -r
# prints it), the gradebook's columns and the run's page hold no raw control
# character but newline and tab: each is written \xHH (docs/student-guide.md, "Reading the results").
# beside-others: it times nothing, and grades only through cudalab
. "$(dirname "$0")/lib.sh"
cpu_only
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"

# no_controls FILE...: no control character in FILE but newline and tab (C0,
# DEL), and no C1 control (U+0080-U+009F, two bytes in UTF-8); says where
no_controls() {
	local f ok=0
	for f; do
		if LC_ALL=C tr -d '\t\n' <"$f" | LC_ALL=C grep -q '[[:cntrl:]]' ||
			LC_ALL=C grep -qP '\xc2[\x80-\x9f]' "$f"; then
			say "raw control characters in $f:"
			LC_ALL=C grep -n '[[:cntrl:]]' "$f" | cat -A | grep -v '^[0-9]*:[^^]*\$$' | head -5
			ok=1
		fi
	done
	return $ok
}

# the reference, with a #warning that holds escape sequences, and a kernel 1
# launcher that prints some (ESC's CSI and OSC 52, BEL, CR, a C1 CSI)
esc=$'\e' bel=$'\a'
folder="class/mallory${esc}[2J${esc}]0;pwned${bel}"
write_submission() {
	mkdir -p "$1" &&
	{
		printf '#warning %s\n' "${esc}[2J${esc}[H${esc}]52;c;cm0gLXJmIH4=${bel}ALL TESTS PASSED"
		sed 's|^	matmul_k1_kernel<<<dim3(N, N), 1>>>(d_A, d_B, d_C, N);|&\n	printf("\\033[2J\\033]52;c;eA==\\007\\rALL TESTS PASSED \\302\\2332J\\n");|' \
			"$T_ROOT/reference/matmul/matmul.cu" | sed 's|^#include "matmul.h"|&\n#include <stdio.h>|'
	} >"$1/matmul.cu"
}

test_expect_success 'the submission is what the test says: raw escapes in its source' '
	write_submission "$folder" &&
	LC_ALL=C grep -q "$esc\\[2J" "$folder/matmul.cu" &&
	grep -q "printf(\"\\\\033\\[2J" "$folder/matmul.cu" || { cat -A "$folder/matmul.cu" | head; false; }
'
test_expect_success 'the terminal report shows the escapes as \xHH, and obeys none' '
	{ "$CUDALAB" grade matmul "$folder" --json r.json --html r.html >report 2>&1; [ $? = 4 ]; } &&
	grep -qF "\\x1b[2J\\x1b[H\\x1b]52;c;cm0gLXJmIH4=\\x07ALL TESTS PASSED" report &&
	grep -qF "submission  " report && grep -F "submission  " report | grep -qF "mallory\\x1b[2J\\x1b]0;pwned\\x07" &&
	no_controls report &&
	[ "$(jq -r .score r.json)" = 50 ] || { cat -A report | head -40; false; }
'
test_expect_success 'the result document holds them visible: jq -r prints no escape' '
	jq -r ".build.log, .output, .student, .submission, (.tests[] | .message // empty)" r.json >fields &&
	grep -qF "ALL TESTS PASSED" fields && grep -qF "\\x1b]52;c;eA==\\x07\\x0dALL TESTS PASSED \\x9b2J" fields &&
	[ "$(jq -r .student r.json)" = "mallory\\x1b[2J\\x1b]0;pwned\\x07" ] &&
	no_controls fields r.json r.html || { cat -A fields | head -20; false; }
'
test_expect_success 'the gradebook stores them visible, and db show and show list them so' '
	sqlite3 "$CUDALAB_DB" "SELECT name FROM students; SELECT result_json FROM runs" >columns &&
	grep -qF "mallory\\x1b[2J" columns && no_controls columns &&
	"$CUDALAB" db show >list && grep -qF "mallory\\x1b[2J\\x1b]0;pwned\\x07" list && no_controls list &&
	"$CUDALAB" show "mallory\\x1b[2J\\x1b]0;pwned\\x07" >show && no_controls show &&
	grep -q "^matmul " show || { cat -A list show; false; }
'
test_expect_success 'a class: its table and progress lines show the folder name visible' '
	write_submission class/ada &&
	{ "$CUDALAB" grade matmul class -j 1 --db class.db >table 2>progress; [ $? = 4 ]; } &&
	grep -qF "mallory\\x1b[2J\\x1b]0;pwned\\x07 " table && grep -q "^ada " table &&
	grep -qF "mallory\\x1b[2J\\x1b]0;pwned\\x07: 50 / 50" progress &&
	no_controls table progress || { cat -A table progress; false; }
'
test_expect_success '--resume finds the run stored under the visible name' '
	{ "$CUDALAB" grade matmul class -j 1 --db class.db --resume >again 2>&1; [ $? = 0 ] || [ $? = 4 ]; } &&
	[ "$(grep -c " skipped .* already in the gradebook$" again)" = 2 ] || { cat again; false; }
'
test_done
