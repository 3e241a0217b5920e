#!/bin/bash
# Wall time of grading a class: N matmul submissions (every fixture of the
# lab once, the rest copies of the reference) graded by one
# `cudalab grade matmul CLASS` into a fresh gradebook, R times; prints each
# run's summary and the median rate. Usage: bench/batch-class.sh [N] [R] [GRADE OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-60} runs=${2:-3}
shift $(($# < 2 ? $# : 2))
make -s all
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bench/make-class.sh "$n" "$tmp/class"
for r in $(seq "$runs"); do
	rm -f "$tmp/g.db"
	t0=$EPOCHREALTIME
	CUDALAB_DB=$tmp/g.db build/bin/cudalab grade matmul "$tmp/class" "$@" >"$tmp/out$r" 2>"$tmp/err$r" || true
	t1=$EPOCHREALTIME
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	echo "run $r: $n submissions in $wall s ($(awk -v w="$wall" -v n="$n" 'BEGIN { printf "%.1f", n / w * 60 }') per minute)"
	tail -n 5 "$tmp/out$r" | sed 's/^/  /'
	[ -z "${BENCH_OUT:-}" ] || cp "$tmp/out$r" "$BENCH_OUT/batch-out$r.txt"
	echo "$wall" >>"$tmp/walls"
done
sort -n "$tmp/walls" | awk -v n="$n" '{ v[NR] = $1 } END {
	m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	printf "median of %d: %.2f s for %d submissions, %.1f per minute\n", NR, m, n, n / m * 60 }'
# the reference copies against themselves, graded side by side: each timed kernel's ratio
sqlite3 "$tmp/g.db" "SELECT 'reference copies, timing ratios: min ' || round(min(ratio), 4) || ', max ' || round(max(ratio), 4) || ' over ' || count(*) || ' kernels' FROM timings t JOIN runs r ON r.id = t.run_id JOIN submissions s ON s.id = r.submission_id JOIN students st ON st.id = s.student_id WHERE st.name LIKE '%-reference'"
