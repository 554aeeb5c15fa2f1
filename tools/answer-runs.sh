#!/usr/bin/env bash
# answer-runs.sh [PREFIX...] - the runs behind the lab answers (each stage's ANSWERS.md)
# and the README figures that no benchmark set measures: every line of
# tools/answer-runs.txt, "LABEL PROGRAM ARGS...", whose label starts with one of the
# PREFIXes (default: all), run once as written.  PROGRAM is a path under build/.
#   answers.log   every line of every run, prefixed "LABEL| ", so that a figure in prose
#                 names its line: <!-- src .../answers.log /03-verbose[|] +#1 / 3 -->
#   answers.csv   the RESULT line of each sort-stage run, with its label (the columns of
#                 tools/result-to-csv.awk, "label" first); answers06.csv for stage 06
# under build/answers/<machine>/, or results/<machine>/ with SAVE=1, the machine named as
# tools/bench.sh names it.  Without a GPU only the CPU stage's runs (01_) are made, the
# others named as skipped.  The exit status is non-zero if a run failed.
set -u
cd "$(dirname "$0")/.." || exit 1
slug() { tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//'; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
if [ -n "$gpu" ]; then machine=$(slug <<<"$gpu")
else
    model=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
    machine="cpu-$(slug <<<"${model:-unknown}")-$(nproc)cpus"
fi
if [ "${SAVE:-0}" = 1 ]; then out=results/$machine; else out=build/answers/$machine; fi
mkdir -p "$out"
sort_cols="label $(awk -v header=1 -f tools/result-to-csv.awk </dev/null | tr ',' ' ')"
nn_cols="label date stage queries refs dims bins version ran reduce runs ms distances_ms minmax_ms"
nn_cols="$nn_cols thresholds_ms histogram_ms exact check gpu args"
log=$out/answers.log csv=$out/answers.csv csv06=$out/answers06.csv
{
    echo "# tools/answer-runs.sh ${*:-(every run)}, $(date -u '+%F %H:%M UTC'), ${gpu:-no GPU: $machine}"
    echo "# each line: LABEL| what the run printed; the runs are tools/answer-runs.txt"
} >"$log"
awk -v header=1 -v columns="$sort_cols" -f tools/result-to-csv.awk </dev/null >"$csv"
awk -v header=1 -v columns="$nn_cols" -f tools/result-to-csv.awk </dev/null >"$csv06"
failed=0 skipped=0 ran=0
while read -r label prog args; do
    case $label in '' | '#'*) continue ;; esac
    if [ $# -gt 0 ]; then
        keep=0; for p in "$@"; do case $label in "$p"*) keep=1 ;; esac; done
        [ $keep -eq 1 ] || continue
    fi
    [ -n "$gpu" ] || case $label in 01-*) ;; *) skipped=$((skipped + 1)); continue ;; esac
    [ -x "build/$prog" ] || { echo "answer-runs: $label: build/$prog not built" >&2; failed=$((failed + 1)); continue; }
    # shellcheck disable=SC2086 # ARGS are words, as written in the list
    output=$("build/$prog" $args 2>&1 </dev/null); rc=$?
    { echo "$label| \$ build/$prog $args"; sed "s/^/$label| /" <<<"$output"; echo "$label| (exit $rc)"; } >>"$log"
    ran=$((ran + 1))
    [ $rc -eq 0 ] || { echo "answer-runs: $label: exit $rc" >&2; failed=$((failed + 1)); }
    result=$(grep '^RESULT ' <<<"$output" | sed "s/^RESULT /RESULT label=$label /")
    [ -n "$result" ] || continue
    case $prog in
    */06_*) awk -v date="$(date +%F)" -v args="$args" -v columns="$nn_cols" -f tools/result-to-csv.awk <<<"$result" >>"$csv06" ;;
    *) awk -v date="$(date +%F)" -v args="$args" -v columns="$sort_cols" -f tools/result-to-csv.awk <<<"$result" >>"$csv" ;;
    esac
done <tools/answer-runs.txt
[ "$(wc -l <"$csv06")" -gt 1 ] || rm -f "$csv06"
echo "answer-runs: $ran runs, $failed failed${gpu:+ on $gpu}$([ $skipped -eq 0 ] || echo ", $skipped skipped (they need a GPU)"): $log"
[ $failed -eq 0 ]
