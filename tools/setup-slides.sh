#!/usr/bin/env bash
# setup-slides.sh - installs what `make slides`, `make plots` and the slide render test
# need, and nothing that is already there (safe to run again):
#   - Chromium, gnuplot and the fonts the decks name (fonts-liberation: Liberation Sans and
#     Liberation Mono) from the distribution (Debian/Ubuntu, as root: apt-get).  Chromium
#     is installed without its recommended packages, so the fonts are asked for by name:
#     with only the DejaVu fonts of a bare Debian the slides lay out wider and overflow;
#   - marp-cli and pngjs at the versions pinned in slides/package-lock.json (npm ci).
# CI runs it before `make test` (.ci/run).  Exit 0 when everything is there afterwards;
# otherwise one line per missing piece and exit 1 (the render test then counts as skipped).
set -u
cd "$(dirname "$0")/.."
. tools/slides-env.sh
missing=0

apt_install() { # apt_install PACKAGE...: only as root, only where apt-get exists
    [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1 || return 1
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"; } \
        >/dev/null 2>&1
}

if [ -z "$(find_chromium)" ]; then
    apt_install chromium || true
    [ -n "$(find_chromium)" ] || { echo "setup-slides: no Chromium (install Debian's chromium, or set CHROME_PATH)"; missing=1; }
fi
if [ -n "$(missing_fonts)" ]; then
    apt_install fonts-liberation fontconfig || true
    fonts=$(missing_fonts | paste -sd, -)
    [ -z "$fonts" ] || { echo "setup-slides: no $fonts font (apt-get install fonts-liberation)"; missing=1; }
fi
if ! command -v gnuplot >/dev/null 2>&1; then
    apt_install gnuplot-nox || true
    command -v gnuplot >/dev/null 2>&1 || { echo "setup-slides: no gnuplot (apt-get install gnuplot-nox)"; missing=1; }
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "setup-slides: no npm (install Node.js 18 or newer)"; missing=1
elif marp_needs_install; then
    (cd slides && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
        { echo "setup-slides: npm ci in slides/ failed (is the npm registry reachable?)"; missing=1; }
fi
[ "$missing" -eq 0 ] && echo "setup-slides: Chromium, gnuplot, the Liberation fonts and marp-cli $(cd slides && node -p "require('./node_modules/@marp-team/marp-cli/package.json').version" 2>/dev/null) are ready"
exit "$missing"
