#!/usr/bin/env bash
# handout.sh STEP [DIR] - `make handout STEP=01 [LEVEL=write|guided]`: what a student of one
# step starts from, in DIR (default build/handout/STEP, build/handout/STEP-guided at the
# guided level, so that one level's handout never overwrites the other's) and DIR.tar.gz
# beside it.
#
# Two levels (LEVEL, default write; tools/lab-stub.awk):
#   write   the student writes the lesson's core function or kernel whole: each hole the
#           instructor marked /* WRITE BEGIN name: task */ ... /* WRITE END name */
#   guided  smaller holes, a few lines each: /* LAB BEGIN name: task */ ... /* LAB END name */
# Each hole of the level becomes a TODO line; the other level's marks are dropped.
#
# The handout is a working repository: the build (the Makefile, without -Werror: a stubbed
# hole leaves what it used unused), the shared harness (common/), the step's tests and the
# test headers they include (and no other: tests/tile_pass.h computes a tiled pass on the
# CPU, which would answer stage 01's holes), `make test`, `make diff` and `make steps`
# (tools/diff.sh, tools/steps.sh, and a steps.txt of the stage's steps up to this one), the
# step's stage folder with every file that marks holes stubbed - the step's file, a .cuh
# beside it, and a header of common/ whose first user in the course is this step (02's
# common/gpu_scan.cuh) - its README (the lab) and HOLES.md up to its step (no later step's
# section or exercise, no contract of a hole it lacks: tools/handout-docs.awk) and
# HANDOUT.md: the level, each hole with its contract (the stage's HOLES.md) and size, what
# to run.  Never the answers (ANSWERS.md)
# or the reference code of the holes; tests/test_handouts.sh proves that no shipped file
# holds a line a hole adds to its step.  A handout of a step whose files are C alone (stage
# 01) builds with gcc and make, no CUDA (the CPU build).
#   A step of a stage of several steps (05.2, 07.4): the handout holds that step and the
# steps before it (the lessons already taught, runnable with --step), never the steps
# after it, which would give the answer away; its steps.c lists those steps only.  The
# files stubbed are the step's own and the headers of its folder that it is the first
# step to include (05.1's warp_scan.cuh, 05.3's warp_multisplit.cuh); headers of other
# stages that the stage includes (07's, from 05) come as they are.
#   Stage 06's versions are steps too: the handout of 06.K holds versions 1..K, its
# rules.mk, NN_VERSIONS and table of versions cut to them.
#   A step with no hole marked at the level is refused (exit 2).
set -eu
cd "$(dirname "$0")/.."
. tools/steps-lib.sh
[ -n "${1:-}" ] ||
    { echo "usage: make handout STEP=ID [LEVEL=write|guided] (for example STEP=01, or STEP=05.2; make steps lists the ids)" >&2; exit 2; }
id=$(step_id "$1") && file=$(step_field "$id" 2) && [ -n "$file" ] ||
    { echo "make handout: no step '${1:-}' (STEP=ID; make steps lists them)" >&2; exit 2; }
level=${LEVEL:-write}
case $level in
write) mark=WRITE ;;
guided) mark=LAB ;;
*) echo "make handout: LEVEL=$level: write (the lesson's core written whole, the default) or guided (small holes)" >&2
   exit 2 ;;
esac
stage=${file%%/*}
step_number=$(file_step_number "$file")
case $file in
*/radix_sort.c | */radix_sort.cu) candidates=$(ls "$stage"/*) ;;
*/step[0-9]*_*.cu)
    candidates=$file
    for h in "$stage"/*.cuh "$stage"/*.h; do # the headers this step is the first to include
        [ -e "$h" ] || continue
        [ "$(first_stage_step_using "$h")" != "$file" ] || candidates="$candidates $h"
    done ;;
*/v[0-9]*_*.cu) # a version of stage 06: the same, versions for steps
    candidates=$file ;;
*/step[0-9]*_*.c) # a step of stage 08, C on the host (its kernels are 07's)
    candidates=$file ;;
*) echo "make handout: step $id ($file): no handout for a file of this kind" >&2
   exit 2 ;;
esac
# a header of common/ with holes: this step's where this step's file is the first in the
# course to include it
for h in common/*.cuh common/*.h; do
    grep -q "/\* $mark BEGIN " "$h" || continue
    [ "$(first_course_step_using "$h")" != "$file" ] || candidates="$candidates $h"
done
marked=$(grep -l "/\* $mark BEGIN " $candidates 2>/dev/null || true)
[ -n "$marked" ] ||
    { echo "make handout: step $id marks no hole of the $level level (/* $mark BEGIN name: task */ ... /* $mark END name */)" >&2; exit 2; }
