#!/bin/bash
# Makes the student repository of the course in DIR (what `make handout`
# runs, once the reference objects are built under BUILD):
#   Makefile, README.md (ci/handout/README.md), .gitignore
#   grader/        the grader's sources (not its tests)
#   labs/          every lab: contract, tests and handout README, without
#                  tests/hidden/ and without the project's own t/ folders
#   db/            the gradebook schema and migrations
#   ci/            the packages list, deps.sh and grade-push.sh
#   .github/workflows/cudalab.yml, .gitlab-ci.yml   the CI files
#   <lab>/         the stub of each lab, where the student works
#   prebuilt/      the reference as objects, for the labs that link it
#                  (REF_LABS), machine code for CUDA_ARCHS only
# No file of reference/ (nor its fixtures) goes in; [extensions] (students'
# names) are cut from each lab.conf. DIR must not exist yet.
# Usage: ci/handout.sh DIR BUILD
#        ci/handout.sh --fatbin-kinds OBJ   (the kinds of GPU code in OBJ: 1 PTX, 2 machine code)
set -euo pipefail
usage() { echo "usage: ci/handout.sh DIR BUILD  (run by: make handout HANDOUT=DIR)" >&2; exit 2; }
case ${1:-} in -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac

# fatbin_kinds OBJ: the kind of each entry of the object's CUDA fat binaries
# (section .nv_fatbin: a 16-byte header, magic 0xba55ed50, u64 size at 8;
# then entries: u16 kind at 0 (1 PTX, 2 machine code), u32 header size at 4,
# u64 payload size at 8), one per line.
fatbin_kinds() {
	local bin off=0 end len kind hsize psize
	bin=$(mktemp)
	objcopy -O binary --only-section=.nv_fatbin "$1" "$bin" 2>/dev/null || { rm -f "$bin"; return 1; }
	len=$(stat -c %s "$bin")
	num() { od -A n -t "u$2" -j "$1" -N "$2" "$bin" | tr -d ' '; }
	while [ "$off" -lt "$len" ]; do
		[ "$(num "$off" 4)" = 3126193488 ] || { rm -f "$bin"; return 1; }   # 0xba55ed50
		end=$((off + 16 + $(num $((off + 8)) 8)))
		off=$((off + 16))
		while [ "$off" -lt "$end" ]; do
			kind=$(num "$off" 2) hsize=$(num $((off + 4)) 4) psize=$(num $((off + 8)) 8)
			echo "$kind"
			off=$((off + hsize + psize))
		done
	done
	rm -f "$bin"
}
case ${1:-} in --fatbin-kinds) fatbin_kinds "$2"; exit ;; esac

[ $# -eq 2 ] || usage
out=$(realpath -m "$1") build=$(realpath -m "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ ! -e "$out" ] || { echo "handout: '$out' exists; give a new folder" >&2; exit 2; }
[ -n "${CUDA_ARCHS:-}" ] || { echo "handout: CUDA_ARCHS is not set (run it through make)" >&2; exit 2; }

labs=()
for conf in labs/*/lab.conf; do
	labs+=("$(basename "$(dirname "$conf")")")
done

mkdir -p "$out"
echo "handout: $out (labs: ${labs[*]})" >&2

# the tracked files of a folder (the working tree's, for what git does not know)
files_of() {
	if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$root" ls-files --cached --others --exclude-standard -- "$@"
	else
		find "$@" -type f
	fi
}

copy() {   # copy FILE...: into the handout at the same path
	local f
	for f in "$@"; do
		mkdir -p "$out/$(dirname "$f")"
		cp -p "$f" "$out/$f"
	done
}

mapfile -t src < <(files_of Makefile grader db labs ci/debian-packages.txt ci/deps.sh \
	ci/grade-push.sh | grep -v -e '^grader/t/' -e '/t/' -e '/tests/hidden/' -e '^labs/[^/]*/fixtures/' \
	-e '^labs/common/new-lab/')   # new-lab's skeleton: the course's, for writing labs
copy "${src[@]}"

# the packages a build needs, not the project's own tests' (ci/deps.sh)
sed '/^# --- the project.s own tests only/,$d' ci/debian-packages.txt >"$out/ci/debian-packages.txt"

# lab.conf without [extensions]: they name students
for l in "${labs[@]}"; do
	awk '/^\[/ { skip = ($0 ~ /^\[extensions\]/) } !skip' "labs/$l/lab.conf" >"$out/labs/$l/lab.conf"
done

# the stubs, where the student works: <lab>/
for l in "${labs[@]}"; do
	[ -d "student_template/$l" ] || { echo "handout: no student_template/$l" >&2; exit 1; }
	mkdir -p "$out/$l"
	cp -p "student_template/$l"/* "$out/$l/"
done

# the reference, as the objects the timing drivers and question sheets link
# (REF_LABS): machine code for CUDA_ARCHS, no PTX, no source
for l in ${REF_LABS:-}; do
	for obj in "$build/reference/$l"/*.o; do
		[ -e "$obj" ] || continue
		kinds=$(fatbin_kinds "$obj") || { echo "handout: cannot read the GPU code of $obj" >&2; exit 1; }
		if grep -qvx 2 <<<"$kinds"; then
			echo "handout: $obj holds PTX (or code of an unknown kind); it must be machine code only" >&2
			exit 1
		fi
		mkdir -p "$out/prebuilt/reference/$l"
		cp "$obj" "$out/prebuilt/reference/$l/"
	done
done
printf '# the GPU architectures the reference objects were built for\nCUDA_ARCHS ?= %s\n' \
	"$CUDA_ARCHS" >"$out/prebuilt/archs.mk"

# the student's README and the CI files
cp ci/handout/README.md "$out/README.md"
mkdir -p "$out/.github/workflows"
cp ci/github-workflow.yml "$out/.github/workflows/cudalab.yml"
cp ci/gitlab-ci.yml "$out/.gitlab-ci.yml"
printf '%s\n' '/build/' '/gradebook.db*' '/cudalab-results/' >"$out/.gitignore"

n=$(find "$out" -type f | wc -l)
echo "handout: $n files; commit it as the course's student repository" >&2
