#!/usr/bin/env bash
# test_lecture_decks.sh - no lecture deck shows the code of a write-level hole.  The decks in
# slides/ are the answers decks: they read the course's code whole.  The lecture shows each
# deck as tools/lecture-deck.sh makes it, every hole's code a TODO line as the week's handout
# has it (`make slides` renders both: build/slides/<deck>.html and <deck>.answers.html).
# Checked, on any machine:
#   - no line of 20 characters or more of any write-level hole appears anywhere in any
#     lecture deck, code or prose (the holes' lines: tools/lecture-deck.sh --list);
#   - where an answers deck shows a hole's code, its lecture deck has TODO lines instead;
#   - the lecture deck has as many slides as its answers deck;
#   - a deck made here with a hole's code in a code block, and in a diff, loses it.
set -u
cd "$(dirname "$0")/.."
. tools/slides-env.sh # slides_in
failures=0 checks=0
check_that() { checks=$((checks + 1)); local what=$1; shift; "$@" || { echo "FAIL: $what"; failures=$((failures + 1)); }; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

decks=(slides/[0-9][0-9]_*.md)
tools/lecture-deck.sh "${decks[0]}" --list | awk -F'\t' 'length($2) >= 20' >"$tmp/holes"
check_that "the holes' lines are found ($(wc -l <"$tmp/holes") of 20 characters or more)" \
    test "$(wc -l <"$tmp/holes")" -ge 100

# hole_lines_in FILE: "line<TAB>hole<TAB>text" for each line of a hole found in FILE
hole_lines_in() {
    awk -F'\t' 'NR == FNR { name[NR] = $1; text[NR] = $2; n = NR; next }
                { for (i = 1; i <= n; i++) if (index($0, text[i])) { print FNR "\t" name[i] "\t" text[i]; break } }' \
        "$tmp/holes" "$1"
}

for deck in "${decks[@]}"; do
    name=$(basename "$deck" .md)
    tools/lecture-deck.sh "$deck" >"$tmp/$name.md"
    hole_lines_in "$tmp/$name.md" >"$tmp/$name.left"
    check_that "$deck: its lecture deck shows no hole's code ($(wc -l <"$tmp/$name.left") lines: $(head -n 2 "$tmp/$name.left" | tr '\t\n' ' ')" \
        test ! -s "$tmp/$name.left"
    shown=$(hole_lines_in "$deck" | wc -l)
    [ "$shown" -eq 0 ] ||
        check_that "$deck shows $shown lines of holes; its lecture deck has their TODO lines in their place" \
            grep -q "TODO(lab [a-z0-9_]*)" "$tmp/$name.md"
    check_that "$deck: its lecture deck has as many slides ($(slides_in "$tmp/$name.md"), $(slides_in "$deck"))" \
        test "$(slides_in "$tmp/$name.md")" -eq "$(slides_in "$deck")"
    # the speaker notes and the prose: no figure's source marker for the room to see
    check_that "$deck: its lecture deck shows no source marker ($(grep -m1 -oE '\[(src|calc|given|quoted) [^]]{0,60}' "$tmp/$name.md"))" \
        bash -c "! grep -qE '\[(src|calc|given|quoted) ' '$tmp/$name.md'"
    check_that "$deck: at most 30 slides, a 50-minute lecture ($(slides_in "$deck"))" test "$(slides_in "$deck")" -le 30
done
# the answers deck too (make slides renders a copy of the deck without its markers)
printf '%s\n' 'about 1 ms [src results/x.csv step=08.2 count_ms] to count' >"$tmp/marked.md"
sed -E "$(sed -n "s/^ *sed -E '\(.*\)' \"\$deck\".*/\1/p" tools/slides.sh)" "$tmp/marked.md" >"$tmp/unmarked.md"
check_that "make slides renders the answers deck without source markers ($(cat "$tmp/unmarked.md"))" \
    test "$(cat "$tmp/unmarked.md")" = "about 1 ms to count"

# the check can fail: a deck made here with a hole's code (a run of its lines), in a code
# block and in a diff block, loses every one of them to the hole's TODO
mapfile -t run < <(tools/lecture-deck.sh "${decks[0]}" --list | awk -F'\t' '$1 == "pass"' | cut -f2 | head -n 4)
{
    printf '%s\n' '---' 'marp: true' '---' '' '## code' '' '```c'
    for l in "${run[@]}"; do echo "    $l"; done
    printf '%s\n' '```' '' '```diff'
    for l in "${run[@]}"; do echo "+    $l"; done
    printf '%s\n' '```'
} >"$tmp/made.md"
hole_lines_in "$tmp/made.md" >"$tmp/made.before"
tools/lecture-deck.sh "$tmp/made.md" >"$tmp/made.lecture.md"
hole_lines_in "$tmp/made.lecture.md" >"$tmp/made.after"
check_that "a deck made with 4 lines of hole 'pass' in a code block and a diff: they are found there ($(wc -l <"$tmp/made.before"))" \
    test -s "$tmp/made.before"
check_that "... and its lecture deck has none of them, and TODO(lab pass) twice" \
    eval 'test ! -s "$tmp/made.after" && test "$(grep -c "TODO(lab pass)" "$tmp/made.lecture.md")" -eq 2 &&
          grep -q "^+ *\/\* TODO(lab pass)" "$tmp/made.lecture.md"'

echo "test_lecture_decks: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
