#!/usr/bin/env bash
# test_docs.sh - the READMEs against the files they show: no result table is stale
# against its CSV (each README is regenerated into a temporary copy by the same tool
# as `make tables` and compared), and every image a README shows exists.  CPU only.
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for md in README.md [0-9][0-9]_*/README.md; do
    checks=$((checks + 1))
    copy="$tmp/$(echo "$md" | tr / _)"
    cp "$md" "$copy"
    tools/readme-tables.sh "$copy" >/dev/null 2>"$tmp/err" || { fail "$md: make tables failed: $(cat "$tmp/err")"; continue; }
    cmp -s "$copy" "$md" || fail "$md: a table is stale against its CSV (run make tables): $(diff "$md" "$copy" | head -n 3 | tr '\n' ' ')"
    dir=$(dirname "$md")
    for img in $(grep -o '!\[[^]]*\]([^)]*)' "$md" | sed 's/.*](\(.*\))/\1/'); do
        checks=$((checks + 1))
        [ -f "$dir/$img" ] || fail "$md shows $img, which does not exist"
    done
done
echo "test_docs: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
