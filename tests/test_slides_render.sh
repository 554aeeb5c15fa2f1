#!/usr/bin/env bash
# test_slides_render.sh - the decks' Markdown and theme checked (speaker notes on every
# slide, tables of at most 8 x 6, no text under 18 px), then every deck of slides/ - as the
# lecture shows it (tools/lecture-deck.sh) and as the answers deck - laid out in a real browser (tools/check-slide-dom.js, the page's script off, so that each
# slide lies where its HTML and CSS put it: every image loads, no text under 18 px, inside
# the SVG pictures as the slide scales them too, no line of text in the outer edge of its
# page, where text that does not fit spills).  With TEST_FULL=1 (make
# test FULL=1) each deck is rendered too: marp-cli draws each slide to a PNG through
# headless Chromium; the number of PNGs must equal the number of slides in the Markdown,
# and no slide may be blank or draw anything, a picture too, in the outer edge of its page
# (tools/check-slide-pngs.js looks at the pixels; a minute or two more).  Skipped (exit 77, one
# line) where marp-cli or Chromium cannot be had.  The decks' fonts (Liberation Sans and
# Mono) are another matter: without them Chromium lays the slides out in a fallback font,
# wider or narrower, the code without its underscores - a layout no reader should see - so
# a missing font fails the test, and so does any text Chromium draws in another font
# (check-slide-dom.js asks it which fonts it used).  tools/setup-slides.sh installs all
# three.  Chromium's profiles go to the test's own folder, removed at the end.
set -u
cd "$(dirname "$0")/.."
. tools/slides-env.sh

# First what the Markdown and the theme say, on any machine (these fail, never skip):
# every slide has speaker notes (an HTML comment that is not a marker or a directive),
# no table has more than 8 rows or 6 columns (split it), and the theme sets no text
# smaller than 18 px - a slide read from the back of a room.
static_fail=0
for deck in slides/[0-9][0-9]_*.md; do
    while read -r line; do
        echo "FAIL: $deck: $line"; static_fail=$((static_fail + 1))
    done < <(awk '
        function end_slide() {
            if (slide > 0 && !notes) print "slide " slide " (" title ") has no speaker notes"
        }
        function end_table() {
            if (rows > 8 || cols > 6)
                print "slide " slide " (" title "): a table of " rows " rows x " cols " columns (at most 8 x 6)"
            rows = 0; cols = 0; intable = 0
        }
        NR == 1 && /^---$/ { front = 1; next }
        front { if (/^---$/) { front = 0; slide = 1 } ; next }
        /^```/ { code = !code; next }
        code { next }
        /^---$/ { end_table(); end_slide(); slide++; notes = 0; title = ""; next }
        /^#+ / && title == "" { title = $0; sub(/^#+ /, "", title) }
        /^<!--$/ { notes = 1 }
        /^\|/ { if (!intable) { intable = 1; n = split($0, cells, "|"); cols = n - 2 }
                else if ($0 !~ /^\| *---/) rows++
                next }
        intable { end_table() }
        END { end_table(); end_slide() }' "$deck")
done
while read -r size; do
    echo "FAIL: slides/course.css sets a font-size of ${size}px (at least 18)"; static_fail=$((static_fail + 1))
done < <(grep -o 'font-size: *[0-9]*px' slides/course.css | grep -o '[0-9]*' | awk '$1 < 18')
if [ "$static_fail" -gt 0 ]; then
    echo "test_slides_render: $static_fail failed in the decks' Markdown and theme (not rendered)"
    exit 1
fi
chrome=$(find_chromium)
if [ ! -x slides/node_modules/.bin/marp ] || ! command -v node >/dev/null 2>&1; then
    echo "SKIP: marp-cli is not installed in slides/ (run tools/setup-slides.sh)"; exit 77
fi
[ -n "$chrome" ] || { echo "SKIP: no Chromium to render the slides (run tools/setup-slides.sh)"; exit 77; }
fonts=$(missing_fonts | paste -sd, -)
if [ -n "$fonts" ]; then
    echo "FAIL: the decks' fonts are not installed: $fonts - Chromium would lay the slides out in a fallback font (run tools/setup-slides.sh, or apt-get install fonts-liberation)"
    echo "test_slides_render: 1 checks, 1 failed"
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp # marp's and puppeteer's Chromium profiles
failures=0 checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for deck in slides/[0-9][0-9]_*.md; do
    [ "${TEST_FULL:-0}" = 1 ] || break # the pixels: make test FULL=1
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
# the page as the browser lays it out: every image loads, no text under 18 px - the lecture
# (its holes' code as TODO lines, tools/lecture-deck.sh) and the answers deck alike
for deck in slides/[0-9][0-9]_*.md; do
    name=$(basename "$deck" .md)
    tools/lecture-deck.sh "$deck" >"$tmp/$name.lecture.md" || { fail "$deck: tools/lecture-deck.sh failed"; continue; }
    for kind in lecture answers; do
        md=$deck html=$tmp/$name.answers.html
        [ $kind = answers ] || { md=$tmp/$name.lecture.md html=$tmp/$name.html; }
        CHROME_PATH=$chrome "${MARP[@]}" "$md" -o "$html" >"$html.log" 2>&1 ||
            { fail "$deck ($kind): marp could not make its HTML: $(grep -m1 -i error "$html.log")"; continue; }
        # the HTML's images are named relative to the deck's folder
        sed -i "s|<head>|<head><base href=\"file://$PWD/slides/\">|" "$html"
    done
done
while read -r line; do
    case $line in ok*) checks=$((checks + ${line#ok })) ;; *) fail "$line" ;; esac
done < <(CHROME_PATH=$chrome node tools/check-slide-dom.js "$tmp"/[0-9][0-9]_*.html 2>&1)
# The font check can fail: with the Liberation fonts hidden from fontconfig (a font
# configuration of the machine's other fonts alone), the intro deck's text and code must be
# reported drawn in another font.
other_dirs=$(fc-list --format '%{file}\n' 2>/dev/null | grep -vi liberation | xargs -r -n1 dirname | sort -u)
if [ -n "$other_dirs" ]; then
    checks=$((checks + 1))
    { echo '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
      for d in $other_dirs; do echo "<dir>$d</dir>"; done
      echo "<cachedir>$tmp/fontconfig-cache</cachedir></fontconfig>"; } >"$tmp/no-liberation.conf"
    FONTCONFIG_FILE=$tmp/no-liberation.conf CHROME_PATH=$chrome node tools/check-slide-dom.js \
        "$tmp/00_intro.html" >"$tmp/fallback.out" 2>&1
    grep -q 'the text is drawn in other fonts than Liberation Sans' "$tmp/fallback.out" &&
        grep -q 'the code is drawn in other fonts than Liberation Mono' "$tmp/fallback.out" ||
        fail "with the Liberation fonts hidden, check-slide-dom.js did not report a fallback font: $(head -c 300 "$tmp/fallback.out")"
fi
[ "$checks" -gt 0 ] || fail "no decks in slides/"
echo "test_slides_render: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
