#!/usr/bin/env bash
# test_docs.sh - the READMEs and the slide decks against the files they show: no result
# table is stale against its CSV (each file is regenerated into a temporary copy by the
# same tool as `make tables` and compared), every image they show exists, every deck
# has the sections a deck must have, and every line a deck quotes from `make diff` or
# from a source file is still there, and every figure in prose that names its source
# still matches it, and every file of the course that their prose names in backticks
# exists.  CPU only.
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# the instructor's expected ranges, made from the GPUs' stages.csv (make tables)
checks=$((checks + 1))
tools/expected-ranges.sh "$tmp/expected_ranges.csv" 2>"$tmp/err" &&
    cmp -s "$tmp/expected_ranges.csv" results/expected_ranges.csv ||
    fail "results/expected_ranges.csv is stale against the stages.csv it is made from (run make tables) $(cat "$tmp/err")"

# The READMEs, ANSWERS and INSTRUCTOR.md a reader opens are made from docs/src/ (make docs,
# tools/docs-build.sh): each must be what its source makes now
checks=$((checks + 1))
tools/docs-build.sh --check >"$tmp/docs" 2>&1 || fail "$(head -n 3 "$tmp/docs" | tr '\n' ' ')"

for md in docs/src/README.md docs/src/INSTRUCTOR.md docs/src/[0-9][0-9]_*/README.md slides/[0-9][0-9]_*.md; do
    checks=$((checks + 1))
    copy="$tmp/$(echo "$md" | tr / _)"
    cp "$md" "$copy"
    tools/readme-tables.sh "$copy" >/dev/null 2>"$tmp/err" || { fail "$md: make tables failed: $(cat "$tmp/err")"; continue; }
    cmp -s "$copy" "$md" || fail "$md: a table is stale against its CSV (run make tables): $(diff "$md" "$copy" | head -n 3 | tr '\n' ' ')"
done
for md in README.md INSTRUCTOR.md [0-9][0-9]_*/README.md slides/[0-9][0-9]_*.md; do
    dir=$(dirname "$md")
    for img in $(grep -o '!\[[^]]*\]([^)]*)' "$md" | sed 's/.*](\(.*\))/\1/'); do
        checks=$((checks + 1))
        [ -f "$dir/$img" ] || fail "$md shows $img, which does not exist"
    done
done

