#!/bin/bash
# `make gradescope`: a lab's Gradescope autograder, a zip with setup.sh and
# run_autograder at its root. Unpacked as Gradescope does into a folder
# shaped like /autograder (CUDALAB_AUTOGRADER_ROOT), set up (nvcc and the
# packages are here already, so nothing is downloaded), then run on the
# reference and on the stub, each a submission with its metadata: the
# results.json valid against Gradescope's specification, the student and
# the submission time from the metadata, and the score a pre-check (recorded
# as 0); then a zip of a folder made on a Mac, and a layout it cannot read,
# which is told what it holds.
. "$(dirname "$0")/lib.sh"
cpu_only
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"
command -v zip >/dev/null && command -v unzip >/dev/null ||
	skip_all "zip and unzip are not installed (ci/debian-packages.txt lists them)"

zip=$T_TMP/matmul.zip ag=$T_TMP/autograder
# the zip is made for the project's GPU architectures, which build/ holds
# already: make gradescope then builds nothing (another test may be linking
# build/'s objects meanwhile, run-tests.sh)
test_expect_success 'make gradescope: a zip with setup.sh and run_autograder at its root, and one lab' '
	make -s -C "$T_ROOT" BUILD="$BUILD" gradescope LAB=matmul GRADESCOPE="$zip" >out 2>&1 &&
	unzip -Z1 "$zip" >list &&
	for f in setup.sh run_autograder cudalab/Makefile cudalab/grader/commands/main.c cudalab/ci/deps.sh \
		cudalab/ci/debian-packages.txt cudalab/labs/common/harness.cu cudalab/labs/matmul/lab.conf \
		cudalab/prebuilt/archs.mk cudalab/prebuilt/reference/matmul/matmul.o; do
		grep -qx "$f" list || { say "missing: $f"; exit 1; }
	done &&
	[ "$(grep -o "^cudalab/labs/[^/]*/" list | sort -u | tr "\n" " ")" = \
		"cudalab/labs/common/ cudalab/labs/matmul/ " ] &&
	! grep -e "^cudalab/reference/" -e "/fixtures/" -e "^cudalab/grader/t/" -e "^cudalab/matmul/" list &&
	[ "$(unzip -Z "$zip" run_autograder setup.sh | cut -c1-10 | sort -u)" = -rwxr-xr-x ] &&
	unzip -p "$zip" run_autograder | grep -q "^lab=matmul$" &&
	test_must_fail_with 2 make -s -C "$T_ROOT" BUILD="$BUILD" gradescope &&
	grep -q "usage: make gradescope LAB=" err
'
# one GPU architecture for the harness setup.sh builds (and run_autograder's
# make checks): no GPU runs it here
export CUDA_ARCHS=75
test_expect_success 'unpacked as Gradescope does, setup.sh builds cudalab' '
	mkdir -p "$ag/source" && unzip -q "$zip" -d "$ag/source" &&
	cp "$ag/source/run_autograder" "$ag/run_autograder" &&
	# (the machine'"'"'s nobody, not a user of setup.sh'"'"'s making: a test leaves
	# the machine'"'"'s users as they were)
	CUDALAB_SANDBOX_USER=nobody bash "$ag/source/setup.sh" >setup.log 2>&1 ||
		{ tail -30 setup.log; exit 1; }
	[ -x "$ag/source/cudalab/build/bin/cudalab" ]
'
# submit DIR META: DIR as Gradescope's submission folder, META as its
# metadata, then run_autograder, its output in run.log
submit() {
	rm -rf "$ag/submission" "$ag/results" && cp -r "$1" "$ag/submission" &&
		printf "%s\n" "$2" >"$ag/submission_metadata.json" &&
		CUDALAB_AUTOGRADER_ROOT=$ag "$ag/run_autograder" >run.log 2>&1 ||
		{ tail -30 run.log; return 1; }
}
valid_gradescope() {
	python3 "$T_ROOT/grader/t/helpers/json-schema-check.py" \
		"$T_ROOT/grader/t/schemas/gradescope-results.schema.json" "$@"
}
ada='{"id": 123456, "created_at": "2026-11-20T14:22:32.365935-07:00",
	"assignment": {"due_date": "2026-12-01T23:00:00.000000-07:00", "title": "matmul",
		"total_points": "50.0"}, "submission_method": "upload",
	"users": [{"email": "ada@example.edu", "id": 1234, "name": "Ada L", "sid": "s123"}],
	"previous_submissions": []}'
