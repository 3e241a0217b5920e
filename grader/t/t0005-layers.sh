#!/bin/bash
# The grader's folders are its layers (grader/README.md), lowest first as the
# Makefile's GR_LAYERS lists them: a file includes headers of its own layer
# and of those below it, never above; every source is in a layer.
# beside-others: it reads files only
. "$(dirname "$0")/lib.sh"

layers=$(sed -n 's/^GR_LAYERS := //p' "$T_ROOT/Makefile")
# include_violations DIR: "file: header (layer) above layer" for each include
# of DIR's sources that runs upward; the layers' order is $layers
include_violations() {
	local rank=0 l f h hl
	declare -A at
	for l in $layers; do at[$l]=$rank; rank=$((rank + 1)); done
	for l in $layers; do
		for f in "$1/$l"/*.[ch]; do
			[ -e "$f" ] || continue
			for h in $(sed -n 's/^#include "\([^"]*\)"/\1/p' "$f"); do
				case $h in
				*/*)	# a path from the file's folder: the grader's only inside it
					hl=$(realpath -m "$(dirname "$f")/$h")
					case $hl in
					"$(realpath "$1")"/*/*) hl=${hl#"$(realpath "$1")"/} hl=${hl%%/*} ;;
					*) continue ;;   # outside the grader (labs/common)
					esac ;;
				*) hl=$(cd "$1" && ls -d */"$h" 2>/dev/null | cut -d/ -f1 | head -1) ;;
				esac
				[ -n "$hl" ] || continue   # not the grader's (a system header)
				[ "${at[$hl]}" -le "${at[$l]}" ] ||
					echo "${f#$1/}: $h ($hl) is above $l"
			done
		done
	done
}

test_expect_success 'the Makefile names the layers, and each is a folder of grader/' '
	[ "$(echo $layers | wc -w)" -ge 6 ] &&
	for l in $layers; do [ -d "$T_ROOT/grader/$l" ] || { say "no folder $l"; exit 1; }; done &&
	[ "$(cd "$T_ROOT/grader" && ls -d */ | grep -vx "t/" | tr -d / | sort | tr "\n" " ")" = \
	  "$(printf "%s\n" $layers | sort | tr "\n" " ")" ]
'
test_expect_success 'no source of the grader sits outside a layer' '
	[ -z "$(cd "$T_ROOT/grader" && ls *.[ch] 2>/dev/null)" ]
'
test_expect_success 'no include runs upward' '
	include_violations "$T_ROOT/grader" >bad && { [ ! -s bad ] || { cat bad; false; }; }
'
test_expect_success 'an include that runs upward is found' '
	cp -r "$T_ROOT/grader" g && rm -rf g/t &&
	echo "#include \"db.h\"" >>g/lib/util.c &&
	include_violations g >bad && grep -qx "lib/util.c: db.h (gradebook) is above lib" bad &&
	echo "#include \"../gradebook/db.h\"" >>g/os/sandbox.c &&
	include_violations g >bad &&
	grep -qx "os/sandbox.c: ../gradebook/db.h (gradebook) is above os" bad
'
test_done
