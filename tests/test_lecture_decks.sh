#!/usr/bin/env bash
# test_lecture_decks.sh - no lecture deck shows the code of a lab not yet due.  The decks in
# slides/ are the answers decks: they read the course's code whole.  The lecture shows each
# deck as tools/lecture-deck.sh makes it, every hole's code a TODO line as the week's handout
# has it (`make slides` renders both: build/slides/<deck>.html and <deck>.answers.html).
# Checked, on any machine:
#   - no line of 20 characters or more of a write-level hole of a lab not yet due (its own
#     stage's; in a later deck of a stage, from the first step it diffs to) appears in its
#     lecture deck, code or prose (the holes' lines: tools/lecture-deck.sh --list);
#   - where an answers deck shows such a hole's code, its lecture deck has TODO lines instead;
#   - every TODO a lecture deck shows is a lab of its own stage, of the step whose file the
#     block quotes or of one before it (never another stage's, nor a later step's);
#   - the lecture deck has as many slides as its answers deck, at most 30, and shows no
#     figure's source marker, nor does the answers deck make slides renders;
#   - a deck made here with a hole's code in a code block, and in a diff, loses it.
set -u
cd "$(dirname "$0")/.."
. tools/slides-env.sh # slides_in, without_markers
failures=0 checks=0
check_that() { checks=$((checks + 1)); local what=$1; shift; "$@" || { echo "FAIL: $what"; failures=$((failures + 1)); }; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

decks=(slides/[0-9][0-9]_*.md)
tools/lecture-deck.sh "${decks[0]}" --list | awk -F'\t' 'length($2) >= 20' >"$tmp/holes"
check_that "the holes' lines are found ($(wc -l <"$tmp/holes") of 20 characters or more)" \
    test "$(wc -l <"$tmp/holes")" -ge 100

# hole_lines_in FILE [HOLES]: "line<TAB>hole<TAB>text" for each line of a hole (of HOLES,
# default every hole) found in FILE
hole_lines_in() {
    awk -F'\t' 'NR == FNR { name[NR] = $1; text[NR] = $2; n = NR; next }
                { for (i = 1; i <= n; i++) if (index($0, text[i])) { print FNR "\t" name[i] "\t" text[i]; break } }' \
        "${2:-$tmp/holes}" "$1"
}

# A TODO on a lecture slide is the lab of the code the slide shows: a hole of the deck's own
# stage, of the step whose file the block quotes ("<!-- code FILE -->", "<!-- diff FROM TO
# -->") or of a step before it - never another stage's lab, nor a later step's whose lines
# happen to read the same.  Each lab's step: the first step whose file, or a header that
# file includes, has the hole.
. tools/steps-lib.sh # steps
steps | awk -F'\t' '{ print NR "\t" $1 "\t" $2 }' >"$tmp/path"
# with_headers FILE: FILE and the headers it includes (its folder's, else common/'s), a line each
with_headers() {
    echo "$1"
    grep -oE '#include "[a-z_0-9]+\.(cuh|h)"' "$1" | cut -d'"' -f2 |
        while read -r h; do ls "${1%/*}/$h" "common/$h" 2>/dev/null; done
}
while IFS=$'\t' read -r order id file; do
    for f in $(with_headers "$file"); do
        grep -oE 'WRITE BEGIN [a-z_0-9]+' "$f" | awk -v o="$order" -v id="$id" '{ print $3 "\t" o "\t" id }'
    done
done <"$tmp/path" | sort -t$'\t' -k1,1 -k2,2n | awk -F'\t' '!seen[$1]++' >"$tmp/lab_steps"
# a lab's line that the step before its step already holds is no answer: the lab's handout
# ships it (step 02.1's private histogram, say, reads as part of 02.3's table)
while IFS=$'\t' read -r lab order _; do
    prev=$(awk -F'\t' -v o="$order" '$1 == o - 1 { print $3 }' "$tmp/path")
    [ -n "$prev" ] || continue
    # the lab's lines (of $tmp/holes) found in a line of those files, in one pass over them
    awk -F'\t' -v lab="$lab" 'FNR == NR { if ($1 == lab) want[++n] = $2; next } { all = all "\n" $0 }
                              END { for (i = 1; i <= n; i++) if (index(all, want[i])) print lab "\t" want[i] }' \
        "$tmp/holes" $(with_headers "$prev")
done <"$tmp/lab_steps" >"$tmp/given"
# not_due DECK: the holes (of $tmp/holes) of the labs a deck's lecture comes before: its own
# stage's, and in a stage's later deck (NN_name_part2.md) those from the first step it diffs
# to (or, with no diff, the first step whose file it shows) on
not_due() {
    local name; name=$(basename "$1" .md)
    awk -F'\t' -v stage="${name:0:2}" -v later="$([[ $name == *_part[0-9]* ]] && echo 1 || echo 0)" '
        FILENAME == ARGV[1] { order[$2] = $1; file_order[$3] = $1; next }
        FILENAME == ARGV[2] { lab_order[$1] = $2; lab_step[$1] = $3; next }
        FILENAME == ARGV[3] {
            if ($0 ~ /^<!-- diff(06)? [0-9.]+ [0-9.]+ -->/) { split($0, w, " "); to = (w[2] == "diff06" ? "06." : "") w[4]
                if (substr(to, 1, 2) == stage && (!fd || order[to] < fd)) fd = order[to] }
            if ($0 ~ /^<!-- code [^ ]+ -->/) { split($0, w, " ")
                for (l in lab_step) if (substr(lab_step[l], 1, 2) == stage && (w[3] in file_order) && file_order[w[3]] == lab_order[l] && (!fc || lab_order[l] < fc)) fc = lab_order[l] }
            next
        }
        FILENAME == ARGV[4] { given[$0] = 1; next }
        FNR == 1 { first = !later ? 0 : fd ? fd : fc }
        ($0 in given) { next }
        { own = substr(lab_step[$1], 1, 2) == stage && lab_order[$1] >= first
          if (own) { line[$2] = $0 } else { elsewhere[$2] = 1 } }
        # a line that a lab already due wrote too (or within a line of its) may be its code
        END { for (t in line) { mine = 1; for (e in elsewhere) if (index(e, t)) { mine = 0; break }
                                if (mine) print line[t] } }' "$tmp/path" "$tmp/lab_steps" "$1" "$tmp/given" "$tmp/holes"
}

for deck in "${decks[@]}"; do
    name=$(basename "$deck" .md)
    tools/lecture-deck.sh "$deck" >"$tmp/$name.md"
    not_due "$deck" >"$tmp/$name.holes"
    hole_lines_in "$tmp/$name.md" "$tmp/$name.holes" >"$tmp/$name.left"
    check_that "$deck: its lecture deck shows no code of a lab not yet due ($(wc -l <"$tmp/$name.left") lines: $(head -n 2 "$tmp/$name.left" | tr '\t\n' ' ')" \
        test ! -s "$tmp/$name.left"
    shown=$(hole_lines_in "$deck" "$tmp/$name.holes" | wc -l)
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
for deck in "${decks[@]}"; do
    name=$(basename "$deck" .md)
    awk -F'\t' -v stage="${name:0:2}" -v deck="$deck" '
        FILENAME == ARGV[1] { order[$2] = $1; file_order[$3] = $1; next }
        FILENAME == ARGV[2] { lab_order[$1] = $2; lab_step[$1] = $3; next }
        /^<!-- code [^ ]+ -->/ { split($0, w, " "); shown = w[3] in file_order ? file_order[w[3]] : 1000000; next }
        /^<!-- diff(06)? [0-9.]+ [0-9.]+ -->/ { split($0, w, " "); to = (w[2] == "diff06" ? "06." : "") w[4]; shown = order[to]; next }
        /^```/ { if (inb) shown = ""; inb = !inb; next }
        inb && match($0, /TODO\(lab [a-z_0-9]+\)/) {
            lab = substr($0, RSTART + 9, RLENGTH - 10)
            if (substr(lab_step[lab], 1, 2) != stage || shown == "" || lab_order[lab] > shown)
                print deck ": line " FNR " shows TODO(lab " lab "), the lab of step " lab_step[lab] ", on a slide of " (shown == "" ? "no marked file" : "step order " shown)
        }' "$tmp/path" "$tmp/lab_steps" "$tmp/$name.md" >"$tmp/$name.wrong"
    check_that "$deck: its lecture deck shows only the TODOs of its own labs ($(head -n 1 "$tmp/$name.wrong"))" \
        test ! -s "$tmp/$name.wrong"
done

# the answers deck too (make slides renders a copy of the deck without its markers)
printf '%s\n' 'about 1 ms [src results/x.csv step=08.2 count_ms] to count' >"$tmp/marked.md"
without_markers "$tmp/marked.md" >"$tmp/unmarked.md" # slides-env.sh's, as make slides calls it
check_that "make slides renders the answers deck without source markers ($(cat "$tmp/unmarked.md"))" \
    test "$(cat "$tmp/unmarked.md")" = "about 1 ms to count"

# the check can fail: a deck made here with a hole's code (a run of its lines), in a code
# block and in a diff block, loses every one of them to the hole's TODO
mapfile -t run < <(tools/lecture-deck.sh "${decks[0]}" --list | awk -F'\t' '$1 == "pass"' | cut -f2 | head -n 4)
{
    printf '%s\n' '---' 'marp: true' '---' '' '## code' '' '<!-- code 01_sequential/radix_sort.c -->' '```c'
    for l in "${run[@]}"; do echo "    $l"; done
    printf '%s\n' '```' '' '<!-- code 01_sequential/radix_sort.c -->' '```diff'
    for l in "${run[@]}"; do echo "+    $l"; done
    printf '%s\n' '```'
} >"$tmp/01_made.md"
mv "$tmp/01_made.md" "$tmp/made.md.tmp"; mkdir -p "$tmp/made"; mv "$tmp/made.md.tmp" "$tmp/made/01_made.md"
hole_lines_in "$tmp/made/01_made.md" >"$tmp/made.before"
tools/lecture-deck.sh "$tmp/made/01_made.md" >"$tmp/made.lecture.md"
hole_lines_in "$tmp/made.lecture.md" >"$tmp/made.after"
check_that "a deck made with 4 lines of hole 'pass' in a code block and a diff: they are found there ($(wc -l <"$tmp/made.before"))" \
    test -s "$tmp/made.before"
