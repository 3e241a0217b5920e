#!/bin/bash
# Runs the end-to-end tests (grader/t/t*.sh) and prints one closing line.
#   run-tests.sh --cpu   what `make check` runs: GPU tests are skipped
#   run-tests.sh --gpu   what `make check-gpu` runs: only GPU tests; no GPU fails
#   run-tests.sh [--cpu|--gpu] tNNNN-...sh ...   just those
set -u
cd "$(dirname "$0")"
mode=cpu
case ${1:-} in --cpu) shift ;; --gpu) mode=gpu; shift ;; esac
export CUDALAB_TEST_MODE=$mode
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(t[0-9][0-9][0-9][0-9]-*.sh)
pass=0 fail=0 skip=0 failed=()
start=$(date +%s)
for t in "${tests[@]}"; do
	t=$(basename "$t")
	t0=$EPOCHREALTIME
	bash "$t"
	rc=$?
	awk -v a="$t0" -v b="$EPOCHREALTIME" -v t="$t" 'BEGIN { printf "# %s: %.1f s\n", t, b - a }'
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)); failed+=("$t") ;;
	esac
done
[ $fail -eq 0 ] || echo "failed: ${failed[*]}"
echo "# end-to-end tests ($mode) took $(($(date +%s) - start)) s"
echo "end-to-end: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
