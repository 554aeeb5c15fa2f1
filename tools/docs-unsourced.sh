#!/usr/bin/env bash
# docs-unsourced.sh - writes tests/docs_unsourced.txt anew: for each document, how many
# figures in its prose name no source yet (tools/prose-sources.awk).  test_docs fails when
# a document has more than its allowance (a new figure without its source) or fewer (the
# allowance is to be lowered: run this).  With -l, lists those figures instead, file:line;
# with --docs, the documents it counts, one a line.
set -eu
cd "$(dirname "$0")/.."
# (the sources of the READMEs, ANSWERS and INSTRUCTOR.md, under docs/src/: their markers;
# tools/docs-build.sh makes the reader's copies without them)
docs() { ls docs/src/README.md docs/src/INSTRUCTOR.md docs/src/tests/README.md \
            docs/src/[0-9][0-9]_*/README.md docs/src/[0-9][0-9]_*/ANSWERS.md \
            slides/[0-9][0-9]_*.md docs/src/results/*/README.md 2>/dev/null; }
if [ "${1:-}" = --docs ]; then # the documents it counts (tests/test_docs.sh checks the same)
    docs
    exit 0
fi
if [ "${1:-}" = -l ]; then
    for md in $(docs); do
        awk -v md="$md" -v list=1 -f tools/csv.awk -f tools/prose-sources.awk "$md" | grep -v '^SOURCED ' || true
    done
    exit 0
fi
{
    echo "# The figures in prose not yet marked with their source, per file: an allowance that may"
    echo "# only shrink (tests/test_docs.sh; how to mark one: tools/prose-sources.awk; this file:"
    echo "# tools/docs-unsourced.sh, which -l lists them)."
    for md in $(docs); do
        n=$(awk -v md="$md" -f tools/csv.awk -f tools/prose-sources.awk "$md" | sed -n 's/.* UNSOURCED \([0-9]*\)$/\1/p')
        [ "${n:-0}" -eq 0 ] || echo "$n $md"
    done
} >tests/docs_unsourced.txt
echo "docs-unsourced: $(awk '!/^#/ { s += $1 } END { print s + 0 }' tests/docs_unsourced.txt) figures left without a source, in tests/docs_unsourced.txt"
