#!/bin/bash
# On a GPU: the device's ceilings (its copy bandwidth, the cuBLAS times) are
# measured once per GPU by the timer run alone (build/labs/<lab>/timer --device-only)
# and reused by the gradings after it (grader/grading/devcache.h); the result
# document says which, and when they were measured; the reused numbers are
# the ones a timing driver measures for itself, within noise, and every
# verdict stays. Not beside others: it compares measurements.
. "$(dirname "$0")/lib.sh"
require_gpu

export CUDALAB_LOCK_DIR=$T_TMP/locks
mkdir -p "$CUDALAB_LOCK_DIR"
ref=$T_ROOT/reference/matmul

# timed_ok JSON: every timed kernel of the reference passed, each ratio within 2 % of 1
timed_ok() {
	[ "$(jq "[.tests[] | select(.kind == \"timing\" and .status == \"pass\" and
		.timing.ratio > 0.98 and .timing.ratio < 1.02)] | length" "$1")" = 5 ] || {
		jq -c ".tests[] | select(.kind == \"timing\") | [.name, .status, .timing.ratio]" "$1"
		false; }
}

test_expect_success 'the first grading on the GPU measures them with the trusted driver, and caches them' '
	grade_fixture "$ref" a.json && [ "$(cat a.json.exit)" = 0 ] || { cat a.json.txt; exit 1; }
	[ "$(jq -r .sandbox.kind a.json)" = bubblewrap ] ||
		{ echo "unsandboxed here ($(jq -r .sandbox.reason a.json)): the cache is not used"; exit 77; }
	uuid=$(jq -r .gpu.uuid a.json) &&
	cache=$CUDALAB_LOCK_DIR/cudalab-gpu-$uuid.ceilings-matmul &&
	[ "$(jq -r ".timing | [.ceilings_from, .ceilings_cache, .ceilings_cache_note] | @tsv" a.json)" = \
		"measured	$cache	no entry for this GPU yet" ] &&
	[ -f "$cache" ] && [ "$(stat -c %a "$cache")" = 644 ] &&
	[ "$(jq .copy_gbs "$cache")" = "$(jq .timing.copy_gbs a.json)" ] &&
	[ "$(jq -r .uuid "$cache")" = "$uuid" ] &&
	[ "$(jq -r .driver "$cache")" = "$(jq -r .gpu.driver a.json)" ] &&
	jq -e "[.timing.ceilings[] | select(.size == 3072 and .gflops > 0)] | length == 1" a.json &&
	timed_ok a.json
'
test_expect_success 'the next reuses them, as measured then, and its kernels time as well' '
	grade_fixture "$ref" b.json && [ "$(cat b.json.exit)" = 0 ] || { cat b.json.txt; exit 1; }
	[ "$(jq -r .timing.ceilings_from b.json)" = cache ] &&
	[ "$(jq -r .timing.ceilings_cache_note b.json)" = null ] &&
	[ "$(jq -c ".timing | [.ceilings_measured_at, .copy_gbs, .ceilings]" b.json)" = \
		"$(jq -c ".timing | [.ceilings_measured_at, .copy_gbs, .ceilings]" a.json)" ] &&
	grep -q "^the GPU.s copy bandwidth and cuBLAS: measured at .*, reused from this node.s cache" \
		b.json.txt &&
	timed_ok b.json &&
	# said, not asserted: on an H100 the two take the same time (0.91 s, 0.90 s)
	echo "timing phase: $(jq .timing.seconds a.json) s measuring, $(jq .timing.seconds b.json) s reusing"
'
test_expect_success 'a timing driver that measures for itself finds the same numbers, within noise' '
	CUDALAB_NO_SANDBOX=1 grade_fixture "$ref" c.json &&
	[ "$(jq -r ".timing | [.ceilings_from, .ceilings_cache // \"none\"] | @tsv" c.json)" = "measured	none" ] &&
	jq -r .timing.ceilings_cache_note c.json | grep -q "unsandboxed" &&
	timed_ok c.json &&
	echo "copy $(jq .timing.copy_gbs a.json) cached, $(jq .timing.copy_gbs c.json) measured;" \
		"cuBLAS at 3072 $(jq "[.timing.ceilings[] | select(.size == 3072)][0].ms" a.json) ms cached," \
		"$(jq "[.timing.ceilings[] | select(.size == 3072)][0].ms" c.json) ms" &&
	jq -e --slurpfile a a.json "(.timing.copy_gbs / \$a[0].timing.copy_gbs - 1 | fabs) < 0.03 and
		([.timing.ceilings[] | select(.size == 3072)][0].ms /
		 [\$a[0].timing.ceilings[] | select(.size == 3072)][0].ms - 1 | fabs) < 0.05" c.json
'
test_expect_success 'an entry of another driver, or a file others may write, is measured again' '
	cache=$(jq -r .timing.ceilings_cache a.json) &&
	jq ".driver = \"1.2.3\" | .copy_gbs = 1" "$cache" >e && cp e "$cache" &&
	grade_fixture "$ref" d.json && timed_ok d.json &&
	[ "$(jq -r .timing.ceilings_from d.json)" = measured ] &&
	jq -r .timing.ceilings_cache_note d.json | grep -q "^the entry is of driver 1.2.3" &&
	[ "$(jq -r .driver "$cache")" = "$(jq -r .gpu.driver d.json)" ] &&
	chmod 666 "$cache" &&
	grade_fixture "$ref" e.json && timed_ok e.json &&
	[ "$(jq -r .timing.ceilings_from e.json)" = measured ] &&
	jq -r .timing.ceilings_cache_note e.json | grep -q "not trusted" &&
	[ "$(stat -c %a "$cache")" = 644 ]
'
test_done
