#!/bin/bash
# Makes the Gradescope autograder of one lab (what `make gradescope` runs,
# once the reference objects are built under BUILD): a zip to upload, with
# at its root
#   setup.sh        ci/gradescope/setup.sh: Gradescope runs it once, as root
#   run_autograder  ci/gradescope/run_autograder, for the lab: Gradescope runs
#                   it for each submission
#   cudalab/        what a student handout has of the grader and of this lab
#                   (ci/handout.sh): Makefile, grader/, db/, the packages list
#                   and deps.sh, labs/common/, labs/LAB/ with the course's own
#                   lab.conf ([extensions] kept: this is the course's
#                   grading) and its tests/hidden/ (the answer key aside),
#                   and prebuilt/ (the reference only as objects,
#                   for a lab whose build links it)
# Usage: ci/gradescope.sh LAB ZIP BUILD
set -euo pipefail
usage() { echo "usage: ci/gradescope.sh LAB ZIP BUILD  (run by: make gradescope LAB=lab)" >&2; exit 2; }
case ${1:-} in -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -eq 3 ] || usage
lab=$1 zip=$(realpath -m "$2") build=$(realpath -m "$3")
cd "$(dirname "$0")/.."
[ -f "labs/$lab/lab.conf" ] || { echo "gradescope: no lab '$lab' in labs/" >&2; exit 2; }
command -v zip >/dev/null ||
	{ echo "gradescope: zip is not installed (ci/debian-packages.txt lists it)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
h=$tmp/handout b=$tmp/bundle
ci/handout.sh "$h" "$build" 2>"$tmp/handout.log" || { cat "$tmp/handout.log" >&2; exit 1; }
mkdir -p "$b/cudalab/ci" "$b/cudalab/labs" "$b/cudalab/prebuilt"
cp -a "$h/Makefile" "$h/grader" "$h/db" "$b/cudalab/"
cp -a "$h/ci/debian-packages.txt" "$h/ci/deps.sh" "$b/cudalab/ci/"   # the handout's: a build's packages
cp -a "$h/labs/common" "$h/labs/$lab" "$b/cudalab/labs/"
cp -p "labs/$lab/lab.conf" "$b/cudalab/labs/$lab/lab.conf"
# the lab's hidden tests: Gradescope's run is the course's grading, on its
# servers, and shows each test as lab.conf's visibility says; the answer key
# (tests/hidden/key_LAB.cu, which links the reference) stays at home
if [ -d "labs/$lab/tests/hidden" ]; then
	cp -a "labs/$lab/tests/hidden" "$b/cudalab/labs/$lab/tests/"
	rm -f "$b/cudalab/labs/$lab/tests/hidden/key_$lab.cu"
fi
cp -p "$h/prebuilt/archs.mk" "$b/cudalab/prebuilt/"
if [ -d "$h/prebuilt/reference/$lab" ]; then
	mkdir -p "$b/cudalab/prebuilt/reference"
	cp -a "$h/prebuilt/reference/$lab" "$b/cudalab/prebuilt/reference/"
fi
cp ci/gradescope/setup.sh "$b/setup.sh"
sed "s/@LAB@/$lab/g" ci/gradescope/run_autograder >"$b/run_autograder"
chmod 755 "$b/setup.sh" "$b/run_autograder"

mkdir -p "$(dirname "$zip")"
rm -f "$zip"
# the files at the zip's root, as Gradescope wants them; -X: no extra
# attributes, so the same files give the same zip
(cd "$b" && zip -qr -X "$zip" setup.sh run_autograder cudalab)
echo "gradescope: $zip ($(find "$b" -type f | wc -l) files): upload it as the autograder of $lab" >&2
