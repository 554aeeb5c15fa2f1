#!/usr/bin/env bash
# prose-fix.sh [DOC...] - after a new measurement: in each document (default: every one
# test_docs checks, tools/docs-unsourced.sh --docs: the sources under docs/src/ and the
# decks), every figure whose source now says
# otherwise is replaced by the source's value, printed to the same decimals
# (tools/prose-sources.awk -v fix=...), and each change is listed:
#   FIX 07_onesweep/README.md:291: 1.09 -> 1.22 (results/.../stages.csv step=07.9 ... vs_cub)
# The numbers follow the measurement; the words around them do not: read each sentence it
# names ("within 5%", "faster", "below CUB") and `git diff` before committing.  A marker
# that cannot be read (a missing row or file) is listed as test_docs lists it, and its
# figure is left as it is.  Exit 0.
set -u
cd "$(dirname "$0")/.."
docs=("$@")
[ ${#docs[@]} -gt 0 ] || mapfile -t docs < <(tools/docs-unsourced.sh --docs)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
changed=0
for md in "${docs[@]}"; do
    out=$(awk -v md="$md" -v fix="$tmp" -f tools/csv.awk -f tools/prose-sources.awk "$md")
    grep -E '^(FIX|FAIL)' <<<"$out" | grep -v '^FAIL .*: prints .*, its source says' || true
    if grep -q '^FIX ' <<<"$out" && ! cmp -s "$tmp" "$md"; then
        cat "$tmp" >"$md"
        changed=$((changed + 1))
    fi
done
[ $changed -eq 0 ] || tools/docs-build.sh >/dev/null # the reader's copies of the sources under docs/src/
echo "prose-fix: $changed documents changed (read each FIX line's sentence, then git diff)"
