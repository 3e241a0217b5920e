#!/usr/bin/env bash
# contexts.sh - what starting CUDA programs costs on this machine, alone and
# many at once: the grader's GPU probe (a program that makes one CUDA context
# and reads the GPU), N at once on one GPU and spread over every GPU, and N
# nvcc builds of the matmul reference at once. A class's gradings start
# many such programs each (the probe, the tests, compute-sanitizer's tools,
# the timing phase), so where the driver makes contexts one at a time for
# the whole machine, more GPUs do not make a class faster.
# usage: bench/contexts.sh [N]   (default N: the number of CPUs)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
probe=$(sed -n 's/^probe = //p' "$build/toolchain.conf")
nvcc=$(sed -n 's/^nvcc = //p' "$build/toolchain.conf")
flags=$(sed -n 's/^nvcc_flags = //p' "$build/toolchain.conf")
n=${1:-$(nproc)}
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "$gpus" -gt 0 ] || { echo "contexts.sh: no GPU here (nvidia-smi lists none)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

seconds() { # seconds COMMAND...: the wall time of the command, which must succeed
	local t0=$EPOCHREALTIME
	"$@"
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'
}
probes() { # probes COUNT OVER: COUNT probes at once, on GPUs 0 .. OVER-1 in turn
	local i pids=()
	for ((i = 0; i < $1; i++)); do
		CUDA_VISIBLE_DEVICES=$((i % $2)) "$probe" >"$tmp/probe$i" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i"; done
	local bad
	bad=$(grep -L '^available=1' "$tmp"/probe* | head -1)
	if [ -n "$bad" ]; then
		echo "contexts.sh: a probe found no GPU: $(cat "$bad")" >&2
		exit 1
	fi
	rm -f "$tmp"/probe*
}
builds() { # builds COUNT: COUNT nvcc builds of the matmul reference at once
	local i pids=()
	for ((i = 0; i < $1; i++)); do
		# shellcheck disable=SC2086
		"$nvcc" $flags -arch=native -I"$root/labs/matmul" -I"$root/labs/common" \
			-c "$root/reference/matmul/matmul.cu" -o "$tmp/m$i.o" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i"; done
}

echo "$(nvidia-smi -L | head -1 | sed 's/ (UUID.*//'), $gpus GPUs, $(nproc) CPUs"
probes 1 1 # the driver's first start on this machine is not counted
one=$(seconds probes 1 1)
same=$(seconds probes "$n" 1)
spread=$(seconds probes "$n" "$gpus")
build=$(seconds builds 1)
builds=$(seconds builds "$n")
echo "one probe: $one s"
echo "$n probes at once, one GPU: $same s"
echo "$n probes at once, over $gpus GPUs: $spread s"
echo "one nvcc build: $build s"
echo "$n nvcc builds at once: $builds s"
