#!/usr/bin/env bash
# slides.sh [DECK.md...] - `make slides`: renders the decks of slides/ (default: all of
# them) with marp-cli, each twice: the lecture, whose code blocks show every write-level
# hole as the week's handout does, a TODO line (tools/lecture-deck.sh writes it to
# build/slides/<deck>.md), to build/slides/<deck>.html (press P in a browser for the
# presenter view with its speaker notes), its notes alone to build/slides/<deck>.notes.txt
# (to print) and build/slides/<deck>.pdf, the notes as annotations and the slide titles as
# bookmarks; and the answers deck, the deck of slides/ as it is, the code whole, to show
# once the labs are due, to build/slides/<deck>.answers.html and .answers.pdf.  The PDFs
# are made where a Chromium is found (CHROME_PATH, or chromium / chromium-browser /
# google-chrome on PATH) and the decks' fonts are installed (Liberation Sans and Mono).  marp-cli is the version pinned in slides/package-lock.json,
# installed with `npm ci` on first use.  The HTML files show the images of slides/img/
# and the committed charts of results/*/plots/, which are copied next to them
# (build/slides/img, build/results); nothing outside build/ is written.
set -u
cd "$(dirname "$0")/.."
. tools/slides-env.sh
out=build/slides
decks=("$@")
[ ${#decks[@]} -gt 0 ] || decks=(slides/[0-9][0-9]_*.md)

command -v npm >/dev/null 2>&1 || { echo "slides: npm not found - install Node.js 18 or newer (or run tools/setup-slides.sh)" >&2; exit 2; }
# a PDF is laid out here, in the decks' own fonts or not at all: a fallback font overflows
# the slides and drops the underscores from the code.  The HTML is laid out by the browser
# that shows it, on its own machine: it is made without them, and the line says so.
fonts=$(missing_fonts | paste -sd, -)
[ -z "$fonts" ] || echo "slides: the decks' fonts are not installed here ($fonts): the HTML only, no PDF - run tools/setup-slides.sh (or, as root, apt-get install fonts-liberation) for the PDFs" >&2
if marp_needs_install; then
    echo "slides: installing marp-cli (npm ci in slides/, once)"
    (cd slides && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || { echo "slides: npm ci in slides/ failed" >&2; exit 2; }
fi
chrome=$(find_chromium)
[ -z "$fonts" ] || chrome="" # no PDF without the fonts
mkdir -p "$out" build/results
# marp's Chromium profiles (a few MB each) go to a folder of our own, removed at the end
TMPDIR=$(mktemp -d)
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
rm -rf "$out/img" && cp -r slides/img "$out/img"
for plots in results/*/plots; do
    compgen -G "$plots/*.svg" >/dev/null || continue   # a machine with no charts (yet)
    mkdir -p "build/$plots" && cp "$plots"/*.svg "build/$plots/"
done

made=0
# render MD OUT_BASE: the HTML, and the PDF where there is a Chromium (and, NOTES=1, the notes)
render() {
    local md=$1 base=$2 log=$out/$(basename "$2").log
    "${MARP[@]}" "$md" -o "$base.html" >/dev/null 2>"$log" ||
        { echo "slides: marp failed on $md (see $log)" >&2; exit 1; }
    if [ "${NOTES:-0}" = 1 ]; then
        "${MARP[@]}" --notes "$md" -o "$base.notes.txt" >/dev/null 2>>"$log" ||
            { echo "slides: marp --notes failed on $md (see $log)" >&2; exit 1; }
    fi
    if [ -n "$chrome" ]; then
        CHROME_PATH=$chrome "${MARP[@]}" --pdf --pdf-notes --pdf-outlines "$md" -o "$base.pdf" >/dev/null 2>>"$log" ||
            { echo "slides: marp --pdf failed on $md (see $log)" >&2; exit 1; }
    fi
}
for deck in "${decks[@]}"; do
    name=$(basename "$deck" .md)
    tools/lecture-deck.sh "$deck" >"$out/$name.md" || { echo "slides: tools/lecture-deck.sh failed on $deck" >&2; exit 1; }
    NOTES=1 render "$out/$name.md" "$out/$name"   # the lecture: its images are build/slides/img, build/results
    # the answers deck: the code whole, the figures' source markers out (test_docs reads them)
    without_markers "$deck" >"$out/$name.answers.md"
    render "$out/$name.answers.md" "$out/$name.answers"
    made=$((made + 1))
done
what="$made decks"; [ "$made" -ne 1 ] || what="1 deck"
if [ -n "$chrome" ]; then
    echo "slides: $what in $out/, each as the lecture (<deck>.html, .pdf with notes, .notes.txt) and the answers deck (<deck>.answers.html, .pdf; Chromium: $chrome)"
else
    why="no Chromium for the PDFs (apt-get install chromium, or set CHROME_PATH)"
    [ -z "$fonts" ] || why="no PDFs without the decks' fonts ($fonts: tools/setup-slides.sh)"
    echo "slides: $what in $out/, each as the lecture (<deck>.html, .notes.txt) and the answers deck (<deck>.answers.html) - $why"
fi