out=${2:-build/handout/$id$([ "$level" = write ] || echo "-$level")} # one folder a level
stubs=$(mktemp -d)
trap 'rm -rf "$stubs"' EXIT
for f in $marked; do
    mkdir -p "$stubs/$(dirname "$f")"
    awk -v level="$level" -f tools/lab-stub.awk "$f" >"$stubs/$f" || exit 2
done

rm -rf "$out"
mkdir -p "$out/tools" "$out/tests" "$out/$stage"
# the build and the harness, as the course has them (-Werror off)
sed -e 's/ -Werror all-warnings//' -e 's/,-Werror//' -e 's/ -Werror//' Makefile >"$out/Makefile"
# a step of the CPU stage (no .cu file) builds with the C compiler alone, even where nvcc
# is installed: its Makefile starts from the CPU build (CUDA=1 still builds the CUDA build)
cpu_only=1
ls "$stage"/*.cu >/dev/null 2>&1 && cpu_only=0
if [ "$cpu_only" = 1 ]; then
    { echo "# This handout's step runs on the CPU: the CPU build (gcc alone) unless CUDA=1 is given."
      echo "HANDOUT_CPU_STEP := 1"
      echo "CUDA ?= 0"
      cat "$out/Makefile"; } >"$out/Makefile.cpu" && mv "$out/Makefile.cpu" "$out/Makefile"
fi
cp -r common "$out/"
cp tools/run-tests.sh tools/run-stages.sh tools/steps-lib.sh tools/diff.sh tools/steps.sh tools/nvcc-resources.sh "$out/tools/"
number=${stage%%_*}
# later FILE: whether FILE is a step after this handout's step, or a header first used by
# one (worked out once for each file of the stage, below)
declare -A is_later=()
for f in "$stage"/*; do
    is_later[$f]=0
    [ -n "$step_number" ] || continue
    g=$f
    case $g in *.cuh | *.h) g=$(first_stage_step_using "$g") ;; esac
    k=$(file_step_number "$g")
    [ -z "$k" ] || [ "$k" -le "$step_number" ] || is_later[$f]=1
done
later() { [ "${is_later[$1]:-0}" = 1 ]; }
last_step=1 # whether no later step is left out: then the stage's scripted tests apply too
for f in "$stage"/*; do ! later "$f" || last_step=0; done
# the test programs; the scripts that run the stage's program with its options only in a
# handout of the last step (they ask for the later steps' options and versions) - but
# stage 08's, which run the steps the program has, in every one of its handouts
for t in tests/test_"$number"_*.c tests/test_"$number"_*.cu; do
    [ -e "$t" ] && cp "$t" "$out/tests/"
done
for t in tests/test_cli_"$stage".sh tests/test_run_"$number"_*.sh; do
    { [ "$last_step" = 1 ] || [[ $file == */step[0-9]*_*.c ]]; } && [ -e "$t" ] && cp "$t" "$out/tests/"
done
cp tests/sort_battery.c tests/gpu_*.cu tests/cli_lib.sh "$out/tests/"
# the headers of tests/ that the tests shipped and the stage's files (test_hooks.cu:
# "../tests/hooks.h") include, and those they include, no others
need=$(cd "$out/tests" && ls)
stage_includes=$(cat "$stage"/* 2>/dev/null | sed -n 's/^#include "\.\.\/tests\/\([a-z_0-9]*\.h\)".*/\1/p')
while :; do
    more=$({ for t in $need; do sed -n 's/^#include "\([a-z_0-9]*\.h\)".*/\1/p' "tests/$t" 2>/dev/null; done
            echo "$stage_includes"; } | sort -u | while read -r h; do if [ -n "$h" ] && [ -f "tests/$h" ]; then echo "$h"; fi; done)
    all=$(printf '%s\n' $need $more | sort -u)
    [ "$all" != "$(printf '%s\n' $need | sort -u)" ] || break
    need=$all
done
for h in $need; do case $h in *.h) cp "tests/$h" "$out/tests/" ;; esac; done
steps | awk -F'\t' -v s="$stage/" 'index($2, s) == 1' | while IFS=$'\t' read -r sid f rest; do
    later "$f" || printf '%s\t%s\t%s\n' "$sid" "$f" "$rest"; done >"$out/steps.txt"
# the stage: its files, those that mark holes stubbed, its README, no answers, no later steps;
# stage 06 without its cuBLAS baselines, whose kernels would answer versions 3-5's holes
for f in "$stage"/*; do
    case ${f##*/} in ANSWERS.md | baseline_none.cu) ;; *) later "$f" || cp -r "$f" "$out/$stage/" ;; esac