test_expect_success 'run_autograder: the reference, a pre-check of full marks (recorded as 0) for the student of the metadata' '
	mkdir ref && cp "$T_ROOT/reference/matmul/matmul.cu" ref/ &&
	submit ref "$ada" && r=$ag/results/results.json &&
	valid_gradescope "$r" &&
	jq -e ".score == 0 and .extra_data.final_score == 50 and .extra_data.student == \"s123\" and .extra_data.mode == \"emulated\" and
		.extra_data.provisional and .extra_data.submitted_at == \"2026-11-20T21:22:32Z\" and
		(.output | contains(\"A pre-check, not a grade\")) and
		([.tests[] | select(.status == \"failed\")] | length) == 0 and
		([.tests[] | select(.tags | index(\"not-run\"))] | length) == 5" "$r" >/dev/null ||
		{ cat "$r"; exit 1; }
'
test_expect_success 'run_autograder: the stub, sent as a student repository, by a student with no sid' '
	mkdir -p repo/matmul && cp "$T_ROOT/student_template/matmul/matmul.cu" repo/matmul/ &&
	submit repo "{\"id\": 77, \"created_at\": \"2026-11-21T08:00:00.000001+00:00\",
		\"users\": [{\"email\": \"bo@example.edu\", \"id\": 9, \"name\": \"Bo\", \"sid\": null}]}" &&
	r=$ag/results/results.json && valid_gradescope "$r" &&
	jq -e ".score == 0 and .extra_data.student == \"bo@example.edu\" and
		.extra_data.submitted_at == \"2026-11-21T08:00:00Z\" and .tests[0].status == \"passed\" and
		([.tests[] | select(.status == \"failed\")] | length) == 20" "$r" >/dev/null ||
		{ cat "$r"; exit 1; }
'
test_expect_success 'run_autograder: a submission without the lab'"'"'s file did not build, and says why' '
	mkdir empty && touch empty/notes.txt &&
	submit empty "{\"id\": 78, \"users\": []}" &&
	r=$ag/results/results.json && valid_gradescope "$r" &&
	jq -e ".score == 0 and .extra_data.student == \"submission-78\" and
		.tests[0].status == \"failed\" and (.tests[0].output | contains(\"matmul.cu\"))" "$r" >/dev/null ||
		{ cat "$r"; exit 1; }
'
test_expect_success 'run_autograder: a zip of a folder made on a Mac is graded in that folder' '
	mkdir -p mac/handin mac/__MACOSX/handin &&
	cp "$T_ROOT/reference/matmul/matmul.cu" mac/handin/ &&
	printf "\0\5\26\7" >mac/__MACOSX/handin/._matmul.cu && printf x >mac/.DS_Store &&
	submit mac "$ada" && r=$ag/results/results.json && valid_gradescope "$r" &&
	jq -e ".extra_data.final_score == 50 and (.output | contains(\"Where are your files\") | not)" \
		"$r" >/dev/null || { cat "$r"; exit 1; }
'
# what a submission of two folders (one a name with backquotes, which
# become no Markdown) and a file is told
cat >"$T_TMP/layout.jq" <<'EOF'
.score == 0 and .tests[0].status == "failed" and
(.output | startswith("**Where are your files?** This lab grades `matmul.cu`, at the top") and
	contains("your submission holds `README`, `x`, `a`, `b`. Submit the files themselves"))
EOF
test_expect_success 'run_autograder: any other layout gets a results.json saying what it found and what is expected' '
	mkdir -p two/a two/b "two/\`x\`" && cp "$T_ROOT/reference/matmul/matmul.cu" two/a/ &&
	touch two/b/notes.txt && printf x >two/README &&
	submit two "$ada" && r=$ag/results/results.json && valid_gradescope "$r" &&
	jq -e -f layout.jq "$r" >/dev/null || { cat "$r"; exit 1; }
'
test_done
