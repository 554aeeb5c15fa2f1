#!/usr/bin/env bash
# sanitize.sh TEST_PROGRAM... - `make sanitize`: every GPU test program, in its short
# --small mode, under compute-sanitizer's memcheck, racecheck, synccheck and initcheck.
# Fails on any report.  initcheck runs with --no-poison: the tests normally fill device
# buffers with garbage, which would hide a read of memory that nothing wrote.
set -u
sanitizer=$(command -v compute-sanitizer || true)
for d in "${CUDA_PATH:-}" /usr/local/cuda; do
    [ -n "$sanitizer" ] || { [ -n "$d" ] && [ -x "$d/bin/compute-sanitizer" ] && sanitizer="$d/bin/compute-sanitizer"; }
done
if [ -z "$sanitizer" ]; then
    echo "sanitize: compute-sanitizer not found (it comes with the CUDA Toolkit); nothing was checked" >&2
    exit 2
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "sanitize: SKIPPED - no CUDA device, nothing was checked" >&2
    exit 2
fi
logdir=${SANITIZE_LOG_DIR:-build/sanitize}
mkdir -p "$logdir"
clean=0 dirty=0
for t in "$@"; do
    for tool in memcheck racecheck synccheck initcheck; do
        args="--small"
        [ "$tool" = initcheck ] && args="--small --no-poison"
        log="$logdir/$(basename "$t").$tool.log"
        start=$(date +%s)
        "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 "$t" $args >"$log" 2>&1
        rc=$?
        secs=$(( $(date +%s) - start ))
        summary=$(grep -m1 'ERROR SUMMARY\|RACECHECK SUMMARY' "$log" || echo "no summary")
        if [ "$rc" -eq 0 ]; then
            clean=$((clean + 1)); printf 'clean  %-10s %-30s %4d s  %s\n' "$tool" "$(basename "$t")" "$secs" "$summary"
        else
            dirty=$((dirty + 1)); printf 'REPORT %-10s %-30s %4d s  exit %d, see %s\n' "$tool" "$(basename "$t")" "$secs" "$rc" "$log"
            grep -m 12 -E 'Error|error|Invalid|Race|Hazard|Uninitialized|FAIL' "$log" | sed 's/^/       /'
        fi
    done
done
echo "sanitize: $clean runs clean, $dirty with reports"
[ "$dirty" -eq 0 ]
