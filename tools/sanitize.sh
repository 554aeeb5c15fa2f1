#!/usr/bin/env bash
# sanitize.sh TEST_PROGRAM... - `make sanitize`: every GPU test program under
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck; stage 08's test
# program and, where build/bin/08_multi_gpu is built, its steps on 1 GPU and on 2 (where
# there are 2) under memcheck alone: its kernels are 07's, which the others check, and
# NCCL's.
#
# Each run's size follows its tool's cost.  memcheck and synccheck run a program's short
# run (--small); racecheck and initcheck, which watch every access to shared memory and
# run a kernel tens to hundreds of times slower, its shortest (--tiny: every kernel and
# variant of --small, on fewer inputs).  initcheck also gets --no-poison: the tests
# normally fill device buffers with garbage, which would hide a read of memory that
# nothing wrote.
#
# Which runs (tests/README.md, "make sanitize"): memcheck and synccheck check every test
# program; racecheck and initcheck the programs of the steps a class grades (the core track
# of steps.txt), of each stage's last step, and every program that tests no one step
# (test_gpu_common, test_06_nn_histogram) - so that the four tools end within 6 minutes
# on one H100.  SANITIZE_ALL=1 runs every tool on every program.
#
# The runs go several at once (the sanitizers are bound by the CPU), the slowest first (by
# their times in the last run's logs, kept beside them; a run not timed yet goes first),
# spread over every GPU present (run k on GPU k mod G, by CUDA_VISIBLE_DEVICES; the runs
# of 08 on 2 GPUs see them all).  A line is printed as each run ends:
#   clean   racecheck  test_03_split_k1            61 s  GPU 1  RACECHECK SUMMARY: 0 hazards ...
#   REPORT  memcheck   test_07_onesweep_3           9 s  GPU 0  exit 99 (ERROR SUMMARY: 2 errors), see LOG
#   TIMEOUT initcheck  test_06_nn_histogram       300 s  GPU 2  did not end in 300 s (SANITIZE_TIMEOUT), see LOG
#   SKIP    memcheck   test_08_multi_gpu            0 s  GPU all SKIP: needs 2 GPUs, found 1
# and the last line counts them:
#   sanitize: N runs clean, N with reports, N timed out, N skipped, in S s
# Every line of a run's log starts with the seconds since the run began, so that a slow run
# shows which of its groups took the time.  Fails on any report and on any run that did not
# end within its timeout.
#   SANITIZE_JOBS     how many runs at once (default: one per core)
#   SANITIZE_TIMEOUT  seconds before a run is stopped and counted as failed (default 300)
#   SANITIZE_LOG_DIR  where the logs go (default build/sanitize)
#   sanitize.sh --check   only the checks that come before any build: a GPU (none: exit 77
#                         and one line, a skip: make sanitize ends there with success) and
#                         the tool (missing: exit 2)
set -u
sanitizer=$(command -v compute-sanitizer || true)
for d in "${CUDA_PATH:-}" /usr/local/cuda; do
    [ -n "$sanitizer" ] || { [ -n "$d" ] && [ -x "$d/bin/compute-sanitizer" ] && sanitizer="$d/bin/compute-sanitizer"; }
done
if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "sanitize: skipped - the sanitizers run the GPU tests and need a CUDA GPU; nvidia-smi lists none; nothing was checked"
    exit 77
fi
if [ -z "$sanitizer" ]; then
    echo "sanitize: compute-sanitizer not found: it is part of the CUDA Toolkit (NVIDIA's package cuda-sanitizer-<version>, or the full toolkit installer) - put it on PATH or set CUDA_PATH. Nothing was checked" >&2
    exit 2
fi
[ "${1:-}" != --check ] || exit 0
logdir=${SANITIZE_LOG_DIR:-build/sanitize}
jobs=${SANITIZE_JOBS:-$(nproc 2>/dev/null || echo 2)}
limit=${SANITIZE_TIMEOUT:-300}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "sanitize: SANITIZE_JOBS=$jobs: a whole number from 1" >&2; exit 2; }
[[ $limit =~ ^[1-9][0-9]*$ ]] || { echo "sanitize: SANITIZE_TIMEOUT=$limit: seconds, a whole number from 1" >&2; exit 2; }
gpus=$(nvidia-smi -L | grep -c '^GPU')
mkdir -p "$logdir"
tools=(racecheck initcheck memcheck synccheck) # the slowest first

# stamp: each line of the input with the seconds since the run began
stamp() {
    local start=$SECONDS line
    while IFS= read -r line; do printf '[%4d s] %s\n' $((SECONDS - start)) "$line"; done
}

