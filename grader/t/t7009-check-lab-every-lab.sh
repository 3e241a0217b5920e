#!/bin/bash
# Every lab is checked by cudalab check-lab: its reference, stub, fixtures
# and real-world corpus cases graded as a class and each held to its verdict
# (lib.sh's test_fixtures). A lab whose own test script does that (t3002,
# t3003, t3005, t7002-t7005) is checked there, beside its other tests; every
# other lab, as a new one is, here, so that a lab is tested without a script
# written for it. Under make check emulated; under make check-gpu on the GPU
# and emulated, the two compared (a lab whose tests need no GPU: under make
# check only). CHECK_LABS="LAB ..." checks only those of them (a GPU run
# that has time for one or two).
# long-running: a lab's cases as a class, some waiting out timeouts
# beside-others: its GPU work is cudalab gradings, under their GPU locks
. "$(dirname "$0")/lib.sh"

gpu_or_emulated

# checked_by LAB: the test script that checks LAB's cases in this mode, if any
# (one that calls test_fixtures LAB and runs in this mode: under make check
# one that does not need a GPU, under make check-gpu one that is not for the
# CPU only)
checked_by() {
	local f
	for f in "$T_ROOT"/grader/t/t[0-9]*.sh; do
		[ "$(basename "$f")" != "$T_NAME.sh" ] || continue
		grep -Eq "^test_fixtures $1( |\$)" "$f" || continue
		if [ "$mode" = gpu ]; then
			grep -q '^cpu_only' "$f" && continue
		else
			grep -q '^require_gpu' "$f" && continue
		fi
		basename "$f" .sh
		return 0
	done
	return 1
}

labs=() covered=()
for conf in "$T_ROOT"/labs/*/lab.conf; do
	lab=$(basename "$(dirname "$conf")")
	[ -d "$T_ROOT/reference/$lab" ] || continue
	[ -z "${CHECK_LABS:-}" ] || [[ " $CHECK_LABS " == *" $lab "* ]] || continue
	if [ "$mode" = gpu ] && grep -Eq '^needs_gpu *= *no' "$conf"; then
		covered+=("$lab (needs no GPU: make check)")
	elif by=$(checked_by "$lab"); then
		covered+=("$lab ($by)")
	else
		labs+=("$lab")
	fi
done
say "# checked by their own scripts: ${covered[*]:-none}"
[ ${#labs[@]} -gt 0 ] || skip_all "every lab is checked by a script of its own"

for lab in "${labs[@]}"; do
	if [ "$mode" = gpu ]; then
		test_fixtures "$lab" " (on the GPU and emulated)"
	else
		test_fixtures "$lab" " emulated" --emulate -j 2
	fi
done
test_done
