#!/bin/bash
# Make sure what ci/debian-packages.txt lists is here. A package whose line
# says how to find what it gives ({pc:MODULE} for pkg-config, {cmd:A,B} for
# commands) is looked for that way first, so a host that is not Debian (a
# RHEL-family cluster) builds when it has every library; one without, or
# whose probe fails, is asked of dpkg. As root on Debian or Ubuntu, install
# what is missing with apt-get (on a RHEL-family host, with dnf); otherwise
# print the one line that would, in the host's own words, and fail. Where
# the packages were unpacked into a private prefix (DEPS_PREFIX, set by the
# GPU machine recipe), trust that prefix. Only those a build needs, unless
# --all: the list's last part is the project's own tests'.
#   CUDALAB_OS_RELEASE   the os-release file that names the host (default
#                        /etc/os-release)
#   CUDALAB_DEPS_SAY=1   say what is missing and how to install it; never install
set -euo pipefail
all=false
[ "${1:-}" != --all ] || { all=true; shift; }
list=${1:-"$(dirname "$0")/debian-packages.txt"}
# each line: the package, then its {...} (empty where it has none)
mapfile -t lines < <(if $all; then cat "$list"; else sed '/^# --- the project.s own tests only/,$d' "$list"; fi |
	sed -n 's/^\([a-z0-9][a-z0-9.+-]*\)[ \t]*\(#[ \t]*{\([^}]*\)}\)\{0,1\}.*/\1 \3/p')

# probe SPEC: whether what SPEC names is here (pc:MODULE, cmd:A,B); no SPEC: no
probe() {
	local spec
	for spec in "$@"; do
		case $spec in
		pc:*) command -v pkg-config >/dev/null && pkg-config --exists "${spec#pc:}" || return 1 ;;
		cmd:*)
			local c
			for c in ${spec#cmd:}; do   # A,B: split on the commas below
				command -v "$c" >/dev/null || return 1
			done ;;
		esac
	done
	[ $# -gt 0 ]
}
# dpkg_has PKG: whether dpkg says PKG is installed (no dpkg: no)
dpkg_has() {
	local status
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) || return 1
	[[ $status == ii* ]]
}

missing=() rpms=() needs=() unnamed=()
for line in "${lines[@]}"; do
	read -r pkg tags <<<"$line"
	specs=() rpm=""
	for t in $tags; do
		case $t in
		pc:* | cmd:*) specs+=("${t//,/ }") ;;
		rpm:*) rpm=${t#rpm:} ;;
		esac
	done
	probe "${specs[@]+"${specs[@]}"}" || dpkg_has "$pkg" && continue
	missing+=("$pkg")
	needs+=("${specs[*]:-$pkg}")
	if [ -n "$rpm" ]; then
		# shellcheck disable=SC2206  # a,b: two names
		rpms+=(${rpm//,/ })
	else
		unnamed+=("$pkg")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ -n "${DEPS_PREFIX:-}" ] && [ -d "$DEPS_PREFIX/usr" ]; then
	echo "deps: using packages unpacked in $DEPS_PREFIX (not installed: ${missing[*]})" >&2
	exit 0
fi

# the host's family, from os-release's ID and ID_LIKE
release=${CUDALAB_OS_RELEASE:-/etc/os-release}
family=other
if [ -r "$release" ]; then
	# shellcheck source=/dev/null  # the host's
	ids=" $(. "$release" >/dev/null 2>&1; echo "${ID:-} ${ID_LIKE:-}") "
	case $ids in
	*" debian "* | *" ubuntu "*) family=debian ;;
	*" rhel "* | *" fedora "* | *" centos "* | *" rocky "* | *" almalinux "*) family=rhel ;;
	esac
fi
# no os-release at all: the package manager this host has
if [ ! -r "$release" ]; then
	if command -v apt-get >/dev/null; then family=debian; elif command -v dnf >/dev/null; then family=rhel; fi
fi

if [ $family = debian ]; then
	if [ "$(id -u)" -eq 0 ] && [ -z "${CUDALAB_DEPS_SAY:-}" ] && command -v apt-get >/dev/null; then
		echo "deps: installing ${missing[*]}" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
		exit 0
	fi
	echo "deps: missing Debian packages: ${missing[*]}" >&2
	echo "deps: install them with:" >&2
	echo "    sudo apt-get install ${missing[*]}" >&2
elif [ $family = rhel ] && [ ${#rpms[@]} -gt 0 ]; then
	if [ "$(id -u)" -eq 0 ] && [ -z "${CUDALAB_DEPS_SAY:-}" ] && command -v dnf >/dev/null &&
		[ ${#unnamed[@]} -eq 0 ]; then
		echo "deps: installing ${rpms[*]}" >&2
		dnf install -y -q "${rpms[@]}" >/dev/null
		exit 0
	fi
	echo "deps: missing: ${needs[*]}" >&2
	echo "deps: install them with (some are in EPEL: dnf install epel-release first):" >&2
	echo "    sudo dnf install ${rpms[*]}" >&2
	[ ${#unnamed[@]} -eq 0 ] ||
		echo "deps: and what gives these, which have Debian names only: ${unnamed[*]}" >&2
else
	echo "deps: missing: ${needs[*]}" >&2
	echo "deps: install what gives them (their Debian packages: ${missing[*]})" >&2
fi
exit 1
