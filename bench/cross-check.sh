#!/bin/bash
# Grades the reference, the stub and every fixture of a lab twice on a GPU
# machine, on the GPU and on the CPU emulator, and prints a table of each
# test's verdict in both modes. Exits 1 if any verdict differs.
# Usage: bench/cross-check.sh [LAB]
set -uo pipefail
cd "$(dirname "$0")/.."
lab=${1:-matmul}
make -s all
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CUDALAB_DB=$tmp/g.db
differ=0
printf '%-16s %-4s %-7s %-8s %-8s %s\n' submission part test gpu emulated same
for dir in reference/$lab student_template/$lab reference/$lab/fixtures/*/; do
	dir=${dir%/}
	name=$(basename "$dir")
	[ "$dir" = "student_template/$lab" ] && name=stub
	build/bin/cudalab grade "$lab" "$dir" --student x -q --json "$tmp/g.json" >/dev/null 2>&1
	build/bin/cudalab grade "$lab" "$dir" --student x -q --emulate --json "$tmp/e.json" >/dev/null 2>&1
	if [ "$(jq -r .build.status "$tmp/g.json")" != ok ]; then
		same=$([ "$(jq -r .build.status "$tmp/e.json")" = "$(jq -r .build.status "$tmp/g.json")" ] && echo yes || echo NO)
		[ "$same" = yes ] || differ=1
		printf '%-16s %-4s %-7s %-8s %-8s %s\n' "$name" - build "$(jq -r .build.status "$tmp/g.json")" \
			"$(jq -r .build.status "$tmp/e.json")" "$same"
		continue
	fi
	if [ "$(jq -r .mode "$tmp/g.json")" != gpu ]; then
		echo "$name: the GPU run did not run on a GPU ($(jq -r .status_reason "$tmp/g.json"))"
		exit 2
	fi
	paste <(jq -r '.tests[] | "\(.part) \(.name) \(.status)"' "$tmp/g.json") \
	      <(jq -r '.tests[] | .status' "$tmp/e.json") |
	while read -r part test g e; do
		same=$([ "$g" = "$e" ] && echo yes || echo NO)
		printf '%-16s %-4s %-7s %-8s %-8s %s\n' "$name" "$part" "$test" "$g" "$e" "$same"
	done
done | tee "$tmp/table"
grep -q ' NO$' "$tmp/table" && differ=1
echo "verdicts differing between the GPU and the emulator: $(grep -c ' NO$' "$tmp/table")"
exit $differ
