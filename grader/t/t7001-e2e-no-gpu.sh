#!/bin/bash
# make test LAB=matmul on a machine without a GPU (as in CI): the submission
# is built and audited and, with emulation off, no test runs: the run is
# incomplete, never a pass or a fail, and it is recorded as such.
. "$(dirname "$0")/lib.sh"
cpu_only
gpu_available && skip_all "a GPU is here"

test_expect_success 'make test LAB=matmul grades the stub: incomplete, exit 4' '
	make -s -C "$T_ROOT" test LAB=matmul >out 2>&1; [ $? -ne 0 ] &&
	grep -q "PROVISIONAL: emulated on the CPU" out && grep -q "build       ok" out &&
	grep -q "^make test: cudalab test exited 4 (incomplete: emulated, or some tests could not run; not a grade)" out &&
	# and the page of the run, named where it was written
	page=$(sed -n "s/^the run.s page: //p" out) && [ "$page" = "$BUILD/reports/matmul.html" ] &&
	grep -q "PROVISIONAL" "$page" && grep -q "<td>k5</td>" "$page"
'
test_expect_success 'make test SUB=dir: a page of its own, and the hint names the same folder' '
	make -s -C "$T_ROOT" test LAB=grid SUB="$T_ROOT/reference/grid" >out 2>&1; [ $? -ne 0 ] &&
	page=$(sed -n "s/^the run.s page: //p" out) &&
	[ "$page" = "$BUILD/reports/grid$(echo "$T_ROOT/reference/grid" | tr / -).html" ] &&
	grep -qF "test grid --sub $T_ROOT/reference/grid for the code itself" out
'
test_expect_success 'cudalab test exits 4 and writes an incomplete, provisional result' '
	"$CUDALAB" test matmul --sub "$T_ROOT/reference/matmul" --no-emulate --json r.json >out 2>&1
	[ $? -eq 4 ] && validate_doc r.json &&
	[ "$(jq -r .status r.json)" = incomplete ] && [ "$(jq .provisional r.json)" = true ] &&
	[ "$(jq -r .mode r.json)" = none ] &&
	[ "$(jq -r .gpu.name r.json)" = none ] && [ "$(jq -r .gpu.available r.json)" = false ] &&
	[ "$(jq -r .gpu.compute_capability r.json)" = none ] &&
	jq -r .status_reason r.json | grep -q "no CUDA device" &&
	# no driver at all is not a driver too old: said as such, with the runtime'"'"'s words
	jq -r .gpu.reason r.json >reason && cat reason &&
	if [ ! -e /dev/nvidiactl ] && grep -q cudaErrorInsufficientDriver reason; then
		grep -q "^no NVIDIA GPU or driver found on this machine (the CUDA runtime said: cudaErrorInsufficientDriver: " reason &&
		grep -q "^gpu         none: no NVIDIA GPU or driver found on this machine" out
	fi &&
	[ "$(jq "[.tests[] | select(.status == \"not-run\")] | length" r.json)" = 20 ] &&
	[ "$(jq .score r.json)" = 0 ] &&
	[ "$(jq -r .timing.ran r.json)" = false ] &&
	grep -q "^timing      not run: no CUDA device" out
'
test_expect_success 'the result names the files by hash' '
	[ "$(jq -r ".files[0].sha256" r.json)" = "$(sha256sum "$T_ROOT/reference/matmul/matmul.cu" | cut -d" " -f1)" ]
'
test_expect_success 'the incomplete run is in the gradebook as incomplete' '
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT status || \" \" || exit_code FROM runs ORDER BY id DESC LIMIT 1")" = "incomplete 4" ]
'
test_expect_success '--no-db records nothing' '
	n=$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs") &&
	"$CUDALAB" test matmul --no-db --no-emulate -q >/dev/null 2>&1;
	[ "$(sqlite3 "$CUDALAB_DB" "SELECT count(*) FROM runs")" = "$n" ]
'
test_expect_success 'a grading stopped by TERM or Ctrl-C removes its folders and stores nothing' '
	# a TMPDIR of its own, to see it left clean
	own=$(own_tmpdir own) || exit 1
	for sig in TERM INT; do
		TMPDIR=$own "$CUDALAB" grade grid "$T_ROOT/reference/grid/fixtures/sleeps-forever" \
			--student stopped --db stop.db >out 2>err & pid=$!
		# once its work folder is there, however fast the machine
		for _ in $(seq 600); do ls "$own" | grep -q "^cudalab-grid-" && break; sleep 0.1; done
		kill -$sig $pid; wait $pid; code=$?
		want=$((128 + $(kill -l $sig)))
		{ [ $code = $want ] &&
		  grep -q "^error: stopped by signal $(kill -l $sig) (.*) while grading .*: nothing stored" err &&
		  [ -z "$(ls "$own")" ]; } ||
			{ echo "$sig: exit $code, left: $(ls "$own")"; cat err; rm -rf "$own"; exit 1; }
	done
	rm -rf "$own"
	[ ! -f stop.db ] || [ "$(sqlite3 stop.db "SELECT count(*) FROM runs")" = 0 ]
'
test_done
