#!/bin/bash
# A class graded on a real Slurm cluster (cudalab slurm, cudalab collect):
# a single-node Slurm this test starts itself (grader/t/helpers/
# slurm-cluster.sh), with two fake GPUs kept apart by cgroups. Emulated on the
# CPU (make check). Skips, saying why, where Slurm cannot start.
. "$(dirname "$0")/lib.sh"
cpu_only
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"
cd "$T_TMP" || exit 1
# the grading's own TMPDIR (below) goes too
T_SLURM_ALSO='rm -rf "${own:-}"'
slurm_cluster_up --fake-gpus 2
spool=$T_TMP/spool db=$T_TMP/class.db

# the class: five correct submissions (one folder name with a space), the
# stub, two with the wrong answers
mkdir class
for s in ada bob cy "dee lee" eve; do cp -r "$T_ROOT/reference/grid" "class/$s"; rm -rf "class/$s/fixtures" "class/$s/corpus"; done
cp -r "$T_ROOT/student_template/grid" class/fay
cp -r "$T_ROOT/reference/grid/fixtures/swapped" class/gus
cp -r "$T_ROOT/reference/grid/fixtures/wrong-answers" class/hal
victim=eve

runs() { sqlite3 "$db" "SELECT count(*) FROM runs${1:+ JOIN submissions s ON s.id = runs.submission_id JOIN students st ON st.id = s.student_id WHERE st.name = '$1'}"; }
index_of() { awk -F'\t' -v s="$1" '$2 == s { print $1 }' "$spool/roster.tsv"; }
first_job() { head -n 1 "$spool/jobs" | cut -d" " -f1; }

# the tasks' TMPDIR (sbatch passes the environment on): where a cancelled
# task's grading must leave nothing
own=$(own_tmpdir own) || exit 1
test_expect_success 'a class of 8 is graded through a job array, each task on a GPU of its own' '
	# the site'"'"'s set-up (module load, a PATH), which every task sources first
	printf "%s\n" "[ -n \"\${SLURM_ARRAY_TASK_ID:-}\" ] || exit 9" \
		"echo \"set up \$SLURM_ARRAY_TASK_ID\" >>$PWD/setup-marks" >site.sh &&
	TMPDIR=$own "$CUDALAB" slurm grid class/ --spool "$spool" --db "$db" --emulate --throttle 2 \
		--setup site.sh -- --cpus-per-task=1 >out 2>err &
	pid=$! &&
	# the victim: its task is cancelled while it grades (as a time limit or scancel would);
	# waited for as long as the class runs, however slow the machine
	until i=$(index_of $victim 2>/dev/null) && [ -n "$i" ] && [ -s "$spool/state/$i" ]; do
		kill -0 $pid 2>/dev/null || break; sleep 0.1
	done &&
	job=$(cut -d" " -f1 "$spool/jobs") &&
	scancel "${job}_$(index_of $victim)" &&
	{ wait $pid; rc=$?; } && cat out err && [ $rc = 4 ] &&
	[ "$(wc -l <"$spool/roster.tsv")" = 8 ] &&
	grep -q "^#SBATCH\|cudalab\" grade" "$spool/grade.sbatch" &&
	grep -q "slurm: job $job: 8 tasks grading grid.s 8 submissions, 2 at once" err &&
	grep -q "slurm: 7/8 graded, 0 running, 0 pending, 1 failed" err &&
	[ "$(runs)" = 7 ] && [ "$(runs $victim)" = 0 ] &&
	cmp -s site.sh "$spool/setup.sh" && [ "$(sort -u setup-marks | wc -l)" = 8 ]
