#!/usr/bin/env bash
# handout.sh STEP [DIR] - `make handout STEP=01`: what a student of one step starts from,
# in DIR (default build/handout/STEP) and DIR.tar.gz beside it.  It holds the build
# (the Makefile, without -Werror: a stubbed hole leaves what it used unused), the shared
# harness (common/), the step's tests, and the step's stage folder with every file that
# marks holes (the step's file, or a .cuh beside it) as tools/lab-stub.awk makes it -
# each hole the instructor marked (LAB BEGIN ... LAB END) replaced by a TODO line - its
# README (the lab) and HANDOUT.md (the holes, what to run).  Never the answers
# (ANSWERS.md) or the reference code of the holes.  Inside it, `make` builds and `make
# test` runs the step's tests, which fail until the holes are filled.  For now a step
# of a stage of one file (01-04) whose folder marks holes - all four do - has a handout;
# a step with no marked hole is refused (exit 2), as is a step of a stage of several
# steps (its later steps would give the answer away).
set -eu
cd "$(dirname "$0")/.."
. tools/steps-lib.sh
id=$(step_id "${1:-}") && file=$(step_field "$id" 2) && [ -n "$file" ] ||
    { echo "make handout: no step '${1:-}' (STEP=ID; make steps lists them)" >&2; exit 2; }
stage=${file%%/*}
case $file in
*/radix_sort.c | */radix_sort.cu) ;;
*) echo "make handout: step $id ($file): only the stages of one file (01-04) have handouts so far" >&2
   exit 2 ;;
esac
marked=$(grep -l 'LAB BEGIN' "$stage"/* 2>/dev/null || true)
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
for t in tests/test_"$stage".c tests/test_"$stage".cu tests/test_cli_"$stage".sh \
         tests/test_run_"$number"_*.sh; do
    [ -e "$t" ] && cp "$t" "$out/tests/"
done
steps | awk -F'\t' -v s="$stage/" 'index($2, s) == 1' >"$out/steps.txt"
# the stage: its files, those that mark holes stubbed, its README, no answers
for f in "$stage"/*; do
    case ${f##*/} in ANSWERS.md) ;; *) cp -r "$f" "$out/$stage/" ;; esac
done
cp "$stubs"/* "$out/$stage/"
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
