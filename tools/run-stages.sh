#!/usr/bin/env bash
# run-stages.sh BIN_DIR STAGE... - `make run`: every stage at its defaults (each step
# of stage 05 on its own), then one table in the style of the course reports (time,
# keys/s, speed-up over the previous step, cumulative speed-up, ratio to CUB).
#
# Stage 06 runs at a classroom size, a tenth of the course report's problem
# (RUN06_ARGS, default: -q 1000 --version all --runs 3 - 1,000 queries x 1,000,000
# references x 128 dimensions, K = 5000, every version and the cuBLAS baseline;
# about half a minute on an H100, most of it making the data and the reference).
#
# Stages that need a GPU report themselves skipped (exit 77) on a machine without
# one; skips do not fail the run.  NOT_RUN names the stages the build left out (the CPU
# build: no GPU here, or no nvcc; NOT_RUN_WHY says which), named at the end the same way.
# The exit status is non-zero if any stage failed: a check that did not pass, a CUDA
# error, a crash, or no RESULT line.
set -u
bin_dir=$1; shift
results=() skipped=() failed=() tables_above=()
copy=$(mktemp)
trap 'rm -f "$copy"' EXIT
# runs: "STAGE ARGS" a line - each step of a stage of several steps (05: its files
# step1_*.cu ...) runs on its own, --step K, so that the table shows what each bought
. "$(dirname "$0")/steps-lib.sh" # stage_step_args
runs() {
    local stage step
    for stage in "$@"; do
        while read -r step; do echo "$stage${step:+ $step}"; done < <(stage_step_args "$stage")
    done
}
while read -r stage step_arg; do
    args=${RUN_ARGS:-}
    case $stage in
    06_*) args=${RUN06_ARGS:--q 1000 --version all --runs 3} ;;
    # the CPU-bound stages vary from run to run on a shared host: more runs, and the
    # fastest is shown beside the median
    01_* | 02_*) args=${RUN_ARGS:---runs 9} ;;
    esac
    args="${step_arg:+$step_arg }$args"
    echo "=== $stage ${args% } ==="
    # the program's lines as it prints them (a line at a time, though a pipe would hold
    # them to the end), and a copy to read its RESULT line from
    stdbuf -oL -eL "$bin_dir/$stage" $args 2>&1 | tee "$copy"
    rc=${PIPESTATUS[0]}
    out=$(cat "$copy")
    echo
    if [ "$rc" -eq 77 ]; then
        [[ " ${skipped[*]-} " == *" $stage "* ]] || skipped+=("$stage")
        continue
    fi
    [ "$rc" -eq 0 ] || failed+=("$stage (exit $rc)")
    case $stage in
    06_*) grep -q '^RESULT ' <<<"$out" && tables_above+=("$stage")
          grep -q '^RESULT ' <<<"$out" || [ "$rc" -ne 0 ] || failed+=("$stage (no RESULT line)") ;;
    *)  if line=$(grep '^RESULT ' <<<"$out"); then results+=("$line")
        elif [ "$rc" -eq 0 ]; then failed+=("$stage (no RESULT line)"); fi ;;
    esac
done < <(runs "$@")

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

echo "=== summary: sort time of each stage at its defaults (median and fastest of the timed runs) ==="
printf '%-24s %12s %10s %10s %12s %12s %10s %6s\n' stage "sort ms" "min ms" "Mkeys/s" "vs previous" "cumulative" "vs CUB" check
# A row sorted another number of keys than the first (stage 08's default, where two GPUs
# begin to matter) is no step of the path above it: it gets no "vs previous" and no
# "cumulative", and its n beside its name.
first="" prev="" n_first="" other_n=""
for line in "${results[@]+"${results[@]}"}"; do
    stage=$(field stage "$line"); ms=$(field sort_ms "$line"); n=$(field n "$line"); min=$(field min_ms "$line")
    step=$(field step "$line")
    [ "$step" = "${stage:0:2}" ] || stage="$stage $step" # a step of a stage of several
    cub=$(field cub_ms "$line"); check=$(field check "$line")
    [ -n "$n_first" ] || n_first=$n
    row_prev=$prev row_first=$first # what the row is compared with; none at another n
    if [ "$n" != "$n_first" ]; then
        stage="$stage (n=$n)" other_n=1 row_prev="" row_first=""
    else
        [ -n "$first" ] || first=$ms row_first=$ms
        prev=$ms
    fi
    awk -v s="$stage" -v ms="$ms" -v min="$min" -v n="$n" -v prev="$row_prev" -v first="$row_first" -v cub="$cub" -v c="$check" 'BEGIN {
        mk = ms > 0 ? n / ms / 1e3 : 0
        vp = (prev == "" || ms <= 0) ? "-" : sprintf("%.2fx", prev / ms)
        cu = (first == "" || ms <= 0) ? "-" : sprintf("%.2fx", first / ms)
        vc = (cub == "NA" || cub == "") ? "NA" : sprintf("%.2fx", ms / cub)
        printf "%-24s %12.3f %10.3f %10.1f %12s %12s %10s %6s\n", s, ms, min, mk, vp, cu, vc, c }'
done
for line in "${results[@]+"${results[@]}"}"; do
    cub=$(field cub_ms "$line")
    if [ "$cub" != "NA" ]; then
        echo "CUB DeviceRadixSort on the same input: $cub ms on $(sed -n 's/.*gpu="\(.*\)"/\1/p' <<<"$line")"
        break
    fi
done
echo "sort ms: the median run; min ms: the fastest (stages 01 and 02 run on the host's CPU, 9 runs)."
echo "vs previous / cumulative: how many times faster than the row above / than stage 01."
[ -z "$other_n" ] || echo "A row marked (n=...) sorted another number of keys than the rows above (its stage's default): compared with CUB only."
echo "vs CUB: how many times CUB's time this stage takes (above 1: slower than CUB)."
for stage in "${tables_above[@]+"${tables_above[@]}"}"; do
    echo "Stage $stage (distance histograms, not a sort) printed its own table above, under === $stage."
done
if [ ${#skipped[@]} -gt 0 ]; then
    echo "not run: ${skipped[*]} - these stages need a CUDA GPU and none was found."
fi
if [ -n "${NOT_RUN:-}" ]; then
    echo "not run: $NOT_RUN - ${NOT_RUN_WHY:-these stages need a CUDA GPU and nvcc, and this is the CPU build}."
fi
if [ ${#failed[@]} -gt 0 ]; then
    echo "FAILED: ${failed[*]}"
    exit 1
fi
