#!/usr/bin/env bash
# test_handouts.sh - every step's handout as a student gets it, at both levels (write and
# guided), on any machine, without building it (test_grade_01.sh builds and grades stage
# 01's, test_grade_gpu.sh the GPU steps'):
#   - it holds no ANSWERS.md and no step after its own (whose file would give the answer
#     away), stubs every hole HANDOUT.md lists (a TODO line each, no hole of its level left
#     in the files it names), gives each hole a contract, and, in a stage of several steps,
#     has a steps.c that lists exactly its steps (stage 06: its versions, NN_VERSIONS and
#     rules.mk cut to them; stage 08: its MG_STEPS);
#   - no file it ships holds an answer: a line a hole adds to its step - a line of the hole's
#     reference code that the step before (its file and the headers it includes) does not
#     have - found in any shipped file fails.  Idioms are no answer and are left out:
#     comments, braces, the heads of loops and conditions, barriers and launch checks,
#     declarations of thread and block indices, declarations with no value, a constant one
#     under a short name (sum = 0) or one computed from other variables alone (bins = mask +
#     1), lines under 16 characters;
#   - it is a working repository: `make steps` and `make diff` run in it, and `make` has a
#     rule for everything it builds (a dry run);
#   - every step has a hole at the write level (its lesson), and the write level's holes are
#     the lesson's core: their median is 15 lines of the course's code or more.  The sizes
#     are printed, and INSTRUCTOR.md's table of the write level's holes must be theirs.
# make test looks at the write level, the default handout; make test FULL=1 (TEST_FULL=1)
# at the guided level too.  HANDOUT_STEPS (default: every step) names the steps to look at;
# the last checks need them all.
set -u
cd "$(dirname "$0")/.."
source tests/cli_lib.sh # check_that, finish, and $tmp (removed at the end)
. tools/steps-lib.sh    # step_ids, step_field, file_step_number, steps

