#!/usr/bin/env bash
# sanitize.sh TEST_PROGRAM... - `make sanitize`: every GPU test program, in its short
# --small mode, under compute-sanitizer's memcheck, racecheck, synccheck and initcheck;
# stage 08's test program and, where build/bin/08_multi_gpu is built, its steps on 1 GPU
# and on 2 (where there are 2) under memcheck alone: its kernels are 07's, which the others
# check, and NCCL's.
# Fails on any report.  initcheck runs with --no-poison: the tests normally fill device
# buffers with garbage, which would hide a read of memory that nothing wrote.
#   SANITIZE_JOBS     how many sanitizer runs at once (default 1)
#   SANITIZE_TIMEOUT  seconds before a run counts as failed (default: none)
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
jobs=${SANITIZE_JOBS:-1}
mkdir -p "$logdir"
tools=(memcheck racecheck synccheck initcheck)

# run_one PROGRAM TOOL NAME ARGS [OPTIONS]: the program under the tool (with the tool's
# OPTIONS), its log named NAME.TOOL.log
run_one() {
    local t=$1 tool=$2 name=$3 args=$4 options=${5:-} log start rc
    log="$logdir/$name.$tool.log"
    start=$(date +%s)
    local cmd=("$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 $options "$t" $args)
    if [ -n "${SANITIZE_TIMEOUT:-}" ]; then timeout "$SANITIZE_TIMEOUT" "${cmd[@]}" >"$log" 2>&1
    else "${cmd[@]}" >"$log" 2>&1; fi
    rc=$?
    echo "$rc $(( $(date +%s) - start ))" >"$log.status"
}

# every run: "PROGRAM|TOOL|NAME|ARGS|OPTIONS"
runs=()
for t in "$@"; do
    case ${t##*/} in
    test_08_*) # stage 08's kernels are 07's, checked by every tool in 07's tests; NCCL's are
        # its own: memcheck, without the errors of the calls NCCL tries and handles
        runs+=("$t|memcheck|$(basename "$t")|--small|--report-api-errors no")
        continue ;;
    esac
    for tool in "${tools[@]}"; do
        args="--small"
        [ "$tool" = initcheck ] && args="--small --no-poison"
        runs+=("$t|$tool|$(basename "$t")|$args")
    done
done
s08=${BIN_DIR:-build/bin}/08_multi_gpu
if [ -x "$s08" ]; then
    gpus=$(nvidia-smi -L | wc -l)
    for g in 1 2; do
        [ "$g" -le "$gpus" ] || { echo "sanitize: 08_multi_gpu on $g GPUs not run: $gpus GPU here"; continue; }
        for step in $(seq 1 "$(ls 08_multi_gpu/step[0-9]_*.c 2>/dev/null | wc -l)"); do
            # as test_08_*, above
            runs+=("$s08|memcheck|08_multi_gpu.gpus$g.step$step|--gpus $g --step $step -n 70001 --dist few --runs 1 --check ref --no-cub|--report-api-errors no")
        done
    done
fi

running=0
for r in "${runs[@]}"; do
    IFS='|' read -r t tool name args options <<<"$r"
    run_one "$t" "$tool" "$name" "$args" "$options" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

clean=0 dirty=0
for r in "${runs[@]}"; do
    IFS='|' read -r t tool name args options <<<"$r"
    log="$logdir/$name.$tool.log"
    read -r rc secs <"$log.status"
    summary=$(grep -m1 'ERROR SUMMARY\|RACECHECK SUMMARY' "$log" || echo "no summary")
    if [ "$rc" -eq 0 ]; then
        clean=$((clean + 1)); printf 'clean   %-10s %-30s %4d s  %s\n' "$tool" "$name" "$secs" "$summary"
    else
        dirty=$((dirty + 1)); printf 'REPORT  %-10s %-30s %4d s  exit %d (%s), see %s\n' "$tool" "$name" "$secs" "$rc" \
            "$([ "$rc" -eq 124 ] && echo "timed out" || echo "$summary")" "$log"
        grep -m 12 -E 'Error|error|Invalid|Race|Hazard|Uninitialized|FAIL' "$log" | sed 's/^/        /'
    fi
done
echo "sanitize: $clean runs clean, $dirty with reports"
[ "$dirty" -eq 0 ]
