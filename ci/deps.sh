#!/bin/bash
# Make sure the Debian packages in ci/debian-packages.txt are installed.
# As root, install what is missing; otherwise print the one apt-get line
# that would and fail. Where the packages were unpacked into a private
# prefix (DEPS_PREFIX, set by the GPU machine recipe), trust that prefix.
# Only those a build needs, unless --all: the list's last part is the
# project's own tests'.
set -euo pipefail
all=false
[ "${1:-}" != --all ] || { all=true; shift; }
list=${1:-"$(dirname "$0")/debian-packages.txt"}
mapfile -t pkgs < <(if $all; then cat "$list"; else sed '/^# --- the project.s own tests only/,$d' "$list"; fi |
	sed 's/#.*//' | tr -s ' \t' '\n' | grep -v '^$')
missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[[ $status == ii* ]] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ -n "${DEPS_PREFIX:-}" ] && [ -d "$DEPS_PREFIX/usr" ]; then
	echo "deps: using packages unpacked in $DEPS_PREFIX (not installed: ${missing[*]})" >&2
	exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
	echo "deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	exit 0
fi
echo "deps: missing Debian packages: ${missing[*]}" >&2
echo "deps: install them with:" >&2
echo "    sudo apt-get install ${missing[*]}" >&2
exit 1
