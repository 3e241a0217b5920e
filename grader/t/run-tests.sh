#!/bin/bash
# Runs the end-to-end tests (grader/t/t*.sh) and prints one closing line.
#   run-tests.sh --cpu   what `make check` runs: GPU tests are skipped
#   run-tests.sh --gpu   what `make check-gpu` runs: only GPU tests; no GPU fails
#   run-tests.sh [--cpu|--gpu] tNNNN-...sh ...   just those
# On a GPU, the scripts that say "# beside-others" in their first lines (they
# hold no timing to a tolerance, and every use they make of the GPU goes
# through cudalab's GPU locks) run side by side, first; the rest one after
# another. With several GPUs (cudalab gpus; CUDALAB_TEST_ONE_GPU=1: as
# on one), each script runs on one of them, its CUDA_VISIBLE_DEVICES:
# those side by side spread over them, the rest one on each GPU at once. On the CPU (--cpu), two scripts run at once (one on a machine of
# one CPU; CUDALAB_TEST_SCRIPTS=N, make check SCRIPTS=N: N), those that say
# "# long-running" in their first lines started first, so that none is left
# to run alone at the end. That is safe: an emulated test's time limit is
# kept by a clock that slows while it waits for a CPU (the grader's other
# limits, on builds and safety runs, are many times what they take on a
# busy machine), each script has its own folder and gradebooks, none
# rebuilds build/, and one that counts processes counts only its grading's
# (lib.sh, peak_processes). Each script's output is printed
# whole, in order, with its wall and CPU time.
set -u
cd "$(dirname "$0")"
mode=cpu
case ${1:-} in --cpu) shift ;; --gpu) mode=gpu; shift ;; esac
export CUDALAB_TEST_MODE=$mode
JOBS_GIVEN=${CUDALAB_TEST_JOBS:-}
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(t[0-9][0-9][0-9][0-9]-*.sh)
out=$(mktemp -d "${TMPDIR:-/tmp}/cudalab-run-tests.XXXXXX")
trap 'rm -rf "$out"' EXIT
pass=0 fail=0 skip=0 failed=()
start=$(date +%s)

# run SCRIPT: its output, then its wall and CPU time, into $out/SCRIPT; its
# exit code into $out/SCRIPT.rc, written last
run() {
	local t0=$EPOCHREALTIME rc
	bash "$1" >"$out/$1" 2>&1
	rc=$?
	# the second line of `times` (run here, not in a pipe's subshell): this
	# shell's children's user and system time
	times >"$out/$1.times"
	awk -v a="$t0" -v b="$EPOCHREALTIME" -v t="$1" 'NR == 2 {
		split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "# %s: %.1f s (CPU %.1f s)\n", t, b - a, u[1] * 60 + u[2] + s[1] * 60 + s[2] }' \
		"$out/$1.times" >>"$out/$1"
	echo $rc >"$out/$1.rc.tmp" && mv "$out/$1.rc.tmp" "$out/$1.rc"
}

# tally SCRIPT: prints what it said and counts how it ended
tally() {
	cat "$out/$1"
	case $(cat "$out/$1.rc") in
	0) pass=$((pass + 1)) ;;
	77) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)); failed+=("$1") ;;
	esac
}

beside=() alone=() long=() rest=()
for t in "${tests[@]}"; do
	t=$(basename "$t")
	if [ $mode = gpu ]; then
		if head -n 12 "$t" | grep -q '^# beside-others'; then
			beside+=("$t")
		else
			alone+=("$t")
		fi
	elif head -n 12 "$t" | grep -q '^# long-running'; then
		long+=("$t")
	else
		rest+=("$t")
	fi
done