# Every file of results/ that a README, deck, ANSWERS or NOTES names exists: paths
# (results/<machine>/...), and file names in backquotes (`nn06.csv`, `results/.../x.log`),
# which must be somewhere under results/ or beside the document.
# (The sources under docs/src/, whose markers name results/ files too; a name beside the
# document is beside the reader's copy.)
for md in docs/src/README.md docs/src/INSTRUCTOR.md docs/src/tests/README.md docs/src/[0-9][0-9]_*/README.md \
          docs/src/[0-9][0-9]_*/ANSWERS.md [0-9][0-9]_*/NOTES.md slides/[0-9][0-9]_*.md docs/src/results/*/README.md; do
    [ -f "$md" ] || continue
    for f in $(grep -oE '(\.\./)?results/[a-z0-9-]+/[A-Za-z0-9_./-]+[A-Za-z0-9_-]' "$md" | sed 's#^\.\./##' | sort -u); do
        checks=$((checks + 1))
        [ -e "$f" ] || fail "$md names $f, which does not exist"
    done
    for f in $(grep -oE '`[A-Za-z0-9_./-]+\.(csv|log|txt|ncu-rep)`' "$md" | tr -d '`' | sort -u); do
        case $f in build/* | tests/* | */build/* | .*) continue ;; esac  # .x: a suffix, not a name
        checks=$((checks + 1))
        base=${f##*/}
        [ -e "$f" ] || [ -e "$(dirname "${md#docs/src/}")/$f" ] || [ -n "$(find results -name "$base" | head -n 1)" ] ||
            fail "$md names \`$f\`, which is nowhere under results/"
    done
done

# has_heading DECK REGEX: a slide heading (## ...) of the deck matches REGEX
has_heading() { grep -qE "^##? .*($2)" "$1"; }

# The sections of a deck: the intro covers the course map, the problem, how
# to use the repository and the GPU; a stage deck the idea with a picture of its own in
# slides/img/, the key lines of its diff, the measured effect (a table made from a CSV
# and a plot) and the lab.  A stage taught in two lectures has a second deck,
# slides/<stage>_part2.md, with the same sections and the stage's picture.
decks=(slides/[0-9][0-9]_*.md)
[ -f slides/00_intro.md ] || fail "slides/00_intro.md is missing"
for stage in [0-9][0-9]_*/; do
    stage=${stage%/}
    checks=$((checks + 1))
    [ -f "slides/$stage.md" ] || fail "stage $stage has no deck slides/$stage.md"
done
for deck in "${decks[@]}"; do
    name=$(basename "$deck" .md)
    checks=$((checks + 1))
    head -n 5 "$deck" | grep -qx 'marp: true' || fail "$deck: no 'marp: true' in its front matter"
    if [ "$name" = 00_intro ]; then
        for section in 'Course map' 'The problem' 'How to use' 'measured on'; do
            checks=$((checks + 1))
            has_heading "$deck" "$section" || fail "$deck: no slide titled '$section'"
        done
        continue
    fi
    for section in 'The idea' 'What changed' 'Measured' 'Lab'; do
        checks=$((checks + 1))
        has_heading "$deck" "$section" || fail "$deck: no slide titled '$section ...'"
    done
    checks=$((checks + 4))
    picture=${name%_part[0-9]} # a stage's later decks show its picture too
    grep -q "](img/$picture.svg)" "$deck" || fail "$deck: the idea's picture img/$picture.svg is not shown"
    grep -q '^<!-- table ' "$deck" || fail "$deck: no table made from a CSV"
    grep -q '](../results/.*/plots/.*\.svg)' "$deck" || fail "$deck: no plot"
    grep -qE '^<!-- (diff|diff06|code) ' "$deck" || fail "$deck: no quoted diff or code"
done

# Quoted lines.  In a deck, "<!-- diff FROM TO -->" before a code block says that the
# block is a piece of `make diff FROM=.. TO=..` (signs included), "<!-- diff06 FROM TO -->"
# the same of `make diff06` (stage 06's versions), and "<!-- code FILE -->" a piece of
# FILE: every line is a line of it, and the lines follow each other there as in the block
# (a contiguous excerpt, not lines picked out); blank lines are not counted, and a line
# "..." marks a cut between two such pieces.  Spacing and indentation are compared loosely
# (runs of blanks as one), so an excerpt may be moved to its own left margin.
. tools/steps-lib.sh # without_lab_marks; below, the course's path
normalise() { sed 's/^\([-+]\)[[:space:]]*/\1/; s/^[[:space:]]*//; s/[[:space:]]\+/ /g; s/ $//'; }
# contiguous SOURCE QUOTED: each piece of QUOTED (split at "...") is a run of consecutive
# lines of SOURCE, blank lines left out of both; prints the first piece that is not
contiguous() {
    awk 'BEGIN { piece = 0 }
         NR == FNR { if ($0 != "") src[++n] = $0; next }
         $0 == "" { next }
         $0 == "..." { piece++; next }
         { q[piece, ++len[piece]] = $0 }
         END {
             for (p = 0; p <= piece; p++) {
                 if (len[p] == 0) continue
                 found = 0
                 for (i = 1; i + len[p] - 1 <= n && !found; i++) {
                     found = 1
                     for (j = 1; j <= len[p]; j++)
                         if (src[i + j - 1] != q[p, j]) { found = 0; break }
                 }
                 if (!found) { print q[p, 1]; exit }
             }
         }' "$1" "$2"
}
for deck in "${decks[@]}"; do
    grep -nE '^<!-- (diff|diff06|code) ' "$deck" | while IFS=: read -r line marker; do
        set -- $marker
        kind=$2
        if [ "$kind" = diff ] || [ "$kind" = diff06 ]; then
            make -s "$kind" FROM="$3" TO="$4" 2>/dev/null | normalise >"$tmp/source"
            what="make $kind FROM=$3 TO=$4"
        else
            [ -f "$3" ] || { echo "FAIL: $deck:$line quotes $3, which does not exist"; continue; }
            # the handouts' hole markers are not code: make diff leaves them out too, and
            # an excerpt may pass over them
            without_lab_marks "$3" | normalise >"$tmp/source"
            what=$3
        fi
        [ -s "$tmp/source" ] || { echo "FAIL: $deck:$line: $what gave nothing"; continue; }
        tail -n +"$((line + 1))" "$deck" | awk 'NR == 1 && !/^```/ { exit } NR > 1 && /^```/ { exit } NR > 1' |
            normalise >"$tmp/quoted"
        missing=0
        while IFS= read -r q; do
            [ -z "$q" ] || [ "$q" = "..." ] && continue
            grep -qxF -- "$q" "$tmp/source" || { echo "FAIL: $deck:$line: not in $what: $q"; missing=1; }
        done <"$tmp/quoted"
        if [ "$missing" -eq 0 ]; then
            apart=$(contiguous "$tmp/source" "$tmp/quoted")
            [ -z "$apart" ] || echo "FAIL: $deck:$line: lines picked out of $what, not a piece of it (from: $apart)"
        fi
    done
done >"$tmp/quotes"
quoted_failures=$(grep -c '^FAIL' "$tmp/quotes")
cat "$tmp/quotes"
checks=$((checks + 1))
failures=$((failures + quoted_failures))

# Fonts: the theme, the pictures of slides/img and the committed charts name only the
# fonts tools/setup-slides.sh installs (Liberation Sans and Mono), then a generic family;
# any other would be replaced by whatever the machine has, and the layout would change.
for f in slides/course.css slides/img/*.svg slides/img/build/*.svg results/*/plots/*.svg; do
    checks=$((checks + 1))
    grep -oE 'font-family(: *|=")[^;"]*' "$f" | sed -E 's/font-family(: *|=")//' | tr ',' '\n' |
        sed 's/^ *//; s/ *$//; s/^"\(.*\)"$/\1/' | sort -u | while read -r family; do
            case $family in "Liberation Sans" | "Liberation Mono" | sans-serif | monospace | "") ;;
                *) echo "$family" ;; esac
        done >"$tmp/fonts"
    [ ! -s "$tmp/fonts" ] || fail "$f names fonts that tools/setup-slides.sh does not install: $(paste -sd, "$tmp/fonts")"
