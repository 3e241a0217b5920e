#!/bin/bash
# make-class.sh N DIR: a class of N matmul submissions in DIR (new): every
# fixture of the lab once, in order, then copies of the reference. The class
# the batch benchmarks grade (batch-class.sh, slurm-class.sh).
set -euo pipefail
n=$1 dir=$2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir "$dir"
i=0
for f in "$root"/reference/matmul/fixtures/*/; do
	[ $i -lt "$n" ] || break
	mkdir "$dir/class-$(printf %03d $i)-$(basename "$f")"
	cp "$f"/*.cu "$dir/class-$(printf %03d $i)-$(basename "$f")/"
	i=$((i + 1))
done
while [ $i -lt "$n" ]; do
	mkdir "$dir/class-$(printf %03d $i)-reference"
	cp "$root/reference/matmul/matmul.cu" "$dir/class-$(printf %03d $i)-reference/"
	i=$((i + 1))
done
