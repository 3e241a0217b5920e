#!/bin/bash
# The cluster path against the local batch, on this machine's GPUs: a class of
# N matmul submissions (bench/make-class.sh) graded by `cudalab grade` (the
# local batch) and by `cudalab slurm` on a single-node Slurm started here
# (grader/t/helpers/slurm-cluster.sh, the machine's GPUs as gres, each shared
# by S tasks through shards, or with GRES "none" through cudalab's GPU locks
# alone), into two gradebooks. Prints both wall times and
# rates, and every verdict that differs (build, and each test's status; a
# timing test's points may move with noise, its status too where it sits on
# a threshold: those are listed apart). Needs root.
# Usage: bench/slurm-class.sh [N] [S] [GRES] [GRADE OPTIONS...]   (GRES: shard:1)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-60} shards=${2:-16} gres=${3:-shard:1}
shift $(($# < 3 ? $# : 3))
make -s all
tmp=$(mktemp -d)
trap 'bash grader/t/helpers/slurm-cluster.sh down "$tmp/cluster" 2>/dev/null; rm -rf "$tmp"' EXIT
bench/make-class.sh "$n" "$tmp/class"
ngpu=$(ls /dev/nvidia[0-9]* 2>/dev/null | wc -l)
[ "$ngpu" -gt 0 ] || { echo "slurm-class: no GPU here (/dev/nvidia0...)" >&2; exit 1; }
bash grader/t/helpers/slurm-cluster.sh up "$tmp/cluster" --gpus "$ngpu" --shards "$shards"
. "$tmp/cluster/env"

wall() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
rate() { awk -v w="$1" -v n="$n" 'BEGIN { printf "%.1f", n / w * 60 }'; }

t0=$EPOCHREALTIME
build/bin/cudalab grade matmul "$tmp/class" --db "$tmp/local.db" "$@" >"$tmp/local.out" 2>"$tmp/local.err" || true
t1=$EPOCHREALTIME
local_wall=$(wall "$t0" "$t1")
echo "local batch: $n submissions in $local_wall s ($(rate "$local_wall") per minute)"
tail -n 4 "$tmp/local.out" | sed 's/^/  /'

t0=$EPOCHREALTIME
build/bin/cudalab slurm matmul "$tmp/class" --spool "$tmp/spool" --db "$tmp/slurm.db" \
	--gres "$gres" --throttle "$shards" "$@" >"$tmp/slurm.out" 2>"$tmp/slurm.err" || true
t1=$EPOCHREALTIME
slurm_wall=$(wall "$t0" "$t1")
echo "slurm, one node, $ngpu GPU(s), $shards tasks at once, --gres $gres: $n submissions in $slurm_wall s ($(rate "$slurm_wall") per minute)"
grep -q "^collected" "$tmp/slurm.err" || { echo "slurm-class: the array did not run:"; tail -n 20 "$tmp/slurm.err"; exit 1; }
grep -E "^slurm: job|collected|without a result" "$tmp/slurm.err" | sed 's/^/  /'
sinfo -h -o "  the node's gres: %G" || true
[ -z "${BENCH_OUT:-}" ] || cp "$tmp"/local.out "$tmp"/slurm.out "$tmp"/slurm.err "$BENCH_OUT/"

# every verdict, one line per student and test, from each gradebook
verdicts() {
	sqlite3 -separator ' ' "$1" "SELECT st.name, 'build', r.build FROM runs r
		JOIN submissions s ON s.id = r.submission_id JOIN students st ON st.id = s.student_id
		UNION ALL SELECT st.name, t.part || '/' || t.name || ':' || t.kind, t.status
		FROM test_results t JOIN runs r ON r.id = t.run_id
		JOIN submissions s ON s.id = r.submission_id JOIN students st ON st.id = s.student_id
		ORDER BY 1, 2"
}
verdicts "$tmp/local.db" >"$tmp/local.v"
verdicts "$tmp/slurm.db" >"$tmp/slurm.v"
echo "verdicts: $(wc -l <"$tmp/local.v") local, $(wc -l <"$tmp/slurm.v") on slurm"
diff "$tmp/local.v" "$tmp/slurm.v" | grep '^[<>]' >"$tmp/diff" || true
grep -v ':timing ' "$tmp/diff" | sed 's/^/  differs: /' || true
grep ':timing ' "$tmp/diff" | sed 's/^/  timing, noise or a threshold: /' || true
echo "correctness and build verdicts that differ: $(grep -vc ':timing ' "$tmp/diff" || true)"