done

# The intro deck's slide on the GPU names the dates and the driver of the runs: the dates
# are those of the committed CSVs (the first to the last of the H100's, the H200's), the
# driver the one the results' READMEs name - checked here, since they are typed.
csv_dates() { # GPU: the dates of its CSVs, first and last
    for f in results/"$1"/*.csv; do
        awk -f tools/csv.awk -f tools/csv-columns.awk -v cols=date "$f"
    done | sort -u | sed -n '1p;$p' | paste -sd' ' -
}
gpu_slide=$(awk '/^## The GPU it was measured on/ { on = 1; next } on && /^---$/ { exit } on' slides/00_intro.md)
checks=$((checks + 3))
h100=$(csv_dates nvidia-h100-80gb-hbm3) h200=$(csv_dates nvidia-h200)
said=$(printf '%s\n' "$gpu_slide" | grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2} to [0-9]{4}-[0-9]{2}-[0-9]{2}' | head -n 1 | sed 's/ to / /')
[ "$said" = "$h100" ] || fail "slides/00_intro.md: the H100's runs are dated '$said' there, the CSVs say '$h100'"
# the H200's: one date ("on D"), or the first and the last ("on D1 to D2")
said=$(printf '%s\n' "$gpu_slide" | grep -oE 'H200\*\* on [0-9]{4}-[0-9]{2}-[0-9]{2}( to [0-9]{4}-[0-9]{2}-[0-9]{2})?' |
    grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2}' | paste -sd' ' -)
[[ $said == *' '* ]] || said="$said $said"
[ "$said" = "$h200" ] || fail "slides/00_intro.md: the H200's runs are dated '$said' there, the CSVs say '$h200'"
driver=$(printf '%s\n' "$gpu_slide" | grep -oE 'driver [0-9.]+' | head -n 1)
[ -n "$driver" ] && grep -q "$driver" results/nvidia-h100-80gb-hbm3/README.md &&
    grep -q "$driver" results/nvidia-h200/README.md ||
    fail "slides/00_intro.md: '$driver' is not the driver results/*/README.md name"

# The course's path (steps.txt, make steps): every step's file exists, every algorithm
# file of a stage is a step, and each lesson stays small: the lines `make diff` changes
# from the step before, counted as `make steps` counts them, stay within 200 (350 for a
# step that changes a pass's whole structure).
prev=""
while IFS=$'\t' read -r id file kind track needs lesson from; do
    checks=$((checks + 1))
    case $track in core | advanced) ;; *) fail "steps.txt: step $id: track '$track' is neither core nor advanced" ;; esac
    case $needs in - | hopper | 2gpus) ;; *) fail "steps.txt: step $id: needs '$needs' is none of -, hopper, 2gpus" ;; esac
    [ "$track" = advanced ] || [ "$needs" = - ] || fail "steps.txt: step $id is core, yet needs $needs"
    if [ -n "$from" ]; then
        prev=$(step_field "$from" 2)
        [ -n "$prev" ] || fail "steps.txt: step $id is against step $from, which is not in steps.txt"
    fi
    [ -f "$file" ] || { fail "steps.txt: step $id's file $file does not exist"; prev=""; continue; }
    [ -n "$lesson" ] || fail "steps.txt: step $id has no lesson"
    limit=$(step_limit "$kind")
    case $kind in lesson | structure | start) ;; *) fail "steps.txt: step $id: unknown kind '$kind'" ;; esac
    if [ -n "$prev" ] && [ -n "$limit" ]; then
        changed=$(changed_lines "$prev" "$file")
        [ "$changed" -gt 0 ] || fail "make diff to step $id changes no line"
        [ "$changed" -le "$limit" ] || fail "make diff to step $id changes $changed lines, more than the $limit of a $kind step"
    fi
    prev=$file
