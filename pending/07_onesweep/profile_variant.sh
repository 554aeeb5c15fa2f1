#!/usr/bin/env bash
# pending/07_onesweep/profile_variant.sh [VARIANT] - why a variant of 07.16 wins or loses,
# from the profile: the variant (default bal2, the ranking balanced between ballots and
# lane masks) made again from its diff in the log where it was raced
# (results/nvidia-h100-80gb-hbm3/onesweep07_variants_2026-12-08.log: swizzle, thr64,
# both, bal2, bal3, pdl), put in a scratch copy of this tree as step 17; then 07.16 and
# the variant in turns at 2^28 keys (three turns, one process a run), and Nsight Compute on
# the four keys passes of a timed sort of each (speed of light, compute and memory
# workload - the pipes' and L1's busy shares -, warp states, occupancy; the GPU's own
# clocks).  The tree itself is not changed.  Logs, the reports and their text (ncu's
# details page) go to $OUT (default build/pending-variant-VARIANT); keep the text.
# Without a GPU it stops after the build, exit 77.
set -u
cd "$(dirname "$0")/../.." || exit 1
. pending/lib.sh
variant=${1:-bal2}
log=results/nvidia-h100-80gb-hbm3/onesweep07_variants_2026-12-08.log
pending_setup "pending-variant-$variant"
awk -v v="xp_$variant.cu" '$0 == "## diff 07_onesweep/step16_wide_pairs.cu " v { on = 1; next }
    /^## diff / { on = 0 } on' "$log" >"$OUT/$variant.diff"
[ -s "$OUT/$variant.diff" ] || { note "profile: no variant '$variant' in $log"; exit 2; }
patch -s -o "$tree/07_onesweep/step17_variant.cu" "$tree/07_onesweep/step16_wide_pairs.cu" <"$OUT/$variant.diff" ||
    { note "profile: its diff does not apply to 07.16 as the tree has it now"; exit 2; }
add_step17 07_onesweep/step17_variant.cu "the variant $variant of 07.16" ||
    { note "profile: 07_onesweep/steps.c did not take step 17"; exit 2; }
cd "$tree" || exit 1
note "profile: the variant $variant as step 17 in $tree ($(date -u +%FT%TZ))"
make -j"$(nproc)" build/bin/07_onesweep >"$OUT/build.log" 2>&1 ||
    { note "profile: the build failed ($OUT/build.log): $(grep -m1 -i error "$OUT/build.log")"; exit 1; }
stop_without_gpu build/bin/07_onesweep --step 17 -n 1000

status=0
for turn in 1 2 3; do
    for step in 16 17; do
        out=$(build/bin/07_onesweep --step "$step" -n 268435456 2>&1) || status=1
        echo "turn=$turn $(grep '^RESULT' <<<"$out")" >>"$OUT/turns.log"
    done
done
note "turns: $(grep -c RESULT "$OUT/turns.log") runs ($OUT/turns.log)"
ncu=$(command -v ncu || ls "${CUDA_PATH:-/usr/local/cuda}/bin/ncu" /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
[ -n "$ncu" ] || { note "profile: ncu not found"; exit 2; }
for step in 16 17; do
    # the keys passes of the timed sort (its warm-up's four come first), at the GPU's own clocks
    "$ncu" --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis \
        --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
        -k regex:onesweep_pass --launch-skip 4 --launch-count 4 -f -o "$OUT/step$step" \
        build/bin/07_onesweep --step "$step" -n 268435456 --runs 1 --no-cub >"$OUT/ncu_step$step.log" 2>&1 ||
        status=1
    "$ncu" --import "$OUT/step$step.ncu-rep" --page details >"$OUT/step$step.details.txt" 2>&1 || status=1
    note "profile of step $step: $(grep -c 'onesweep_pass' "$OUT/step$step.details.txt") kernels in step$step.details.txt"
done
note "profile: exit $status on $(cat "$OUT/gpu.txt")"
exit $status
