#!/bin/bash
# On a GPU: the timing engine's own defences, on a driver whose "student" is
# trusted test code (labs/common/t/bench_selftest.cu): work left running on a
# stream of its own is still timed in full, and a launcher that stops
# computing is caught by the check of the timed output.
. "$(dirname "$0")/lib.sh"
require_gpu
SELFTEST=$BUILD/t/bench-selftest
[ -x "$SELFTEST" ] || { say "not ok - $SELFTEST is not built (make check-gpu builds it)"; exit 1; }

test_expect_success 'the engine measures a launcher against itself at a ratio of 1' '
	printf "seed=7\ntoken=t\n" | "$SELFTEST" --out o.jsonl --case same:4096 --case stream:4096 \
		--case stale:4096 >err 2>&1 &&
	[ "$(jq "select(.type == \"case\" and .kernel == \"same\") | .status == \"ok\" and
		.ratio > 0.97 and .ratio < 1.03" o.jsonl)" = true ] || { cat o.jsonl err; false; }
'
test_expect_success 'work left running on a non-blocking stream is timed in full' '
	[ "$(jq "select(.type == \"case\" and .kernel == \"stream\") | .status == \"ok\" and
		.ratio > 0.95 and .ratio < 1.05" o.jsonl)" = true ] || { cat o.jsonl; false; }
'
test_expect_success 'a launcher that stops computing after its first call is caught' '
	[ "$(jq "select(.type == \"case\" and .kernel == \"stale\") | .status == \"wrong\" and
		(.message | contains(\"timed call 1: out[0] = \")) and (.message | contains(\"nan\"))" o.jsonl)" = true ] ||
		{ cat o.jsonl; false; }
'
test_expect_success 'every line carries the token, and the driver says it is done' '
	[ "$(jq -r .token o.jsonl | sort -u)" = t ] &&
	[ "$(tail -n1 o.jsonl | jq -r .type)" = end ] &&
	[ "$(jq "select(.type == \"device\") | .l2_bytes > 0 and .flush_bytes >= 2 * .l2_bytes" \
		o.jsonl)" = true ]
'
test_done
