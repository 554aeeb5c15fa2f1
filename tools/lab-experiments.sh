#!/usr/bin/env bash
# lab-experiments.sh NAME... - the measurements behind lab answers that change the code:
# each experiment copies the repository to a scratch folder, applies the change the lab
# asks for, builds there (ARCH as make chooses) and runs what the answer reports.  Logs go
# to $OUT (default build/lab-experiments) as <NAME>.log.  Needs a GPU, but for 06-nomargin.
#   05-maxkpt1   stage 05, lab 3: the ballot split (05.2) against the shuffle scan (05.1) at
#                one key per thread, as built (MAX_KPT 16) and with MAX_KPT 1 in both
#                step files (no unrolled slots)
#   05-matchany  stage 05, lab 6: lanes_with_digit as one __match_any_sync; its test
#                program, then the default sort at 2^24+1 and 2^28 keys, as built and changed
#   06-nomargin  stage 06, lab 6 (CPU): nn_bin_sure_guess without the margin (f > 0 in
#                place of f > margin): test_06_nn_cpu's failing checks - one per trial, the
#                first wrong distance of each - and their direction
#   06-nosyncwarp  stage 06, lab 12: the reduction lab's last_warp without its __syncwarp
#                calls - its checks, and racecheck's and synccheck's verdicts
#   03-unfused   stage 03, lab 2: the rank un-fused - each key's ones_before completed in
#                memory by stage 02's add_tile_offsets, the scatter reading it: the test
#                program, then the default sort as built and changed
#   04-atomic    stage 04, lab 4: tile_histogram by shared-memory atomics
#                (tools/lab-patches/04_atomic_histogram.cu): its test program, then the
#                default sort at 2^24+1 and 2^28 keys, as built and changed
#   04-bits8     stage 04, lab 5: 8-bit digits with larger tiles (--kpt 16 --block 512)
#   02-gpuscatter  step 02.3's scatter on the GPU (tools/lab-patches/02_gpu_block_scatter.cu),
#                the course reports' three ways: report 000's level 1 (a thread walks a
#                block: the step's own, "blocks"), report 003's versions 2 (a thread a
#                key, its rank by a loop) and 3 (each block counting-sorted in shared
#                memory first); 4 and 6 bits, 2^24+1 keys, every run checked
#   04-tinyblocks  stage 04 with --block and --scan-block down to 2 (course report 001 swept
#                2 to 256): the stage's range opened to 2 in a copy; 4-bit digits, 2 keys
#                a thread, Hillis-Steele, every run checked
#   06-gridorder stage 06, lab 8: version 5 with the references as the grid's fast
#                dimension (q0 from blockIdx.y, the range from blockIdx.x, the grid's sizes
#                exchanged), against it as built, 1,000 queries, K = 5000
#   06-warps11   stage 06, lab 9: version 11's histogram pass with 8, 16, 24 and 32 warps
#                (I_HIST_WARPS_ONE_GROUP), 1,000 queries, K = 5000
#   06-warps14   stage 06, lab 10: version 14's packed pass with 20, 24, 28 and 32 warps
#                (I_PACKED_WARPS), full size, K = 5000
#   06-surenearest stage 06, lab 13: version 14 with the sure test of a guessed bin in one
#                comparison (tools/lab-patches/06_sure_nearest.cu), against version 14 as
#                built, alternately, at K = 5, 50, 500 and 5000
#   02-noif      stage 02, lab 2: histogram_shared's merge without its if (local[d] != 0),
#                as built and changed, alternately: step 02.1, --hist 3, 6 and 1 bits
#   02-nopad     stage 02, lab 3: the Blelloch scan without its padding (#define PAD(i)
#                (i)): the scan test program's times of 2^24 values, as built and changed
#   04-nopad     stage 04, lab 2: the shared-memory padding taken out (#define PAD(i) (i)):
#                the test program, then the local sort at 8, 4, 2 and 1 keys a thread,
#                as built and changed, alternately
#   05-unstable  stage 05, lab 7: rank_in_warp with the highest lane as leader, counting
#                the lanes above: which checks of test_05_warp_shuffle_3 fail
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-build/lab-experiments}
mkdir -p "$OUT"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# copy NAME: a copy of the repository, without build/ and .git, in $scratch/NAME
copy() { mkdir -p "$scratch/$1" && tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$scratch/$1"; }

# build_copy NAME TARGET...: make TARGETs in the copy NAME; where that fails, "  build
# failed:" and the first lines of make's errors, and a non-zero status
build_copy() {
    local name=$1
    shift
    make -s -C "$scratch/$name" "$@" >/dev/null 2>"$scratch/$name.err" ||
        { echo "  build failed:"; head -n 5 "$scratch/$name.err"; return 1; }
}

# copy_without_padding NAME: a copy (copy NAME) whose shared-memory padding is taken out:
# PAD(i) of common/gpu_scan.cuh is i (the scans and stage 04's local sort use it)
copy_without_padding() {
    copy "$1"
    local f=$scratch/$1/common/gpu_scan.cuh
    sed -i 's/^#define PAD(i) ((i) + ((i) >> 5))$/#define PAD(i) (i)/' "$f"
    echo "changed lines (expect 1): $(diff common/gpu_scan.cuh "$f" | grep -c '^>')"
}

# replace_function FILE START PATCH: in FILE, the function whose first line matches the
# awk pattern START (through the next "}" at the start of a line) replaced by PATCH's lines
replace_function() {
    awk -v start="$2" -v patch="$3" '
        $0 ~ start { while ((getline line < patch) > 0) print line; skip = 1; next }
        skip && /^}/ { skip = 0; next } !skip' "$1" >"$1.new" && mv "$1.new" "$1"
}

