#!/bin/bash
# Grades a student repository (a handout: one folder per lab) the way CI does
# on every push, and says whether the job fails.
#   ci/grade-push.sh [LAB...]     (default: every lab whose folder is here)
# Writes to cudalab-results/ (CUDALAB_RESULTS): <lab>.json (the result
# document), <lab>.html (the run's page), junit-<lab>.xml (JUnit, for the
# CI's test view), summary.md
# (a score table, also appended to $GITHUB_STEP_SUMMARY where that is set),
# and the gradebook; its last line is "cudalab score: X / Y (P%)", the labs'
# final scores together (GitLab's coverage keyword reads P). With a GPU the grading is full; without one the
# correctness tests run on the CPU emulator and timing is reported as not run.
# Exit status: 0 when every lab built and lost no points in what could run
# (no GPU is never a failure); 1 when a lab did not build or lost points;
# 2 for bad usage; 128 when the grader itself failed.
set -uo pipefail
case ${1:-} in -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/.." || exit 128
out=${CUDALAB_RESULTS:-cudalab-results}
mkdir -p "$out" || exit 128
out=$(cd "$out" && pwd)

labs=("$@")
if [ ${#labs[@]} -eq 0 ]; then
	for conf in labs/*/lab.conf; do
		l=$(basename "$(dirname "$conf")")
		[ -d "$l" ] && labs+=("$l")
	done
fi
[ ${#labs[@]} -gt 0 ] || { echo "grade-push: no lab folder here (labs/<lab>/ and <lab>/)" >&2; exit 2; }
for l in "${labs[@]}"; do
	[ -f "labs/$l/lab.conf" ] && [ -d "$l" ] || { echo "grade-push: no lab '$l' with a folder here" >&2; exit 2; }
done

echo "::group::build" 2>/dev/null
# A build/ restored from CI's cache (CUDALAB_BUILD_CACHED=true: the workflow's
# cache hit, keyed by every file the build reads) is as new as it was made;
# a checkout is newer still. Dated back, the course's files leave make
# nothing to do (measured: 0.7 s for 213 s of a 2-core build); the lab
# folders, the submission, are left as they are.
if [ "${CUDALAB_BUILD_CACHED:-}" = true ] && [ -d build ]; then
	skip=(-path ./build -o -path ./.git -o -path ./cudalab-results)
	for l in "${labs[@]}"; do skip+=(-o -path "./$l"); done
	find . \( "${skip[@]}" \) -prune -o -type f -print0 | xargs -0 -r touch -d @1 ||
		echo "grade-push: could not date the sources back: a full build follows" >&2
fi
make -j"$(nproc)" all || { echo "grade-push: the grader did not build" >&2; exit 128; }
echo "::endgroup::"

who=${GITHUB_ACTOR:-${GITLAB_USER_LOGIN:-${USER:-student}}}
db=$out/gradebook.db
status=0
summary=$out/summary.md
{
	echo "## cudalab"
	echo
	echo "| lab | score | build | where | verdict |"
	echo "|---|---|---|---|---|"
} >"$summary"
details=$(mktemp)
trap 'rm -f "$details"' EXIT

for l in "${labs[@]}"; do
	json=$out/$l.json
	rm -f "$json" "$out/$l.html"
	build/bin/cudalab grade "$l" "$l" --student "$who" --submitted-at now --db "$db" \
		--json "$json" --html "$out/$l.html"
	code=$?
	if [ $code -ge 128 ] || [ ! -f "$json" ]; then
		echo "grade-push: grading $l failed (exit $code): a fault of the grader" >&2
		echo "| $l | - | - | - | the grader failed (exit $code) |" >>"$summary"
		status=128
		continue
	fi
	build/bin/cudalab export "$l" --format junit --student "$who" --db "$db" \
		--out "$out/junit-$l.xml" || status=128
	# points lost in what ran: a test that ran (not not-run), not a bonus,
	# below its maximum; a build that failed loses everything
	built=$(jq -r .build.status "$json")
	lost=$(jq '[.tests[] | select(.status != "not-run" and (.bonus | not) and
		.points < .max_points)] | length' "$json")
	notrun=$(jq '[.tests[] | select(.status == "not-run")] | length' "$json")
	verdict="no points lost"
	if [ "$built" != ok ]; then
		verdict="did not build: $(jq -r '.build.message // ""' "$json" | head -1)"
		[ $status -ne 0 ] || status=1
	elif [ "$lost" -gt 0 ]; then
		verdict="$lost test(s) lost points"
		[ $status -ne 0 ] || status=1
	fi
	[ "$notrun" -eq 0 ] || verdict="$verdict; $notrun not run here ($(jq -r '[.tests[] |
		select(.status == "not-run") | .message // ""][0] | split("\n")[0]' "$json"))"
	where=$(jq -r 'if .mode == "gpu" then "GPU: " + (.gpu.name // "?") elif .mode == "emulated"
		then "CPU emulator (provisional)" elif .mode == "cpu" then "CPU (needs no GPU)"
		else "not run" end' "$json")
	# the score as the report and every table write it (the document's score_text):
	# the final score, after lateness, bonus included
	jq -r --arg l "$l" '"| \($l) | \(.score_text) | \(.build.status) | "' "$json" |
		tr -d '\n' >>"$summary"
	echo "$where | $verdict |" >>"$summary"
	{
		echo
		echo "### $l"
		echo
		echo "| part | test | result | points |"
		echo "|---|---|---|---|"
		# as the report: a test that waits for a GPU has its points pending, not lost
		jq -r '(.build.status == "ok" and (.mode == "emulated" or .mode == "none")) as $gpu |
			.tests[] | if $gpu and .status == "not-run" then
			"| \(.part) | \(.name) | pending (GPU) | -/\(.max_points) |" else
			"| \(.part) | \(.name) | \(.status) | \(.points)/\(.max_points) |" end' "$json"
	} >>"$details"
done
cat "$details" >>"$summary"
[ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat "$summary" >>"$GITHUB_STEP_SUMMARY"
echo
cat "$summary"
# one line of the whole score: GitLab's coverage keyword reads its
# percentage into the pipeline and the merge request (.gitlab-ci.yml)
# (the labs graded now: a results folder may hold an earlier run's others)
docs=()
for l in "${labs[@]}"; do
	[ ! -f "$out/$l.json" ] || docs+=("$out/$l.json")
done
if [ ${#docs[@]} -gt 0 ]; then
	echo
	jq -rs '(map(.final_score // 0) | add) as $got | (map(.max_score // 0) | add) as $most |
		(any(.provisional) | if . then ", provisional: feedback, not a grade" else "" end) as $p |
		"cudalab score: \($got) / \($most)\($p) (\(if $most > 0 then
			($got * 1000 / $most | round / 10) else 0 end)%)"' "${docs[@]}"
fi
exit $status