# normalised FILE...: the lines of code, trimmed, spaces folded, end-of-line comments cut
normalised() {
    awk '{ sub(/[ \t]*\/\/.*$/, ""); sub(/[ \t]*\/\*.*\*\/[ \t]*$/, ""); gsub(/[ \t]+/, " ");
           sub(/^ /, ""); sub(/ $/, ""); if ($0 != "") print }' "$@"
}
# hole_code LEVEL NAME FILE...: the normalised lines of hole NAME's reference code that are
# no idiom (above)
types='(const )?(unsigned|int|size_t|uint32_t|int32_t|float|double|bool|uint8_t)'
hole_code() {
    local mark; [ "$1" = write ] && mark=WRITE || mark=LAB
    awk -v mark="$mark" -v name="$2" '
        $0 ~ "^[ \t]*/\\* " mark " BEGIN " name ":" { on = 1; next }
        $0 ~ "^[ \t]*/\\* " mark " END " name " \\*/" { on = 0; next }
        on' "${@:3}" | grep -v -E '^[[:space:]]*/\* (LAB|WRITE) ' | normalised |
        grep -v -E '^(/\*|\*|#|\}|\{|else|for \(|if \(|while \(|do$|switch \()' |
        grep -v -E '^(__syncthreads|__syncwarp|CUDA_CHECK_LAUNCH)\(\);$' |
        grep -v -E "^$types [^[]*(threadIdx|blockIdx|blockDim|gridDim)[^[]*;$" |
        grep -v -E "^$types \*?[a-z_][a-z_0-9]*(, \*?[a-z_][a-z_0-9]*)*;$" |
        grep -v -E "^$types [a-z_][a-z_0-9]{0,4} = [0-9.]+[uf]?;$" |
        grep -v -E "^$types [a-z_][^[(]* = [^[(]*[-+*/<>%][^[(]*;$" |
        awk 'length($0) >= 16'
}
# step_code FILE: FILE and the headers it includes (its folder's, else common/'s), normalised
step_code() {
    local dir h; dir=$(dirname "$1")
    normalised "$1"
    for h in $(sed -n 's/^#include "\([^"]*\.cuh\{0,1\}\)".*/\1/p' "$1"); do
        if [ -f "$dir/$h" ]; then normalised "$dir/$h"; elif [ -f "common/$h" ]; then normalised "common/$h"; fi
    done
}
# check_step LEVEL ID: the checks of one handout, one line "CHECK" each and "FAIL: ..." for
# each that fails, on stdout; its holes' sizes in $tmp/LEVEL-ID.sizes
check_step() {
    local level=$1 id=$2 t=$tmp/$1-$2
    check_that() { local name=$1; shift; echo CHECK; "$@" || echo "FAIL: $name"; }
    fail() { echo CHECK; echo "FAIL: $*"; }
    : >"$t.sizes"
    local file stage h holes files f marked course_files prev from name lines ncell lcell leaks first k later entries
    file=$(step_field "$id" 2) stage=${file%%/*} h=$t
    HANDOUT_TAR=0 LEVEL=$level tools/handout.sh "$id" "$h" >"$t.log" 2>&1 ||
        { fail "step $id ($level): make handout failed: $(tail -n 1 "$t.log")"; return; }
    check_that "step $id ($level): no ANSWERS.md" test ! -e "$h/$stage/ANSWERS.md"
    check_that "step $id ($level): its README names no source the handout has not (docs/src/)" \
        bash -c "! grep -q 'docs/src/' '$h/$stage/README.md'"
    holes=$(grep -c '^| `' "$h/HANDOUT.md")
    check_that "step $id ($level): HANDOUT.md lists a hole or more ($holes)" test "$holes" -ge 1
    # the files with holes: those HANDOUT.md names
    files=$(awk -F'|' '/^[|] `/ { print $2 }' "$h/HANDOUT.md" | grep -o '`[^`]*`' | tr -d '`' | sort -u)
    check_that "step $id ($level): HANDOUT.md names every stubbed file ($(echo $files))" \
        test "$files" = "$(cd "$h" && grep -rl 'TODO(lab ' --include='*.c' --include='*.cu' --include='*.cuh' \
                            --include='*.h' . | sed 's|^\./||' | sort -u)"
    for f in $files; do
        check_that "step $id ($level): $f is stubbed" grep -q 'TODO(lab ' "$h/$f"
        if [ "$level" = write ]; then
            check_that "step $id ($level): no write hole left in $f" bash -c "! grep -q 'WRITE BEGIN' '$h/$f'"
        else
            check_that "step $id ($level): no guided hole left in $f" bash -c "! grep -q 'LAB BEGIN' '$h/$f'"
        fi
    done
    # each hole: its size, its contract, and no answer shipped
    marked=$(for f in $files; do echo "$f"; done)
    course_files=$(grep -l -E "/\* $([ "$level" = write ] && echo WRITE || echo LAB) BEGIN" \
                   "$stage"/* common/*.cuh 2>/dev/null | sort -u)
    prev=$(file_before "$id")
    prev=${prev:--}
    from=$(step_field "$id" 7)
    [ -z "$from" ] || prev=$(step_field "$from" 2)
    [ "$(step_field "$id" 3)" != start ] || prev=-
    # the shipped files' lines, "file<TAB>line", once for the handout
    find "$h" -type f \( -name '*.c' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h' -o -name '*.md' \
         -o -name '*.sh' -o -name '*.mk' \) -print0 | xargs -0 awk '{ sub(/[ \t]*\/\/.*$/, "");
         sub(/[ \t]*\/\*.*\*\/[ \t]*$/, ""); gsub(/[ \t]+/, " "); sub(/^ /, ""); sub(/ $/, "");
         if ($0 != "") print FILENAME "\t" $0 }' >"$t.shipped"
    while IFS="|" read -r _ _ ncell lcell _; do
        name=$(tr -d '` ' <<<"$ncell") lines=$(tr -d ' ' <<<"$lcell")
        [ -n "$name" ] || continue
        printf '%s\t%s\t%s\t%s\n' "$level" "$id" "$name" "$lines" >>"$t.sizes"
        check_that "step $id ($level): hole $name has a contract in HANDOUT.md" \
            grep -q "^### \`$name\`" "$h/HANDOUT.md"
        # the hole's reference lines that its step adds, in the course's files of the step
        hole_code "$level" "$name" $course_files | sort -u >"$t.hole"
        if [ "$prev" != - ]; then
            step_code "$prev" | sort -u >"$t.prev"
            comm -23 "$t.hole" "$t.prev" >"$t.answers"
        else
            cp "$t.hole" "$t.answers"
        fi
        [ -s "$t.answers" ] || continue
        checks=$((checks + 1))
        leaks=$(awk -F'\t' 'FNR == NR { answer[$0] = 1; next }
                             ($2 in answer) && !seen[$1]++ { printf "%s (%s) ", $1, $2 }' \
                "$t.answers" "$t.shipped" | sed "s|$h/||g")
        [ -z "$leaks" ] || fail "step $id ($level): a shipped file holds a line of hole $name: $leaks"
    done < <(grep '^| `' "$h/HANDOUT.md")
    [ "$level" = write ] || continue # the rest holds at either level: checked once
    # a working repository
    # (through make for two handouts; the others run the tools make runs, a make less each)
    local via_make=0
    case $id in 01 | 07.10) via_make=1 ;; esac
    if [ "$via_make" = 1 ]; then (cd "$h" && make -s --no-print-directory steps); else (cd "$h" && tools/steps.sh); fi \
        >"$t.steps" 2>&1
    check_that "step $id ($level): make steps works in the handout ($(tail -n 1 "$t.steps"))" \
        grep -q "^$id " "$t.steps"
    first=$(awk -F'\t' '!/^#/ && NF { print $1; exit }' "$h/steps.txt")
    if [ "$via_make" = 1 ]; then (cd "$h" && make -s --no-print-directory diff FROM="$first" TO="$id")
    else (cd "$h" && tools/diff.sh "$first" "$id"); [ $? -le 1 ]; fi >/dev/null 2>"$t.diff"
    check_that "step $id ($level): make diff FROM=$first TO=$id works in the handout ($(head -c 200 "$t.diff"))" \
        test $? -eq 0
    # `make` has a rule for everything it would build (a dry run: a file the handout leaves
    # out, that a rule still asks for, stops it)
    local dry=0
    (cd "$h" && make -n all) >/dev/null 2>"$t.dry" || dry=$?
    check_that "step $id ($level): make would build the handout ($(grep -m1 -i 'no rule\|error' "$t.dry"))" test "$dry" -eq 0
    case $file in
    */v[0-9]*_*.cu)
        k=$(file_step_number "$file")
        later=$(ls "$h/$stage"/v[0-9]*_*.cu | sed 's|.*/v||; s|_.*||' | awk -v k="$k" '$1 > k' | wc -l)
        check_that "step $id: no later version in the handout" test "$later" -eq 0
        check_that "step $id: NN_VERSIONS is $k" grep -q "^#define NN_VERSIONS $k " "$h/$stage/nn_histogram.h"
        check_that "step $id: rules.mk builds versions 1-$k" \
            bash -c "grep -q 'v${k}_' '$h/$stage/rules.mk' && ! grep -q 'v$((k + 1))_' '$h/$stage/rules.mk'" ;;
    */step[0-9]*_*.cu)
        k=$(file_step_number "$file")
        later=$(ls "$h/$stage"/step[0-9]*_*.cu | sed 's|.*/step||; s|_.*||' | awk -v k="$k" '$1 > k' | wc -l)
        check_that "step $id: no later step in the handout" test "$later" -eq 0
        check_that "step $id: its steps.c counts $k steps" grep -q "STAGE_STEP_COUNT = $k;" "$h/$stage/steps.c"
        entries=$(grep -oE 'STEP_ENTRY(_PAIRS)?\([0-9]+\)' "$h/$stage/steps.c" | wc -l)
        check_that "step $id: its steps.c lists $k entries ($entries)" test "$entries" -eq "$k" ;;
    */step[0-9]*_*.c) # stage 08
        k=$(file_step_number "$file")
        later=$(ls "$h/$stage"/step[0-9]*_*.c | sed 's|.*/step||; s|_.*||' | awk -v k="$k" '$1 > k' | wc -l)
        check_that "step $id: no later step in the handout" test "$later" -eq 0
        entries=$(grep -oE 'MG_STEP_ENTRY\([0-9]+, [01]\)' "$h/$stage/steps.c" | wc -l)
        declared=$(grep -cE '^MG_STEP_DECLARE\([0-9]+\);$' "$h/$stage/steps.c")
        check_that "step $id: its steps.c lists and declares $k steps ($entries, $declared)" \
            test "$entries" -eq "$k" -a "$declared" -eq "$k" ;;
    esac
    # its documents up to its step: no heading of the README about a later step of the stage
    # ("## Step 07.5 - ...", "### 07.10 - ..."), no contract in HOLES.md of a hole its files lack
    if [ -n "$k" ]; then
        leaks=$(grep -E '^#+ ' "$h/$stage/README.md" | grep -oE "(^#+ |Steps? )${stage:0:2}\.[0-9]+" |
                sed 's/.*\.//' | awk -v k="$k" '$1 > k' | head -n 3 | paste -sd' ' -)
        check_that "step $id ($level): its README has no section of a later step (steps .$leaks)" test -z "$leaks"
        if [ -f "$h/$stage/HOLES.md" ]; then
            leaks=$(for name in $(sed -n 's/^### //p' "$h/$stage/HOLES.md"); do
                        grep -sqE "(WRITE|LAB) BEGIN $name[:]" $(cd "$h" && ls "$stage"/* common/* 2>/dev/null | sed 's|^|./|') ||
                            echo "$name"; done | head -n 3 | paste -sd' ' -)
            check_that "step $id ($level): its HOLES.md holds the contracts of its own holes alone ($leaks)" test -z "$leaks"
        fi
    fi
}

# INSTRUCTOR.md's table of what a week asks: "week | write level | guided level | exercises
# | extra exercises | lines to write", its steps as "07.5, 07.7-07.11" (ranges in steps.txt's
# order), its exercises as "07: 6-11" or "06: 1-5, 8", several stages' as "03: 1, 2; 04: 1"
# ("-": none)
week_table() {
    awk -F'|' '/^[*][*]What a week asks[.][*][*]/ { on = 1 } on && /^[|] [0-9]/ {
                   for (i = 2; i <= 7; i++) { gsub(/^ +| +$/, "", $i) } ; print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 }
               on && /^$/ && seen++ { on = 0 }' INSTRUCTOR.md
}
# the projects' weeks, in the same form after two columns of their own: "project | week
# (11, 12 or further) | write level | ..."
project_table() {
    awk -F'|' '/^The projects. weeks, in the same form/ { on = 1 } on && /^[|] [0-9]/ {
                   for (i = 2; i <= 8; i++) { gsub(/^ +| +$/, "", $i) }
                   print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 "\t" $8 }
               on && /^$/ && seen++ { on = 0 }' INSTRUCTOR.md
}
# expand_steps LIST: one step a line
expand_steps() {
    local item from to
    [ "$1" = - ] && return
    tr ',' '\n' <<<"$1" | sed 's/^ *//; s/ *$//' | while IFS= read -r item; do
        case $item in
        *-*) from=${item%-*} to=${item#*-}
             step_ids | awk -v a="$from" -v b="$to" '($1 "") == a { on = 1 } on { print } ($1 "") == b { on = 0 }' ;; # as strings: 07.1 is not 07.10
        *) echo "$item" ;;
        esac
    done
}
# expand_exercises LIST: "stage:number" a line
expand_exercises() {
    local group stage nums item
    [ "$1" = - ] && return
    tr ';' '\n' <<<"$1" | sed 's/^ *//' | while IFS= read -r group; do
        stage=${group%%:*} nums=${group#*: }
        tr ',' '\n' <<<"$nums" | sed 's/^ *//; s/ *$//' | while IFS= read -r item; do
            case $item in *-*) seq "${item%-*}" "${item#*-}" ;; *) echo "$item" ;; esac
        done | sed "s/^/$stage:/"
    done
}
week_table >"$tmp/weeks"
project_table >"$tmp/projects"
guided_ids=""
[ -n "${HANDOUT_STEPS:-}" ] || guided_ids=$( { while IFS=$'\t' read -r _ _ g _; do expand_steps "$g"; done <"$tmp/weeks"
                                                while IFS=$'\t' read -r _ _ _ g _; do expand_steps "$g"; done <"$tmp/projects"; } |
                                              paste -sd' ' -)