'
test_expect_success 'each got its verdict, stored once with the spool file it came from' '
	for s in ada bob cy "dee lee"; do grep -q "^$s .*incomplete" out || return 1; done &&
	sqlite3 "$db" "SELECT st.name, r.status, r.score, r.max_score, r.mode FROM runs r JOIN submissions s ON s.id = r.submission_id JOIN students st ON st.id = s.student_id ORDER BY st.name" >rows &&
	cat rows &&
	grep -qx "ada|incomplete|[0-9.]*|[0-9.]*|emulated" rows &&
	[ "$(sqlite3 "$db" "SELECT count(DISTINCT score) FROM runs r JOIN submissions s ON s.id = r.submission_id JOIN students st ON st.id = s.student_id WHERE st.name IN (\"ada\", \"bob\", \"cy\", \"dee lee\")")" = 1 ] &&
	[ "$(sqlite3 "$db" "SELECT score < max_score FROM runs r JOIN submissions s ON s.id = r.submission_id JOIN students st ON st.id = s.student_id WHERE st.name = \"fay\"")" = 1 ] &&
	# the two with wrong answers: their fixtures'"'"' verdicts, test by test
	for f in gus:swapped hal:wrong-answers; do
		touch "$spool/results/${f%%:*}.json.txt" &&
		EXPECT_EMULATED=1 check_expect "$spool/results/${f%%:*}.json" \
			"$T_ROOT/reference/grid/fixtures/${f#*:}/expect" || return 1
	done &&
	[ "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE origin LIKE \"sha256:%\"")" = 7 ] &&
	validate_doc --db "$db"
'
test_expect_success 'the task that died is listed with why, never charged to the student' '
	task=$(first_job)_$(index_of $victim) &&
	# stopped by the TERM, or, where the cluster killed it before it could say so, never finished
	{ grep -q "^  $victim: cudalab grade was stopped by signal 15 (Terminated) in task $task on $(hostname): its time limit, scancel or the node.s shutdown" err ||
	  grep -q "^  $victim: its task $task on $(hostname) began grading it and never finished" err; } &&
	# the cancelled grading took its work folder, the submission in it, along
	[ -z "$(ls "$own" | grep "^cudalab-grid-")" ] &&
	grep -q "grade them again with: cudalab slurm grid --spool $spool --resume" err
'
test_expect_success 'collecting again adds nothing' '
	"$CUDALAB" collect grid "$spool" --db "$db" >out2 2>err2; rc=$?
	cat err2 && [ $rc = 4 ] &&
	grep -q "collected 0 new runs into $db (7 collected before)" err2 &&
	[ "$(runs)" = 7 ]
'
test_expect_success '--resume grades the one without a result, and only it' '
	"$CUDALAB" slurm grid --spool "$spool" --resume --db "$db" --emulate >out3 2>err3; rc=$?
	cat out3 err3 && [ $rc = 4 ] &&
	grep -q "1 task grading" err3 &&
	[ "$(cut -d" " -f3 "$spool/jobs" | tail -n 1)" = "$(index_of $victim)" ] &&
	grep -q "collected 1 new run into $db (7 collected before)" err3 &&
	[ "$(runs)" = 8 ] && [ "$(runs $victim)" = 1 ] &&
	[ "$(sqlite3 "$db" "SELECT count(DISTINCT score) FROM runs r JOIN submissions s ON s.id = r.submission_id JOIN students st ON st.id = s.student_id WHERE st.name IN (\"ada\", \"$victim\")")" = 1 ] &&
	"$CUDALAB" collect grid "$spool" --db "$db" 2>err4; cat err4;
	grep -q "collected 0 new runs into $db (8 collected before)" err4 && [ "$(runs)" = 8 ]
'
test_expect_success 'a task whose set-up fails grades nothing, and collect says why' '
	mkdir -p one/ivy && cp "$T_ROOT/reference/grid/grid.cu" "$T_ROOT/reference/grid/answers.txt" one/ivy/ &&
	printf "false\n" >broken.sh &&
	"$CUDALAB" slurm grid one/ --spool "$PWD/spool-broken" --db broken.db --emulate \
		--setup broken.sh >out5 2>err5; rc=$?
	cat err5 && [ $rc = 4 ] &&
	grep -q "^  ivy: its task [0-9_]* on $(hostname) graded nothing: the site.s set-up (--setup, the spool.s setup.sh) failed (exit 1): .cudalab: setup.sh failed (exit 1): no grading." err5 &&
	! grep -q "^error: cannot open" err5 &&
	[ "$(sqlite3 broken.db "SELECT count(*) FROM runs")" = 0 ] &&
	test_must_fail_with 2 "$CUDALAB" slurm grid one/ --spool "$PWD/spool-nosetup" --setup nothere.sh &&
	grep -q "^error: --setup .nothere.sh.: No such file or directory" err
'
test_expect_success 'a task asks for what lab.conf lets a grading take: time, memory, CPUs' '
	mkdir -p mm/ada && cp "$T_ROOT/reference/matmul/matmul.cu" mm/ada/ &&
	"$CUDALAB" slurm matmul mm/ --spool "$PWD/spool-needs" --no-submit -- --mem=2G >line 2>err &&
	cat line &&
	# on a GPU: the build, the tests, the safety stage, 5 timed kernels, and a quarter more
	conf=$T_ROOT/labs/matmul/lab.conf &&
	b=$(sed -n "s/^build_timeout *= *//p" "$conf") r=$(sed -n "s/^run_timeout *= *//p" "$conf") &&
	t=$(sed -n "s/^timing_timeout *= *//p" "$conf") &&
	n=$(grep -c "^\[timing " "$conf") &&
	want=$(( ((b + r + 240 + n * ${t:-30} + 60) * 5 + 239) / 240 )) &&
	grep -q -- " --time=$want --mem=[0-9]*M --cpus-per-task=4 " line &&
	mem=$(sed "s/.* --mem=\([0-9]*\)M .*/\1/" line) &&
	[ "$mem" -ge $((4 * 4096 + 1024)) ] &&
	# the course'"'"'s own options after them, so that sbatch takes those
	grep -q -- "--cpus-per-task=4 .* --mem=2G .*grade.sbatch" line &&
	# three submissions a task: three gradings'"'"' time
	"$CUDALAB" slurm matmul mm/ --spool "$PWD/spool-needs3" --no-submit --per-task 3 >line3 2>err &&
	want3=$(( ((b + r + 240 + n * ${t:-30} + 60) * 15 + 239) / 240 )) &&
	grep -q -- " --time=$want3 " line3
'
test_expect_success 'a spool already holding a class is refused, as is resume with folders' '
	test_must_fail_with 2 "$CUDALAB" slurm grid class/ --spool "$spool" --db "$db" &&
	grep -q "already holds a class" err &&
	test_must_fail_with 2 "$CUDALAB" slurm grid class/ --spool "$spool" --resume &&
	test_must_fail_with 2 "$CUDALAB" collect matmul "$spool" --db "$db" &&
	grep -q "lab grid.s, not matmul.s" err
'
test_expect_success 'sbatch refusing the array is the user'"'"'s error, in its words (exit 2)' '
	test_must_fail_with 2 "$CUDALAB" slurm grid class/ --spool "$T_TMP/spool2" --db "$db" \
		--emulate -- --partition=nosuch &&
	grep -q "sbatch refused the array.*partition" err
'
test_expect_success 'two tasks on different GPUs see GPU 0 each, and hold their GPU locks at once' '
	# each task: what cudalab gpus says, then its timing lock held 3 s, taken without waiting
	cat >task.sh <<-EOF &&
	#!/bin/bash
	"$CUDALAB" gpus --json >"$T_TMP/gpus-\$SLURM_ARRAY_TASK_ID.json" || exit 1
	lock=\$(jq -r ".gpus[0].lock_files[0]" "$T_TMP/gpus-\$SLURM_ARRAY_TASK_ID.json")
	from=\$(date +%s.%N)
	flock -n -x "\$lock" sleep 3 || { echo "\$lock: held by another task"; exit 1; }
	echo "\$from \$(date +%s.%N)" >"$T_TMP/held-\$SLURM_ARRAY_TASK_ID"
	EOF
	sbatch --parsable --array=0-1 --gres=gpu:1 -o "$T_TMP/task-%a.out" --wait task.sh >/dev/null &&
	cat task-0.out task-1.out gpus-0.json &&
	for i in 0 1; do
		[ "$(jq -r ".gpus | length" gpus-$i.json)" = 1 ] &&
		[ "$(jq -r ".gpus[0].cuda_visible_devices" gpus-$i.json)" = 0 ] || return 1
	done &&
	k0=$(jq -r ".gpus[0].lock_key" gpus-0.json) && k1=$(jq -r ".gpus[0].lock_key" gpus-1.json) &&
	[ -n "$k0" ] && [ -n "$k1" ] && [ "$k0" != "$k1" ] &&
	# the two holds overlapped: neither waited for the other
	read -r a0 b0 <held-0 && read -r a1 b1 <held-1 &&
	awk -v a0="$a0" -v b0="$b0" -v a1="$a1" -v b1="$b1" "BEGIN { exit !(a0 < b1 && a1 < b0) }"
'
test_done
