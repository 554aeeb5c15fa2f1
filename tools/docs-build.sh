#!/usr/bin/env bash
# docs-build.sh [--check] - `make docs`: the READMEs, ANSWERS and INSTRUCTOR.md a reader
# opens, made from their sources under docs/src/ (the same path below it), so that their
# raw text reads as prose.
#
# A source holds every figure's marker - where the number comes from (<!-- src FILE ROWS
# COLUMN -->, <!-- calc ... -->, <!-- given ... -->, <!-- quoted ... -->: their language is
# tools/prose-sources.awk's) - and the two lines around each table that make tables fills
# (<!-- table ... -->, <!-- end table -->); test_docs checks every marker against results/.
# The reader's copy is the source without them, and one first line that names the source.
# Edit the source, then run make docs (make tables runs it too); test_docs fails when a
# reader's copy is not what its source makes (--check: lists them, exit 1).
set -eu
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = --check ] && check=1

# the reader's copy of source $1 (docs/src/PATH), on stdout
strip() {
    printf '<!-- generated from %s by make docs: edit that file -->\n' "$1"
    awk '
        /^<!-- (table [^>]*|end table|fit-check|end fit-check) -->$/ { next }
        {
            while (match($0, / ?<!-- (src|quoted|given|calc) [^>]*-->/))
                $0 = substr($0, 1, RSTART - 1) substr($0, RSTART + RLENGTH)
            print
        }' "$1"
}

stale=0
while IFS= read -r src; do
    out=${src#docs/src/}
    if [ $check = 1 ]; then
        if ! strip "$src" | cmp -s - "$out"; then
            echo "docs-build: $out is not what $src makes (run make docs)"
            stale=1
        fi
    else
        tmp=$(mktemp)
        strip "$src" >"$tmp"
        if cmp -s "$tmp" "$out" 2>/dev/null; then rm -f "$tmp"
        else mkdir -p "$(dirname "$out")"; mv "$tmp" "$out"; chmod 644 "$out"; echo "docs-build: wrote $out"; fi
    fi
done < <(find docs/src -name '*.md' | sort)
exit $stale