sizes=$tmp/sizes
jobs=$(nproc 2>/dev/null || echo 2)
levels=write
[ "${TEST_FULL:-0}" != 1 ] || levels="write guided"
# ids_of LEVEL: the steps whose handouts of that level are checked (the guided level by
# default only for the steps a week hands out at that level: their sizes are its load)
ids_of() {
    if [ -n "${HANDOUT_STEPS:-}" ]; then echo "$HANDOUT_STEPS"
    elif [ "$1" = guided ] && [ "${TEST_FULL:-0}" != 1 ]; then echo "$guided_ids"
    else step_ids; fi
}
run_levels=$levels
[ -z "$guided_ids" ] || [[ " $levels " == *" guided "* ]] || run_levels="$levels guided"
for level in $run_levels; do
    for id in $(ids_of "$level"); do
        in_background "$jobs" "$tmp/$level-$id.out" check_step "$level" "$id"
    done
done
wait
for level in $run_levels; do
    for id in $(ids_of "$level"); do
        checks=$((checks + $(grep -c '^CHECK$' "$tmp/$level-$id.out")))
        while IFS= read -r line; do fail "${line#FAIL: }"; done < <(grep '^FAIL: ' "$tmp/$level-$id.out")
        cat "$tmp/$level-$id.sizes" >>"$sizes"
    done
