#!/bin/bash
# Grades the corpus of real-world submissions (reference/<lab>/corpus/<case>/,
# each with its SOURCE and the verdict a TA gives in `expect`) as one class
# per lab, on the GPU or, with --emulate, on the CPU emulator, and holds each
# case's result to its expect file. Prints one line per case and a summary;
# with -v, what differs. Exits 1 when any grade differs from the TA's.
# Usage: bench/corpus.sh [--emulate] [-v] [LAB...]  (CORPUS=DIR: DIR/<lab>/<case>/ instead)
set -u
cd "$(dirname "$0")/.."
root=$PWD
if [ -n "${CORPUS:-}" ]; then
	corpus=$(cd "$CORPUS" && pwd) || exit 2
fi
# corpus_of LAB: the folder of LAB's cases
corpus_of() {
	if [ -n "${CORPUS:-}" ]; then echo "$corpus/$1"; else echo "$root/reference/$1/corpus"; fi
}
mode=gpu verbose=0 labs=()
for a; do
	case $a in
	--emulate) mode=emulated ;;
	-v) verbose=1 ;;
	-h | --help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "corpus.sh: unknown option '$a'" >&2; exit 2 ;;
	*) labs+=("$a") ;;
	esac
done
if [ ${#labs[@]} = 0 ]; then
	if [ -n "${CORPUS:-}" ]; then
		mapfile -t labs < <(ls "$corpus")
	else
		mapfile -t labs < <(cd reference && ls -d */corpus | cut -d/ -f1)
	fi
fi
make -s all || exit 2
export BUILD=$root/build
# the grader's test helpers (check_expect, class_result); $0 sits one folder
# higher than a test script, so the paths they derive are set here
source grader/t/lib.sh
T_ROOT=$root CUDALAB=$BUILD/bin/cudalab
[ $mode = emulated ] && export EXPECT_EMULATED=1
cd "$T_TMP" || exit 2
agree=0 differ=0
for lab in "${labs[@]}"; do
	dir_of_lab=$(corpus_of "$lab")
	[ -d "$dir_of_lab" ] || { echo "corpus.sh: no corpus for '$lab' ($dir_of_lab)" >&2; exit 2; }
	rm -f "$lab-class.db"*
	start=$SECONDS
	"$CUDALAB" grade "$lab" "$dir_of_lab" --db "$lab-class.db" \
		$([ $mode = emulated ] && echo --emulate) >"$lab-class.out" 2>"$lab-class.err"
	echo "# $lab: graded $(ls -d "$dir_of_lab"/*/ | wc -l) cases ($mode) in" \
		"$((SECONDS - start)) s"
	for dir in "$dir_of_lab"/*/; do
		name=$(basename "$dir")
		kind=$(sed -n 's/^kind: *//p' "$dir/SOURCE" | head -1)
		if class_result "$lab" "$name" r.json >/dev/null 2>&1 && check_expect r.json "$dir/expect" >diff 2>&1; then
			agree=$((agree + 1)) verdict=agrees
		else
			differ=$((differ + 1)) verdict=DIFFERS
		fi
		printf '%-28s %-8s %-40.40s %s\n' "$lab/$name" "$verdict" "${kind:-?}" \
			"$(jq -r '"score \(.score_text // "\(.final_score)/\(.max_score)")"' r.json 2>/dev/null)"
		[ $verbose = 0 ] || [ $verdict = agrees ] || sed 's/^/    /' diff
	done
done
echo "# $mode: $agree cases graded as the TA did, $differ differently"
[ $differ = 0 ]
