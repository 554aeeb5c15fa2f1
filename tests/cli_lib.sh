# cli_lib.sh - what the command-line test scripts share; source it after setting `bin`.
#   expect_error NEEDLE ARGS...   the program must exit non-zero (not 77, no crash) with
#                                 exactly one line on stderr, containing NEEDLE
#   fail MESSAGE                  count a failure
#   finish NAME                   print the count, exit non-zero if anything failed
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 checks=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect_error() {
    local needle=$1; shift
    checks=$((checks + 1))
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$? lines
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; then fail "'$*' exited $rc"; return; fi
    if [ "$rc" -gt 100 ]; then fail "'$*' crashed (exit $rc)"; return; fi
    if [ "$lines" -ne 1 ]; then fail "'$*' printed $lines lines on stderr:"; cat "$tmp/err"; return; fi
    grep -q -- "$needle" "$tmp/err" || fail "'$*': stderr lacks '$needle': $(cat "$tmp/err")"
}

finish() {
    echo "$1: $checks checks, $failures failed"
    [ "$failures" -eq 0 ]
}
