#!/usr/bin/env bash
# test_slides_render.sh - every deck of slides/ rendered in a real browser: marp-cli
# draws each slide to a PNG through headless Chromium; the number of PNGs must equal the
# number of slides in the Markdown, and no slide may be blank or draw in the outer edge
# of its page (tools/check-slide-pngs.js looks at the pixels).  Skipped (exit 77, one
# line) where marp-cli, Chromium or the decks' fonts (Liberation Sans and Mono) cannot be
# had: tools/setup-slides.sh installs all three.  Without those fonts Chromium would lay the
# slides out with others, wider or narrower, and the test would judge a layout no reader sees.
set -u
cd "$(dirname "$0")/.."
. tools/slides-env.sh
chrome=$(find_chromium)
if [ ! -x slides/node_modules/.bin/marp ] || ! command -v node >/dev/null 2>&1; then
    echo "SKIP: marp-cli is not installed in slides/ (run tools/setup-slides.sh)"; exit 77
fi
[ -n "$chrome" ] || { echo "SKIP: no Chromium to render the slides (run tools/setup-slides.sh)"; exit 77; }
fonts=$(missing_fonts | paste -sd, -)
[ -z "$fonts" ] || { echo "SKIP: the decks' fonts are not installed: $fonts (run tools/setup-slides.sh)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# slides_in DECK: the slides Marp makes of it - one more than the "---" rulers outside
# the front matter and the code blocks
slides_in() {
    awk 'NR == 1 && /^---$/ { front = 1; next }
         front { if (/^---$/) front = 0; next }
         /^```/ { code = !code; next }
         !code && /^---$/ { rulers++ }
         END { print rulers + 1 }' "$1"
}

for deck in slides/[0-9][0-9]_*.md; do
    name=$(basename "$deck" .md)
    checks=$((checks + 1))
    if ! CHROME_PATH=$chrome "${MARP[@]}" --images png "$deck" -o "$tmp/$name.png" >"$tmp/$name.log" 2>&1; then
        fail "$deck: marp could not render it: $(grep -m1 -i error "$tmp/$name.log")"
        continue
    fi
    want=$(slides_in "$deck")
    got=$(ls "$tmp/$name".*.png 2>/dev/null | wc -l)
    [ "$got" -eq "$want" ] || fail "$deck: $want slides in the Markdown, $got rendered"
    checks=$((checks + got))
    while read -r line; do
        case $line in ok*) ;; *) fail "$deck: $line" ;; esac
    done < <(node tools/check-slide-pngs.js "$tmp/$name".*.png)
done
[ "$checks" -gt 0 ] || fail "no decks in slides/"
echo "test_slides_render: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