check_that "... and its lecture deck has none of them, and TODO(lab pass) twice" \
    eval 'test ! -s "$tmp/made.after" && test "$(grep -c "TODO(lab pass)" "$tmp/made.lecture.md")" -eq 2 &&
          grep -q "^+ *\/\* TODO(lab pass)" "$tmp/made.lecture.md"'

# a week of INSTRUCTOR.md's schedule is one 50-minute lecture: the decks its row names (two
# short ones may share a week) are 30 slides together; every deck is a week's or a project's
awk -F'|' '/^## A schedule/ { on = 1 } /^## What each stage should teach/ { on = 0 }
           on && /^[|] [0-9]/ { n = split($3, w, "`"); decks = ""
               for (i = 2; i <= n; i += 2) if (w[i] ~ /^[0-9][0-9]_.*[.]md$/) decks = decks " " w[i]
               gsub(/^ +| +$/, "", $2); if (decks != "") print $2 "\t" substr(decks, 2) }' INSTRUCTOR.md >"$tmp/week-decks"
check_that "INSTRUCTOR.md's schedule names the decks of its weeks ($(wc -l <"$tmp/week-decks") rows)" \
    test "$(wc -l <"$tmp/week-decks")" -ge 12
while IFS=$'\t' read -r week names; do
    total=0
    for d in $names; do
        check_that "week $week: its deck slides/$d exists" test -f "slides/$d"
        [ -f "slides/$d" ] && total=$((total + $(slides_in "slides/$d")))
    done
    check_that "week $week: its lecture ($names) is at most 30 slides ($total)" test "$total" -le 30
done <"$tmp/week-decks"
for deck in "${decks[@]}"; do
    times=$(cut -f2 "$tmp/week-decks" | tr ' ' '\n' | grep -cx "$(basename "$deck")")
    check_that "$deck is the lecture of exactly one week or project of the schedule ($times)" test "$times" -eq 1
done

echo "test_lecture_decks: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