done < <(steps)
# The build-up diagrams (slides/img/build) are what tools/diagrams.js draws today: their
# numbers come from the algorithms it runs (checked where Node.js is installed).
if command -v node >/dev/null 2>&1; then
    checks=$((checks + 1))
    node tools/diagrams.js "$tmp/diagrams" >/dev/null 2>&1 &&
        diff -rq "$tmp/diagrams" slides/img/build >/dev/null ||
        fail "slides/img/build differs from what tools/diagrams.js draws (run node tools/diagrams.js)"
else
    echo "test_docs: Node.js not found: the build-up diagrams were not compared with tools/diagrams.js (skipped)"
fi
for file in [0-9][0-9]_*/radix_sort.c [0-9][0-9]_*/radix_sort.cu [0-9][0-9]_*/step[0-9]*_*.cu \
            06_nn_histogram/v[0-9]*_*.cu 08_multi_gpu/step[0-9]*_*.c; do
    [ -f "$file" ] || continue
    checks=$((checks + 1))
    steps | cut -f2 | grep -qxF "$file" || fail "$file holds an algorithm but is no step of steps.txt"
done

# Figures in prose: every measured figure outside a generated table names its source
# right after it (tools/prose-sources.awk says how), and the source, read now, must still
# give the figure to the digits it prints - a changed CSV fails here until the prose
# follows.  The figures not yet marked are counted against tests/docs_unsourced.txt, an
# allowance that may only shrink: a new unmarked figure fails, and so does an allowance
# larger than what is left (lower it: tools/docs-unsourced.sh; with -l it lists them).
# Stage 06's map of its files: each row of one file gives its length in lines, as it is now.
while IFS='|' read -r _ file lines _; do
    file=$(tr -d ' `' <<<"$file"); lines=$(tr -d ' ' <<<"$lines")
    [ -f "06_nn_histogram/$file" ] && [[ $lines =~ ^[0-9]+$ ]] || continue
    checks=$((checks + 1))
    now=$(wc -l <"06_nn_histogram/$file")
    [ "$now" -eq "$lines" ] || fail "06_nn_histogram/README.md's map says $file has $lines lines; it has $now"
