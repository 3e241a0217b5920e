#!/bin/bash
# cudalab gpus: the GPUs a class here uses, what the probe reads of each, the
# key of its locks and who holds them; and a class in a Slurm job without a
# GPU, which emulates and says why. Slurm is only its environment here: the
# variables a job's tasks see (grader/t/unit/check_gpulock.c has the keys).
# beside-others: it times nothing, and grades only through cudalab
. "$(dirname "$0")/lib.sh"

# a GPU index no machine has: the probe finds none, on any machine
NO_SUCH=99
unset SLURM_JOB_ID SLURM_STEP_GPUS SLURM_JOB_GPUS
export CUDALAB_LOCK_DIR=$T_TMP/locks
mkdir -p "$CUDALAB_LOCK_DIR"
host=$(hostname)

test_expect_success 'without a GPU it says so, and why, and exits 0' '
	CUDA_VISIBLE_DEVICES= "$CUDALAB" gpus >out 2>err &&
	grep -qx "no GPU here: CUDA_VISIBLE_DEVICES names no GPU; a class graded here runs emulated on the CPU" out &&
	(export SLURM_JOB_ID=4242; unset CUDA_VISIBLE_DEVICES; "$CUDALAB" gpus >out 2>err &&
		grep -q "^no GPU here: Slurm job 4242 was given no GPU (CUDA_VISIBLE_DEVICES unset)" out &&
		"$CUDALAB" gpus --json >doc.json) &&
	[ "$(jq -r .no_gpu doc.json)" = "Slurm job 4242 was given no GPU (CUDA_VISIBLE_DEVICES unset)" ] &&
	[ "$(jq -r ".gpus | length" doc.json)" = 0 ] && [ "$(jq -r .slurm_job doc.json)" = 4242 ]
'
test_expect_success 'a GPU that does not answer: why, and the key of its locks' '
	CUDA_VISIBLE_DEVICES=$NO_SUCH "$CUDALAB" gpus >out &&
	[ "$(wc -l <out)" = 1 ] &&
	grep -q "^$NO_SUCH: no GPU answered: " out &&
	grep -qF "; lock key $NO_SUCH; lock files $CUDALAB_LOCK_DIR/cudalab-gpu-$NO_SUCH.{lock,turnstile,slot0-3}: free" out &&
	CUDA_VISIBLE_DEVICES=$NO_SUCH "$CUDALAB" gpus --json --slots 2 >doc.json &&
	[ "$(jq -r ".gpus[0] | [.cuda_visible_devices, .available, .uuid, .lock_key] | @tsv" doc.json)" = \
		"$NO_SUCH	false		$NO_SUCH" ] &&
	[ "$(jq -r ".gpus[0].reason | length > 0" doc.json)" = true ] &&
	[ "$(jq -r ".gpus[0].lock_files[]" doc.json)" = "$(printf "%s\n" \
		"$CUDALAB_LOCK_DIR/cudalab-gpu-$NO_SUCH.lock" "$CUDALAB_LOCK_DIR/cudalab-gpu-$NO_SUCH.turnstile" \
		"$CUDALAB_LOCK_DIR/cudalab-gpu-$NO_SUCH.slot0" "$CUDALAB_LOCK_DIR/cudalab-gpu-$NO_SUCH.slot1")" ]
'
# key JOB_GPUS: the lock key `cudalab gpus` gives in an array task that Slurm
# gave the node's GPU JOB_GPUS, seen as CUDA_VISIBLE_DEVICES=$NO_SUCH (its "0")
key() {
	SLURM_JOB_ID=$RANDOM SLURM_JOB_GPUS=$1 CUDA_VISIBLE_DEVICES=$NO_SUCH "$CUDALAB" gpus --json |
		jq -r ".gpus[0].lock_key"
}
test_expect_success 'two Slurm tasks on two GPUs of a node: two keys; on one GPU: one' '
	a=$(key 0) && b=$(key 1) && c=$(key 1) &&
	[ "$a" = "$host-gpu0" ] && [ "$b" = "$host-gpu1" ] && [ "$c" = "$b" ] &&
	# a step'\''s GPUs (srun) before the job'\''s
	[ "$(SLURM_STEP_GPUS=3 key 1)" = "$host-gpu3" ]
