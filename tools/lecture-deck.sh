#!/usr/bin/env bash
# lecture-deck.sh DECK.md [--list] - the deck as the lecture shows it, on stdout: the code of
# every write-level hole in its code blocks replaced by the hole's TODO line, as the week's
# handout has it (tools/lecture-deck.awk).  The decks in slides/ hold the code whole: they
# are the answers decks, shown after the labs are due; `make slides` renders both.
#   --list: the holes' lines instead, "name<TAB>line".
set -u
cd "$(dirname "$0")/.."
deck=${1:?usage: tools/lecture-deck.sh DECK.md [--list]}
[ -f "$deck" ] || { echo "lecture-deck: $deck: no such deck" >&2; exit 2; }
mapfile -t sources < <(grep -l 'WRITE BEGIN' [0-9][0-9]_*/*.c [0-9][0-9]_*/*.cu [0-9][0-9]_*/*.cuh \
                       [0-9][0-9]_*/*.h common/*.c common/*.cu common/*.cuh common/*.h 2>/dev/null)
list=0; [ "${2:-}" = --list ] && list=1
awk -v deck="$deck" -v list="$list" -f tools/lecture-deck.awk \
    "${sources[@]}" "$deck"
