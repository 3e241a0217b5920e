#!/bin/bash
# The result document's schema (grader/cudalab-result-1.schema.json), which
# every test holds the documents it makes to (validate_doc): a document that
# breaks it is refused, with where and why, so the check can fail; and the
# result document's page (docs/result-document.md) lists every field the
# schema names, and no other.
# beside-others: it holds no timing to a tolerance, and grades only through cudalab
. "$(dirname "$0")/lib.sh"

# the reference, on the GPU where there is one, else not run (no emulation:
# quick); the edits below break either document
test_expect_success 'a document cudalab writes conforms, and so does the run it stored' '
	"$CUDALAB" grade matmul "$T_ROOT/reference/matmul" --student ada --no-emulate -q \
		--json r.json --db g.db >out 2>&1
	[ -f r.json ] || { cat out; false; } && validate_doc r.json && validate_doc --db g.db
'

# refused JQ TEXT...: r.json as JQ changes it does not conform, and the
# validator's report says each TEXT
refused() {
	local edit=$1 rc text
	shift
	jq "$edit" r.json >bad.json || return 1
	validate_doc bad.json >out 2>&1
	rc=$?
	cat out
	[ $rc = 1 ] || { say "exit code $rc, expected 1"; return 1; }
	for text; do
		grep -qF -- "$text" out || { say "the report lacks: $text"; return 1; }
	done
}

test_expect_success 'a document without a required field is refused' '
	refused "del(.status)" "bad.json: at /: '\''status'\'' is a required property" &&
	refused "del(.tests[1].kind)" "at /tests/1 (k1/random): '\''kind'\'' is a required property"
'
test_expect_success 'a status, kind or mode the grader does not give is refused' '
	refused ".tests[0].status = \"passed\"" \
		"at /tests/0 (k1/exact)/status: '\''passed'\'' is not one of" &&
	refused ".status = \"done\"" "at /status: '\''done'\'' is not one of" &&
	refused ".mode = \"cuda\"" "at /mode: '\''cuda'\'' is not one of" &&
	refused ".tests[2].kind = \"speed\"" "at /tests/2 (k1/config)/kind: '\''speed'\'' is not one of" &&
	refused ".build.status = \"error\"" "at /build/status: '\''error'\'' is not one of"
'
test_expect_success 'a field the schema does not list is refused: a new one goes in the schema first' '
	refused ".grade = \"A\"" "('\''grade'\'' was unexpected)" &&
	refused ".gpu.serial = \"1324\"" "at /gpu: Additional properties" &&
	refused ".tests[0].weight = 1" "at /tests/0 (k1/exact): Additional properties"
'
test_expect_success 'a field of the wrong type or form is refused' '
	refused ".gpu.compute_capability = null" \
		"at /gpu/compute_capability: None is not of type '\''string'\''" &&
	refused ".gpu.uuid = \"GPU-1\"" "at /gpu/uuid: '\''GPU-1'\'' does not match" &&
	refused ".score = \"0\"" "at /score: '\''0'\'' is not of type '\''number'\''" &&
	refused ".files[0].sha256 = \"00ff\"" "at /files/0/sha256: '\''00ff'\'' does not match" &&
	refused ".started_at = \"yesterday\"" "at /started_at: '\''yesterday'\'' does not match"
'
test_expect_success 'fields that contradict each other are refused' '
	refused ".status = \"not-built\"" "at /exit_code: 3 was expected" "at /build/status" &&
	refused ".provisional = (.status != \"incomplete\")" "at /provisional" &&
	refused ".tests[0].kind = \"timing\"" \
		"at /tests/0 (k1/exact): '\''timing'\'' is a required property" &&
	refused ".sandbox.kind = (if .sandbox.kind == \"none\" then \"bubblewrap\" else \"none\" end)" \
		"at /sandbox/reason" &&
	refused ".tests[0].status = \"crash\" | .tests[0].points = 4" \
		"at /tests/0 (k1/exact)/points: 0 was expected" &&
	# a test held back did not run here, and is one students do not see at once
	refused ".tests[0].held_back = true | .tests[0].visibility = \"hidden\" | .tests[0].status = \"fail\"" \
		"at /tests/0 (k1/exact)/status" &&
	refused ".tests[0].held_back = true | .tests[0].status = \"not-run\" | .tests[0].points = 0" \
		"at /tests/0 (k1/exact)/visibility" &&
	refused ".tests[0].visibility = \"later\"" "at /tests/0 (k1/exact)/visibility"
'
test_expect_success 'a document that is not JSON, and a stored run that does not conform' '
	echo "{\"schema\": " >cut.json &&
	{ validate_doc cut.json >out 2>&1; [ $? = 2 ]; } && grep -q "^cut.json: not JSON" out &&
	sqlite3 g.db "UPDATE runs SET result_json = json_remove(result_json, '\''$.late'\'')" &&
	{ validate_doc --db g.db >out 2>&1; [ $? = 1 ]; } &&
	grep -qF "g.db run 1: at /: '\''late'\'' is a required property" out
'
test_expect_success 'docs/result-document.md lists every field the schema names, and no other' '
	validate_doc --fields >fields &&
	[ "$(wc -l <fields)" -gt 100 ] &&
	sed -n "/^# The result document/,/^## /p" "$T_ROOT/docs/result-document.md" >section &&
	sed -n "s/^| \`\([^\`]*\)\` |.*/\1/p" section >listed &&
	missing=$(grep -vxF -f listed fields) ; unknown=$(grep -vxF -f fields listed) ;
	[ -z "$missing" ] || say "docs/result-document.md lacks:" $missing
	[ -z "$unknown" ] || say "docs/result-document.md lists, and the schema does not name:" $unknown
	[ -z "$missing$unknown" ]
'
test_done
