#!/usr/bin/env bash
# test_run_08_multi_gpu_gpus.sh - stage 08 on 2 GPUs and on every GPU of the host: every
# distribution at sizes around the shares, each checked against the CPU reference sort
# (the parts sorted, in order, a permutation of the input); under mpirun too where the
# program was built with MPI.  Needs 2 GPUs: exits 77 ("needs 2 GPUs, found 1") with fewer.
set -u
bin=${BIN_DIR:-build/bin}/08_multi_gpu
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"
# the steps this tree has (a handout has its step and those before)
steps=$(ls "$(dirname "$0")"/../08_multi_gpu/step[0-9]_*.c | wc -l)

gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
if [ "$gpus" -lt 2 ]; then
    [ "$gpus" -gt 0 ] || echo -n "SKIP: no CUDA device: "
    [ "$gpus" -eq 0 ] || echo -n "SKIP: "
    echo "needs 2 GPUs, found $gpus"
    exit 77
fi
run_ok() { # ARGS...: a run that must pass its check
    checks=$((checks + 1))
    if ! "$@" >"$tmp/log" 2>&1 || ! grep -q '^RESULT .* check=PASS' "$tmp/log"; then
        fail "$*: $(grep -E 'check|error|rror' "$tmp/log" | head -n 2)"
    fi
}
for g in $(printf '%s\n' 2 "$gpus" | sort -nu); do
    for dist in uniform sorted reversed and2 and4; do
        for n in 1 3 8193 1048579; do
            run_ok "$bin" --step 1 --gpus "$g" --runs 1 --no-cub -n "$n" --dist "$dist" --check ref
        done
    done
    run_ok "$bin" --step 1 --gpus "$g" --runs 1 -n 16777217 --check ref
    # 08.2 and on: exact shares (the program checks each part's size) on every distribution
    for step in $(seq 2 "$steps"); do
        for dist in uniform equal sorted reversed few and2 and4 high low; do
            for n in 1 3 8193 1048579; do
                run_ok "$bin" --step "$step" --gpus "$g" --runs 1 --no-cub -n "$n" --dist "$dist" --check ref
            done
        done
        run_ok "$bin" --step "$step" --gpus "$g" --runs 1 -n 16777217 --check ref
    done
done
# 08.1 on keys of few distinct top digits: its owners take whole digits, so the parts are
# uneven, but every key still lands (the buffers hold the whole input at this size)
for dist in equal few high low; do
    run_ok "$bin" --step 1 --gpus "$gpus" --runs 1 --no-cub -n 1048579 --dist "$dist" --check ref
done
# one MPI rank a GPU, where the build has MPI
if command -v mpirun >/dev/null 2>&1 && ldd "$bin" | grep -q libmpi; then
    for step in $(seq 1 "$steps"); do
        run_ok mpirun --allow-run-as-root -np "$gpus" "$bin" --step "$step" --runs 1 --no-cub -n 1048579 --dist few --check hash
    done
else
    echo "test_run_08_multi_gpu_gpus: no mpirun, or a build without MPI: the MPI runs were skipped"
fi
finish test_run_08_multi_gpu_gpus
