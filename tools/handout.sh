#!/usr/bin/env bash
# handout.sh STEP [DIR] - `make handout STEP=01`: what a student of one step starts from,
# in DIR (default build/handout/STEP) and DIR.tar.gz beside it.  It holds the build
# (the Makefile, without -Werror: a stubbed hole leaves what it used unused), the shared
# harness (common/), the step's tests, and the step's stage folder with every file that
# marks holes (the step's file, or a .cuh beside it) as tools/lab-stub.awk makes it -
# each hole the instructor marked (LAB BEGIN ... LAB END) replaced by a TODO line - its
# README (the lab) and HANDOUT.md (the holes, what to run).  Never the answers
# (ANSWERS.md) or the reference code of the holes.  Inside it, `make` builds and `make
# test` runs the step's tests, which fail until the holes are filled.
#   A step of a stage of several steps (05.2, 07.4): the handout holds that step and the
# steps before it (the lessons already taught, runnable with --step), never the steps
# after it, which would give the answer away; its steps.c lists those steps only.  The
# files stubbed are the step's own and the headers of its folder that it is the first
# step to include (05.1's warp_scan.cuh, 05.3's warp_multisplit.cuh); headers of other
# stages that the stage includes (07's, from 05) come as they are.
#   Stage 06's versions are steps too: the handout of 06.K holds versions 1..K, its
# rules.mk, NN_VERSIONS and table of versions cut to them.
#   A step with no marked hole is refused (exit 2).
set -eu
cd "$(dirname "$0")/.."
. tools/steps-lib.sh
[ -n "${1:-}" ] ||
    { echo "usage: make handout STEP=ID (for example STEP=01, or STEP=05.2; make steps lists the ids)" >&2; exit 2; }
id=$(step_id "$1") && file=$(step_field "$id" 2) && [ -n "$file" ] ||
    { echo "make handout: no step '${1:-}' (STEP=ID; make steps lists them)" >&2; exit 2; }
stage=${file%%/*}
first_step_using() { # HEADER: the first step file of the stage to include it, or nothing
    grep -l "#include \"${1##*/}\"" "$stage"/step[0-9]_*.cu 2>/dev/null | sort | head -n 1
}
step_number=$(file_step_number "$file")
case $file in
*/radix_sort.c | */radix_sort.cu) candidates=$(ls "$stage"/*) ;;
*/step[0-9]_*.cu)
    candidates=$file
    for h in "$stage"/*.cuh "$stage"/*.h; do # the headers this step is the first to include
        [ -e "$h" ] || continue
        [ "$(first_step_using "$h")" != "$file" ] || candidates="$candidates $h"
    done ;;
*/v[0-9]*_*.cu) # a version of stage 06: the same, versions for steps
    candidates=$file ;;
*) echo "make handout: step $id ($file): no handout for a file of this kind" >&2
   exit 2 ;;
esac
marked=$(grep -l 'LAB BEGIN' $candidates 2>/dev/null || true)
[ -n "$marked" ] ||
    { echo "make handout: $stage marks no lab hole (/* LAB BEGIN name: task */ ... /* LAB END name */)" >&2; exit 2; }
out=${2:-build/handout/$id}
stubs=$(mktemp -d)
trap 'rm -rf "$stubs"' EXIT
for f in $marked; do awk -f tools/lab-stub.awk "$f" >"$stubs/${f##*/}" || exit 2; done

rm -rf "$out"
mkdir -p "$out/tools" "$out/tests" "$out/$stage"
# the build and the harness, as the course has them (-Werror off)
sed -e 's/ -Werror all-warnings//' -e 's/,-Werror//' -e 's/ -Werror//' Makefile >"$out/Makefile"
cp -r common "$out/"
cp tools/run-tests.sh tools/run-stages.sh tools/steps-lib.sh tools/limits.cu "$out/tools/"
cp tests/*.h tests/sort_battery.c tests/gpu_*.cu tests/cli_lib.sh "$out/tests/"
number=${stage%%_*}
later() { # FILE: whether FILE is a step after this handout's step, or a header first used by one
    [ -n "$step_number" ] || return 1
    local f=$1 k
    case $f in *.cuh | *.h) f=$(first_step_using "$f") ;; esac
    k=$(file_step_number "$f")
    [ -n "$k" ] && [ "$k" -gt "$step_number" ]
}
last_step=1 # whether no later step is left out: then the stage's scripted tests apply too
for f in "$stage"/*; do ! later "$f" || last_step=0; done
# the test programs; the scripts that run the stage's program with its options only in a
# handout of the last step (they ask for the later steps' options and versions)
for t in tests/test_"$number"_*.c tests/test_"$number"_*.cu; do
    [ -e "$t" ] && cp "$t" "$out/tests/"
done
for t in tests/test_cli_"$stage".sh tests/test_run_"$number"_*.sh; do
    [ "$last_step" = 1 ] && [ -e "$t" ] && cp "$t" "$out/tests/"
done
steps | awk -F'\t' -v s="$stage/" 'index($2, s) == 1' | while IFS= read -r line; do
    f=$(cut -f2 <<<"$line"); later "$f" || echo "$line"; done >"$out/steps.txt"
# the stage: its files, those that mark holes stubbed, its README, no answers, no later steps
for f in "$stage"/*; do
    case ${f##*/} in ANSWERS.md) ;; *) later "$f" || cp -r "$f" "$out/$stage/" ;; esac
done
cp "$stubs"/* "$out/$stage/"
up_to_step() { # the lines of stdin that name a step number (STEP_ENTRY(3)) up to this one
    awk -v k="$step_number" '{ n = $0; gsub(/[^0-9]/, "", n) } n + 0 <= k'
}
if [[ $file == */step[0-9]_*.cu ]]; then # the program's table of steps: this one and those before
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
# headers of other stages that this one includes ("../05_warp_shuffle/warp_scan.cuh")
for inc in $(grep -ho '#include "\.\./[0-9][0-9]_[^"]*"' "$out/$stage"/* 2>/dev/null | sort -u |
             sed 's/#include "\.\.\///; s/"$//'); do
    mkdir -p "$out/$(dirname "$inc")"
    cp "$inc" "$out/$inc"
done
{
    echo "# Handout: step $id - $(step_field "$id" 4)"
    echo
    echo "Fill the holes: each is a line \`/* TODO(lab NAME): ... */\`."
    echo
    echo "| file | hole | what it must do |"
    echo "| --- | --- | --- |"
    for f in $marked; do
        awk -v list=1 -f tools/lab-stub.awk "$f" |
            awk -F'\t' -v f="$f" '{ printf "| `%s` | `%s` | %s |\n", f, $1, $2 }'
    done
    echo
    echo "\`make\` builds (CUDA Toolkit and GNU Make), \`make test\` runs the step's tests:"
    echo "they fail until every hole is filled.  \`$stage/README.md\` explains the step and"
    echo "ends with its lab.  Your instructor grades the file with \`make grade\`."
} >"$out/HANDOUT.md"
tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
echo "make handout: $out/ and $out.tar.gz (step $id, $(cat $marked | grep -c 'LAB BEGIN') holes)"
