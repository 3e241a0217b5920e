#!/usr/bin/env bash
# timing-probe.sh - runs a lab's timing driver directly on a submission, for
# choosing sizes and thresholds: prints each case's line and the wall time.
# usage: bench/timing-probe.sh LAB SUBDIR [driver args: --case PART:SIZE ...]
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
g++ -o "$tmp/bench" "$tmp"/*.o @"$build/labs/$lab/link-bench.rsp"
start=$(date +%s.%N)
rc=0
printf 'seed=%s\ntoken=probe\n' "${SEED:-$RANDOM$RANDOM}" |
	"$tmp/bench" --out "$tmp/out.jsonl" "$@" || rc=$?
end=$(date +%s.%N)
cat "$tmp/out.jsonl"
awk -v a="$start" -v b="$end" -v rc=$rc 'BEGIN { printf "exit %d, wall %.2f s\n", rc, b - a }'
