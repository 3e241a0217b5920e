#!/usr/bin/env bash
# timing-probe.sh - runs a lab's timer directly on a submission, for choosing
# sizes and thresholds: the submission linked as a runner (unsandboxed: your
# own code only), against the lab's reference runner; prints each case's
# line and the wall time.
# usage: bench/timing-probe.sh LAB SUBDIR [timer args: --case PART:SIZE ...]
# RUNS=N runs the timer N times (a new seed each), SEED=N fixes the first seed.
set -euo pipefail
lab=$1 sub=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
nvcc=$(sed -n 's/^nvcc = //p' "$build/toolchain.conf")
flags=$(sed -n 's/^nvcc_flags = //p' "$build/toolchain.conf")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$sub"/*.cu; do
	# shellcheck disable=SC2086
	"$nvcc" $flags -arch=native -I"$root/labs/$lab" -c "$f" -o "$tmp/$(basename "$f").o"
done
g++ -o "$tmp/runner" "$tmp"/*.o @"$build/labs/$lab/link.rsp"
printf 'argv\0%s\0' "$tmp/runner" >"$tmp/runner.recipe"
printf 'argv\0%s\0' "$build/labs/$lab/runner-ref" >"$tmp/reference.recipe"
seed=${SEED:-$RANDOM$RANDOM}
for run in $(seq "${RUNS:-1}"); do
	start=$(date +%s.%N)
	rc=0
	printf 'seed=%s\ntoken=probe\n' "$((seed + run - 1))" |
		"$build/labs/$lab/timer" --out "$tmp/out.jsonl" --runner "$tmp/runner.recipe" \
			--reference "$tmp/reference.recipe" "$@" || rc=$?
	end=$(date +%s.%N)
	cat "$tmp/out.jsonl"
	awk -v a="$start" -v b="$end" -v rc=$rc 'BEGIN { printf "exit %d, wall %.2f s\n", rc, b - a }'
done
