#!/usr/bin/env bash
# launch-config.sh BIN_DIR CSV RAW_DIR - what each GPU step launches, read by Nsight Compute
# on this machine's GPU: every kernel of every GPU step of steps.txt at its defaults (a
# small input: the launch configuration of a step does not depend on n, only the grid
# does), with its block size, its dynamic and static shared memory, its registers a
# thread and the occupancy limits the GPU reports.  Writes CSV (one row a step and kernel;
# tools/fit-check.sh reads it), and ncu's own CSV page of each step into RAW_DIR.
# Needs ncu (Nsight Compute).  About a minute on an H100.
set -u
bin_dir=$1 csv=$2 out=$3
cd "$(dirname "$0")/.." || exit 1
. tools/steps-lib.sh
ncu=$(command -v ncu || ls "${CUDA_PATH:-/usr/local/cuda}/bin/ncu" /usr/local/cuda/bin/ncu \
      /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
[ -n "$ncu" ] || { echo "launch-config: ncu not found (Nsight Compute)" >&2; exit 2; }
mkdir -p "$out" "$(dirname "$csv")"
metrics=launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps
echo "date,step,file,kernel,block,registers,static_smem,dynamic_smem,limit_blocks,limit_registers,limit_shared_mem,limit_warps" >"$csv"
status=0
while IFS=$'\t' read -r id file kind _; do
    stage=${file%%/*}
    k=$(file_step_number "$file")
    case $stage in
    01_*) continue ;;                                  # the CPU stage
    06_*) args=(-q 64 -r 20000 --version "$k" --runs 1 --check 1 --no-cublas) ;;
    *) args=(-n 300000 --runs 1 --no-cub ${k:+--step $k}) ;;
    esac
    raw=$out/ncu_$id.csv
    "$ncu" --csv --page raw --print-kernel-base mangled --print-units base -c 200 \
        --metrics "$metrics" "$bin_dir/$stage" "${args[@]}" >"$raw" 2>"$out/ncu_$id.err"
    rc=$?
    [ $rc -eq 0 ] || { echo "launch-config: $id: ncu exit $rc ($(tail -n 1 "$out/ncu_$id.err"))" >&2; status=1; continue; }
    # the raw page: a header of metric names, a line of units, then a line a launch
    awk -v date="$(date +%F)" -v id="$id" -v file="$file" -f tools/csv.awk -f tools/ncu-launch.awk "$raw" >>"$csv"
    echo "launch-config: $id: $(grep -c "^[^,]*,$id," "$csv") kernels"
done < <(steps)
exit $status