# run_one PROGRAM TOOL NAME ARGS OPTIONS GPU: the program under the tool (with the tool's
# OPTIONS) on GPU (all: every GPU), its log NAME.TOOL.log; prints the run's line
run_one() {
    local t=$1 tool=$2 name=$3 args=$4 options=$5 gpu=$6 log start rc secs summary word
    log="$logdir/$name.$tool.log"
    start=$SECONDS
    local cmd=("$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 $options "$t" $args)
    if [ "$gpu" = all ]; then
        timeout --kill-after=10 "$limit" "${cmd[@]}" </dev/null 2>&1 | stamp >"$log"
    else
        CUDA_VISIBLE_DEVICES=$gpu timeout --kill-after=10 "$limit" "${cmd[@]}" </dev/null 2>&1 | stamp >"$log"
    fi
    rc=${PIPESTATUS[0]}
    secs=$((SECONDS - start))
    echo "$rc $secs" >"$log.status"
    summary=$(grep -m1 -o 'ERROR SUMMARY.*\|RACECHECK SUMMARY.*' "$log" || echo "no summary")
    case $rc in
    0) printf 'clean   %-10s %-34s %4d s  GPU %-3s %s\n' "$tool" "$name" "$secs" "$gpu" "$summary" ;;
    77) printf 'SKIP    %-10s %-34s %4d s  GPU %-3s %s\n' "$tool" "$name" "$secs" "$gpu" \
            "$(grep -m1 -o 'SKIP.*' "$log" || echo "the program skipped (exit 77)")" ;;
    124 | 137)
        printf 'TIMEOUT %-10s %-34s %4d s  GPU %-3s did not end in %d s (SANITIZE_TIMEOUT), see %s\n' \
            "$tool" "$name" "$secs" "$gpu" "$limit" "$log" ;;
    *)  printf 'REPORT  %-10s %-34s %4d s  GPU %-3s exit %d (%s), see %s\n' "$tool" "$name" "$secs" "$gpu" \
            "$rc" "$summary" "$log"
        grep -m 12 -E 'Error|error|Invalid|Race|Hazard|Uninitialized|FAIL' "$log" | sed 's/^/        /' ;;
    esac
}

# deep PROGRAM: 0 where racecheck and initcheck check the program (above), 1 where they
# leave it to the step's neighbours
. "$(dirname "$0")/steps-lib.sh"
deep() {
    [ "${SANITIZE_ALL:-0}" = 1 ] && return 0
    [[ ${1##*/} =~ ^test_([0-9][0-9])_[a-z0-9_]+_([0-9]+)$ ]] || return 0 # no one step's program
    local id="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
    [ "$(step_field "$id" 4)" = core ] || [ "$id" = "$(last_stage_step "${BASH_REMATCH[1]}")" ]
}

# every run: "PROGRAM|TOOL|NAME|ARGS|OPTIONS|GPUS" (GPUS: 1, or all for a run on 2 GPUs)
runs=()
for tool in "${tools[@]}"; do
    for t in "$@"; do
        case ${t##*/} in
        test_08_*) # stage 08's kernels are 07's, checked by every tool in 07's tests; NCCL's are
            # its own: memcheck, without the errors of the calls NCCL tries and handles
            [ "$tool" = memcheck ] && runs+=("$t|memcheck|$(basename "$t")|--small|--report-api-errors no|all")
            continue ;;
        esac
        case $tool in
        racecheck) deep "$t" || continue; args="--tiny" ;;
        initcheck) deep "$t" || continue; args="--tiny --no-poison" ;;
        *) args="--small" ;;
        esac
        runs+=("$t|$tool|$(basename "$t")|$args||1")
    done
done
s08=${BIN_DIR:-build/bin}/08_multi_gpu
if [ -x "$s08" ]; then
    for g in 1 2; do
        [ "$g" -le "$gpus" ] || { echo "sanitize: 08_multi_gpu on $g GPUs not run: $gpus GPU here"; continue; }
        for step in $(seq 1 "$(ls 08_multi_gpu/step[0-9]*_*.c 2>/dev/null | wc -l)"); do
            # as test_08_*, above
            runs+=("$s08|memcheck|08_multi_gpu.gpus$g.step$step|--gpus $g --step $step -n 70001 --dist few --runs 1 --check ref --no-cub|--report-api-errors no|$([ "$g" = 1 ] && echo 1 || echo all)")
        done
    done
fi

# the slowest first, by the last run's times (a run without one first of all)
mapfile -t runs < <(for r in "${runs[@]}"; do
    IFS='|' read -r t tool name _ <<<"$r"
    rc=none secs=1000000
    read -r rc secs _ 2>/dev/null <"$logdir/$name.$tool.log.status"
    printf '%s\t%s\n' "${secs:-1000000}" "$r"
done | sort -t$'\t' -k1,1 -g -r -s | cut -f2)

echo "sanitize: ${#runs[@]} runs, $jobs at a time, on $gpus GPU(s), each stopped after $limit s; logs in $logdir/"
began=$SECONDS
running=0 k=0
for r in "${runs[@]}"; do
    IFS='|' read -r t tool name args options where <<<"$r"
    gpu=all
    [ "$where" = all ] || gpu=$((k % gpus))
    k=$((k + 1))
    run_one "$t" "$tool" "$name" "$args" "$options" "$gpu" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

clean=0 dirty=0 late=0 skipped=0
for r in "${runs[@]}"; do
    IFS='|' read -r t tool name args options where <<<"$r"
    rc=none
    read -r rc _ 2>/dev/null <"$logdir/$name.$tool.log.status"
    case $rc in
    0) clean=$((clean + 1)) ;;
    77) skipped=$((skipped + 1)) ;;
    124 | 137) late=$((late + 1)) ;;
    *) dirty=$((dirty + 1)) ;;
    esac
done
echo "sanitize: $clean runs clean, $dirty with reports, $late timed out, $skipped skipped, in $((SECONDS - began)) s"
[ "$dirty" -eq 0 ] && [ "$late" -eq 0 ]
