#!/usr/bin/env bash
# setup-slides.sh - installs what `make slides`, `make plots` and the slide render test
# need, and nothing that is already there (safe to run again):
#   - Chromium, gnuplot and the fonts the decks name (fonts-liberation: Liberation Sans and
#     Liberation Mono) from the distribution (Debian/Ubuntu, as root: apt-get).  Chromium
#     is installed without its recommended packages, so the fonts are asked for by name:
#     with only the DejaVu fonts of a bare Debian the slides lay out wider and overflow;
#   - marp-cli and pngjs at the versions pinned in slides/package-lock.json (npm ci).
# It says what it does, a line as each piece starts and one as it ends (an install of
# Chromium takes minutes); apt's and npm's own output goes to build/setup-slides.log.
# CI runs it before `make test` (.ci/run).  Exit 0 when everything is there afterwards;
# otherwise one line per missing piece and exit 1 (the render test then counts as skipped).
set -u
cd "$(dirname "$0")/.."
. tools/slides-env.sh
missing=0
mkdir -p build
log=build/setup-slides.log
: >"$log"
say() { echo "setup-slides: $*"; }

apt_updated=0
apt_install() { # apt_install PACKAGE...: only as root, only where apt-get exists
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        say "  cannot install $* here: it needs apt-get, as root"
        return 1
    fi
    local start=$SECONDS
    if [ "$apt_updated" = 0 ]; then
        say "  apt-get update ..."
        apt-get update -qq >>"$log" 2>&1 && apt_updated=1
    fi
    say "  apt-get install $* ..."
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >>"$log" 2>&1
    local rc=$?
    say "  apt-get install $*: $([ "$rc" -eq 0 ] && echo done || echo "failed (see $log)") in $((SECONDS - start)) s"
    return "$rc"
}

if [ -n "$(find_chromium)" ]; then
    say "Chromium: there ($(find_chromium))"
else
    say "Chromium: installing (Debian's chromium; a few minutes)"
    apt_install chromium || true
    [ -n "$(find_chromium)" ] || { say "no Chromium (install Debian's chromium, or set CHROME_PATH)"; missing=1; }
fi
if [ -z "$(missing_fonts)" ]; then
    say "fonts: there (${SLIDE_FONTS[*]})"
else
    say "fonts: installing $(missing_fonts | paste -sd, -)"
    apt_install fonts-liberation fontconfig || true
    fonts=$(missing_fonts | paste -sd, -)
    [ -z "$fonts" ] || { say "no $fonts font (apt-get install fonts-liberation)"; missing=1; }
fi
if command -v gnuplot >/dev/null 2>&1; then
    say "gnuplot: there ($(command -v gnuplot))"
else
    say "gnuplot: installing"
    apt_install gnuplot-nox || true
    command -v gnuplot >/dev/null 2>&1 || { say "no gnuplot (apt-get install gnuplot-nox)"; missing=1; }
fi
if ! command -v npm >/dev/null 2>&1; then
    say "no npm (install Node.js 18 or newer)"; missing=1
elif marp_needs_install; then
    start=$SECONDS
    say "marp-cli: installing (npm ci in slides/, the versions of its package-lock.json) ..."
    if (cd slides && npm ci --no-audit --no-fund --loglevel=error) >>"$log" 2>&1; then
        say "marp-cli: done in $((SECONDS - start)) s"
    else
        say "npm ci in slides/ failed (is the npm registry reachable? see $log)"; missing=1
    fi
else
    say "marp-cli: there (slides/node_modules)"
fi
[ "$missing" -eq 0 ] && say "Chromium, gnuplot, the Liberation fonts and marp-cli $(cd slides && node -p "require('./node_modules/@marp-team/marp-cli/package.json').version" 2>/dev/null) are ready"
exit "$missing"
