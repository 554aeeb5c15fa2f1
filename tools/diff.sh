#!/usr/bin/env bash
# diff.sh FROM TO - `make diff FROM=03 TO=04`: diff -u of the files of two steps of the
# course (steps.txt; `make steps` lists them), then, on stderr, the names of the .cuh files
# one step's file includes and the other's not: new code a step brings whole, to read whole.
# A step is named by its id, leading zeros optional: 4 or 04, 5.1 or 05.1, 6.3 or 06.3.
# A stage of several steps named by its number alone stands for its last step as FROM and
# its first as TO: FROM=04 TO=05 is 04 -> 05.1, FROM=05 TO=07 is 05.4 -> 07.1.
# Any two steps may be diffed, across stages too (the diff is then not one lesson).
# diff.sh --nn06 FROM TO - `make diff06 FROM=3 TO=4`: the same for versions of stage 06
# (step 06.N is version N; 06.3 or 6.3 is accepted too).
# Exit 0 or 1 as diff -u (same or different), 2 for a name that is no step.
set -u
cd "$(dirname "$0")/.."
. tools/steps-lib.sh
who="make diff"
if [ "${1:-}" = --nn06 ]; then
    shift
    who="make diff06"
    [ $# -eq 2 ] && [ -n "$1" ] && [ -n "$2" ] ||
        { echo "usage: make diff06 FROM=N TO=N (for example FROM=3 TO=4)" >&2; exit 2; }
    as_version() { if [[ $1 =~ ^0*6\. ]]; then echo "$1"; else echo "6.$1"; fi; }
    set -- "$(as_version "$1")" "$(as_version "$2")"
fi
[ $# -eq 2 ] && [ -n "$1" ] && [ -n "$2" ] ||
    { echo "usage: make diff FROM=ID TO=ID (for example FROM=03 TO=04; make steps lists the ids)" >&2; exit 2; }

# file_of ID first|last: the file of step ID - of a stage's first or last step where ID is
# a stage of several steps; a message and exit 2 if there is none
file_of() {
    local id="" file=""
    id=$(step_id "$1") && file=$(step_field "$id" 2)
    if [ -z "$file" ] && [ -n "$id" ] && [[ $id != *.* ]]; then # a stage: its first or last step
        id=$(step_ids | grep "^$id\." | { if [ "$2" = first ]; then head -n 1; else tail -n 1; fi; })
        [ -z "$id" ] || file=$(step_field "$id" 2)
    fi
    [ -n "$file" ] || { no_step "$1"; exit 2; }
    echo "$file"
}
no_step() {
    if [ "$who" = "make diff06" ]; then
        echo "$who: no version '${1#6.}' (the versions: $(step_ids | sed -n 's/^06\.//p' | paste -sd' ' -), or 06.N)" >&2
    else
        echo "$who: no step '$1' (make steps lists them: $(step_ids | paste -sd' ' -); a stage's number alone: its last step as FROM, its first as TO)" >&2
    fi
}
a=$(file_of "$1" last) || exit 2
b=$(file_of "$2" first) || exit 2
step_diff "$a" "$b" # the lines that mark lab holes left out (steps-lib.sh)
status=$?
# included_cuh FILE: the .cuh files FILE includes, as paths (its folder, else common/)
included_cuh() {
    local h dir; dir=$(dirname "$1")
    for h in $(sed -n 's/^#include "\([^"]*\.cuh\)".*/\1/p' "$1"); do
        if [ -f "$dir/$h" ]; then echo "$dir/$h"; else echo "common/$h"; fi
    done | sort -u
}
for f in $(comm -13 <(included_cuh "$a") <(included_cuh "$b")); do
    echo "$who: $f is new in this step and not in the diff: read it whole" >&2
done
for f in $(comm -23 <(included_cuh "$a") <(included_cuh "$b")); do
    echo "$who: $f is no longer used in this step" >&2
done
[ "$status" -le 1 ] && exit "$status"
exit 2