done
[ -z "${HANDOUT_STEPS:-}" ] || { finish test_handouts; exit; }
# every step's lesson is a hole at the write level; the write level's holes are large
for id in $(step_ids); do
    check_that "step $id has a hole at the write level" grep -q "^write	$id	" "$sizes"
done
# the instructor's guide lists the write level's holes: its table is the handouts' own
awk -F'\t' '$1 == "write" { print $2 "\t" $3 "\t" $4 }' "$sizes" | sort >"$tmp/holes.handouts"
awk -F'|' '/^The write level.s holes/ { on = 1 } on && /^[|] [0-9]/ {
               gsub(/[ `]/, "", $2); gsub(/[ `]/, "", $3); gsub(/ /, "", $4); print $2 "\t" $3 "\t" $4 }
           on && /^`tests\/test_handouts.sh` checks this table/ { on = 0 }' INSTRUCTOR.md |
    sort >"$tmp/holes.guide"
[[ " $levels " != *" write "* ]] ||
    check_that "INSTRUCTOR.md's table of the write level's holes is the handouts' ($(wc -l <"$tmp/holes.handouts") holes)" \
        cmp -s "$tmp/holes.handouts" "$tmp/holes.guide"
# what a week asks, from the handouts: the core's weeks, then the projects' of the last two;
# every step handed out once, at the level the table says, the core's in its weeks in the
# course's order and the advanced track's in its projects; every exercise of the stages'
# READMEs in one week; the lines the tables give are the sum of the holes' lines at those
# levels; no week hands out more than 3 steps or asks more than 85 lines or 6 exercises
weeks=$(wc -l <"$tmp/weeks")
check_that "INSTRUCTOR.md's weeks are numbered 1 to $weeks ($(cut -f1 "$tmp/weeks" | paste -sd' ' -))" \
    test "$(cut -f1 "$tmp/weeks" | paste -sd' ' -)" = "$(seq 1 "$weeks" | paste -sd' ' -)"