done < <(sed -n '/^## What to read, and what to skip/,/^## /p' 06_nn_histogram/README.md | grep '^| `')

# First the checker itself, on a CSV and a log made here: it must catch a drifted figure.
printf 'step,n,sort_ms\n07.7,1024,6.7465\n07.7,2048,1.25\n' >"$tmp/s.csv"
printf 'x\nWall time: 197 s.\nExecuted Instructions inst 459,807,592.00\n' >"$tmp/s.log"
probe() { # EXPECT(0 pass, 1 fail) TEXT: the checker's verdict on a one-line document
    checks=$((checks + 1))
    printf '%s\n' "$2" >"$tmp/probe.md"
    awk -v md=probe -f tools/csv.awk -f tools/prose-sources.awk "$tmp/probe.md" >"$tmp/probe.out" 2>&1
    local got=$?
    [ $got -eq "$1" ] || fail "prose-sources.awk on '$2': exit $got, wanted $1 ($(head -n 1 "$tmp/probe.out"))"
}
probe 0 "took 6.747 ms<!-- src $tmp/s.csv n=1024 sort_ms -->, 6.75 ms<!-- src $tmp/s.csv n=1024 sort_ms -->"
probe 1 "took 6.735 ms<!-- src $tmp/s.csv n=1024 sort_ms -->"
probe 1 "took 6.747 ms<!-- src $tmp/s.csv step=07.7 sort_ms -->"   # two rows: ambiguous
probe 0 "a ratio of 5.40x<!-- src $tmp/s.csv n=1024 sort_ms / n=2048 sort_ms -->, most 6.7<!-- src $tmp/s.csv max:sort_ms -->"
probe 1 "a ratio of 5.4x<!-- src $tmp/s.csv n=2048 sort_ms / n=1024 sort_ms -->"
probe 0 "a pass of 3 in 2.249 ms<!-- src $tmp/s.csv n=1024 sort_ms/3 -->, 4.4% of 0.28 s<!-- src $tmp/s.csv n=1024 (sort_ms+0.25)/25 -->"
probe 1 "a pass of 3 in 2.25 ms<!-- src $tmp/s.csv n=1024 sort_ms/(1+2) -->, a bad column 1 ms<!-- src $tmp/s.csv n=1024 sort_mss/3 -->"
probe 0 "440% slower<!-- src $tmp/s.csv n=1024 sort_ms -% n=2048 sort_ms -->, 81% faster<!-- src $tmp/s.csv n=2048 sort_ms -% n=1024 sort_ms -->, 5.50 ms saved<!-- src $tmp/s.csv n=1024 sort_ms - n=2048 sort_ms -->"
probe 1 "540% slower<!-- src $tmp/s.csv n=1024 sort_ms -% n=2048 sort_ms -->"
probe 0 "in 197 s<!-- src $tmp/s.log /Wall time:/ 1 -->"
probe 0 "in 197 s<!-- src $tmp/s.log / s\\./ -1 -->"
probe 1 "in 197 s<!-- src $tmp/s.log / s\\./ -2 -->"
probe 1 "in 179 s<!-- src $tmp/s.log /Wall time:/ 1 -->"
probe 0 "a line below: 197 s<!-- src $tmp/s.log /^x$/ +1 1 -->"
probe 1 "a line below: 179 s<!-- src $tmp/s.log /^x$/ +1 1 -->, past the end 1 s<!-- src $tmp/s.log /^x$/ +5 1 -->"
probe 0 "took 1.0x<!-- src $tmp/s.log /Wall time:/ 1 / / s\\./ -1 -->"
probe 0 "took 0.0%<!-- src $tmp/s.log /Wall time:/ 1 -% / s\\./ -1 -->, saved 0 s<!-- src $tmp/s.log /Wall time:/ 1 - / s\\./ -1 -->"
probe 1 "took 1.5x<!-- src $tmp/s.log /Wall time:/ 1 / / s\\./ -1 -->"
probe 1 "in 197 s<!-- src $tmp/missing.log /Wall time:/ 1 -->"
# a model's arithmetic (calc): numbers and sources in braces; a source that moves moves it
probe 0 "a model of 13.49 ms<!-- calc 2 * {$tmp/s.csv n=1024 sort_ms} -->, 3.3 ms<!-- calc 268435456 * 36 / 2900000000 -->, 1.81x<!-- calc 98 / 54 -->"
probe 0 "and 4.0 ms<!-- calc ({$tmp/s.csv n=1024 sort_ms} + {$tmp/s.csv n=2048 sort_ms}) / (1 + 1) -->, 197 s<!-- calc {$tmp/s.log /Wall time:/ 1} -->"
probe 1 "a model of 13.2 ms<!-- calc 2 * {$tmp/s.csv n=1024 sort_ms} -->"
probe 1 "a sum of 20.9 ms<!-- calc 1 + 3.3 + 2.39 + 13.2 -->"
probe 1 "not arithmetic 1 ms<!-- calc 2 + x -->, a missing source 1 ms<!-- calc {$tmp/s.csv n=4096 sort_ms} -->"
probe 0 "grouped thousands: 459.8<!-- calc {$tmp/s.log /Executed Instructions/ 1} / 1000000 --> M"
probe 1 "grouped thousands: 459.9<!-- calc {$tmp/s.log /Executed Instructions/ 1} / 1000000 --> M"
# a figure without a marker is counted once, with its unit or (decimals alone) without one
checks=$((checks + 1))
printf '%s\n' "took 6.64 ms here, a ratio of 1.22 there, and 0.5x; step 07.13 on CUDA 13.0" >"$tmp/count.md"
got=$(awk -v md=count -f tools/csv.awk -f tools/prose-sources.awk "$tmp/count.md" | sed -n 's/.* UNSOURCED \([0-9]*\)$/\1/p')
[ "$got" = 3 ] || fail "prose-sources.awk counts $got figures without a marker in '$(cat "$tmp/count.md")', not 3"
# the fix mode (tools/prose-fix.sh): a stale figure becomes its source's value, printed to
# the same decimals; a line whose figures match, a code block and a table stay as they are
checks=$((checks + 1))
printf '%s\n' "took 6.735 ms<!-- src $tmp/s.csv n=1024 sort_ms --> and 1.2x<!-- src $tmp/s.csv n=2048 sort_ms -->" \
    "kept 6.75 ms<!-- src $tmp/s.csv n=1024 sort_ms -->" '```' 'code 1.0 ms' '```' >"$tmp/fix.md"
