#!/usr/bin/env bash
# bench.sh BIN_DIR [SET...] - `make bench`: runs the stages and writes CSV files under
# results/<machine>/, one row per run (the RESULT line of the run, see
# tools/result-to-csv.awk), with the date and the arguments of every run.
#
# SETs (default: all of them):
#   stages    every sort stage at its defaults, 2^24+1 and 2^28 keys (stage 01: 2^24+1
#             only; stage 02 at 2^28: one timed run, its host scatter takes seconds)
#   sweep01   stage 01: digit widths 1..8, 11, 16, plain and blocked mode
#   sweep02   stage 02: every histogram kernel x scan, and digit widths 1..8
#   sweep03   stage 03: block sizes and scan variants
#   sweep04   stage 04: digit widths, block sizes, scan block sizes, keys per thread, scans
#   nn06      stage 06 at the full size (10,000 x 1,000,000 x 128), K = 5 and 5000, every
#             version and cuBLAS, the median of 3 timed runs each (not in the default sets:
#             about 2.5 minutes on an H100).
#             NN06_BINS="5000" runs one K only (the rows are appended to nn06.csv);
#             NN06_RUNS sets --runs (default 3).
# <machine> is the GPU's name (nvidia-smi), or cpu-<model> where there is no GPU.
# BENCH_RUNS (default 5) sets --runs.
set -u
bin_dir=$1; shift
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(stages sweep01 sweep02 sweep03 sweep04)
runs=${BENCH_RUNS:-5}
date=$(date +%F)

slug() { tr 'A-Z' 'a-z' | sed 's/([^)]*)//g; s/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//'; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
if [ -n "$gpu" ]; then
    machine=$(slug <<<"$gpu")
else
    machine="cpu-$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1 | slug)"
fi
out_dir=results/$machine
mkdir -p "$out_dir"
echo "bench: writing $out_dir/*.csv (runs=$runs)"

# run CSV STAGE ARGS... : one run, its RESULT line appended to CSV.
run() {
    local csv=$1 stage=$2; shift 2
    local bin=$bin_dir/$stage
    [ -x "$bin" ] || { echo "  (no $stage: skipped)"; return; }
    local out rc
    out=$("$bin" --runs "$runs" "$@" 2>&1); rc=$?
    if [ "$rc" -eq 77 ]; then echo "  $stage: skipped, no CUDA device"; return; fi
    local line; line=$(grep '^RESULT ' <<<"$out")
    if [ -z "$line" ]; then
        echo "  $stage $*: FAILED (exit $rc)"; tail -n 3 <<<"$out" | sed 's/^/    /'; return
    fi
    [ -s "$csv" ] || awk -v header=1 -f tools/result-to-csv.awk </dev/null >"$csv"
    awk -v date="$date" -v args="$*" -f tools/result-to-csv.awk <<<"$line" >>"$csv"
    printf '  %-22s %-44s %s\n' "$stage" "$*" "$(sed 's/.* \(sort_ms=[^ ]*\).*\(vs_cub=[^ ]*\).*\(check=[^ ]*\).*/\1 \2 \3/' <<<"$line")"
}

fresh() { rm -f "$1"; echo "$1"; }

sort_stages=$(ls -d [0-9][0-9]_*/ 2>/dev/null | tr -d / | while read -r s; do
    [ -f "$s/radix_sort.c" ] || [ -f "$s/radix_sort.cu" ] && echo "$s"; done)

for set in "${sets[@]}"; do
    echo "== $set =="
    case $set in
    stages)
        csv=$(fresh "$out_dir/stages.csv")
        for s in $sort_stages; do
            run "$csv" "$s" -n 16777217
            case $s in
                01_sequential) ;;                                     # minutes per run at 2^28
                02_parallel_hist_scan) run "$csv" "$s" -n 268435456 --runs 1 ;;
                *) run "$csv" "$s" -n 268435456 ;;
            esac
        done ;;
    sweep01)
        csv=$(fresh "$out_dir/sweep01_bits.csv")
        for b in 1 2 3 4 5 6 7 8 11 16; do run "$csv" 01_sequential --bits "$b" --no-cub; done
        for b in 4 8; do run "$csv" 01_sequential --mode blocked --bits "$b" --block 256 --no-cub; done ;;
    sweep02)
        csv=$(fresh "$out_dir/sweep02_kernels.csv")
        for h in 1 2 3; do for sc in hillis-steele blelloch; do
            run "$csv" 02_parallel_hist_scan --hist "$h" --scan "$sc" --no-cub; done; done
        csv=$(fresh "$out_dir/sweep02_bits.csv")
        for b in 1 2 3 4 5 6 7 8; do run "$csv" 02_parallel_hist_scan --bits "$b" --no-cub; done ;;
    sweep03)
        csv=$(fresh "$out_dir/sweep03_blocks.csv")
        for sc in hillis-steele blelloch; do for bl in 32 64 128 256 512 1024; do
            run "$csv" 03_split_k1 --scan "$sc" --block "$bl" --no-cub; done; done ;;
    sweep04)
        csv=$(fresh "$out_dir/sweep04_bits.csv")
        for b in 1 2 4 8; do run "$csv" 04_paper_local_sort --bits "$b" --no-cub; done
        csv=$(fresh "$out_dir/sweep04_block.csv")
        for bl in 32 64 128 256 512 1024; do run "$csv" 04_paper_local_sort --block "$bl" --no-cub; done
        csv=$(fresh "$out_dir/sweep04_scan_block.csv")
        for bl in 32 64 128 256 512 1024; do run "$csv" 04_paper_local_sort --scan-block "$bl" --no-cub; done
        csv=$(fresh "$out_dir/sweep04_kpt.csv")
        for sc in hillis-steele blelloch; do for k in 1 2 4 8; do
            run "$csv" 04_paper_local_sort --scan "$sc" --kpt "$k" --no-cub; done; done ;;
    nn06)
        csv="$out_dir/nn06.csv" # appended to: one K per call is allowed (NN06_BINS)
        cols="date stage queries refs dims bins version ran reduce runs ms distances_ms minmax_ms"
        cols="$cols thresholds_ms histogram_ms pack_ms cublas_ms vs_cublas exact check gpu args"
        nn_runs=${NN06_RUNS:-3}
        for k in ${NN06_BINS:-5 5000}; do
            out=$("$bin_dir/06_nn_histogram" --bins "$k" --version all --runs "$nn_runs" 2>&1); rc=$?
            [ "$rc" -eq 77 ] && { echo "  06_nn_histogram: skipped, no CUDA device"; break; }
            grep -q '^RESULT ' <<<"$out" || { echo "  06_nn_histogram --bins $k: FAILED (exit $rc)"; tail -n 3 <<<"$out"; continue; }
            [ -s "$csv" ] || awk -v header=1 -v columns="$cols" -f tools/result-to-csv.awk </dev/null >"$csv"
            grep '^RESULT ' <<<"$out" | awk -v date="$date" -v args="--bins $k --version all --runs $nn_runs" \
                -v columns="$cols" -f tools/result-to-csv.awk >>"$csv"
            sed 's/^/  /' <<<"$out" # the whole table, per-step times and checks included
        done ;;
    *) echo "unknown set '$set'" >&2; exit 2 ;;
    esac
done
