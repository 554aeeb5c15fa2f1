#!/usr/bin/env bash
# test_run_08_multi_gpu.sh - stage 08 on one GPU (--gpus 1), each step: every distribution at sizes
# around the tile and the shares (1 key, odd counts, 2^20 + 3), each checked against the
# CPU reference sort; a file in and out; the multiset-hash check on its own.  The runs on
# several GPUs are test_run_08_multi_gpu_gpus.sh's.  GPU: exits 77 (skipped) where there
# is none.
set -u
bin=${BIN_DIR:-build/bin}/08_multi_gpu
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"
# the steps this tree has (a handout has its step and those before)
steps=$(ls "$(dirname "$0")"/../08_multi_gpu/step[0-9]_*.c | wc -l)

"$bin" -n 1 --gpus 1 --runs 1 --no-cub >"$tmp/log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
    grep '^SKIP: no CUDA device' "$tmp/log" || { echo "exit 77 without the SKIP line"; exit 1; }
    exit 77
fi
run_one() { # LOG ARGS...: a run that must pass its check; where it does not, why in LOG.fail
    local log=$1
    shift
    if ! "$bin" --gpus 1 --runs 1 --no-cub "$@" >"$log" 2>&1 || ! grep -q '^RESULT .* check=PASS' "$log"; then
        echo "08_multi_gpu --gpus 1 $*: $(grep -E 'check|error|rror' "$log" | head -n 2)" >"$log.fail"
    fi
}
run_ok() { # ARGS...: a run that must pass its check
    checks=$((checks + 1))
    run_one "$tmp/log" "$@"
    [ ! -e "$tmp/log.fail" ] || { fail "$(cat "$tmp/log.fail")"; rm -f "$tmp/log.fail"; }
}
# the battery: four runs at once (each starts CUDA and NCCL, a second or so, most of its time)
runs=0
for step in $(seq 1 "$steps"); do
    for dist in uniform equal sorted reversed few and2 and4 high low; do
        for n in 1 2 1000 8193 1048579; do
            runs=$((runs + 1))
            in_background 4 /dev/null run_one "$tmp/run$runs.log" --step "$step" -n "$n" --dist "$dist" --check ref
        done
    done
done
wait
for k in $(seq 1 "$runs"); do
    checks=$((checks + 1))
    [ ! -e "$tmp/run$k.log.fail" ] || fail "$(cat "$tmp/run$k.log.fail")"
done
run_ok -n 4194304 --check hash
# a file in, the sorted keys out, equal to the reference
"$bin" --gpus 1 --runs 1 --no-cub -n 12345 --dist few --output "$tmp/a.bin" >/dev/null 2>&1
run_ok --input "$tmp/a.bin" --output "$tmp/b.bin" --check ref
check_that "--output of a sorted file is the file" cmp -s "$tmp/a.bin" "$tmp/b.bin"
# more GPUs than the host has: a command that asks too much (exit 2, one line), no skip
# (a host of 8 or more: --gpus 9 is past the program's range, which test_cli checks)
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$gpus" -lt 8 ]; then
    checks=$((checks + 1))
    "$bin" --gpus $((gpus + 1)) -n 1000 --runs 1 --no-cub >"$tmp/log" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "this host has $gpus GPU" "$tmp/err" ||
        fail "--gpus $((gpus + 1)) on $gpus GPUs: exit $rc, $(head -n 2 "$tmp/err")"
fi
# more keys than the GPUs hold with their buffers: exit 2, one line
checks=$((checks + 1))
"$bin" --gpus 1 -n 68719476736 --runs 1 --no-cub --check hash >"$tmp/log" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] ||
    fail "-n 2^36 on one GPU: exit $rc, $(head -n 2 "$tmp/err")"
# the CUB baseline runs beside, on the same keys
checks=$((checks + 1))
"$bin" --gpus 1 --runs 1 -n 100000 >"$tmp/log" 2>&1
grep -qE '^RESULT .* cub_ms=[0-9.]+ vs_cub=[0-9.]+ cub_call=i(32|64) .*check=PASS' "$tmp/log" ||
    fail "the CUB baseline should run: $(grep RESULT "$tmp/log")"
finish test_run_08_multi_gpu
