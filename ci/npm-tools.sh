#!/bin/bash
# Install the npm packages ci/debian-packages.txt lists ("#npm NAME@VERSION"
# lines) into .npm-tools/ at the top of the repository, each at its pinned
# version. The tests look for them there; nothing else needs them.
# Exit 0 when every one is in place, 1 (saying why) when npm is missing or an
# install failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
list=${1:-$root/ci/debian-packages.txt}
mapfile -t want < <(sed -n 's/^#npm[[:space:]]\{1,\}\([^[:space:]#]\{1,\}\).*/\1/p' "$list")
[ ${#want[@]} -gt 0 ] || exit 0
dest=$root/.npm-tools
missing=()
for spec in "${want[@]}"; do
	name=${spec%@*} version=${spec##*@}
	have=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$dest/node_modules/$name/package.json" 2>/dev/null || true)
	[ "$have" = "$version" ] || missing+=("$spec")
done
[ ${#missing[@]} -eq 0 ] && exit 0
command -v npm >/dev/null || {
	echo "npm-tools: npm is not installed; wanted ${missing[*]}" >&2
	exit 1
}
mkdir -p "$dest"
echo "npm-tools: installing ${missing[*]} into .npm-tools/" >&2
npm install --prefix "$dest" --no-audit --no-fund --loglevel=error "${missing[@]}" >&2 ||
	{ echo "npm-tools: npm install ${missing[*]} failed" >&2; exit 1; }
