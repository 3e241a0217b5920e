#!/usr/bin/env bash
# check-parts.sh - make check's driver: runs each part (a make target) to
# the end whatever the others did, and closes with every part's counts.
# usage: grader/t/check-parts.sh BUILD PART...   (MAKE: the make to run)
# Exit: 0 when every part passed, else 1.
set -u
build=$1
shift
make=${MAKE:-make}
mkdir -p "$build"
failed=() summary=()
for part in "$@"; do
	log=$build/$part.log
	start=$(date +%s)
	# the part's own output as it comes, and a copy to read its counts from
	{ "$make" --no-print-directory "$part"; echo $? >"$log.status"; } 2>&1 | tee "$log"
	status=$(cat "$log.status" 2>/dev/null || echo 1)
	rm -f "$log.status"
	# a part's counts: Check's last "Checks:" line, or the end-to-end line
	counts=$(grep -E '^[0-9]+%: Checks: |^end-to-end: |skipped: ' "$log" | tail -n 1)
	[ -n "$counts" ] || counts="no counts (see $log)"
	word=passed
	if [ "$status" != 0 ]; then
		word="FAILED (exit $status)"
		failed+=("$part")
	fi
	summary+=("$(printf '%-12s %s in %d s: %s' "$part" "$word" $(( $(date +%s) - start )) "$counts")")
done
echo
echo "make check:"
printf '  %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
	echo "make check: failed: ${failed[*]}"
	exit 1
fi
echo "make check: every part passed"
