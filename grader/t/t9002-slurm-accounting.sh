#!/bin/bash
# A class graded on a Slurm cluster that keeps accounting and enforces its
# limits (slurmdbd on MariaDB: grader/t/helpers/slurm-cluster.sh
# --accounting): the array fits the TA's MaxSubmitJobs, a TA with no room
# left is told so before anything is submitted, and tasks cancelled before
# they started are named from sacct. Emulated on the CPU (make check).
# Skips, saying why, where Slurm or its accounting cannot start.
. "$(dirname "$0")/lib.sh"
cpu_only
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"
cd "$T_TMP" || exit 1
slurm_cluster_up --fake-gpus 1 --accounting

mkdir class
for s in ada bob cy dee eve fay gus; do
	cp -r "$T_ROOT/reference/grid" "class/$s" && rm -rf "class/$s/fixtures" "class/$s/corpus"
done
runs() { sqlite3 "$1" "SELECT count(*) FROM runs"; }
queued() { squeue -h -r -u root | wc -l; }
queued_is() { [ "$(queued)" = "$1" ]; }
# the file FILE has something in it, or process PID has ended
started_or_ended() { [ -s "$1" ] || ! kill -0 "$2" 2>/dev/null; }
# sacct names job JOB's tasks CANCELLED
cancelled_in_sacct() {
	sacct -X -n -P -j "$1" --format=JobID,State | grep -q "^${1}_\[.*|CANCELLED"
}

test_expect_success 'under a limit of 3 jobs, a class of 7 is graded in 3 tasks' '
	sacctmgr -i modify user root set MaxSubmitJobs=3 >/dev/null &&
	"$CUDALAB" slurm grid class/ --spool "$PWD/sp" --db c.db --emulate >out 2>err; rc=$?
	cat err && [ $rc = 4 ] &&
	grep -q "^slurm: 7 submissions are more than the 3 jobs Slurm takes from you now (its association.s MaxSubmitJobs): 3 a task" err &&
	[ "$(cut -d" " -f2,3 sp/jobs)" = "3 0-2" ] &&
	[ "$(runs c.db)" = 7 ]
'
test_expect_success 'with no room left, nothing is submitted, and the TA is told what to run later' '
	sbatch -Q --array=0-2 --wrap "sleep 300" &&
	wait_for 60 "3 jobs in the queue" queued_is 3 &&
	test_must_fail_with 2 "$CUDALAB" slurm grid class/ --spool "$PWD/full" --db f.db --emulate &&
	cat err &&
	grep -q "^error: Slurm takes no more jobs from you now (its association.s MaxSubmitJobs: your queued jobs use all of it): once some have ended, grade the spool with cudalab slurm grid --spool $PWD/full --resume" err &&
	[ ! -s full/jobs ] &&
	scancel --user=root && wait_for 60 "an empty queue" queued_is 0
'
test_expect_success 'tasks cancelled before they started are named from sacct' '
	sacctmgr -i modify user root set MaxSubmitJobs=-1 >/dev/null &&
	"$CUDALAB" slurm grid class/ --spool "$PWD/cx" --db x.db --emulate --throttle 1 \
		>out2 2>err2 &
	pid=$! &&
	wait_for 120 "the job number of the array" started_or_ended cx/jobs $pid &&
	job=$(cut -d" " -f1 cx/jobs) && scancel "$job" &&
	{ wait $pid; true; } &&
	# slurmdbd has them a moment later: then sacct gives those that never
	# started as one line ("12_[1-6%1]")
	wait_for 120 "sacct to name the cancelled tasks" cancelled_in_sacct "$job" &&
	"$CUDALAB" collect grid cx --db x.db >out3 2>err3; cat err3 &&
	[ "$(grep -c "^  [a-z]*: its task was cancelled (scancel) before it graded anything (CANCELLED" err3)" -ge 6 ] &&
	! grep -q "never started (cancelled while queued, or the array was not submitted)" err3
'
test_done
