#!/bin/bash
# similar-class.sh DIR [CASE...]: a matmul class in DIR (new) with two planted
# copies, for `cudalab similar` (docs/commands/similar.md). Each CASE (a
# folder holding matmul.cu; default: the independent cases below) is one
# student, named after the folder; then two copies of two of them are added:
#
#   <renamed-of>-renamed      every identifier of the original renamed (the
#                             contract's names aside), comments dropped,
#                             indentation changed
#   <reordered-of>-reordered  its kernels and launchers in the reverse order,
#                             adjacent declarations swapped inside kernels,
#                             comments dropped
#
# RENAMED and REORDERED (environment) name the originals (defaults below).
# DIR/PLANTED lists the two planted pairs, one a line: "original copy".
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/similar-class.sh DIR [CASE...]" >&2; exit 2; }
dir=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -eq 0 ]; then
	# One case per origin of reference/matmul/corpus (its variants of one
	# origin, a bug planted in a copy, are not independent of each other),
	# and every case of bench/similar/matmul.
	for c in cg-block-sync cse5441-k2-shared cuda-guide-matrix-struct \
		cuda-samples-matrixmul cvgpu-floor-phases dwan-shared \
		float4-row-misaligned mit6s894-ldg-check olcf-hw2-barrier-in-if \
		pmpp-dynamic-smem pmpp-tiled-rect sgemm-naive tiled-barrier-in-if; do
		set -- "$@" "$root/reference/matmul/corpus/$c"
	done
	set -- "$@" "$root"/bench/similar/matmul/*/
fi
renamed=${RENAMED:-ece408-tiled-ternary}
reordered=${REORDERED:-index-macro}

mkdir "$dir"
for c in "$@"; do
	c=${c%/}
	mkdir "$dir/$(basename "$c")"
	cp "$c/matmul.cu" "$dir/$(basename "$c")/"
done
for c in "$renamed" "$reordered"; do
	[ -f "$dir/$c/matmul.cu" ] || { echo "similar-class.sh: no case '$c' in the class" >&2; exit 2; }
done

# Comments out (/* */ across lines, and //), what a copier drops first.
strip_comments() {
	sed -e ':a' -e '/\/\*/{/\*\//!{N;ba' -e '}' -e 's:/\*.*\*/::}' -e 's://.*$::' "$1"
}

# The renamed copy: each identifier that is not C/CUDA's, the runtime's or
# the lab's contract's gets a new name.
keep='^(if|else|for|while|do|return|int|unsigned|float|double|const|void|char|long|short|size_t|sizeof|struct|static|inline|extern|template|typename|bool|true|false|include|define|pragma|unroll|__global__|__device__|__host__|__shared__|__restrict__|__syncthreads|__ldg|threadIdx|blockIdx|blockDim|gridDim|x|y|z|dim3|fmaf|ceil|floor|min|max|matmul_k[1-5]|MATMUL_[A-Z0-9_]+|matmul|math|stdio|stdlib|h|cuda[A-Za-z]*)$'
src=$dir/$renamed/matmul.cu
out=$dir/$renamed-renamed
mkdir "$out"
strip_comments "$src" >"$out/matmul.cu.tmp"
script=
i=0
for id in $(grep -oE '\b[A-Za-z_][A-Za-z0-9_]*\b' "$out/matmul.cu.tmp" | sort -u | grep -vE "$keep"); do
	i=$((i + 1))
	script="$script;s/\\b$id\\b/q${i}_v/g"
done
sed -E "${script#;}" "$out/matmul.cu.tmp" | sed -e 's/\t/    /g' -e '/^[[:space:]]*$/d' >"$out/matmul.cu"
rm "$out/matmul.cu.tmp"

# The reordered copy: top-level blocks (separated by blank lines) after the
# first kernel (blank lines inside a function's braces aside) are split into device code and host launchers; each kind is
# put in the reverse order, device code first (a launcher still follows the
# kernel it launches), and inside each block two adjacent declarations
# "int a = ...;" trade places where the second does not use the first.
src=$dir/$reordered/matmul.cu
out=$dir/$reordered-reordered
mkdir "$out"
strip_comments "$src" | awk '
	function flush() {
		if (blk == "") return
		if (!started && blk !~ /__global__|__device__|template/) { pre = pre blk "\n"; blk = ""; return }
		started = 1
		if (blk ~ /__global__|__device__|template/) dev[nd++] = blk; else host[nh++] = blk
		blk = ""
	}
	/^[[:space:]]*$/ { if (depth == 0) flush(); next }
	{ blk = blk $0 "\n"; depth += gsub(/{/, "{") - gsub(/}/, "}") }
	END {
		flush()
		printf "%s\n", pre
		for (i = nd - 1; i >= 0; i--) printf "%s\n", swap(dev[i])
		for (i = nh - 1; i >= 0; i--) printf "%s\n", host[i]
	}
	function swap(b,    n, l, i, t, v) {
		n = split(b, l, "\n")
		for (i = 1; i < n; i++) {
			if (l[i] ~ /^[[:space:]]+(const )?(int|unsigned|float) [A-Za-z_][A-Za-z0-9_]* = [^;]*;$/ &&
			    l[i + 1] ~ /^[[:space:]]+(const )?(int|unsigned|float) [A-Za-z_][A-Za-z0-9_]* = [^;]*;$/) {
				v = l[i]; sub(/^[[:space:]]+(const )?(int|unsigned|float) /, "", v); sub(/ =.*/, "", v)
				if (l[i + 1] !~ ("[^A-Za-z0-9_]" v "[^A-Za-z0-9_]")) {
					t = l[i]; l[i] = l[i + 1]; l[i + 1] = t; i++
				}
			}
		}
		t = ""
		for (i = 1; i < n; i++) t = t l[i] "\n"
		return t
	}' >"$out/matmul.cu"

printf '%s %s\n%s %s\n' "$renamed" "$renamed-renamed" "$reordered" "$reordered-reordered" >"$dir/PLANTED"
echo "$dir: $(($# + 2)) submissions, planted pairs: $renamed and $renamed-renamed, $reordered and $reordered-reordered"
