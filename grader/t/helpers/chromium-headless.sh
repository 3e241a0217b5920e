#!/bin/bash
# chromium-headless.sh ARGS...: Debian's Chromium, headless, on ARGS
# (--screenshot=FILE --window-size=W,H URL, or --dump-dom URL), as t6004 and
# bench/report-screenshots.sh run it. Exits 127 where no chromium is
# installed, 124 (or 137, killed) when it did not finish within
# $CHROMIUM_TIMEOUT seconds (default 60), else as chromium exits; its
# messages go to stderr (on a machine without D-Bus, a hundred lines saying
# so: harmless).
#
#   --headless                 Chromium's own headless mode: no display, no X
#   --no-sandbox               its sandbox needs user namespaces and refuses to
#                              run as root, as a CI container's tests run
#   --disable-gpu              no GPU process: software rendering, the same here
#                              and on a machine with a GPU
#   --disable-dev-shm-usage    shared memory in /tmp: a container's /dev/shm is
#                              often 64 MB, too small for a tall screenshot
#                              (Debian's launcher means to add it then, but its
#                              test breaks where /dev/shm is mounted twice)
#   --user-data-dir            a fresh profile each time, removed after: no
#                              first-run state in $HOME, none left behind (HOME
#                              too, for what it writes there anyway)
#   --no-first-run             no first-run work on that fresh profile
#   --force-device-scale-factor=1   a CSS pixel is a screenshot pixel
#   --hide-scrollbars          the screenshot is the page, not a scroll bar
#   --run-all-compositor-stages-before-draw, --virtual-time-budget=5000
#                              the screenshot or the DOM is taken once the page
#                              has loaded, been laid out and painted (5 s of the
#                              page's own clock, not of the machine's)
# timeout: the first start after an install takes seconds (caches), but a
# browser that hangs is killed within a minute rather than holding up make
# check; -k: KILL 10 s later if it ignores the TERM. timeout signals the
# whole process group, the browser's renderer and GPU processes with it.
set -u
browser=$(command -v chromium || command -v chromium-browser) ||
	{ echo "chromium-headless: no chromium here (Debian: chromium)" >&2; exit 127; }
profile=$(mktemp -d "${TMPDIR:-/tmp}/cudalab-chromium.XXXXXX") || exit 1
trap 'rm -rf "$profile"' EXIT
HOME=$profile timeout -k 10 "${CHROMIUM_TIMEOUT:-60}" "$browser" --headless --no-sandbox \
	--disable-gpu --disable-dev-shm-usage --user-data-dir="$profile" --no-first-run \
	--force-device-scale-factor=1 --hide-scrollbars \
	--run-all-compositor-stages-before-draw --virtual-time-budget=5000 "$@"
