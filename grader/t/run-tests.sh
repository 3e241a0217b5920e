#!/bin/bash
# Runs the end-to-end tests (grader/t/t*.sh) and prints one closing line.
#   run-tests.sh --cpu   what `make check` runs: GPU tests are skipped
#   run-tests.sh --gpu   what `make check-gpu` runs: only GPU tests; no GPU fails
#   run-tests.sh [--cpu|--gpu] tNNNN-...sh ...   just those
# On a GPU, the scripts that say "# beside-others" in their first lines (they
# hold no timing to a tolerance, and every use they make of the GPU goes
# through cudalab's GPU locks) run side by side, first; the rest one after
# another. Each script's output is printed whole, in order.
set -u
cd "$(dirname "$0")"
mode=cpu
case ${1:-} in --cpu) shift ;; --gpu) mode=gpu; shift ;; esac
export CUDALAB_TEST_MODE=$mode
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(t[0-9][0-9][0-9][0-9]-*.sh)
out=$(mktemp -d "${TMPDIR:-/tmp}/cudalab-run-tests.XXXXXX")
trap 'rm -rf "$out"' EXIT
pass=0 fail=0 skip=0 failed=()
start=$(date +%s)

# run SCRIPT: its output, then its wall time, into $out/SCRIPT; its exit code into $out/SCRIPT.rc
run() {
	local t0=$EPOCHREALTIME
	bash "$1" >"$out/$1" 2>&1
	echo $? >"$out/$1.rc"
	awk -v a="$t0" -v b="$EPOCHREALTIME" -v t="$1" 'BEGIN { printf "# %s: %.1f s\n", t, b - a }' \
		>>"$out/$1"
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

beside=() alone=()
for t in "${tests[@]}"; do
	t=$(basename "$t")
	if [ $mode = gpu ] && head -n 12 "$t" | grep -q '^# beside-others'; then
		beside+=("$t")
	else
		alone+=("$t")
	fi
done
for t in "${beside[@]}"; do
	run "$t" &
done
wait
for t in "${beside[@]}"; do
	tally "$t"
done
for t in "${alone[@]}"; do
	run "$t"
	tally "$t"
done
[ $fail -eq 0 ] || echo "failed: ${failed[*]}"
echo "# end-to-end tests ($mode) took $(($(date +%s) - start)) s"
echo "end-to-end: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
