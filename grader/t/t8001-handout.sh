#!/bin/bash
# `make handout`: the student repository. Nothing of reference/ goes in (the
# reference only as machine code), and a fresh copy builds and grades with
# its own `make test`, and with the script its CI runs on every push.
# long-running: the handout is built afresh
. "$(dirname "$0")/lib.sh"
cpu_only
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"

h=$T_TMP/handout
test_expect_success 'make handout makes the student repository' '
	make -s -C "$T_ROOT" BUILD="$BUILD" handout HANDOUT="$h" >out 2>&1 &&
	for f in Makefile README.md .gitignore .github/workflows/cudalab.yml .gitlab-ci.yml \
		ci/grade-push.sh ci/deps.sh ci/debian-packages.txt grader/commands/main.c db/schema.sql \
		labs/common/harness.cu labs/matmul/lab.conf grid/grid.cu grid/answers.txt \
		matmul/matmul.cu prebuilt/archs.mk prebuilt/reference/matmul/matmul.o; do
		[ -f "$h/$f" ] || { say "missing: $f"; exit 1; }
	done &&
	cmp "$T_ROOT/student_template/matmul/matmul.cu" "$h/matmul/matmul.cu" &&
	test_must_fail_with 2 make -s -C "$T_ROOT" BUILD="$BUILD" handout HANDOUT="$h" &&
	grep -q "exists; give a new folder" err