awk -v md=fix -v fix="$tmp/fixed.md" -f tools/csv.awk -f tools/prose-sources.awk "$tmp/fix.md" >/dev/null 2>&1
printf '%s\n' "took 6.747 ms<!-- src $tmp/s.csv n=1024 sort_ms --> and 1.2x<!-- src $tmp/s.csv n=2048 sort_ms -->" \
    "kept 6.75 ms<!-- src $tmp/s.csv n=1024 sort_ms -->" '```' 'code 1.0 ms' '```' >"$tmp/want.md"
cmp -s "$tmp/fixed.md" "$tmp/want.md" ||
    fail "prose-sources.awk -v fix: $(diff "$tmp/want.md" "$tmp/fixed.md" | head -n 4 | tr '\n' ' ')"

prose_docs=$(tools/docs-unsourced.sh --docs) # the documents whose prose is checked
for md in $prose_docs; do
    checks=$((checks + 1))
    awk -v md="$md" -f tools/csv.awk -f tools/prose-sources.awk "$md" >"$tmp/sources" 2>&1
    while read -r line; do fail "$line"; done < <(grep '^FAIL ' "$tmp/sources" | sed 's/^FAIL //')
    left=$(sed -n 's/.* UNSOURCED \([0-9]*\)$/\1/p' "$tmp/sources")
    allowed=$(awk -v f="$md" '$2 == f { print $1 }' tests/docs_unsourced.txt)
    allowed=${allowed:-0}
    if [ -z "$left" ]; then fail "$md: tools/prose-sources.awk did not finish: $(tail -n 1 "$tmp/sources")"
    elif [ "$left" -gt "$allowed" ]; then
        fail "$md: $left figures without a source, $allowed allowed (tests/docs_unsourced.txt): mark the new ones"
    elif [ "$left" -lt "$allowed" ]; then
        fail "$md: $left figures without a source left: lower its allowance in tests/docs_unsourced.txt from $allowed to $left (tools/docs-unsourced.sh)"
    fi
