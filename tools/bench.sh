#!/usr/bin/env bash
# bench.sh BIN_DIR [SET...] - `make bench`: runs the stages and writes CSV files under
# build/bench/<machine>/, one row per run (the RESULT line of the run, see
# tools/result-to-csv.awk), with the date and the arguments of every run.  With SAVE=1
# (`make bench SAVE=1`, what the maintainers run on a named GPU) the CSVs go to
# results/<machine>/ instead, where the READMEs' tables and the charts read them:
# a student's or an instructor's runs never overwrite the course's reference results.
#
# SETs (default: all of them):
#   stages    every step of every sort stage at its defaults (02: 02.1, 02.2, 02.3; 05:
#             05.1 to 05.4 ...), 2^24+1 and 2^28 keys (stage 01: 2^24+1
#             only; stages 01 and 02 at 2^24+1: 9 runs, their CPU time varies; 02.1 and
#             02.2 at 2^28: one timed run, their host scatter takes seconds)
#   thrust    thrust::sort beside CUB: each GPU sort stage's last step at 2^24+1 and 2^28
#             with --thrust (not in the default sets); thrust.csv
#   sizes     every GPU stage's last step at 2^10, 2^12 .. 2^28 keys with CUB: how
#             cost grows with n (not in the default sets: about 4 minutes on an H100)
#   sweep01   stage 01: digit widths 1..8, 11, 16, plain and blocked mode
#   sweep02   stage 02: every histogram kernel x scan (02.2), digit widths 1..8 (02.2), the
#             table's digit widths and block sizes (02.3)
#   sweep03   stage 03: block sizes and scan variants
#   sweep04   stage 04: digit widths, block sizes, scan block sizes, keys per thread, scans
#   sweep05   stage 05: what bought what (stage 04, 05.1, 05.2, 05.3, then 05.4 with one
#             of its changes at a time), steps x digit width, keys per thread, block and scan
#             block sizes, every distribution against CUB, and course report 001's v6/v7
#             (stage 04, 05.1 and 05.2 at --bits 4 --kpt 1 and 2)
#   sweep07   stage 07: each step at 2^24+1 and 2^28 with CUB (steps); what users sort
#             (keys); pass skipping measured apart on 07.4, with and without (skip); the
#             low-entropy keys at 2^28 against CUB (low); keys per thread and block sizes
#             (shapes); 07.4-07.6 and the last step on crowded keys at 2^28 (crowded); every distribution
#             against CUB (dist).  sweep07-PART runs one part
#             (about 10 minutes in all on an H100, most of it the 2^28 runs' checks)
#   nn06      stage 06 at the full size (10,000 x 1,000,000 x 128), K = 5 and 5000, every
#             version and both cuBLAS baselines (cublas-fp32, cublas-int8), the median of
#             3 timed runs each (not in the default sets:
#             about 2.5 minutes on an H100).
#             NN06_BINS="5000" runs one K only (the rows are appended to nn06.csv);
#             NN06_RUNS sets --runs (default 3).
#   nn06r     stage 06's version 3 at 1,000 queries (K = 5000) with each reduction of the
#             class notes (--reduce 1..4, report 002): the min/max step; nn06_reduce.csv
#   nn06red   stage 06's reduction lab (06_reduce_lab): the seven trees of the class
#             notes on tiles already in shared memory; nn06_reduce_lab.csv
#   multi08   stage 08, each step, on 1, 2 and every GPU of the host, 2^28, 2^30 and 2^31
#             uniform keys, and the skewed ones (equal, few, and4, sorted) at 2^30 on every
#             GPU; CUB on one GPU in the same runs (not in the default sets); multi08.csv
#             under <machine>-x<GPUs of the host>
#   nn06k     stage 06 at the full size, K = 1, 5, 50, 500, 5000: versions 1 (the course
#             report's pipeline), 8 (tensor cores), 9 (latency) and 10 (the fastest)
#             with both cuBLAS baselines in each run, median of 3 (not in the
#             default sets: about three minutes on an H100); nn06_k.csv
# <machine> is the GPU's name (nvidia-smi), or, where there is no GPU,
# cpu-<the CPU's model name as /proc/cpuinfo gives it>-<logical CPUs>cpus: two
# virtual machines that report the same model are told apart by their size.
# Without a GPU only the CPU sets run (sweep01); the others are named as skipped.
# A CSV is replaced only when every run of its set succeeded: the rows go to
# <csv>.tmp first, and a failed set leaves the committed file as it was (its
# rows are kept in <csv>.failed to look at).  The exit status is non-zero if a
# set failed.
# BENCH_RUNS (default 5) sets --runs.  BENCH_STAGES="02_parallel_hist_scan 03_split_k1"
# limits the sets stages, thrust and sizes to those stages (default: every sort stage).
# BENCH_STEPS="07.13" limits the set stages to those steps (a new step measured without
# measuring again the ones before it; its rows then go beside theirs by hand).
set -u
bin_dir=$1; shift
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(stages sweep01 sweep02 sweep03 sweep04 sweep05 sweep07)
runs=${BENCH_RUNS:-5}
date=$(date +%F)

