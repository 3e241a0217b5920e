#!/bin/bash
# Wall time of `make test LAB=... SUB=...` with a warm build, split into the
# build (nvcc, audit, link) and the tests, over N runs; prints each run (with
# where its tests' time went: phases.in_tests) and the medians. Usage: bench/make-test.sh [LAB] [SUB] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
lab=${1:-matmul} sub=${2:-reference/$lab} n=${3:-5}
make -s all
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$n"); do
	t0=$EPOCHREALTIME
	rc=0
	CUDALAB_DB=$tmp/g.db build/bin/cudalab test "$lab" --sub "$sub" -q --json "$tmp/r$i.json" \
		>"$tmp/out" 2>&1 || rc=$?
	t1=$EPOCHREALTIME
	# 0 or 1 is a grade; anything else (a bad folder, no GPU) is no timing of it
	if [ $rc -gt 1 ] || [ ! -s "$tmp/r$i.json" ]; then
		echo "make-test.sh: cudalab test $lab --sub $sub exited $rc: not a grading to time" >&2
		tail -n 5 "$tmp/out" >&2
		exit 1
	fi
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }' >"$tmp/wall$i"
	build=$(jq .build.seconds "$tmp/r$i.json")
	tests=$(jq '[.tests[] | select(.kind != "timing") | .seconds // 0] | add' "$tmp/r$i.json")
	timing=$(jq '.timing.seconds // 0' "$tmp/r$i.json")
	printf 'run %d: wall %s s, build %.3f s, tests %.3f s (sum of test times), timing %.3f s, exit %s\n' \
		"$i" "$(cat "$tmp/wall$i")" "$build" "$tests" "$timing" "$(jq .exit_code "$tmp/r$i.json")"
	# inside the tests, as the judge measured it (phases.in_tests)
	jq -r '.phases.in_tests | "  in the tests: setup \(.setup * 1000 | round) ms; over \(.counted) tests that passed, starting the program \(.start * 1000 | round) ms, launcher calls \(.calls * 1000 | round) ms, other requests \(.requests * 1000 | round) ms"' "$tmp/r$i.json"
	# the tests phase (wall), the safety stage's checks (beside the tests on a
	# GPU, after them emulated) and any wait for the GPU behind other gradings
	jq -r '"  tests phase \(.phases.tests * 1000 | round) ms, of it the safety stage \((.safety.seconds // 0) * 1000 | round) ms (\(.safety.status)); waiting for the GPU \(.phases.gpu_wait * 1000 | round) ms"' "$tmp/r$i.json"
	printf '%s %s %s %s %s\n' "$(cat "$tmp/wall$i")" "$build" "$timing" \
		"$(jq .phases.tests "$tmp/r$i.json")" "$(jq '.safety.seconds // 0' "$tmp/r$i.json")" >>"$tmp/all"
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
wall=$(cut -d' ' -f1 "$tmp/all" | median)
build=$(cut -d' ' -f2 "$tmp/all" | median)
timing=$(cut -d' ' -f3 "$tmp/all" | median)
tphase=$(cut -d' ' -f4 "$tmp/all" | median)
safety=$(cut -d' ' -f5 "$tmp/all" | median)
awk -v w="$wall" -v b="$build" -v t="$timing" -v n="$n" -v lab="$lab" -v subdir="$sub" \
	-v tp="$tphase" -v sf="$safety" 'BEGIN {
	printf "make test LAB=%s SUB=%s, median of %d: wall %.2f s = build %.2f s + timing %.2f s + tests and the rest %.2f s\n",
		lab, subdir, n, w, b, t, w - b - t
	printf "  medians: the tests phase %.2f s, the safety stage in it %.2f s\n", tp, sf }'