done

# What the prose says of the tree, against the tree: every deck is linked from the README's
# list of decks; the README's example of a stage number alone in make diff names the steps
# steps.txt gives; the 07 deck's range of changed lines of its later steps is make steps'.
for deck in slides/[0-9][0-9]_*.md; do
    checks=$((checks + 1))
    grep -qF "]($deck)" README.md || fail "README.md's list of decks does not link $deck"
done
checks=$((checks + 1))
. tools/steps-lib.sh
last05=$(step_ids | grep '^05\.' | tail -n 1) first07=$(step_ids | grep '^07\.' | head -n 1)
grep -qF "\`FROM=05 TO=07\` is $last05 -> $first07" README.md ||
    fail "README.md should say \`FROM=05 TO=07\` is $last05 -> $first07 (steps.txt)"
checks=$((checks + 1))
range07=$(tools/steps.sh | awk '$1 ~ /^07\.([2-9]|[1-9][0-9])$/ { c = $3 + 0; if (lo == "" || c < lo) lo = c; if (c > hi) hi = c }
                                END { print lo " to " hi }')
grep -qF "one lesson of $range07 changed" slides/07_onesweep.md ||
    fail "slides/07_onesweep.md should give the later steps' changed lines as $range07 (make steps)"

# Every file of the course that prose names in backticks exists: a path under a stage,
# common/, tools/, tests/, slides/ or results/ (relative to the repository or to the
# document's folder), and a bare step file (stepK_name.cu, vK_name.cu) in some stage.
# Paths with a placeholder (<gpu>, NAME), build outputs and slides/node_modules (what
# tools/setup-slides.sh installs) are not files of the tree.
reader_docs=$(sed 's|^docs/src/||' <<<"$prose_docs") # the copies a reader opens, in their folders
for doc in $reader_docs slides/*.md; do
    while read -r path; do
        checks=$((checks + 1))
        case $path in
        step[0-9]*_*.c | step[0-9]*_*.cu | v[0-9]*_*.cu)
            ls [0-9][0-9]_*/"$path" >/dev/null 2>&1 || fail "$doc names $path: no such step file in any stage" ;;
        *) [ -e "$path" ] || [ -e "$(dirname "$doc")/$path" ] || fail "$doc names $path: no such file" ;;
        esac
    done < <(grep -o '`[A-Za-z0-9_./-]*`' "$doc" | tr -d '`' |
             grep -E '^((\.\./)?([0-9][0-9]_[a-z0-9_]+|common|tools|tests|slides|results)/[A-Za-z0-9_./-]*[a-z0-9]|(step|v)[0-9]+_[a-z0-9_]+\.cu?)$' |
             grep -v '[A-Z]\{4,\}' | grep -v node_modules | sort -u)
done

# The README's stage table gives each stage of several steps their number in words ("in ten
# steps", 06: "in fourteen versions"): the number steps.txt has for that stage.
words=(zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty)
while IFS=$'\t' read -r stage said; do
    checks=$((checks + 1))
    have=$(step_ids | grep -c "^${stage%%_*}\.")
    [ "$said" = "${words[$have]:-$have}" ] ||
        fail "README.md's stage table says $stage has $said steps; steps.txt has $have"
done < <(grep -E '^\| \[[0-9]{2}_[a-z0-9_]+\]' README.md |
         sed -nE 's/^\| \[([0-9]{2}_[a-z0-9_]+)\].* in ([a-z]+) (steps|versions)[:,; ].*/\1\t\2/p')

