#!/bin/bash
# Intake refuses what a submission must not be, with a clear message and
# exit 3, and the refusal is recorded like any other run.
# beside-others: it times nothing, and grades only through cudalab
. "$(dirname "$0")/lib.sh"

refused() {  # refused DIR TEXT
	"$CUDALAB" grade matmul "$1" --student s -q --json r.json >out 2>&1
	[ $? -eq 3 ] && validate_doc r.json && [ "$(jq -r .build.status r.json)" = refused ] &&
		jq -r .build.message r.json | grep -qF "$2" && grep -qF "$2" out
}

test_expect_success 'a missing file' '
	mkdir empty && refused empty "missing file '\''matmul.cu'\''"
'
test_expect_success 'a symbolic link, even to a good file' '
	mkdir link && ln -s "$T_ROOT/reference/matmul/matmul.cu" link/matmul.cu &&
	refused link "is a symbolic link"
'
test_expect_success 'a file over the size limit' '
	mkdir big && head -c 300000 /dev/zero | tr "\0" "/" >big/matmul.cu &&
	refused big "over the size limit"
'
test_expect_success 'a directory where the file should be' '
	mkdir -p dir/matmul.cu && refused dir "not a regular file"
'
test_expect_success 'every refusal is in the gradebook' '
	[ "$("$CUDALAB" db show --student s | grep -c " refused ")" = 4 ] &&
	validate_doc --db "$CUDALAB_DB"
'
test_expect_success 'files the lab does not ask for, odd names included, are never read' '
	mkdir odd && cp "$T_ROOT/student_template/matmul/matmul.cu" odd/ &&
	: >"odd/matmul.cu
evil" && printf "\377\376" >"odd/$(printf "\377\376").cu" && ln -s /etc/passwd odd/passwd &&
	"$CUDALAB" grade matmul odd --student s --no-emulate -q --json o.json >/dev/null 2>&1
	validate_doc o.json && [ "$(jq -r .build.status o.json)" = ok ] &&
	[ "$(jq -r "[.files[].name] | join(\",\")" o.json)" = matmul.cu ]
'
test_expect_success 'a source that is not text, before nvcc sees it: file, offset and line' '
	mkdir bin && head -c 70000 /dev/zero >bin/matmul.cu &&
	refused bin "'\''matmul.cu'\'' is not a text file: a NUL byte at offset 0 (line 1)" &&
	[ "$(jq -r .build.log r.json)" = null ] && ! grep -q "U+0000" out &&
	mkdir utf16 && { printf "// k1\n\n"; printf "\0"; } >utf16/matmul.cu &&
	refused utf16 "a NUL byte at offset 7 (line 3); submit the source as text (ASCII or UTF-8"
'
test_expect_success 'compiler output cut at the limit says so' '
	mkdir warn && {
		cat "$T_ROOT/student_template/matmul/matmul.cu"
		for i in $(seq 1500); do echo "#warning this is warning number $i of many"; done
		echo "int broken = ;"
	} >warn/matmul.cu &&
	"$CUDALAB" grade matmul warn --student w -q --json w.json >out 2>&1; [ $? -eq 3 ] &&
	[ "$(jq -r .build.status w.json)" = compile-error ] &&
	note="bytes more, not shown: the first 65536 are kept (build_output_limit in lab.conf)" &&
	jq -j .build.log w.json | tail -n 1 | grep -q "^\[... nvcc printed [0-9]* $note" &&
	grep -q "^  \[... nvcc printed [0-9]* $note" out &&
	# within the limit, no note
	"$CUDALAB" grade matmul "$T_ROOT/reference/matmul/fixtures/no-compile" --student w -q \
		--json n.json >/dev/null 2>&1
	jq -r .build.log n.json | grep -q error && ! jq -r .build.log n.json | grep -q "bytes more"
'
test_done
