#!/usr/bin/env bash
# profile.sh BIN_DIR NN - `make profile STAGE=NN`: Nsight Compute (ncu) on stage NN at its
# defaults - the speed-of-light, memory-workload (with the L2 hit rate), occupancy, launch,
# instruction-statistics and warp-state (stall reasons) sections of every kernel of one
# warm-up sort and one timed sort (--runs 1; stage 06: version 14 at 1,000 queries) - at
# the GPU's own clocks (--clock-control none, as the timings run): what the labs ask for.
# Writes build/profile/<gpu>/<stage>.ncu-rep (open it in Nsight Compute, or
# `ncu --import FILE --page details`) and <stage>.summary.txt, one line per kernel
# and metric: DRAM throughput, achieved occupancy, registers per thread, ...; with
# SAVE=1 the summary (text, what the READMEs cite) goes into results/<gpu>/profile/
# instead, and the binary report stays under build/: a clone does not download it.
#   PROFILE_ARGS replaces the stage's arguments; PROFILE_NAME names the report
#   (default: the stage's name), so that two profiles of one stage can be kept.
#   profile.sh --check BIN_DIR NN: only the checks that come before any build (usage,
#   the stage, a GPU - none: exit 77 and one line, a skip: make profile ends there with
#   success - and ncu).
set -u
check_only=0
[ "${1:-}" != --check ] || { check_only=1; shift; }
bin_dir=$1 number=${2:-}
[ -n "$number" ] || { echo "usage: make profile STAGE=NN (for example STAGE=04; SAVE=1 keeps the report under results/)" >&2; exit 2; }
stage=$(ls -d "${number}"_*/ "0${number}"_*/ 2>/dev/null | head -n 1 | tr -d /)
[ -n "$stage" ] || { echo "profile: no stage ${number}_* (the stages: $(ls -d [0-9][0-9]_*/ | tr -d / | paste -sd' ' -))" >&2; exit 2; }
ncu=$(command -v ncu || ls "${CUDA_PATH:-/usr/local/cuda}/bin/ncu" /usr/local/cuda/bin/ncu \
      /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
[ -n "$gpu" ] || { echo "profile: skipped - Nsight Compute profiles kernels on a CUDA GPU; nvidia-smi lists none; nothing was profiled"; exit 77; }
if [ -z "$ncu" ]; then
    echo "profile: ncu not found: Nsight Compute comes with the full CUDA Toolkit (NVIDIA's package cuda-nsight-compute-<version>, or the Nsight Compute download) - put it on PATH or set CUDA_PATH. Nothing was profiled" >&2
    exit 2
fi
[ "$check_only" = 0 ] || exit 0
slug=$(tr 'A-Z' 'a-z' <<<"$gpu" | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
reports=build/profile/$slug
if [ "${SAVE:-0}" = 1 ]; then out=results/$slug/profile; else out=$reports; fi
mkdir -p "$out" "$reports"
case $stage in
    06_*) args=${PROFILE_ARGS:--q 1000 --version 14 --runs 1 --no-cublas} ;;
    *) args=${PROFILE_ARGS:---runs 1 --no-cub} ;;
esac
name=${PROFILE_NAME:-$stage}
echo "profile: $ncu on $stage $args ($gpu)"
"$ncu" --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats --section InstructionStats --section WarpStateStats \
    -f -o "$reports/$name" "$bin_dir/$stage" $args \
    >"$out/$name.log" 2>&1 || { echo "profile: ncu failed, see $out/$name.log" >&2; tail -n 5 "$out/$name.log" >&2; exit 1; }
{
    echo "# ncu --import $name.ncu-rep --print-summary per-kernel"
    echo "# $stage $args on $gpu, $(date -u +%F); averages over the launches of each kernel"
    "$ncu" --import "$reports/$name.ncu-rep" --print-summary per-kernel
} >"$out/$name.summary.txt"
echo "profile: wrote $reports/$name.ncu-rep, $out/$name.summary.txt"