check_that "the core's weeks and the project's two make twelve ($weeks + 2)" test $((weeks + 2)) -eq 12
# week_load NAME WRITE GUIDED EXERCISES EXTRA LINES TRACK: the checks of one week's row
week_load() {
    local name=$1 write=$2 guided=$3 exercises=$4 extra=$5 lines=$6 track=$7 got asked count wrong
    expand_steps "$write" | sed 's/^/write\t/' >"$tmp/week-steps"
    expand_steps "$guided" | sed 's/^/guided\t/' >>"$tmp/week-steps"
    cut -f2 "$tmp/week-steps" | tee -a "$tmp/all-steps" >"$tmp/week-ids"
    count=$(wc -l <"$tmp/week-ids")
    # a project's further steps (for the students who finish) are handed out in no week
    [[ $name == *", week further" ]] || check_that "$name hands out at most 3 steps ($count)" test "$count" -le 3
    wrong=$(track_step_ids "$track" | grep -vFx -f - "$tmp/week-ids" | paste -sd' ' -)
    check_that "$name hands out steps of the $track track alone (not: $wrong)" test -z "$wrong"
    got=$(awk -F'\t' 'NR == FNR { want[$1 "\t" $2] = 1; next } ($1 "\t" $2) in want { s += $4 } END { print s + 0 }' \
          "$tmp/week-steps" "$sizes")
    check_that "$name: $lines lines to write in INSTRUCTOR.md, $got in its handouts" test "$lines" = "$got"
    check_that "$name asks at most 85 lines ($got)" test "$got" -le 85
    asked=$(expand_exercises "$exercises" | tee -a "$tmp/all-exercises" | wc -l)
    expand_exercises "$extra" >>"$tmp/all-exercises"
    check_that "$name asks at most 6 exercises ($asked)" test "$asked" -le 6
}
: >"$tmp/all-steps"
while IFS=$'\t' read -r week write guided exercises extra lines; do
    week_load "week $week" "$write" "$guided" "$exercises" "$extra" "$lines" core
