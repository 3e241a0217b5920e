#!/bin/bash
# The sandbox: a submission's programs run in bubblewrap where it works, and
# the result says which; hostile fixtures that get past both audits with
# system calls find neither the hidden reference, nor another student's
# submission, nor the network, nor a way to leave a file on the machine.
# Without bubblewrap (CUDALAB_NO_SANDBOX=1 here) the grading still happens
# and says it was unsandboxed.
. "$(dirname "$0")/lib.sh"
cpu_only
grep -q '^emu_cxxflags' "$BUILD/toolchain.conf" || skip_all "no CPU emulator on this machine"

export EXPECT_EMULATED=1   # cpu_only: the gradings are emulated
escaped=/tmp/cudalab-escaped-writes-outside
rm -f "$escaped"

sandbox_works() {
	[ "$(jq -r '.sandbox.kind' r.json)" = bubblewrap ] ||
		{ echo "bubblewrap does not work here: $(jq -r .sandbox.reason r.json)"; exit 77; }
}

test_expect_success 'a grading says how its programs ran, and grades the same either way' '
	grade_fixture "$T_ROOT/reference/grid" r.json &&
	kind=$(jq -r .sandbox.kind r.json) &&
	case $kind in
	bubblewrap) grep -q "^sandbox     bubblewrap: no network" r.json.txt ;;
	none) grep -q "^sandbox     NONE, unsandboxed: " r.json.txt ;;
	*) false ;;
	esac &&
	CUDALAB_NO_SANDBOX=1 grade_fixture "$T_ROOT/reference/grid" u.json &&
	[ "$(jq -r .sandbox.kind u.json)" = none ] &&
	[ "$(jq -r .sandbox.reason u.json)" = "CUDALAB_NO_SANDBOX is set" ] &&
	grep -q "^sandbox     NONE, unsandboxed: CUDALAB_NO_SANDBOX is set" u.json.txt &&
	[ "$(jq .score r.json)" = "$(jq .score u.json)" ] && [ "$(jq .score u.json)" = 43 ]
'
test_expect_success 'in the sandbox, a submission cannot read the hidden reference' '
	grade_fixture "$T_ROOT/reference/grid/fixtures/reads-reference" r.json &&
	sandbox_works &&
	check_expect r.json "$T_ROOT/reference/grid/fixtures/reads-reference/expect"
'
test_expect_success 'the same submission unsandboxed does read it: the fixture is a real attack' '
	[ -r "$T_ROOT/reference/grid/grid.cu" ] &&
	# a root grader runs it as an unprivileged user, who must be able to read
	# the checkout for the attack to find anything
	if [ "$(id -u)" = 0 ] && ! runuser -u nobody -- test -r "$T_ROOT/reference/grid/grid.cu"; then
		echo "the checkout is root'"'"'s alone here: unsandboxed, nobody cannot read it either"
		exit 77
	fi &&
	CUDALAB_NO_SANDBOX=1 grade_fixture "$T_ROOT/reference/grid/fixtures/reads-reference" u.json &&
	[ "$(jq -r ".tests[] | select(.part == \"picture\" and .name == \"exact\") | .status" u.json)" = fail ]
'
test_expect_success 'in the sandbox, a file written to /tmp stays in the sandbox' '
	grade_fixture "$T_ROOT/reference/grid/fixtures/writes-outside" r.json &&
	sandbox_works &&
	check_expect r.json "$T_ROOT/reference/grid/fixtures/writes-outside/expect" &&
	! [ -e "$escaped" ]
'
test_expect_success 'unsandboxed, the same file lands on the machine: the fixture is a real attack' '
	CUDALAB_NO_SANDBOX=1 grade_fixture "$T_ROOT/reference/grid/fixtures/writes-outside" u.json &&
	[ -e "$escaped" ] && rm -f "$escaped"
'

# A listener on the machine's loopback, for the socket fixture.
port=47601
start_listener() {
	${CC:-cc} -o listen "$T_ROOT/grader/t/helpers/listen.c" || return 1
	rm -f heard heard.ready
	./listen $port heard &
	listener=$!
	for _ in $(seq 50); do [ -e heard.ready ] && return 0; sleep 0.1; done
	say "port $port is taken here"; kill $listener; exit 77
}
stop_listener() { kill "$listener" 2>/dev/null; wait "$listener" 2>/dev/null; true; }

test_expect_success 'in the sandbox, a submission cannot reach the network, not even loopback' '
	start_listener &&
	grade_fixture "$T_ROOT/reference/grid/fixtures/opens-socket" r.json; graded=$?
	stop_listener && [ $graded = 0 ] &&
	sandbox_works &&
	check_expect r.json "$T_ROOT/reference/grid/fixtures/opens-socket/expect" &&
	! [ -s heard ]
'
test_expect_success 'unsandboxed, the same submission connects: the fixture is a real attack' '
	start_listener &&
	CUDALAB_NO_SANDBOX=1 grade_fixture "$T_ROOT/reference/grid/fixtures/opens-socket" u.json
	graded=$?
	stop_listener && [ $graded = 0 ] &&
	grep -q "escaped opens-socket" heard &&
	[ "$(jq -r ".tests[] | select(.part == \"picture\" and .name == \"exact\") | .status" u.json)" = fail ]
'

# Two students side by side, as a class is graded: mallory looks for alice.
class_folder() {
	rm -rf class && mkdir -p class/alice class/mallory &&
	cp "$T_ROOT"/reference/grid/grid.cu "$T_ROOT"/reference/grid/answers.txt class/alice/ &&
	cp "$T_ROOT"/reference/grid/fixtures/reads-other/* class/mallory/ && rm class/mallory/expect
}
test_expect_success 'in the sandbox, a submission cannot read another student'"'"'s' '
	class_folder &&
	"$CUDALAB" grade grid "$PWD/class/mallory" --student mallory -q --json r.json >r.json.txt 2>&1
	echo $? >r.json.exit &&
	validate_doc r.json && sandbox_works &&
	check_expect r.json "$T_ROOT/reference/grid/fixtures/reads-other/expect"
'
test_expect_success 'unsandboxed, it reads alice'"'"'s grid.cu: the fixture is a real attack' '
	class_folder &&
	# a root grader runs it as an unprivileged user (next test): let that
	# user into the folders, as on a machine whose class folders are open
	{ [ "$(id -u)" != 0 ] || { chmod a+rx "$T_TMP" && chmod -R a+rX class; }; } &&
	CUDALAB_NO_SANDBOX=1 "$CUDALAB" grade grid "$PWD/class/mallory" --student mallory -q \
		--json u.json >u.json.txt 2>&1
	validate_doc u.json &&
	[ "$(jq -r ".tests[] | select(.part == \"picture\" and .name == \"exact\") | .status" u.json)" = fail ]
'
test_expect_success 'a root grader runs it unprivileged even unsandboxed: root'"'"'s files stay unread' '
	[ "$(id -u)" = 0 ] || { echo "the grader is not root here"; exit 77; } &&
	class_folder && chmod 700 "$T_TMP" &&
	CUDALAB_NO_SANDBOX=1 "$CUDALAB" grade grid "$PWD/class/mallory" --student mallory -q \
		--json n.json >n.json.txt 2>&1
	validate_doc n.json &&
	jq -r .sandbox.user n.json | grep -q "unprivileged" &&
	[ "$(jq -r ".tests[] | select(.part == \"picture\" and .name == \"exact\") | .status" n.json)" = pass ]
'
rm -f "$escaped"
test_done