'
# state_becomes TEXT: `cudalab gpus` on the key-1 GPU ends with TEXT within 30 s
# (the holders below start in the background)
state_becomes() {
	for _ in $(seq 60); do
		SLURM_JOB_ID=1 SLURM_JOB_GPUS=1 CUDA_VISIBLE_DEVICES=$NO_SUCH "$CUDALAB" gpus >out &&
			grep -q ": $1\$" out && return 0
		sleep 0.5
	done
	say "expected the state '$1':"; cat out; return 1
}
# hold MODE FILE: a process that holds the flock of FILE (-s shared, -x alone)
# for a minute at most; its pid is added to $holders (to end it: kill)
holders=
hold() {
	(exec 9<"$2" && flock "$1" 9 && exec sleep 60) &
	holders="$holders $!"
}
test_expect_success 'who holds the locks: the tests of gradings, the slots, who waits, a timing phase' '
	f=$CUDALAB_LOCK_DIR/cudalab-gpu-$(key 1) && touch "$f.lock" "$f.slot0" &&
	hold -s "$f.lock" && hold -s "$f.lock" && hold -x "$f.slot0" &&
	state_becomes "the tests of 2 gradings; 1 of 4 slots taken" &&
	{ flock "$f.lock" true & } &&
	state_becomes "the tests of 2 gradings; 1 of 4 slots taken; 1 waiting" &&
	kill $holders && wait && holders= &&
	state_becomes free &&
	hold -x "$f.lock" &&
	state_becomes "a timing or profile phase has it alone (pid [0-9]*)" &&
	SLURM_JOB_ID=1 SLURM_JOB_GPUS=1 CUDA_VISIBLE_DEVICES=$NO_SUCH "$CUDALAB" gpus --json >doc.json &&
	[ "$(jq -r ".gpus[0].locks | [.alone, .alone_pid > 0, .tests, .waiting] | @tsv" doc.json)" = \
		"true	true	0	0" ]
	ok=$?
	kill $holders 2>/dev/null
	wait
	exit $ok
'
test_expect_success 'a class in a Slurm job without a GPU emulates, and its first line says why' '
	f=$T_ROOT/reference/matmul/fixtures/no-compile &&
	mkdir -p class && cp -r "$f" class/ada && cp -r "$f" class/bob &&
	(export SLURM_JOB_ID=4242; unset CUDA_VISIBLE_DEVICES
	 "$CUDALAB" grade matmul class -j 2 --db g.db >out 2>err) ;
	head -n 1 err | grep -q "^grading 2 submissions of matmul, 2 at once, emulated on the CPU: Slurm job 4242 was given no GPU (CUDA_VISIBLE_DEVICES unset); every run provisional" ||
		{ cat err; false; }
'
test_expect_success 'on a GPU: its UUID, as nvidia-smi writes it, is its lock key in any Slurm task' '
	[ "${CUDALAB_TEST_MODE:-cpu}" = gpu ] || { echo "needs a GPU (make check-gpu)"; exit 77; }
	CUDA_VISIBLE_DEVICES=0 "$CUDALAB" gpus --json >doc.json && cat doc.json &&
	uuid=$(jq -r ".gpus[0].uuid" doc.json) &&
	[[ $uuid =~ ^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$ ]] &&
	[ "$(jq -r ".gpus[0].lock_key" doc.json)" = "$uuid" ] &&
	for g in 0 1; do
		k=$(SLURM_JOB_ID=7 SLURM_JOB_GPUS=$g CUDA_VISIBLE_DEVICES=0 "$CUDALAB" gpus --json |
			jq -r ".gpus[0].lock_key") && [ "$k" = "$uuid" ] || exit 1
	done &&
	if command -v nvidia-smi >/dev/null; then
		nvidia-smi -L | grep -qF "(UUID: $uuid)" ||
			{ say "nvidia-smi -L does not list $uuid:"; nvidia-smi -L; false; }
	fi
'
test_done