done
[ ! -f "$stage/baseline_none.cu" ] || cp "$stage/baseline_none.cu" "$out/$stage/baseline_cublas.cu"
# its README without the line that names its source under docs/src/ (make docs), which the
# handout has not
sed -i '1{/^<!-- generated from docs\/src\/.* -->$/d}' "$out/$stage/README.md"
# a step of a stage of several: its README and HOLES.md without a later step's section, and
# HOLES.md with the contracts of the holes of the files it ships alone (handout-docs.awk)
if [ -n "$step_number" ]; then
    # the stage's files up to this step, and the headers of common/ that a step up to it uses
    upto=$(steps | awk -F'\t' -v id="$id" '{ print $2 } $1 == id { exit }')
    shipped_holes=$(cat $(for f in "$stage"/*; do [ -f "$f" ] && ! later "$f" && echo "$f"; done
                          for f in $(grep -lE '(WRITE|LAB) BEGIN' common/*); do
                              u=$(first_course_step_using "$f"); [ -n "$u" ] && grep -qxF "$u" <<<"$upto" && echo "$f"; done) |
                    sed -n 's/.*\(WRITE\|LAB\) BEGIN \([a-z_0-9]*\).*/\2/p' | sort -u | paste -sd' ' -)
    for doc in README HOLES; do
        [ -f "$out/$stage/$doc.md" ] || continue
        kind=$(tr 'A-Z' 'a-z' <<<"$doc")
        awk -v step="$id" -v stage="$number" -v last="$(last_stage_step "$number")" -v kind="$kind" \
            -v holes="$shipped_holes" -f tools/handout-docs.awk "$out/$stage/$doc.md" >"$out/$stage/$doc.md.cut" &&
            mv "$out/$stage/$doc.md.cut" "$out/$stage/$doc.md"
    done
fi
cp -r "$stubs"/. "$out/"
up_to_step() { # the lines of stdin that name a step number (STEP_ENTRY(3)) up to this one
    awk -v k="$step_number" '{ n = $0; gsub(/[^0-9]/, "", n) } n + 0 <= k'
}
if [[ $file == */step[0-9]*_*.cu ]]; then # the program's table of steps: this one and those before
    {
        echo "/* $stage/steps.c - the steps of this handout, 1 to $step_number (STAGE_STEPS in"
        echo " * common/sort_stage.h); build/bin/$stage sorts with the last, or --step K. */"
        echo '#include "sort_stage.h"'
        echo
        grep -E '^STEP_DECLARE(_PAIRS)?\([0-9]+\)' "$stage/steps.c" | up_to_step
        echo
        printf 'const stage_step STAGE_STEPS[] = {%s};\n' "$(grep -oE 'STEP_ENTRY(_PAIRS)?\([0-9]+\)' \
            "$stage/steps.c" | up_to_step | paste -sd, - | sed 's/,/, /g')"
        echo "const int STAGE_STEP_COUNT = $step_number;"
    } >"$out/$stage/steps.c"
fi
if [[ $file == */step[0-9]*_*.c ]]; then # stage 08's table of steps: this one and those before
    { sed '/^MG_STEP_DECLARE([0-9]*);$/,$d' "$stage/steps.c"
      grep -E '^MG_STEP_DECLARE\([0-9]+\);$' "$stage/steps.c" | up_to_step
      echo
      printf 'const mg_step MG_STEPS[] = {%s};\n' "$(grep -oE 'MG_STEP_ENTRY\([0-9]+, [01]\)' "$stage/steps.c" |
          awk -v k="$step_number" '{ n = $0; sub(/^MG_STEP_ENTRY\(/, "", n); sub(/,.*/, "", n) } n + 0 <= k' |
          paste -sd, - | sed 's/,M/, M/g')"
      grep '^const int MG_STEP_COUNT' "$stage/steps.c"
    } >"$out/$stage/steps.c"
fi
if [ "$stage" = 06_nn_histogram ] && [ "$last_step" = 0 ]; then # its versions up to this one
    kept=$(cd "$out/$stage" && ls v[0-9]*_*.cu | sort -V | sed 's/\.cu$//' | paste -sd' ' -)
    sed -i "/^S06_VERSIONS :=/,/[^\\]\$/c\\S06_VERSIONS := $kept" "$out/$stage/rules.mk"
    sed -i "s/^#define NN_VERSIONS [0-9]*/#define NN_VERSIONS $step_number/" "$out/$stage/nn_histogram.h"
    table=$(seq 1 "$step_number" | sed 's/^/\&nn_version_/' | paste -sd, - | sed 's/,/, /g')
    awk -v table="    $table," '/versions\[NN_VERSIONS\] = \{/ { print; print table; skip = 1; next }
        skip && /^\};/ { skip = 0 } !skip' "$out/$stage/nn_common.cu" >"$stubs/nn_common.cu"
    mv "$stubs/nn_common.cu" "$out/$stage/nn_common.cu"
    grep -q "^S06_VERSIONS := $kept\$" "$out/$stage/rules.mk" &&
        grep -q "^#define NN_VERSIONS $step_number " "$out/$stage/nn_histogram.h" &&
        grep -qF "$table," "$out/$stage/nn_common.cu" ||
        { echo "make handout: could not cut stage 06 to versions 1-$step_number" >&2; exit 2; }
