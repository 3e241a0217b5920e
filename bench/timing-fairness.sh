#!/usr/bin/env bash
# timing-fairness.sh - grades one submission (the reference by default) RUNS
# times on this machine's GPU and prints, per timed kernel, the spread of its
# ratio to the reference, the points it lost, and the wall time of the timing
# phase. The reference against itself must never lose timing points.
# usage: bench/timing-fairness.sh [RUNS] [LAB] [SUBMISSION]
# With KEEP=DIR, each run's result document and the timer's lines (every
# sample, in "raw_ms") are kept in DIR as rN.json and rN-timing-M.jsonl.
set -euo pipefail
runs=${1:-20} lab=${2:-matmul}
root=$(cd "$(dirname "$0")/.." && pwd)
sub=${3:-$root/reference/$lab}
cudalab=${BUILD:-$root/build}/bin/cudalab
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 711 "$tmp"   # the sandbox's user enters the work folders below it

for i in $(seq "$runs"); do
	rc=0
	mkdir -p -m 711 "$tmp/w$i"
	TMPDIR=$tmp/w$i "$cudalab" grade "$lab" "$sub" --student "fairness-$i" -q \
		--json "$tmp/r$i.json" --db "$tmp/gradebook.db" ${KEEP:+--keep} \
		>"$tmp/r$i.txt" 2>&1 || rc=$?
	if [ -n "${KEEP:-}" ]; then
		mkdir -p "$KEEP"
		cp "$tmp/r$i.json" "$KEEP/"
		find "$tmp/w$i" -name 'timing-*.jsonl' | while read -r f; do
			cp "$f" "$KEEP/r$i-$(basename "$f")"
		done
	fi
	rm -rf "$tmp/w$i"
	printf 'run %2d: exit %d, %.2f s in all, timing %.2f s\n' "$i" "$rc" \
		"$(jq .seconds "$tmp/r$i.json")" "$(jq .timing.seconds "$tmp/r$i.json")"
done
jq -s -r '
	def median: sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def f(n): . * pow(10; n) | round / pow(10; n);
	[.[].tests[] | select(.kind == "timing")] | group_by(.part + .name)[] |
	(map(.timing.ratio // empty)) as $r |
	"\(.[0].part) \(.[0].name): ratio min \($r | min | f(4)) median \($r | median | f(4)) " +
	"max \($r | max | f(4)), max |ratio - 1| \($r | map(. - 1 | fabs) | max * 100 | f(2)) %, " +
	"samples median \(map(.timing.samples // 0) | median), points lost in " +
	"\(map(select(.points < .max_points)) | length) of \(length) runs, " +
	"student median \(map(.timing.student_ms // 0) | median | f(3)) ms"' "$tmp"/r*.json
jq -s -r '
	def median: sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	"all kernels: max |ratio - 1| \([.[].tests[] | select(.kind == "timing") |
		.timing.ratio - 1 | fabs] | max * 100 | . * 100 | round / 100) %; " +
	"timing phase median \(map(.timing.seconds) | median * 100 | round / 100) s, " +
	"whole grading median \(map(.seconds) | median * 100 | round / 100) s; " +
	"exit codes \(map(.exit_code) | unique)"' "$tmp"/r*.json