'
test_expect_success 'no file of reference/ is in it, nor hidden tests, nor the project'"'"'s own tests' '
	# by content: the stubs themselves aside (a fixture may leave a file as the stub has it)
	(cd "$T_ROOT" && find student_template -type f -exec sha256sum {} +) | cut -d" " -f1 | sort -u >stub.sums &&
	(cd "$T_ROOT" && find reference -type f -exec sha256sum {} +) | cut -d" " -f1 | sort -u |
		comm -23 - stub.sums >ref.sums && [ -s ref.sums ] &&
	(cd "$h" && find . -type f -exec sha256sum {} +) | sort >handout.sums &&
	! grep -F -f ref.sums handout.sums &&
	[ -z "$(cd "$h" && find . -path "*/reference/*.cu" -o -path "*/tests/hidden/*" -o -path "*/fixtures/*" \
		-o -path "./grader/t/*" -o -path "./bench/*" -o -name gradebook.db)" ]
'
test_expect_success 'its package list is what a build needs: not the project'"'"'s own tests'"'"' (Slurm, schema checkers)' '
	grep -q "^check " "$h/ci/debian-packages.txt" && grep -q "^bubblewrap " "$h/ci/debian-packages.txt" &&
	! grep -q "^slurm\|^munge\|^python3-jsonschema\|project.s own tests" "$h/ci/debian-packages.txt" &&
	grep -q "^slurm-wlm " "$T_ROOT/ci/debian-packages.txt"
'
test_expect_success 'the reference objects hold machine code only, for every architecture of the list' '
	archs=$(sed -n "s/^CUDA_ARCHS ?= //p" "$h/prebuilt/archs.mk") && [ -n "$archs" ] &&
	for o in "$h"/prebuilt/reference/*/*.o; do
		"$T_ROOT/ci/handout.sh" --fatbin-kinds "$o" >kinds || exit 1
		[ "$(sort -u kinds)" = 2 ] && [ "$(wc -l <kinds)" = "$(wc -w <<<"$archs")" ] ||
			{ say "$o: kinds $(sort kinds | uniq -c | tr "\n" " ")"; exit 1; }
	done &&
	printf "__global__ void k(float *x) { x[0] = 1; }\n" >ptx.cu &&
	"$(sed -n "s/^nvcc = //p" "$BUILD/toolchain.conf")" -c -gencode arch=compute_75,code=compute_75 ptx.cu -o ptx.o &&
	[ "$("$T_ROOT/ci/handout.sh" --fatbin-kinds ptx.o)" = 1 ]
'
test_expect_success 'a fresh copy builds, and make test grades the stub and then a solution' '
	cp -a "$h" copy && cd copy &&
	{ ! make -s check >check.txt 2>&1; } && grep -q "this is a student repository" check.txt &&
	# the first make test builds it all, several steps at a time, and says so
	{ make -s test LAB=grid >stub.txt 2>&1; [ $? -ne 0 ]; } &&
	grep -q "^make test: building the grader and the labs. harnesses, once ([0-9]* steps at a time)" stub.txt &&
	grep -q "score       0 / 43" stub.txt || { cat stub.txt; exit 1; } &&
	cp "$T_ROOT/reference/grid/grid.cu" "$T_ROOT/reference/grid/answers.txt" grid/ &&
	{ build/bin/cudalab test grid --no-db --json r.json -q >/dev/null; [ $? = 4 ]; } &&
	validate_doc r.json &&
	jq -e ".score == 43 and .max_score == 43" r.json >/dev/null
'
# The occupancy lab: the handout prints each student's questions, but nothing
# in it answers them (the key and the answer checks are the course's, in
# tests/hidden/); its own make test grades what it has and says what the
# course grades later.
key_symbols="occ_lab_key occ_lab_answer_of occ_lab_best occ_lab_oracle_calc occ_lab_admissible cl_ref_occ_blocks_per_sm"
test_expect_success 'the handout cannot produce an answer key: no key program, no hidden test, no reference calculator' '
	[ -d "$T_ROOT/labs/occupancy/tests/hidden" ] && [ -x "$BUILD/labs/occupancy/key" ] &&
	[ -z "$(cd "$h" && find . -path "*/tests/hidden*" -o -name "key_*" -o -name "occ_key.h" -o -path "./prebuilt/reference/occupancy*")" ] &&
	for s in $key_symbols; do
		! grep -rlw "$s" "$h" || { say "$s is in the handout"; exit 1; }
	done &&
	! grep -rl "the answers expected from" "$h" &&
	cd copy && [ ! -e build/labs/occupancy/key ] &&
	{ build/bin/cudalab questions occupancy --student ada --key >key.out 2>key.err; [ $? = 2 ]; } &&
	[ ! -s key.out ] &&
	grep -q "the answer key of lab .occupancy. is only available in the course.s repository" key.err &&
	{ build/labs/occupancy/questions --student ada --key >key.out 2>key.err; [ $? = 2 ]; } && [ ! -s key.out ] &&
	# the sheet is the one the course grades; its program links no calculator, the key symbols neither
	build/bin/cudalab questions occupancy --student ada >sheet &&
	"$CUDALAB" questions occupancy --student ada | cmp - sheet &&
	for b in build/labs/occupancy/questions build/labs/occupancy/link.rsp; do
		[ -e "$b" ] || exit 1
	done &&
	! nm -C build/labs/occupancy/questions | grep -e "cudaOcc[A-Z]" $(printf -- "-e %s " $key_symbols) &&
	! grep -l hidden build/labs/occupancy/link.rsp build/labs/occupancy/link-emu.rsp &&
	for o in build/labs/occupancy/tests/*.o build/emu/labs/occupancy/tests/*.o; do
		! nm -C "$o" | grep -w $(printf -- "-e %s " $key_symbols) || { say "$o"; exit 1; }
	done
'
test_expect_success 'the student'"'"'s make test: the hidden answer checks are graded later, neither failed nor passed' '
	cd copy && cp "$T_ROOT/reference/occupancy/occupancy.cu" "$T_ROOT/reference/occupancy/answers.txt" occupancy/ &&
	# graded under the name its sheet was made for (STUDENT=; else $USER)
	{ make -s test LAB=occupancy STUDENT=fixture-occupancy >occ.txt 2>&1; [ $? -ne 0 ]; } &&
	grep -q "^make test: cudalab test exited 4 " occ.txt &&
	grep -q "^not graded here: 6 points in 6 tests (questions/threads, questions/blocks, questions/warps, questions/occupancy, questions/limit, questions/best)$" occ.txt &&
	grep -q "their results are shown after the due date" occ.txt &&
	grep -q "^score       10 / 16, 6 more graded later$" occ.txt &&
	grep -q "^questions  threads    graded later       -/1" occ.txt &&
	grep -q "^questions  format     pass" occ.txt &&
	grep -q "^mode        on the CPU: this lab.s tests need no GPU$" occ.txt || { cat occ.txt; exit 1; } &&
	# the gradebook'"'"'s readers say the same, from the stored run
	who=$(sqlite3 "$CUDALAB_DB" "SELECT s.name FROM runs r JOIN submissions b ON
		r.submission_id = b.id JOIN students s ON b.student_id = s.id JOIN labs l ON
		b.lab_id = l.id WHERE l.name = '"'"'occupancy'"'"' ORDER BY r.id DESC LIMIT 1") &&
	build/bin/cudalab db show --lab occupancy --limit 1 >db.txt &&
	build/bin/cudalab show "$who" --lab occupancy >show.txt &&
	grep -qF " 10 / 16, 6 more graded later " db.txt &&
	grep -qF "latest: occupancy 10 / 16, 6 more graded later (run " show.txt ||
		{ cat db.txt show.txt; exit 1; } &&
	# the run'"'"'s page says the same
	[ "$(grep -c "<td class=\"verdict\">graded later</td><td class=\"num\">- / 1</td>" build/reports/occupancy.html)" = 6 ] &&
	{ build/bin/cudalab test occupancy --student fixture-occupancy --no-db --json o.json -q >/dev/null; [ $? = 4 ]; } &&
	validate_doc o.json &&
	jq -e "[.tests[] | select(.held_back)] | length == 6 and
		all(.status == \"not-run\" and .points == 0 and .visibility == \"after_due\")" o.json >/dev/null &&
	jq -e ".score == 10 and .max_score == 16 and .status == \"incomplete\" and
		(.score_text | endswith(\"6 more graded later\"))" o.json >/dev/null &&
	# the course grades the same files: all 16 points
	mkdir occ-course && cp occupancy/occupancy.cu occupancy/answers.txt occ-course/ &&
	"$CUDALAB" grade occupancy occ-course --student fixture-occupancy --json c.json -q >/dev/null &&
	jq -e ".score == 16 and .status == \"complete\" and ([.tests[] | select(.held_back)] | length == 0)" c.json >/dev/null &&
	# under another name ($USER), the visible format test says the sheet is not theirs
	{ USER=zed make -s test LAB=occupancy >occ2.txt 2>&1; [ $? -ne 0 ]; } &&
	grep -q "^questions  format     FAIL" occ2.txt &&
	grep -q "but this run grades .zed., whose questions have other numbers" occ2.txt
'
# the matmul solution (its timer's reference runner linked with the reference's objects
# as the handout has them) is graded once, by ci/grade-push.sh below
test_expect_success 'ci/grade-push.sh: a solution passes with timing pending a GPU, a summary and JUnit' '
	cd copy && cp "$T_ROOT/reference/grid/grid.cu" "$T_ROOT/reference/grid/answers.txt" grid/ &&
	cp "$T_ROOT/reference/matmul/matmul.cu" matmul/ &&
	GITHUB_STEP_SUMMARY=$PWD/step.md GITHUB_ACTOR=ada bash ci/grade-push.sh grid matmul >push.txt 2>&1 &&
	grep -q "^| grid | 43 / 43 | ok | CPU emulator (provisional) | no points lost |$" step.md &&
	# the score as the report writes it (its score line, score_text in the document)
	grep -q "^| matmul | 50 / 50 (10 of it bonus), 10 more pending a GPU run | ok | CPU emulator (provisional) | no points lost; 5 not run here" step.md &&
	grep -qF "| matmul | $(jq -r .score_text cudalab-results/matmul.json) |" step.md &&
	# each lab'"'"'s page in the artifact, with the same score
	grep -qF "$(jq -r .score_text cudalab-results/matmul.json)" cudalab-results/matmul.html &&
	grep -qF "$(jq -r .score_text cudalab-results/grid.json)" cudalab-results/grid.html &&
	grep -q "^| k1 | time@1024 | pending (GPU) | -/2.5 |$" step.md &&
	jq -e ".exit_code == 4 and ([.tests[] | select(.kind == \"correctness\" and .status != \"pass\")] |
		length == 0)" cudalab-results/matmul.json >/dev/null &&
	validate_doc cudalab-results/grid.json cudalab-results/matmul.json &&
	for l in grid matmul; do
		xmllint --noout --schema "$T_ROOT/grader/t/schemas/junit.xsd" cudalab-results/junit-$l.xml &&
			jq -e ".student == \"ada\"" cudalab-results/$l.json >/dev/null || exit 1
	done &&
	grep -q "<testsuite name=\"grid.ada\" tests=\"14\" failures=\"0\"" cudalab-results/junit-grid.xml &&
	# its last line, the whole score (GitLab'"'"'s coverage: t0002)
	[ "$(tail -n 1 push.txt)" = "cudalab score: 93 / 93, provisional: feedback, not a grade (100%)" ]
'
test_expect_success 'ci/grade-push.sh on a build from the cache (a hit): make has nothing to do' '
	cd copy &&
	# a fresh checkout: every file newer than the build restored beside it
	find . -path ./build -prune -o -type f -print0 | xargs -0 touch &&
	before=$(stat -c %Y grid/grid.cu) &&
	CUDALAB_BUILD_CACHED=true bash ci/grade-push.sh grid >cached.txt 2>&1 &&
	sed -n "/::group::build/,/::endgroup::/p" cached.txt >built &&
	! grep -E "^ +(CC|CXX|NVCC|LD|JUDGE|EMU) " built || { cat built; false; } &&
	# the submission is left as it was; the course'"'"'s files are dated back
	[ "$(stat -c %Y grid/grid.cu)" = "$before" ] && [ "$(stat -c %Y Makefile)" = 1 ]
'
test_expect_success 'ci/grade-push.sh fails the job for lost points and for a build that failed' '
	cd copy && cp "$T_ROOT/reference/grid/fixtures/no-bounds/grid.cu" grid/ &&
	test_must_fail_with 1 bash ci/grade-push.sh grid &&
	grep -q "^| grid | .* | ok | CPU emulator (provisional) | [0-9]* test(s) lost points" cudalab-results/summary.md &&
	# the score line: grid'"'"'s alone, not the earlier run'"'"'s matmul left in the folder
	tail -n 1 out | grep -q "^cudalab score: [0-9.]* / 43, provisional: feedback, not a grade ([0-9.]*%)$" &&
	printf "this is not C\n" >grid/grid.cu &&
	test_must_fail_with 1 bash ci/grade-push.sh grid &&
	grep -q "^| grid | 0 / 43 | compile-error | .* | did not build" cudalab-results/summary.md &&
	test_must_fail_with 2 bash ci/grade-push.sh nosuchlab && grep -q "no lab .nosuchlab." err
'
test_done