# as_built_and_changed STAGE CHANGED_BIN STEPS SIZE...: the stage as built (build/bin) and
# as changed, one after the other at each size, median of 5; the lines of STEPS (a regex
# of step names) and the RESULT line of each run
as_built_and_changed() {
    local stage=$1 changed=$2 steps=$3 n bin
    shift 3
    for n in "$@"; do
        for bin in "build/bin/$stage" "$changed"; do
            echo "--- $bin -n $n --runs 5"
            "$bin" -n "$n" --runs 5 | grep -E "^  ($steps) |^RESULT"
        done
    done
}

# nn_pass_times: of 06_nn_histogram's output on stdin, each RESULT line's total, min/max
# and histogram times and its check, one line each
nn_pass_times() {
    grep '^RESULT' |
        sed 's/.* ms=\([0-9.]*\) .*minmax_ms=\([0-9.]*\) .*histogram_ms=\([0-9.]*\) .*check=\([A-Z]*\).*/  ms=\1 minmax_ms=\2 histogram_ms=\3 check=\4/'
}

# local sort times of 05_warp_shuffle BIN at --bits 4 --kpt 1, steps 1 and 2, 9 runs each
local_sorts() {
    local bin=$1 step
    for step in 1 2; do
        echo "--- $bin --step $step --bits 4 --kpt 1 --runs 9 --no-cub"
        "$bin" --step "$step" --bits 4 --kpt 1 --runs 9 --no-cub | grep -E '^  local_sort|^RESULT'
    done
}

