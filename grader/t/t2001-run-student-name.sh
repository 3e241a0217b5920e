#!/bin/bash
# A student's name is one line of the test binary's input, beside the run's
# token: however long it is, the token arrives whole (a 190-character name
# once cut it, and the reference scored 0). The harness gets the name cut to
# 200 bytes (docs/student-guide.md, "Reading the results"), the same cut `cudalab
# questions` makes, so a long name's questions are the ones graded.
# beside-others: it times nothing, and grades only through cudalab
. "$(dirname "$0")/lib.sh"

# grade_occupancy DIR JSON [ARGS]: grades DIR as an occupancy submission (grade_fixture
# tells the lab from a path under reference/)
grade_occupancy() {
	local dir=$1 json=$2
	shift 2
	"$CUDALAB" grade occupancy "$dir" -q --json "$json" "$@" >"$json.txt" 2>&1
	echo $? >"$json.exit"
	validate_doc "$json"
}

name250=$(printf 'n%.0s' $(seq 250))
name4000=$(printf 'm%.0s' $(seq 4000))

test_expect_success 'matmul: the reference keeps every correctness test with a 250-character name' '
	grep -q "^emu_cxxflags" "$BUILD/toolchain.conf" || { say "no CPU emulator here"; exit 77; }
	grade_fixture "$T_ROOT/reference/matmul" r.json --student "$name250" &&
	[ "$(jq "[.tests[] | select(.kind == \"correctness\" and .status != \"pass\")] | length" r.json)" = 0 ] &&
	[ "$(jq -r .student r.json)" = "$name250" ] || { cat r.json.txt; false; }
'
test_expect_success 'matmul: ... and with a 4000-character name' '
	grep -q "^emu_cxxflags" "$BUILD/toolchain.conf" || { say "no CPU emulator here"; exit 77; }
	grade_fixture "$T_ROOT/reference/matmul" r.json --student "$name4000" &&
	[ "$(jq "[.tests[] | select(.kind == \"correctness\" and .status != \"pass\")] | length" r.json)" = 0 ] &&
	[ "$(jq -r .student r.json)" = "$name4000" ] || { cat r.json.txt; false; }
'
# the occupancy lab derives each student's questions from the name the
# harness gets: full marks only where it gets the name the key was made for
for n in 250 4000; do
	test_expect_success "occupancy: the key for a $n-character name gets full marks under it" '
		name=$(printf "o%.0s" $(seq '$n')) &&
		mkdir -p occ'$n' && cp "$T_ROOT/reference/occupancy/occupancy.cu" occ'$n'/ &&
		"$CUDALAB" questions occupancy --student "$name" --key >occ'$n'/answers.txt &&
		grep -qx "student = $(printf "o%.0s" $(seq 200))" occ'$n'/answers.txt &&
		"$CUDALAB" questions occupancy --student "$name" >sheet &&
		grep -q "^Occupancy questions for $(printf "o%.0s" $(seq 200))$" sheet &&
		grade_occupancy occ'$n' o.json --student "$name" &&
		[ "$(cat o.json.exit)" = 0 ] && [ "$(jq .score o.json)" = 16 ] || { cat o.json.txt; false; }
	'
done
test_expect_success 'occupancy: a name cut inside a character is cut before it, the same on both sides' '
	name="$(printf "p%.0s" $(seq 199))漢字" &&
	mkdir -p occ-cjk && cp "$T_ROOT/reference/occupancy/occupancy.cu" occ-cjk/ &&
	"$CUDALAB" questions occupancy --student "$name" --key >occ-cjk/answers.txt &&
	grep -qx "student = $(printf "p%.0s" $(seq 199))" occ-cjk/answers.txt &&
	grade_occupancy occ-cjk c.json --student "$name" &&
	[ "$(jq .score c.json)" = 16 ] && [ "$(jq -r .student c.json)" = "$name" ] || { cat c.json.txt; false; }
'
test_done
