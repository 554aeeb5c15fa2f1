# slides-env.sh - what tools/slides.sh, tools/setup-slides.sh and
# tests/test_slides_render.sh and tests/test_lecture_decks.sh share (sourced, from the
# repository root).

# The Chromium marp-cli renders with: CHROME_PATH, else the first of Debian's,
# Ubuntu's and Google's names on PATH; empty when there is none.
find_chromium() {
    if [ -n "${CHROME_PATH:-}" ]; then echo "$CHROME_PATH"; return; fi
    command -v chromium || command -v chromium-browser || command -v google-chrome || true
}

# True when slides/node_modules lacks marp-cli or is older than the lock file.
marp_needs_install() {
    [ ! -x slides/node_modules/.bin/marp ] || [ slides/package-lock.json -nt slides/node_modules/.package-lock.json ]
}

# marp-cli with the course's theme; local images allowed (the decks show the plots).
MARP=(slides/node_modules/.bin/marp --no-stdin --theme-set slides/course.css --allow-local-files)

# The fonts the decks, the pictures of slides/img and the charts name (slides/course.css):
# Debian's fonts-liberation.  missing_fonts prints the families fontconfig does not have.
SLIDE_FONTS=("Liberation Sans" "Liberation Mono")
missing_fonts() {
    local family
    for family in "${SLIDE_FONTS[@]}"; do
        fc-list : family 2>/dev/null | tr ',' '\n' | grep -qxF "$family" || echo "$family"
    done
}

# slides_in DECK: the slides Marp makes of it - one more than the "---" rulers outside
# the front matter and the code blocks
slides_in() {
    awk 'NR == 1 && /^---$/ { front = 1; next }
         front { if (/^---$/) front = 0; next }
         /^```/ { code = !code; next }
         !code && /^---$/ { rulers++ }
         END { print rulers + 1 }' "$1"
}

# without_markers FILE: FILE without its figures' source markers ([src FILE ...], [calc ...]:
# test_docs reads them; the room and the presenter view do not) - the answers deck of make
# slides; tools/lecture-deck.awk drops them from the lecture alike
without_markers() { sed -E 's/ ?\[(src|calc|given|quoted) [^]]*\]//g' "$1"; }
