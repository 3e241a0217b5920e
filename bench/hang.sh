#!/bin/bash
# What a kernel that never ends costs one grading: wall time of
# `cudalab test matmul` on the hang fixture (kernel 2 never ends) and on a
# submission whose five kernels all never end, N runs each, with each
# part's time limit and the medians. On a GPU where there is one, else
# emulated (or with --emulate). The rule this measures: once a test of a
# part runs out of time, the part's tests not yet started are not run
# (docs/how-grading-works.md), and the parts are taken in turn.
# Usage: bench/hang.sh [--emulate] [N]   (default N: 3)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=()
case ${1:-} in --emulate) mode=(--emulate); shift ;; -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
n=${1:-3}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "hang.sh: N must be a positive number, not '$n'" >&2; exit 2; }
make -s all
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# every launcher launches a kernel whose loop counter never advances
mkdir "$tmp/every"
{
	echo '#include "matmul.h"'
	echo '__global__ void spin(const float *A, const float *B, float *C, int N)'
	echo '{ float s = 0.0f; for (int k = 0; k < N; k += (s > 1e30f)) s += A[k] * B[k]; C[threadIdx.x % N] = s; }'
	for k in 1 2 3 4 5; do
		echo "void matmul_k$k(const float *A, const float *B, float *C, int N) { spin<<<1, 32>>>(A, B, C, N); }"
	done
} >"$tmp/every/matmul.cu"
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for sub in reference/matmul/fixtures/hang "$tmp/every"; do
	name=$([ "$sub" = "$tmp/every" ] && echo "every kernel never ends" || echo "$sub")
	: >"$tmp/walls"
	for i in $(seq "$n"); do
		t0=$EPOCHREALTIME
		rc=0
		CUDALAB_DB=$tmp/g.db build/bin/cudalab test matmul --sub "$sub" ${mode[@]+"${mode[@]}"} -q \
			--json "$tmp/r.json" >"$tmp/out" 2>&1 || rc=$?
		wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
		if [ $rc -gt 1 ] && [ $rc -ne 4 ] || [ ! -s "$tmp/r.json" ]; then
			echo "hang.sh: cudalab test matmul --sub $sub exited $rc: not a grading to time" >&2
			tail -n 5 "$tmp/out" >&2
			exit 1
		fi
		echo "$wall" >>"$tmp/walls"
		jq -r --arg wall "$wall" --arg i "$i" '"\($name) run \($i): \($wall) s, \(.mode); " +
			([.tests[] | select(.kind == "correctness" and .status == "timeout")] |
			 "\(map(select(.message | startswith("not run:") | not)) | length) ran out of time, \(map(select(.message | startswith("not run:"))) | length) not run after one")' \
			--arg name "$name" "$tmp/r.json"
	done
	echo "$name: median of $n: $(median <"$tmp/walls") s"
done
jq -r '"part time limits: " + ([.tests[] | select(.kind == "correctness" and .status == "timeout" and (.message | startswith("did not finish"))) | .message | split("\n")[0]] | unique | join("; "))' "$tmp/r.json"