# A step marked start in steps.txt begins a new problem: no document offers its diff from
# the step before as the step's lesson ("`make diff FROM=07.9 TO=08.1` shows ...").
while read -r start; do
    checks=$((checks + 1))
    hits=$(grep -nE "make diff FROM=[0-9.]+ TO=${start//./\\.}\` shows" $prose_docs slides/*.md 2>/dev/null)
    [ -z "$hits" ] || fail "step $start starts a new problem (steps.txt), yet its diff is offered as its lesson: $hits"
done < <(awk -F'\t' '!/^#/ && $3 == "start" { print $1 }' steps.txt)

# 07's ticket argument rests on the execution model's promise (a block whose thread made
# progress makes progress whole), not on what the hardware happens to do
for doc in 07_onesweep/README.md slides/07_onesweep.md; do
    checks=$((checks + 1))
    grep -q "libcu++'s \"Execution" "$doc" ||
        fail "$doc: the ticket's argument should cite libcu++'s \"Execution model\" (forward progress of a block's threads)"
done

# CUB's kernels in each count type (results/cub_counts.md) are what the build's ptxas
# reported for sm_90, where the build has sm_90 (a GPU build for another architecture,
# or none: not compared, and said)
if grep -qs "for 'sm_90'" build/obj/common/cub_baseline.o.ptxas; then
    checks=$((checks + 1))
    tools/cub-counts.sh sm_90 >"$tmp/cub_counts" 2>&1 &&
        diff -q "$tmp/cub_counts" <(grep '^|' results/cub_counts.md) >/dev/null ||
        fail "results/cub_counts.md differs from tools/cub-counts.sh sm_90 on this build: $(diff "$tmp/cub_counts" <(grep '^|' results/cub_counts.md) | head -n 3 | tr '\n' ' ')"
else
    echo "test_docs: the build has no sm_90 code of the CUB baseline: results/cub_counts.md not compared with it (skipped)"
fi

# the README's Tests section names every test script there is, and a stage's test programs
# as the steps give them ("`test_05_warp_shuffle_1` to `_4`": stage 05 has four steps)
. tools/steps-lib.sh # step_ids
tests_section=$(awk '/^## Tests/ { on = 1; next } on && /^## / { exit } on' docs/src/README.md)
for script in tests/test_*.sh; do
    checks=$((checks + 1))
    name=${script##*/}
    [[ ! $name =~ ^test_cli_[0-9][0-9]_ ]] || name='test_cli_NN_*.sh' # one a program, named so
    grep -qF "\`$name\`" <<<"$tests_section" ||
        fail "README.md's Tests section does not name ${script##*/}"
done
while read -r program last; do
    checks=$((checks + 1))
    stage=$(sed -E 's/^test_([0-9][0-9])_.*_1$/\1/' <<<"$program")
    steps=$(step_ids | grep -c "^$stage\.")
    [ "$last" = "$steps" ] || fail "README.md's Tests section: $program to _$last, but stage $stage has $steps steps"
done < <(grep -oE '`test_[0-9][0-9]_[a-z_]+_1` to `_[0-9]+`' <<<"$tests_section" | sed -E 's/`(.*)` to `_([0-9]+)`/\1 \2/')

# the README's sample RESULT lines: each is in a log under results/, and stage 01's has the
# fields a run of stage 01 prints now (where a build of it is here)
keys_of() { grep -oE ' [a-z0-9_]+=' <<<" ${1#RESULT }" | tr -d ' =' | paste -sd' ' -; }
while IFS= read -r sample; do
    checks=$((checks + 1))
    grep -rqF -- "$sample" results/ || fail "README.md's sample line is in no log under results/: ${sample:0:80}..."
    case $sample in
    "RESULT stage=01_sequential "*)
        for b in ${BIN_DIR:-build/bin} build/cpu/bin; do
            [ -x "$b/01_sequential" ] || continue
            now=$("$b/01_sequential" -n 1000 --runs 1 --no-cub 2>/dev/null | grep '^RESULT ')
            checks=$((checks + 1))
            [ "$(keys_of "$sample")" = "$(keys_of "$now")" ] ||
                fail "README.md's sample RESULT line of stage 01 has the fields '$(keys_of "$sample")'; a run now prints '$(keys_of "$now")'"
            break
        done ;;
    esac
done < <(grep '^RESULT stage=' docs/src/README.md)

echo "test_docs: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
