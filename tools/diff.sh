#!/usr/bin/env bash
# diff.sh FROM TO - `make diff FROM=03 TO=04`: diff -u of the algorithm files of two
# stages, then, on stderr, the names of the .cuh files one stage has and the other not
# (new code a stage brings whole: read it whole).  A stage is named by its number, with
# or without its leading zero (4 or 04).
# diff.sh --nn06 FROM TO - `make diff06 FROM=3 TO=4`: the same for two versions of stage
# 06 (one file each), numbered with or without leading zeros (9 or 09).
# Exit 0 or 1 as diff -u (same or different), 2 for a name that is no stage or version.
set -u
cd "$(dirname "$0")/.."

# number TEXT: TEXT as a decimal number without leading zeros, or nothing
number() { [[ $1 =~ ^[0-9]+$ ]] && echo $((10#$1)); }

# stage_dir ID: the directory NN_* of stage ID ("4", "04")
stage_dir() {
    local n; n=$(number "$1") || return 1
    ls -d "$(printf '%02d' "$n")"_*/ 2>/dev/null | head -n 1
}

# nn06_file ID: the file of stage 06's version ID ("9", "09")
nn06_file() {
    local n; n=$(number "$1") || return 1
    ls 06_nn_histogram/v"$n"_*.cu 2>/dev/null | head -n 1
}

if [ "${1:-}" = --nn06 ]; then
    shift
    [ $# -eq 2 ] && [ -n "$1" ] && [ -n "$2" ] ||
        { echo "usage: make diff06 FROM=N TO=N (for example FROM=3 TO=4)" >&2; exit 2; }
    a=$(nn06_file "$1") && [ -n "$a" ] || { echo "make diff06: no version '$1' of stage 06 (06_nn_histogram/vN_*.cu)" >&2; exit 2; }
    b=$(nn06_file "$2") && [ -n "$b" ] || { echo "make diff06: no version '$2' of stage 06 (06_nn_histogram/vN_*.cu)" >&2; exit 2; }
    diff -u "$a" "$b"
    status=$?
    [ "$status" -le 1 ] && exit "$status"
    exit 2
fi

[ $# -eq 2 ] && [ -n "$1" ] && [ -n "$2" ] ||
    { echo "usage: make diff FROM=NN TO=NN (for example FROM=03 TO=04, or FROM=3 TO=4)" >&2; exit 2; }
stages=$(ls -d [0-9][0-9]_*/ | tr -d / | paste -sd' ' -)
from=$(stage_dir "$1") && [ -n "$from" ] || { echo "make diff: no stage '$1' (the stages: $stages)" >&2; exit 2; }
to=$(stage_dir "$2") && [ -n "$to" ] || { echo "make diff: no stage '$2' (the stages: $stages)" >&2; exit 2; }
a=$(ls "$from"radix_sort.c* 2>/dev/null | head -n 1)
b=$(ls "$to"radix_sort.c* 2>/dev/null | head -n 1)
[ -n "$a" ] && [ -n "$b" ] || { echo "make diff: both stages need a radix_sort.c or radix_sort.cu (for stage 06's versions: make diff06)" >&2; exit 2; }
diff -u "$a" "$b"
status=$?
for f in $(cd "$to" && ls *.cuh 2>/dev/null); do
    [ -f "$from$f" ] || echo "make diff: $to$f is new in this stage and not in the diff: read it whole" >&2
done
for f in $(cd "$from" && ls *.cuh 2>/dev/null); do
    [ -f "$to$f" ] || echo "make diff: $from$f is gone in ${to%/}" >&2
done
[ "$status" -le 1 ] && exit "$status"
exit 2
