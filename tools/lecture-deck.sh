#!/usr/bin/env bash
# lecture-deck.sh DECK.md [--list] - the deck as the lecture shows it, on stdout: the code of
# every write-level hole in its code blocks replaced by the hole's TODO line, as the week's
# handout has it (tools/lecture-deck.awk) - the holes of the file a block shows (its
# "<!-- code FILE -->" or "<!-- diff FROM TO -->" marker), of labs not yet due.  The decks in slides/ hold the code whole: they
# are the answers decks, shown after the labs are due; `make slides` renders both.
#   --list: the holes' lines instead, "name<TAB>line".
set -u
cd "$(dirname "$0")/.."
deck=${1:?usage: tools/lecture-deck.sh DECK.md [--list]}
[ -f "$deck" ] || { echo "lecture-deck: $deck: no such deck" >&2; exit 2; }
mapfile -t sources < <(grep -l 'WRITE BEGIN' [0-9][0-9]_*/*.c [0-9][0-9]_*/*.cu [0-9][0-9]_*/*.cuh \
                       [0-9][0-9]_*/*.h common/*.c common/*.cu common/*.cuh common/*.h 2>/dev/null)
list=0; [ "${2:-}" = --list ] && list=1
. tools/steps-lib.sh # steps, first_course_step_using
# each step: "id=file=order" (its place on the course's path); each source with holes:
# "file=id", the step whose lab its holes are - its own, or for a header the first step of
# its stage (else of the course) that includes it
step_map=$(steps | awk -F'\t' '{ printf "%s=%s=%d ", $1, $2, NR }')
owners=""
for f in "${sources[@]}"; do
    id=$(steps | awk -F'\t' -v f="$f" '$2 == f { print $1 }')
    if [ -z "$id" ]; then
        user=$(grep -l "#include \"${f##*/}\"" "${f%/*}"/step[0-9]*_*.c* "${f%/*}"/v[0-9]*_*.cu 2>/dev/null | sort -V | head -n 1)
        [ -n "$user" ] || user=$(first_course_step_using "$f")
        id=$(steps | awk -F'\t' -v f="$user" '$2 == f { print $1 }')
    fi
    owners+="$f=${id:-none} "
done
awk -v deck="$deck" -v list="$list" -v step_map="$step_map" -v owners="$owners" -f tools/lecture-deck.awk \
    "${sources[@]}" "$deck" "$deck"