slug() { tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//'; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
if [ -n "$gpu" ]; then
    machine=$(slug <<<"$gpu")
else
    model=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
    machine="cpu-$(slug <<<"${model:-unknown}")-$(nproc)cpus"
    cpu_sets=() skipped_sets=()
    for set in "${sets[@]}"; do
        case $set in sweep01) cpu_sets+=("$set") ;; *) skipped_sets+=("$set") ;; esac
    done
    [ ${#skipped_sets[@]} -eq 0 ] ||
        echo "bench: no GPU here: skipped ${skipped_sets[*]} (they need a CUDA GPU)"
    sets=("${cpu_sets[@]+"${cpu_sets[@]}"}")
fi
if [ "${SAVE:-0}" = 1 ]; then out_dir=results/$machine; else out_dir=build/bench/$machine; fi
mkdir -p "$out_dir"
echo "bench: writing $out_dir/*.csv (runs=$runs)"
failed_sets=()

# run CSV STAGE ARGS... : one run, its RESULT line appended to CSV.
run() {
    local csv=$1 stage=$2; shift 2
    local bin=$bin_dir/$stage
    [ -x "$bin" ] || { echo "  (no $stage: skipped)"; return; }
    local out rc
    out=$("$bin" --runs "$runs" "$@" 2>&1); rc=$?
    if [ "$rc" -eq 77 ]; then echo "  $stage: skipped, no CUDA device"; set_ok=0; return; fi
    local line; line=$(grep '^RESULT ' <<<"$out")
    if [ -z "$line" ] || [ "$rc" -ne 0 ]; then
        echo "  $stage $*: FAILED (exit $rc)"; tail -n 3 <<<"$out" | sed 's/^/    /'; set_ok=0
        [ -n "$line" ] || return
    fi
    [ -s "$csv" ] || awk -v header=1 -f tools/result-to-csv.awk </dev/null >"$csv"
    awk -v date="$date" -v args="$*" -f tools/result-to-csv.awk <<<"$line" >>"$csv"
    printf '  %-22s %-44s %s\n' "$stage" "$*" "$(sed 's/.* \(sort_ms=[^ ]*\).*\(vs_cub=[^ ]*\).*\(check=[^ ]*\).*/\1 \2 \3/' <<<"$line")"
}

# nn_run COLUMNS SHOW ARGS... : one run of stage 06, its RESULT lines appended to $csv with
# those columns.  SHOW: "all" prints the whole output (tables and checks), "rows" the
# RESULT lines, "no-cublas" the RESULT lines without cuBLAS's row (not kept either).
# Returns 1 when there is no GPU (the set stops there).
nn_run() {
    local cols=$1 show=$2; shift 2
    local out rc
    out=$("$bin_dir/06_nn_histogram" "$@" 2>&1); rc=$?
    [ "$rc" -eq 77 ] && { echo "  06_nn_histogram: skipped, no CUDA device"; set_ok=0; return 1; }
    [ "$rc" -eq 0 ] || { echo "  06_nn_histogram $*: FAILED (exit $rc)"; tail -n 3 <<<"$out"; set_ok=0; }
    grep -q '^RESULT ' <<<"$out" || return 0
    [ -s "$csv" ] || awk -v header=1 -v columns="$cols" -f tools/result-to-csv.awk </dev/null >"$csv"
    local rows; rows=$(grep '^RESULT ' <<<"$out")
    [ "$show" != no-cublas ] || rows=$(grep -v ' version=cublas' <<<"$rows")
    awk -v date="$date" -v args="$*" -v columns="$cols" -f tools/result-to-csv.awk <<<"$rows" >>"$csv"
    if [ "$show" = all ]; then sed 's/^/  /' <<<"$out"; else sed 's/^/  /' <<<"$rows"; fi
}

# begin CSV: this set's rows go to CSV.tmp; finish moves them in place if they all succeeded.
pending=()
begin() { rm -f "$1.tmp"; pending+=("$1"); csv=$1.tmp; }
finish_set() {
    local f
    for f in "${pending[@]+"${pending[@]}"}"; do
        if [ "$set_ok" -eq 1 ] && [ -s "$f.tmp" ]; then
            mv "$f.tmp" "$f"; rm -f "$f.failed"; echo "  wrote $f"
        elif [ -e "$f.tmp" ]; then
            mv "$f.tmp" "$f.failed"; echo "  kept $f as it was; this run's rows are in $f.failed"
        fi
    done
    pending=()
    [ "$set_ok" -eq 1 ] || failed_sets+=("$1")
}

sort_stages=$(ls -d [0-9][0-9]_*/ 2>/dev/null | tr -d / | while read -r s; do
    [ -f "$s/radix_sort.c" ] || [ -f "$s/radix_sort.cu" ] || ls "$s"/step1_*.cu >/dev/null 2>&1 &&
        echo "$s"; done)
if [ -n "${BENCH_STAGES:-}" ]; then
    sort_stages=$(for s in $sort_stages; do case " $BENCH_STAGES " in *" $s "*) echo "$s" ;; esac; done)
fi
. tools/steps-lib.sh # stage_step_args

for set in "${sets[@]+"${sets[@]}"}"; do
    echo "== $set =="
    set_ok=1
    case $set in
    stages)
        # every step of every sort stage at its defaults (05: 05.1 to 05.4)
        begin "$out_dir/stages.csv"
        for s in $sort_stages; do
            while read -r step; do
                if [ -n "${BENCH_STEPS:-}" ]; then
                    id=${s%%_*}${step:+.${step#--step }}
                    case " $BENCH_STEPS " in *" $id "*) ;; *) continue ;; esac
                fi
                case $s in # the CPU-bound stages vary on a shared host: 9 runs, fastest beside median
                    01_* | 02_*) run "$csv" "$s" $step -n 16777217 --runs 9 ;;
                    *) run "$csv" "$s" $step -n 16777217 ;;
                esac
                case $s in
                    01_sequential) ;;                                 # minutes per run at 2^28
                    02_parallel_hist_scan) # the host scatter of 02.1 and 02.2 takes seconds
                        if [ "$step" = "--step 3" ]; then run "$csv" "$s" $step -n 268435456
                        else run "$csv" "$s" $step -n 268435456 --runs 1; fi ;;
                    *) run "$csv" "$s" $step -n 268435456 ;;
                esac
            done < <(stage_step_args "$s")
        done ;;
    thrust)
        # thrust::sort, what the course reports timed, beside CUB in the same runs: each
        # GPU sort stage's last step at 2^24+1 and 2^28 keys
        begin "$out_dir/thrust.csv"
        for s in $sort_stages; do
            case $s in 01_* | 02_*) continue ;; esac
            step=$(stage_step_args "$s" | tail -n 1)
            run "$csv" "$s" $step -n 16777217 --thrust
            run "$csv" "$s" $step -n 268435456 --thrust
        done ;;
    sizes)
        # how cost grows: every GPU stage's last step at 2^10 .. 2^28 keys, CUB in the same runs
        begin "$out_dir/sizes.csv"
        for e in 10 12 14 16 18 20 22 24 26 28; do
            for s in $sort_stages; do
                case $s in 01_*) continue ;; esac
                run "$csv" "$s" -n $((1 << e))
            done
        done ;;
    sweep01)
        begin "$out_dir/sweep01_bits.csv"
        for b in 1 2 3 4 5 6 7 8 11 16; do run "$csv" 01_sequential --bits "$b" --no-cub; done
        for b in 4 8; do run "$csv" 01_sequential --mode blocked --bits "$b" --block 256 --no-cub; done ;;
    sweep02)
        begin "$out_dir/sweep02_kernels.csv"
        for h in 1 2 3; do for sc in hillis-steele blelloch; do
            run "$csv" 02_parallel_hist_scan --step 2 --hist "$h" --scan "$sc" --no-cub; done; done
        begin "$out_dir/sweep02_bits.csv"
        for b in 1 2 3 4 5 6 7 8; do run "$csv" 02_parallel_hist_scan --step 2 --bits "$b" --no-cub; done
        # 02.3: the [digit][block] table, course report 000's level 1 (a thread a block)
        begin "$out_dir/sweep02_table.csv"
        for b in 4 6 8; do for bl in 64 256 1024; do
            run "$csv" 02_parallel_hist_scan --step 3 --bits "$b" --block "$bl" --no-cub; done; done ;;
    sweep03)
        begin "$out_dir/sweep03_blocks.csv"
        for sc in hillis-steele blelloch; do for bl in 32 64 128 256 512 1024; do
            run "$csv" 03_split_k1 --scan "$sc" --block "$bl" --no-cub; done; done ;;
    sweep04)
        begin "$out_dir/sweep04_bits.csv"
        for b in 1 2 4 8; do run "$csv" 04_paper_local_sort --bits "$b" --no-cub; done
        begin "$out_dir/sweep04_block.csv"
        for bl in 32 64 128 256 512 1024; do run "$csv" 04_paper_local_sort --block "$bl" --no-cub; done
        begin "$out_dir/sweep04_scan_block.csv"
        for bl in 32 64 128 256 512 1024; do run "$csv" 04_paper_local_sort --scan-block "$bl" --no-cub; done
        begin "$out_dir/sweep04_kpt.csv"
        for sc in hillis-steele blelloch; do for k in 1 2 4 8; do
            run "$csv" 04_paper_local_sort --scan "$sc" --kpt "$k" --no-cub; done; done ;;
    sweep05)
        # what bought what, 2^24+1 keys: stage 04, then one change at a time - the shuffle
        # scan (05.1), the ballot split (05.2), the multisplit at stage 04's 4 bits and 8 keys
        # a thread (05.3), then 05.4's 8-bit digits, then its 16 keys a thread (05.4)
        begin "$out_dir/sweep05_steps.csv"
        run "$csv" 04_paper_local_sort --no-cub
        run "$csv" 05_warp_shuffle --step 1 --no-cub
        run "$csv" 05_warp_shuffle --step 2 --no-cub
        run "$csv" 05_warp_shuffle --step 3 --no-cub
        run "$csv" 05_warp_shuffle --step 4 --kpt 8 --no-cub
        run "$csv" 05_warp_shuffle --step 4 --no-cub
        # the steps x digit widths: 05.1 and 05.2 at stage 04's 8 keys per thread, 05.4 at 16
        begin "$out_dir/sweep05_bits.csv"
        for k in 1 2; do for b in 1 2 4 8; do
            run "$csv" 05_warp_shuffle --step "$k" --bits "$b" --no-cub; done; done
        for b in 4 5 6 7 8; do run "$csv" 05_warp_shuffle --step 4 --bits "$b" --no-cub; done
        begin "$out_dir/sweep05_kpt.csv"
        for k in 1 2 4 8 12 16; do run "$csv" 05_warp_shuffle --kpt "$k" --no-cub; done
        begin "$out_dir/sweep05_block.csv" # the same 2048-key tiles, cut among more or fewer threads
        for bk in "256 8" "512 4" "1024 2"; do
            read -r bl k <<<"$bk"; run "$csv" 05_warp_shuffle --block "$bl" --kpt "$k" --no-cub; done
        begin "$out_dir/sweep05_scan_block.csv"
        for sc in hillis-steele blelloch; do for bl in 64 256 1024; do
            run "$csv" 05_warp_shuffle --scan "$sc" --scan-block "$bl" --no-cub; done; done
        begin "$out_dir/sweep05_dist.csv" # every distribution, CUB on the same keys
        for d in uniform equal sorted reversed few and2 and4 high low; do
            run "$csv" 05_warp_shuffle --dist "$d"; done
        # course report 001's v6 (one key per thread) and v7 (two): stage 04 and steps 05.1
        # and 05.2 at the same settings, 4-bit digits, CUB in the same runs
        begin "$out_dir/sweep05_report.csv"
        for k in 1 2; do
            run "$csv" 04_paper_local_sort --bits 4 --kpt "$k"
            for st in 1 2; do run "$csv" 05_warp_shuffle --step "$st" --bits 4 --kpt "$k"; done
        done ;;
    sweep07 | sweep07-*)
        # sweep07 runs every part; sweep07-PART runs one (steps keys skip low shapes crowded dist)
        part() { [ "$set" = sweep07 ] || [ "$set" = "sweep07-$1" ]; }
        if part steps; then # each step at 2^24+1 and 2^28 uniform keys, CUB in the same runs
            begin "$out_dir/sweep07_steps.csv"
            for st in $(seq 1 "$(ls 07_onesweep/step[0-9]*_*.cu | wc -l)"); do for n in 16777217 268435456; do
                run "$csv" 07_onesweep --step "$st" -n "$n"; done; done
        fi
        if part keys; then # what users sort (the last step, 2^28; pairs also 2^24+1), CUB sorting the same
            begin "$out_dir/sweep07_keys.csv"
            for a in "" "--pairs" "--type i32" "--type f32" "--descending" "--begin-bit 0 --end-bit 16" \
                     "--type f32 --descending --pairs"; do
                # shellcheck disable=SC2086 # $a is options
                run "$csv" 07_onesweep -n 268435456 $a; done
            run "$csv" 07_onesweep --pairs
        fi
        if part skip; then # pass skipping measured apart: 07.4 with and without it, 2^28
            begin "$out_dir/sweep07_skip.csv"
            for d in uniform equal few high low and4; do
                run "$csv" 07_onesweep --step 4 --dist "$d" -n 268435456
                run "$csv" 07_onesweep --step 4 --dist "$d" -n 268435456 --no-skip --no-cub; done
        fi
        if part low; then # the low-entropy keys at 2^28 against CUB (the last step)
            begin "$out_dir/sweep07_low.csv"
            for d in equal few high low and4; do run "$csv" 07_onesweep --dist "$d" -n 268435456; done
        fi
        if part shapes; then # tile shapes: keys per thread and block size (the last step)
            begin "$out_dir/sweep07_kpt.csv"
            for k in 4 8 12 16; do run "$csv" 07_onesweep --kpt "$k" --no-cub; done
            begin "$out_dir/sweep07_block.csv"
            for bk in "512 16" "256 16" "512 8" "256 8"; do
                read -r bl k <<<"$bk"; run "$csv" 07_onesweep --block "$bl" --kpt "$k" --no-cub; done
        fi
        if part crowded; then # the crowded keys at 2^28, steps 07.4-07.6 and the last: what counts
            # first and ranking by match buy where many keys share a digit (uniform for contrast)
            begin "$out_dir/sweep07_crowded.csv"
            for d in uniform few and4; do for st in 4 5 6 10; do
                run "$csv" 07_onesweep --step "$st" --dist "$d" -n 268435456; done; done
        fi
        if part dist; then # every distribution at 2^24+1 against CUB
            begin "$out_dir/sweep07_dist.csv"
            for d in uniform equal sorted reversed few and2 and4 high low; do
                run "$csv" 07_onesweep --dist "$d"; done
        fi ;;
    nn06)
        # appended to: one K per call is allowed (NN06_BINS)
        begin "$out_dir/nn06.csv"
        [ -z "${NN06_BINS:-}" ] || [ ! -f "$out_dir/nn06.csv" ] || cp "$out_dir/nn06.csv" "$csv"
        cols="date stage queries refs dims bins version ran reduce runs ms distances_ms minmax_ms"
        cols="$cols thresholds_ms histogram_ms distances_gbs minmax_gbs thresholds_gbs histogram_gbs"
        cols="$cols distances_pct minmax_pct thresholds_pct histogram_pct copy_gbs"
        cols="$cols pack_ms cublas cublas_ms vs_cublas mismatched_rows checked_rows exact check gpu args"
        for k in ${NN06_BINS:-5 5000}; do
            nn_run "$cols" all --bins "$k" --version all --runs "${NN06_RUNS:-3}" || break
        done ;;
    nn06r)
        begin "$out_dir/nn06_reduce.csv"
        cols="date stage queries refs dims bins version ran reduce runs ms distances_ms minmax_ms"
        cols="$cols thresholds_ms histogram_ms exact check gpu args"
        for r in 1 2 3 4; do
            nn_run "$cols" rows -q 1000 --version 3 --reduce "$r" --runs "${NN06_RUNS:-3}" --no-cublas || break
        done ;;
    nn06red)
        begin "$out_dir/nn06_reduce_lab.csv"
        cols="date stage variant name threads blocks repeats runs ms ns_per_tile check gpu args"
        out=$("$bin_dir/06_reduce_lab" --runs "${NN06_RUNS:-5}" 2>&1); rc=$?
        if [ "$rc" -eq 77 ]; then echo "  06_reduce_lab: skipped, no CUDA device"; set_ok=0
        else
            [ "$rc" -eq 0 ] || { echo "  06_reduce_lab: FAILED (exit $rc)"; set_ok=0; }
            awk -v header=1 -v columns="$cols" -f tools/result-to-csv.awk </dev/null >"$csv"
            grep '^RESULT ' <<<"$out" | awk -v date="$date" -v args="--runs ${NN06_RUNS:-5}" -v columns="$cols" \
                -f tools/result-to-csv.awk >>"$csv"
            sed 's/^/  /' <<<"$out"
        fi ;;
    nn06k)
        begin "$out_dir/nn06_k.csv"
        cols="date stage queries refs dims bins version ran runs ms minmax_ms thresholds_ms"
        cols="$cols histogram_ms cublas cublas_ms vs_cublas mismatched_rows checked_rows exact check gpu args"
        for k in 1 5 50 500 5000; do
            # the baselines run beside every version (each vs_cublas is from its own
            # process); their rows are kept once per K, from version 14's run.  Version 1,
            # the course report's own pipeline, as the report swept K.
            nn_run "$cols" no-cublas --bins "$k" --version 1 --runs "${NN06_RUNS:-3}" || break
            nn_run "$cols" no-cublas --bins "$k" --version 8 --runs "${NN06_RUNS:-3}" || break
            nn_run "$cols" no-cublas --bins "$k" --version 11 --runs "${NN06_RUNS:-3}" || break
            nn_run "$cols" rows --bins "$k" --version 14 --runs "${NN06_RUNS:-3}" || break
        done ;;
    multi08)
        # stage 08 on 1, 2 and every GPU of the host at 2^28, 2^30 and 2^31 keys, CUB on
        # one GPU in each run where the input fits it; checked by the parts and the hash
        # the machine is named with its GPU count (nvidia-h200-x2): a host of 2 and one of 4
        # are two machines
        all=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
        mkdir -p "$out_dir-x$all"
        begin "$out_dir-x$all/multi08.csv"
        cols="date stage step n dist seed gpus mpi runs sort_ms count_ms partition_ms split_ms exchange_ms"
        cols="$cols local_sort_ms moved_gb cub_ms vs_cub cub_call comp_ms vs_comp comp_partition_ms"
        cols="$cols comp_exchange_ms comp_local_sort_ms comp_form comp_nccl_ms comp_aligned_ms comp_peer_ms check gpu args"
        for g in $(printf '%s\n' 1 2 "$all" | sort -nu); do
            [ "$g" -le "$all" ] || continue
            for n in 268435456 1073741824 2147483648; do
              # a GPU sorts fewer than 2^30 keys at once (stage 07's look-back counts)
              [ $((n / g)) -lt 1073741824 ] || { echo "  --gpus $g -n $n: more than a GPU sorts at once, skipped"; continue; }
              last=$(ls 08_multi_gpu/step[0-9]*_*.c | wc -l)
              # the skewed inputs on every GPU, by the last step (the first owns whole digits:
              # all-equal keys would all go to one GPU)
              cases=("1 uniform" "2 uniform")
              [ "$g" = "$all" ] && [ "$n" = 1073741824 ] && cases+=("$last equal" "$last few" "$last and4" "$last sorted")
              for run in "${cases[@]}"; do
                step=${run% *} dist=${run#* }
                [ "$step" -le "$last" ] || continue
                out=$("$bin_dir/08_multi_gpu" --step "$step" --gpus "$g" -n "$n" --dist "$dist" --runs 3 --check hash 2>&1); rc=$?
                line=$(grep '^RESULT ' <<<"$out")
                [ "$rc" -eq 0 ] && [ -n "$line" ] || { echo "  08_multi_gpu --step $step --gpus $g -n $n --dist $dist: FAILED (exit $rc)"; tail -n 3 <<<"$out"; set_ok=0; }
                [ -n "$line" ] || continue
                [ -s "$csv" ] || awk -v header=1 -v columns="$cols" -f tools/result-to-csv.awk </dev/null >"$csv"
                awk -v date="$date" -v args="--step $step --gpus $g -n $n --dist $dist --runs 3 --check hash" -v columns="$cols" \
                    -f tools/result-to-csv.awk <<<"$line" >>"$csv"
                echo "  $line"
              done
            done
        done ;;
    *) echo "unknown set '$set'" >&2; exit 2 ;;
    esac
    finish_set "$set"
done
if [ ${#failed_sets[@]} -gt 0 ]; then
    echo "bench: FAILED sets: ${failed_sets[*]}"
    exit 1
fi