for name in "$@"; do
    log="$OUT/$name.log"
    case $name in
    05-maxkpt1)
        {
            echo "# $name $(date -u +%FT%TZ): stage 05 as built (MAX_KPT 16), then with MAX_KPT 1"
            make -s build/bin/05_warp_shuffle >/dev/null && local_sorts build/bin/05_warp_shuffle
            copy maxkpt1
            for f in "$scratch"/maxkpt1/05_warp_shuffle/step[12]_*.cu; do
                sed -i 's/^#define MAX_KPT 16$/#define MAX_KPT 1/' "$f"
                grep -q '^#define MAX_KPT 1$' "$f" || echo "PATCH FAILED: $f"
            done
            build_copy maxkpt1 build/bin/05_warp_shuffle &&
                local_sorts "$scratch/maxkpt1/build/bin/05_warp_shuffle"
        } >"$log" 2>&1 ;;
    05-matchany)
        {
            echo "# $name $(date -u +%FT%TZ): lanes_with_digit as __match_any_sync(FULL_WARP, digit)"
            copy matchany
            f=$scratch/matchany/05_warp_shuffle/warp_multisplit.cuh
            awk '/^__device__ __forceinline__ unsigned lanes_with_digit/ { print; print "{"; print "    (void)width;";
                    print "    return __match_any_sync(FULL_WARP, digit);"; print "}"; skip = 1; next }
                 skip && /^}/ { skip = 0; next } !skip' "$f" >"$f.new" && mv "$f.new" "$f"
            grep -A4 '^__device__ __forceinline__ unsigned lanes_with_digit' "$f"
            make -s build/bin/05_warp_shuffle >/dev/null
            build_copy matchany build/bin/05_warp_shuffle build/tests/test_05_warp_shuffle_3 &&
                "$scratch/matchany/build/tests/test_05_warp_shuffle_3" 2>&1 | tail -n 1
            as_built_and_changed 05_warp_shuffle "$scratch/matchany/build/bin/05_warp_shuffle" \
                'histogram|scatter' 16777217 268435456
        } >"$log" 2>&1 ;;
    06-nomargin)
        {
            echo "# $name $(date -u +%FT%TZ): nn_bin_sure_guess tests f > 0 in place of f > margin"
            copy nomargin
            f=$scratch/nomargin/06_nn_histogram/bin_rule.h
            sed -i 's/    return f > margin \&\& f_plus < 1.0f;/    return f > 0.0f \&\& f_plus < 1.0f;/' "$f"
            grep -c 'return f > 0.0f && f_plus < 1.0f;' "$f"
            build_copy nomargin build/tests/test_06_nn_cpu
            "$scratch/nomargin/build/tests/test_06_nn_cpu" >"$scratch/nomargin.out" 2>&1
            grep 'CHECK failed' "$scratch/nomargin.out" | sed 's/.*CHECK failed: [^:]*: //' | head -n 40
            echo "failing checks (each the first wrong distance of one trial), by K:"
            grep -o 'CHECK failed: !bad: k=[0-9]*' "$scratch/nomargin.out" | sort | uniq -c
            echo "of them, the fast bin above the rule's / below it:"
            grep 'fast bin' "$scratch/nomargin.out" | sed 's/.*fast bin \([0-9]*\), the rule \([0-9]*\).*/\1 \2/' |
                awk '{ if ($1 > $2) up++; else down++ } END { printf "  above %d, below %d\n", up, down }'
            tail -n 1 "$scratch/nomargin.out"
        } >"$log" 2>&1 ;;
    06-nosyncwarp)
        {
            echo "# $name $(date -u +%FT%TZ): reduce_lab.cu's last_warp without __syncwarp()"
            copy nosync
            f=$scratch/nosync/06_nn_histogram/reduce_lab.cu
            sed -i 's/^        __syncwarp();$/        \/\/ __syncwarp();/' "$f"
            grep -c '^        // __syncwarp();$' "$f"
            build_copy nosync build/bin/06_reduce_lab
            "$scratch/nosync/build/bin/06_reduce_lab" --runs 3 | grep -v '^RESULT'
            sanitizer=$(command -v compute-sanitizer || echo "${CUDA_PATH:-/usr/local/cuda}/bin/compute-sanitizer")
            for tool in racecheck synccheck; do
                echo "--- $tool"
                "$sanitizer" --tool "$tool" "$scratch/nosync/build/bin/06_reduce_lab" --repeats 3 --runs 1 \
                    --blocks 32 2>&1 | grep -E 'SUMMARY|hazard|Race' | sort | uniq -c | head -n 8
            done
        } >"$log" 2>&1 ;;
    02-noif)
        {
            echo "# $name $(date -u +%FT%TZ): histogram_shared's merge without its if (local[d] != 0)"
            copy noif
            f=$scratch/noif/02_parallel_hist_scan/gpu_histogram.cuh
            sed -i 's/^        if (local\[d\] != 0)$/        \/* if (local[d] != 0): taken out *\//' "$f"
            echo "changed lines (expect 1): $(diff 02_parallel_hist_scan/gpu_histogram.cuh "$f" | grep -c '^>')"
            make -s build/bin/02_parallel_hist_scan >/dev/null
            build_copy noif build/bin/02_parallel_hist_scan
            for round in 1 2; do for bits in 6 1; do
                for bin in build/bin/02_parallel_hist_scan "$scratch/noif/build/bin/02_parallel_hist_scan"; do
                    case $bin in build/*) v=built ;; *) v=noif ;; esac
                    echo "--- round $round $v --step 1 --hist 3 --bits $bits --runs 5"
                    "$bin" --step 1 --hist 3 --bits "$bits" --runs 5 --no-cub | grep -E '^RESULT' |
                        sed "s/^RESULT /RESULT lab=$v round=$round /"
                done
            done; done
        } >"$log" 2>&1 ;;
    02-nopad)
        {
            echo "# $name $(date -u +%FT%TZ): the Blelloch scan without its padding"
            copy_without_padding nopad
            make -s build/tests/test_02_parallel_hist_scan_2 >/dev/null
            build_copy nopad build/tests/test_02_parallel_hist_scan_2
            for bin in build/tests/test_02_parallel_hist_scan_2 "$scratch/nopad/build/tests/test_02_parallel_hist_scan_2"; do
                case $bin in build/*) v=built ;; *) v=nopad ;; esac
                "$bin" 2>&1 | grep -E '^info: scan of|checks' | sed "s/^/$v: /"
            done
        } >"$log" 2>&1 ;;
    04-nopad)
        {
            echo "# $name $(date -u +%FT%TZ): stage 04 without the shared-memory padding"
            copy_without_padding nopad04
            make -s build/bin/04_paper_local_sort >/dev/null
            build_copy nopad04 build/bin/04_paper_local_sort build/tests/test_04_paper_local_sort &&
                "$scratch/nopad04/build/tests/test_04_paper_local_sort" 2>&1 | tail -n 1
            for kpt in 8 4 2 1; do
                for bin in build/bin/04_paper_local_sort "$scratch/nopad04/build/bin/04_paper_local_sort"; do
                    case $bin in build/*) v=built ;; *) v=nopad ;; esac
                    "$bin" --kpt "$kpt" --runs 5 --no-cub | grep -E '^RESULT' | sed "s/^RESULT /RESULT lab=$v /"
                done
            done
        } >"$log" 2>&1 ;;
    03-unfused)
        {
            echo "# $name $(date -u +%FT%TZ): stage 03 with the rank un-fused (add_tile_offsets over local_ones)"
            copy unfused
            f=$scratch/unfused/03_split_k1/radix_sort.cu
            sed -i 's/^    uint32_t ones_before_tile = tile_ones\[blockIdx.x\];$/    uint32_t ones_before_tile = 0; \/* added to local_ones before *\//;
                    s/^    gpu_exclusive_scan(c->d_tile_ones, c->d_tile_ones, c->tiles + 1, \&c->scan, 0);$/&\n    add_tile_offsets<<<c->tiles, opt->block>>>(c->d_local, c->n, c->tile, c->d_tile_ones);\n    CUDA_CHECK_LAUNCH();/' "$f"
            grep -c 'ones_before_tile = 0;\|add_tile_offsets<<<' "$f"
            make -s build/bin/03_split_k1 >/dev/null
            build_copy unfused build/bin/03_split_k1 build/tests/test_03_split_k1 &&
                "$scratch/unfused/build/tests/test_03_split_k1" 2>&1 | tail -n 1
            for bin in build/bin/03_split_k1 "$scratch/unfused/build/bin/03_split_k1"; do
                echo "--- $bin --runs 5"
                "$bin" --runs 5 --no-cub | grep -E '^  (scan|scatter) |^RESULT'
            done
        } >"$log" 2>&1 ;;
    04-atomic)
        {
            echo "# $name $(date -u +%FT%TZ): tile_histogram by shared-memory atomics"
            copy atomic
            f=$scratch/atomic/04_paper_local_sort/radix_sort.cu
            replace_function "$f" '^__global__ void tile_histogram\\(' tools/lab-patches/04_atomic_histogram.cu
            grep -c 'atomicAdd(&s_count' "$f"
            make -s build/bin/04_paper_local_sort >/dev/null
            build_copy atomic build/bin/04_paper_local_sort build/tests/test_04_paper_local_sort &&
                "$scratch/atomic/build/tests/test_04_paper_local_sort" >"$scratch/atomic.out" 2>&1
            grep 'CHECK failed' "$scratch/atomic.out" | sed 's/.*CHECK failed: [^:]*: \([a-z ]*\):.*/\1/' | sort | uniq -c
            tail -n 1 "$scratch/atomic.out"
            as_built_and_changed 04_paper_local_sort "$scratch/atomic/build/bin/04_paper_local_sort" \
                'local_sort|histogram' 16777217 268435456
        } >"$log" 2>&1 ;;
    02-gpuscatter)
        {
            echo "# $name $(date -u +%FT%TZ): step 02.3's scatter on the GPU, the course reports' three ways"
            copy gpuscatter
            f=$scratch/gpuscatter/02_parallel_hist_scan/step3_block_table.cu
            replace_function "$f" '^static void sort_pass\\(' tools/lab-patches/02_gpu_block_scatter.cu
            build_copy gpuscatter build/bin/02_parallel_hist_scan
            # 4-bit and 6-bit digits, 256 keys a block (the reports' shapes), every run checked
            for bits in 4 6; do
                a="--step 3 --bits $bits --block 256 -n 16777217"
                for v in blocks loop localsort; do
                    echo "--- LAB_SCATTER=$v 02_parallel_hist_scan $a --runs 3"
                    LAB_SCATTER=$v "$scratch/gpuscatter/build/bin/02_parallel_hist_scan" $a --runs 3 |
                        grep -E '^  (histogram|scan|scatter) |^RESULT' | sed "s/^RESULT /RESULT lab_scatter=$v /"
                done
            done
        } >"$log" 2>&1 ;;
    04-tinyblocks)
        {
            echo "# $name $(date -u +%FT%TZ): stage 04 with blocks of 2 to 1024 threads (course report 001's sweep)"
            copy tiny
            f=$scratch/tiny/04_paper_local_sort/radix_sort.cu
            sed -i 's/\.block = {32, 1024, 1}, \.scan_block = {32, 1024, 1}/.block = {2, 1024, 1}, .scan_block = {2, 1024, 1}/' "$f"
            echo "changed lines (expect 1): $(diff 04_paper_local_sort/radix_sort.cu "$f" | grep -c '^>')"
            build_copy tiny build/bin/04_paper_local_sort
            # the report's v4 shape: 4-bit digits, 2 keys a thread, Hillis-Steele scans;
            # the block size of the local sort and of the scan moved together, as it did
            for b in 2 4 8 16 32 64 128 256; do
                echo "--- 04_paper_local_sort --bits 4 --kpt 2 --scan hillis-steele --block $b --scan-block $b --runs 3"
                "$scratch/tiny/build/bin/04_paper_local_sort" --bits 4 --kpt 2 --scan hillis-steele \
                    --block "$b" --scan-block "$b" --runs 3 | grep -E '^  (local_sort|histogram|scan|scatter) |^RESULT'
            done
        } >"$log" 2>&1 ;;
    04-bits8)
        {
            echo "# $name $(date -u +%FT%TZ): stage 04 at 4 and 8 bits, 256 x 8 and 512 x 16"
            make -s build/bin/04_paper_local_sort >/dev/null
            for a in "--bits 4" "--bits 8" "--bits 8 --kpt 16 --block 512" "--bits 4 --kpt 16 --block 512"; do
                echo "--- 04_paper_local_sort $a --runs 5"
                build/bin/04_paper_local_sort $a --runs 5 | grep -E '^  (local_sort|histogram|scan|scatter) |^RESULT'
            done
        } >"$log" 2>&1 ;;
    06-gridorder)
        {
            echo "# $name $(date -u +%FT%TZ): v5_fused.cu with the references as the grid's fast dimension"
            copy grid
            f=$scratch/grid/06_nn_histogram/v5_fused.cu
            sed -i 's/q0 = blockIdx\.x \* TQ;/q0 = blockIdx.y * TQ;/;
                    s/const int r_begin = blockIdx\.y \* F_TILES_PER_BLOCK/const int r_begin = blockIdx.x * F_TILES_PER_BLOCK/;
                    s/^    dim3 grid((unsigned)((p->queries + 8 \* QG - 1) \/ (8 \* QG)),$/    dim3 grid((unsigned)((p->refs + refs_per_block - 1) \/ refs_per_block),/;
                    s/^              (unsigned)((p->refs + refs_per_block - 1) \/ refs_per_block));$/              (unsigned)((p->queries + 8 * QG - 1) \/ (8 * QG)));/' "$f"
            echo "changed lines (expect 4): $(diff 06_nn_histogram/v5_fused.cu "$f" | grep -c '^>')"
            build_copy grid build/bin/06_nn_histogram
            make -s build/bin/06_nn_histogram >/dev/null
            for bin in build/bin/06_nn_histogram "$scratch/grid/build/bin/06_nn_histogram"; do
                echo "--- $bin -q 1000 --version 5 --bins 5000 --runs 3 --no-cublas"
                "$bin" -q 1000 --version 5 --bins 5000 --runs 3 --no-cublas | nn_pass_times
            done
        } >"$log" 2>&1 ;;
    06-warps11 | 06-warps14)
        {
            if [ "$name" = 06-warps11 ]; then
                file=v11_warps.cu macro=I_HIST_WARPS_ONE_GROUP counts="8 16 24 32"
                args="-q 1000 --version 11 --bins 5000 --runs 3 --no-cublas"
            else
                file=v14_swapped_operands.cu macro=I_PACKED_WARPS counts="20 24 28 32"
                args="--version 14 --bins 5000 --runs 3 --no-cublas"
            fi
            echo "# $name $(date -u +%FT%TZ): $macro in $file, then 06_nn_histogram $args"
            copy warps
            f=$scratch/warps/06_nn_histogram/$file
            for w in $counts; do
                sed -i "s/^#define $macro [0-9]*/#define $macro $w/" "$f"
                grep -m1 "^#define $macro " "$f"
                build_copy warps build/bin/06_nn_histogram || continue
                "$scratch/warps/build/bin/06_nn_histogram" $args | nn_pass_times
            done
        } >"$log" 2>&1 ;;
    06-surenearest)
        {
            echo "# $name $(date -u +%FT%TZ): version 14 with nn_bin_sure_nearest in place of nn_bin_sure_guess"
            copy surenearest
            f=$scratch/surenearest/06_nn_histogram/v14_swapped_operands.cu
            awk -v patch=tools/lab-patches/06_sure_nearest.cu '
                /^\/\* A block owns NQ groups/ { while ((getline line < patch) > 0) print line; print "" }
                { print }' "$f" >"$f.new" && mv "$f.new" "$f"
            sed -i 's/!nn_bin_sure_guess(/!nn_bin_sure_nearest(/' "$f"
            echo "calls replaced (expect 4): $(grep -c '!nn_bin_sure_nearest(' "$f")"
            make -s build/bin/06_nn_histogram >/dev/null
            build_copy surenearest build/bin/06_nn_histogram
            # alternately, twice each: the full problem, 5 runs
            for k in 5 50 500 5000; do
                for round in 1 2; do
                    for bin in build/bin/06_nn_histogram "$scratch/surenearest/build/bin/06_nn_histogram"; do
                        echo "--- $bin --version 14 --bins $k --runs 5 --no-cublas (round $round)"
                        "$bin" --version 14 --bins "$k" --runs 5 --no-cublas | nn_pass_times
                    done
                done
            done
        } >"$log" 2>&1 ;;
    05-unstable)
        {
            echo "# $name $(date -u +%FT%TZ): rank_in_warp led by the highest lane, counting the lanes above"
            copy unstable
            f=$scratch/unstable/05_warp_shuffle/warp_multisplit.cuh
            sed -i 's/    unsigned leader = __ffs(same) - 1;/    unsigned leader = 31 - __clz(same);/;
                    s/    return before + __popc(same \& ((1u << lane) - 1));/    return before + __popc(same \& ~((2u << lane) - 1));/' "$f"
            grep -c '31 - __clz(same)\|~((2u << lane) - 1)' "$f"
            build_copy unstable build/tests/test_05_warp_shuffle_3 &&
                "$scratch/unstable/build/tests/test_05_warp_shuffle_3" >"$scratch/unstable.out" 2>&1
            echo "the first failures, in the order the test program runs its checks:"
            head -n 5 "$scratch/unstable.out"
            echo "failing one-pass checks (test_one_pass), by kernel output:"
            grep -o 'CHECK failed: [^:]*: [a-z_ ]*: step=[0-9]*' "$scratch/unstable.out" | sed 's/.*: \([a-z_ ]*\): /\1 /' | sort | uniq -c
            echo "whole sorts by the changed stage, 1,000,000 keys of each distribution:"
            build_copy unstable build/bin/05_warp_shuffle
            for bits in 8 5; do
                for d in uniform equal sorted reversed few and2 and4 high low; do
                    printf '  --bits %s --dist %-8s %s\n' "$bits" "$d" "$("$scratch/unstable/build/bin/05_warp_shuffle" \
                        -n 1000000 --bits "$bits" --dist "$d" --runs 1 --no-cub | sed -n 's/^RESULT .*check=\([A-Z]*\).*/\1/p')"
                done
            done
            tail -n 1 "$scratch/unstable.out"
        } >"$log" 2>&1 ;;
    *) echo "unknown experiment '$name'" >&2; exit 2 ;;
    esac
    echo "$name: $log"
done
