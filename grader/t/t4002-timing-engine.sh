#!/bin/bash
# On a GPU: the timer's own defences, on a timer whose "submission" is
# trusted test code (labs/common/t/bench_selftest.cu, served by
# selftest_runner.cu in a runner of its own): work left running on a stream
# of its own is still timed in full, a launcher that stops computing is
# caught by the check of the timed output, and one that keeps the GPU busy
# between its calls is found by the guard, and one whose calls never return
# costs its case its limit, not the timer's (or a second, once past hope),
# and one that stops its own program between calls is ended at the next
# request it does not answer, with no kernel after it timed.
. "$(dirname "$0")/lib.sh"
require_gpu
SELFTEST=$BUILD/t/bench-selftest
RUNNER=$BUILD/t/selftest-runner
for f in "$SELFTEST" "$RUNNER"; do
	[ -x "$f" ] || { say "not ok - $f is not built (make check-gpu builds it)"; exit 1; }
done

test_expect_success 'the engine measures a launcher against itself at a ratio of 1' '
	printf "argv\0%s\0" "$RUNNER" >runner.recipe &&
	printf "seed=7\ntoken=t\n" | "$SELFTEST" --out o.jsonl --runner runner.recipe \
		--reference runner.recipe --case same:65536 --case stream:65536 \
		--case stale:65536 --case busy:65536 >err 2>&1 &&
	[ "$(jq "select(.type == \"case\" and .kernel == \"same\") | .status == \"ok\" and
		.ratio > 0.97 and .ratio < 1.03" o.jsonl)" = true ] || { cat o.jsonl err; false; }
'
test_expect_success 'work left running on a non-blocking stream is timed in full' '
	[ "$(jq "select(.type == \"case\" and .kernel == \"stream\") | .status == \"ok\" and
		.ratio > 0.95 and .ratio < 1.05" o.jsonl)" = true ] || { cat o.jsonl; false; }
'
test_expect_success 'a launcher that stops computing after its first call is caught' '
	[ "$(jq "select(.type == \"case\" and .kernel == \"stale\") | .status == \"wrong\" and
		(.message | contains(\"out[0] = \")) and (.message | contains(\"nan\"))" o.jsonl)" = true ] ||
		{ cat o.jsonl; false; }
'
test_expect_success 'a launcher whose thread keeps the GPU busy between calls is found disturbed' '
	[ "$(jq "select(.type == \"case\" and .kernel == \"busy\") | .status == \"disturbed\" and
		.reference_again_ms < .reference.median_ms" o.jsonl)" = true ] || { cat o.jsonl; false; }
'
test_expect_success 'an empty call is measured on the reference alone, and taken off both sides' '
	[ "$(jq "select(.type == \"case\" and .kernel == \"same\") | .empty_call_ms.reference > 0 and
		.empty_call_ms.student < 0.5 and .reference_alone.median_ms > 0" o.jsonl)" = true ] ||
		{ cat o.jsonl; false; }
'
test_expect_success 'a launcher whose call never returns ends its case at its limit, runner ended' '
	printf "seed=7\ntoken=t\n" | "$SELFTEST" --out h.jsonl --runner runner.recipe \
		--reference runner.recipe --case hang:65536 --case same:65536 --case-limit 4 \
		>herr 2>&1; echo $? >hrc &&
	[ "$(cat hrc)" = 4 ] &&
	[ "$(jq "select(.type == \"case\" and .kernel == \"hang\") | .status == \"timeout\" and
		(.message | contains(\"not done within the 4 s\")) and .seconds < 30" h.jsonl)" = true ] &&
	! jq -e "select(.type == \"case\" and .kernel == \"same\")" h.jsonl >/dev/null ||
		{ cat hrc h.jsonl herr; false; }
'
test_expect_success 'with --give-up, such a call ends once past hope, at a second' '
	printf "seed=7\ntoken=t\n" | "$SELFTEST" --out g.jsonl --runner runner.recipe \
		--reference runner.recipe --case hang:65536 --case-limit 20 --give-up 10 \
		>gerr 2>&1; echo $? >grc &&
	[ "$(cat grc)" = 4 ] &&
	[ "$(jq "select(.type == \"case\" and .kernel == \"hang\") | .status == \"slow\" and
		(.message | contains(\"not done after 1 s, more than 10 times\")) and .seconds < 20" \
		g.jsonl)" = true ] || { cat grc g.jsonl gerr; false; }
'
test_expect_success 'a program that stops itself after a call is ended at its next empty call, and nothing after it is timed' '
	printf "seed=7\ntoken=t\n" | "$SELFTEST" --out s.jsonl --runner runner.recipe \
		--reference runner.recipe --case stop:4194304 --case same:4096 --case-limit 20 \
		>serr 2>&1; echo $? >src &&
	[ "$(cat src)" = 0 ] &&
	[ "$(jq -s "[.[] | select(.type == \"case\")] | length == 2 and all(.status == \"disturbed\"
		and (.message | contains(\"did not answer an empty call\")) and .samples == 0)
		and .[0].seconds < 10" s.jsonl)" = true ] || { cat src s.jsonl serr; false; }
'
test_expect_success 'every line carries the token, and the timer says it is done' '
	[ "$(jq -r .token o.jsonl | sort -u)" = t ] &&
	[ "$(tail -n1 o.jsonl | jq -r .type)" = end ] &&
	[ "$(jq "select(.type == \"device\") | .l2_bytes > 0 and .flush_bytes >= 2 * .l2_bytes" \
		o.jsonl)" = true ]
'
test_done