fi
# files of other stages that this one includes ("../05_warp_shuffle/warp_scan.cuh"), and
# those they include in turn (08's onesweep_lib.cu includes 07's step, which includes 05's)
scan=("$out/$stage"/*)
while [ ${#scan[@]} -gt 0 ]; do
    copied=()
    for inc in $(grep -ho '#include "\.\./[0-9][0-9]_[^"]*"' "${scan[@]}" 2>/dev/null | sort -u |
                 sed 's/#include "\.\.\///; s/"$//'); do
        [ ! -e "$out/$inc" ] || continue
        mkdir -p "$out/$(dirname "$inc")"
        cp "$inc" "$out/$inc"
        copied+=("$out/$inc")
    done
    scan=("${copied[@]+"${copied[@]}"}")
done
# hole_list: "files<TAB>name<TAB>task<TAB>lines" for every hole of the level, once (a hole in
# parts over several files: the files, space-separated, and the lines of all its parts)
hole_list() {
    for f in $marked; do awk -v level="$level" -v list=1 -f tools/lab-stub.awk "$f" | sed "s|^|$f\t|"; done |
        awk -F'\t' '!($2 in task) { order[++n] = $2; task[$2] = $3; files[$2] = $1; lines[$2] = $4; next }
                    { files[$2] = files[$2] " " $1; lines[$2] += $4 }
                    END { for (i = 1; i <= n; i++)
                          printf "%s\t%s\t%s\t%d\n", files[order[i]], order[i], task[order[i]], lines[order[i]] }'
}
# quoted FILES: each file in backquotes, joined by ", "
quoted() { sed -E 's/([^ ]+)/`\1`/g; s/ /, /g' <<<"$1"; }
# contract NAME: the section "### NAME" of the stage's HOLES.md, without its heading
contract() {
    [ -f "$stage/HOLES.md" ] || return 0
    awk -v name="$1" '/^### / { on = ($0 == "### " name); next } /^## / { on = 0 } on' "$stage/HOLES.md" |
        sed -e '/./,$!d' | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}'
}
{
    echo "# Handout: step $id - $(step_field "$id" 6)"
    echo
    if [ "$level" = write ]; then
        echo "Level: **write** - you write the lesson's core whole (\`LEVEL=guided\` gives smaller holes)."
    else
        echo "Level: **guided** - a few lines a hole (\`LEVEL=write\`, the default, has you write the lesson's core whole)."
    fi
    if [ "$(step_field "$id" 5)" = hopper ]; then
        echo "Needs **Hopper** (compute capability 9.0 or later): elsewhere the step runs the step"
        echo "before's path, where its holes are never reached, and \`make grade\` says so and skips."
        echo
    fi
    echo "Fill the holes: each is a line \`/* TODO(lab NAME): ... */\` (a hole in several places"
    echo "says \`continued\` after its first)."
    echo
    echo "| file | hole | lines in the course's answer | what it must do |"
    echo "| --- | --- | --- | --- |"
    hole_list | while IFS=$'\t' read -r f name task lines; do
        echo "| $(quoted "$f") | \`$name\` | $lines | $task |"
    done
    echo
    echo "## The holes' contracts"
    hole_list | while IFS=$'\t' read -r f name task lines; do
        echo
        echo "### \`$name\` ($(quoted "$f"))"
        echo
        text=$(contract "$name")
        if [ -n "$text" ]; then echo "$text"; else echo "$task. Checked by the step's test program (\`make test\`)."; fi
    done
    echo
    echo "## What to run"
    echo
    if [ "$cpu_only" = 1 ]; then
        echo "\`make\` builds (GNU Make and a C compiler: no CUDA needed), \`make test\` runs the step's"
    else
        echo "\`make\` builds (CUDA Toolkit and GNU Make), \`make test\` runs the step's"
    fi
    echo "tests: they fail until every hole is filled.  \`make diff FROM=X TO=Y\` and \`make steps\`"
    echo "work on the steps of this handout.  \`$stage/README.md\` explains the step and ends with"
    echo "its lab.  Your instructor grades your work with \`make grade\`, on the checks the holes"
    echo "break: a file with its holes still empty scores 0."
} >"$out/HANDOUT.md"
# (HANDOUT_TAR=0: no archive - tests/test_handouts.sh makes 48 handouts)
[ "${HANDOUT_TAR:-1}" = 0 ] || tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
echo "make handout: $out/ and $out.tar.gz (step $id, level $level, $(hole_list | wc -l) holes)"
