#!/bin/bash
# The CI files a student repository gets (ci/github-workflow.yml,
# ci/gitlab-ci.yml): well-formed YAML, and every command they call exists,
# parses, and writes what they collect.
. "$(dirname "$0")/lib.sh"
cpu_only
command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null ||
	skip_all "python3-yaml is not installed (ci/debian-packages.txt lists it)"

# yaml_query FILE EXPR: python's value of EXPR over the document d (YAML 1.1
# reads the key "on" as True: d["on"] is either)
yaml_query() {
	python3 - "$1" "$2" <<-'PY'
	import sys, yaml
	d = yaml.safe_load(open(sys.argv[1]))
	if isinstance(d, dict) and True in d:
	    d["on"] = d.pop(True)
	v = eval(sys.argv[2], {"d": d})
	print("\n".join(map(str, v)) if isinstance(v, list) else v)
	PY
}
# commands_exist: every "bash ci/X.sh" on stdin names a script of the
# handout that bash parses
commands_exist() {
	local line script n=0
	while read -r line; do
		script=$(sed -n 's/^bash \(ci\/[a-z-]*\.sh\)\( .*\)\{0,1\}$/\1/p' <<<"$line")
		[ -n "$script" ] || { say "not a call of a ci/ script: $line"; return 1; }
		[ -f "$T_ROOT/$script" ] && bash -n "$T_ROOT/$script" || { say "$script: missing or broken"; return 1; }
		grep -q "$script" "$T_ROOT/ci/handout.sh" || { say "$script is not in the handout"; return 1; }
		n=$((n + 1))
	done
	[ $n -ge 2 ]
}

gh=$T_ROOT/ci/github-workflow.yml gl=$T_ROOT/ci/gitlab-ci.yml
test_expect_success 'github: a workflow on push, runner and image from variables' '
	[ "$(yaml_query "$gh" "\"push\" in d[\"on\"]")" = True ] &&
	yaml_query "$gh" "d[\"jobs\"][\"grade\"][\"runs-on\"]" | grep -q "vars.CUDALAB_RUNNER || .ubuntu-" &&
	yaml_query "$gh" "d[\"jobs\"][\"grade\"][\"container\"][\"image\"]" | grep -q "vars.CUDALAB_IMAGE" &&
	yaml_query "$gh" "d[\"jobs\"][\"grade\"][\"container\"][\"options\"]" | grep -q "vars.CUDALAB_CONTAINER_OPTIONS"
'
test_expect_success 'github: its steps call scripts the handout has, and keep what grade-push writes' '
	yaml_query "$gh" "[s[\"run\"] for s in d[\"jobs\"][\"grade\"][\"steps\"] if \"run\" in s]" | commands_exist &&
	yaml_query "$gh" "[s[\"uses\"] for s in d[\"jobs\"][\"grade\"][\"steps\"] if \"uses\" in s]" >uses &&
	grep -qx "actions/checkout@v4" uses && grep -qx "actions/upload-artifact@v4" uses &&
	[ "$(yaml_query "$gh" "[s for s in d[\"jobs\"][\"grade\"][\"steps\"] if \"uses\" in s and \"upload\" in s[\"uses\"]][0][\"with\"][\"path\"]")" = cudalab-results/ ] &&
	grep -q "cudalab-results" "$T_ROOT/ci/grade-push.sh"
'
test_expect_success 'gitlab: one job without a GPU by default, one on the tagged GPU runner' '
	[ "$(yaml_query "$gl" "sorted(k for k in d if not k.startswith(\".\") and k != \"variables\")")" = "$(printf "cudalab\ncudalab-gpu")" ] &&
	[ "$(yaml_query "$gl" "d[\"cudalab\"][\"extends\"]")" = .cudalab ] &&
	[ "$(yaml_query "$gl" "d[\"cudalab-gpu\"][\"tags\"][0]")" = "\$CUDALAB_RUNNER_TAG" ] &&
	yaml_query "$gl" "d[\"cudalab\"][\"rules\"][0][\"if\"]" | grep -q "CUDALAB_RUNNER_TAG == null" &&
	yaml_query "$gl" "d[\"variables\"][\"CUDALAB_IMAGE\"]" | grep -q "^nvidia/cuda:13"
'
test_expect_success 'gitlab: its script calls scripts the handout has; JUnit goes to the test view' '
	yaml_query "$gl" "d[\".cudalab\"][\"script\"]" | commands_exist &&
	[ "$(yaml_query "$gl" "d[\".cudalab\"][\"artifacts\"][\"reports\"][\"junit\"]")" = "cudalab-results/junit-*.xml" ] &&
	grep -q "junit-\$l.xml" "$T_ROOT/ci/grade-push.sh"
'
test_expect_success 'a file that is not YAML is refused by the same reader' '
	printf "jobs:\n  grade: [unclosed\n" >bad.yml &&
	! yaml_query bad.yml "d" >/dev/null 2>&1
'
test_done