done <"$tmp/weeks"
# the core's weeks in the course's order: their steps, read week by week, are steps.txt's
track_step_ids core >"$tmp/core-ids"
check_that "the weeks hand out every core step once, in the course's order ($(paste -sd' ' "$tmp/all-steps" | cut -c1-80) ...)" \
    cmp -s "$tmp/core-ids" "$tmp/all-steps"
check_that "INSTRUCTOR.md has the projects' weeks ($(wc -l <"$tmp/projects") rows)" test "$(wc -l <"$tmp/projects")" -ge 3
cp "$tmp/all-steps" "$tmp/core-handed"
while IFS=$'\t' read -r project week write guided exercises extra lines; do
    case $week in 11 | 12 | further) ;; *) fail "project $project: week '$week' is neither 11, 12 nor further" ;; esac
    before=$(wc -l <"$tmp/all-steps")
    week_load "project $project, week $week" "$write" "$guided" "$exercises" "$extra" "$lines" advanced
    tail -n +$((before + 1)) "$tmp/all-steps" | sed "s/^/$project\t/" >>"$tmp/project-steps"
done <"$tmp/projects"
for project in $(cut -f1 "$tmp/projects" | uniq); do
    check_that "project $project hands out its steps in the course's order" \
        cmp -s <(awk -F'\t' -v p="$project" '$1 == p { print $2 }' "$tmp/project-steps") \
               <(step_ids | grep -Fx -f <(awk -F'\t' -v p="$project" '$1 == p { print $2 }' "$tmp/project-steps"))
done
check_that "every step is handed out in exactly one week ($(sort "$tmp/all-steps" | uniq -d | paste -sd' ' -) twice; $(step_ids | sort | comm -23 - <(sort -u "$tmp/all-steps") | paste -sd' ' -) never)" \
    cmp -s <(step_ids | sort) <(sort "$tmp/all-steps")
for readme in [0-9][0-9]_*/README.md; do
    stage=${readme%%_*}
    awk -v s="$stage" '/^## Lab/ { on = 1; next } on && /^## / { on = 0 } on && /^[0-9]+\. / { print s ":" $1 + 0 }' "$readme"
done | sort >"$tmp/readme-exercises"
check_that "every exercise of the stages' READMEs is in exactly one week ($(sort "$tmp/all-exercises" | uniq -d | paste -sd' ' -) twice; $(comm -23 "$tmp/readme-exercises" <(sort -u "$tmp/all-exercises") | paste -sd' ' -) in none)" \
    cmp -s "$tmp/readme-exercises" <(sort "$tmp/all-exercises")

for level in $levels; do
    awk -F'\t' -v level="$level" '$1 == level { print $4 }' "$sizes" | sort -n >"$tmp/n"
    count=$(wc -l <"$tmp/n")
    median=$(awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' "$tmp/n")
    echo "$level level: $count holes, $(awk "{ s += \$1 } END { print s }" "$tmp/n") lines in all, median $median lines, smallest $(head -n 1 "$tmp/n"), largest $(tail -n 1 "$tmp/n")"
    awk -F'\t' -v level="$level" '$1 == level { s[$2] = s[$2] " " $3 " " $4 } END { for (id in s) print "  " id ":" s[id] }' \
        "$sizes" | sort -V
    [ "$level" = guided ] ||
        check_that "the write level's median hole is 15 lines or more ($median)" awk -v m="$median" 'BEGIN { exit !(m >= 15) }'
done
finish test_handouts