if [ $mode = gpu ]; then
	# the GPUs a class here would use (cudalab gpus: CUDA_VISIBLE_DEVICES,
	# else the machine's); with more than one, the scripts spread over
	# them, each script's GPU its CUDA_VISIBLE_DEVICES
	gpus=()
	if [ -z "${CUDALAB_TEST_ONE_GPU:-}" ]; then
		mapfile -t gpus < <("${BUILD:-$(cd ../.. && pwd)/build}/bin/cudalab" gpus --json 2>/dev/null |
			jq -r '.gpus[] | select(.available) | .cuda_visible_devices' 2>/dev/null)
	fi
	[ ${#gpus[@]} -gt 1 ] || gpus=()
	# on GPU G (none: as it is) or on whichever is free
	on_gpu() { if [ -n "$1" ]; then CUDA_VISIBLE_DEVICES=$1 run "$2"; else run "$2"; fi; }
	# side by side, the scripts share the CPUs: each class of theirs grades
	# its share at once (CUDALAB_TEST_JOBS, make check-gpu JOBS=N, else
	# the CPUs over the scripts), not one grading per CPU each, which
	# buried a 16-CPU machine under 400 runnable threads
	if [ -z "${CUDALAB_TEST_JOBS:-}" ] && [ ${#beside[@]} -gt 1 ]; then
		cpus=$(nproc 2>/dev/null || echo 1)
		share=$((cpus / ${#beside[@]}))
		export CUDALAB_TEST_JOBS=$((share > 0 ? share : 1))
	fi
	i=0
	for t in "${beside[@]}"; do
		on_gpu "${gpus[$((i % (${#gpus[@]} > 0 ? ${#gpus[@]} : 1)))]:-}" "$t" &
		i=$((i + 1))
	done
	wait
	[ -n "${JOBS_GIVEN:-}" ] || unset CUDALAB_TEST_JOBS
	for t in "${beside[@]}"; do
		tally "$t"
	done
	# the rest one after another, on one GPU each: with several GPUs, one
	# script on each at once, each with its share of the CPUs
	if [ ${#gpus[@]} -gt 1 ]; then
		if [ -z "${CUDALAB_TEST_JOBS:-}" ]; then
			cpus=$(nproc 2>/dev/null || echo 1)
			share=$((cpus / ${#gpus[@]}))
			export CUDALAB_TEST_JOBS=$((share > 0 ? share : 1))
		fi
		declare -A busy=()   # GPU -> the script on it
		printed=0
		for t in "${alone[@]}"; do
			free=
			while [ -z "$free" ]; do
				for g in "${gpus[@]}"; do
					if [ -z "${busy[$g]:-}" ] || [ -f "$out/${busy[$g]}.rc" ]; then
						free=$g
						break
					fi
				done
				[ -n "$free" ] || wait -n
			done
			busy[$free]=$t
			on_gpu "$free" "$t" &
		done
		wait
		for t in "${alone[@]}"; do
			tally "$t"
		done
	else
		for t in "${alone[@]}"; do
			run "$t" &   # in a shell of its own, whose `times` are the script's
			wait
			tally "$t"
		done
	fi
else
	at_once=${CUDALAB_TEST_SCRIPTS:-}
	if [ -z "$at_once" ]; then
		at_once=$(nproc 2>/dev/null || echo 1)
		[ "$at_once" -le 2 ] || at_once=2
	fi
	[ "$at_once" -ge 1 ] 2>/dev/null || { echo "CUDALAB_TEST_SCRIPTS: not a number: $at_once" >&2; exit 2; }
	order=() printed=0 started=()
	for t in "${tests[@]}"; do order+=("$(basename "$t")"); done
	# running: how many of those started have not ended (written their .rc)
	running() {
		local t n=0
		for t in "${started[@]}"; do [ -f "$out/$t.rc" ] || n=$((n + 1)); done
		echo $n
	}
	for t in "${long[@]}" "${rest[@]}"; do
		while [ "$(running)" -ge "$at_once" ]; do
			wait -n
		done
		run "$t" &
		started+=("$t")
		# print, in order, those that have ended
		while [ $printed -lt ${#order[@]} ] && [ -f "$out/${order[$printed]}.rc" ]; do
			tally "${order[$printed]}"
			printed=$((printed + 1))
		done
	done
	wait
	while [ $printed -lt ${#order[@]} ]; do
		tally "${order[$printed]}"
		printed=$((printed + 1))
	done
fi
[ $fail -eq 0 ] || echo "failed: ${failed[*]}"
echo "# end-to-end tests ($mode) took $(($(date +%s) - start)) s"
echo "end-to-end: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
