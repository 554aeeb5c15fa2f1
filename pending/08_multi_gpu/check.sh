#!/usr/bin/env bash
# pending/08_multi_gpu/check.sh [PART...] - what stage 08's library on 07's last step
# (pending/08_multi_gpu/onesweep_lib.cu) needs from a GPU before it takes the place of the
# library on onesweep_kernels.cu (pending/README.md).  In a scratch copy of this tree, the
# new library is put in 08_multi_gpu/ and onesweep_kernels.cu taken out; then
#   test  stage 08's test program: on one GPU the library alone (its large path forced onto
#         small inputs: chunked passes whose last chunk is shorter, and cuts), on two GPUs
#         and more every step too
#   memcheck  the same program's short run (--small) under compute-sanitizer's memcheck
#   sort  08 on one GPU with the course's library and with the new one, in turns, one
#         process a run, at 2^28 keys (a launch a pass), 2^31 (chunked: three launches a
#         pass) and 2^32 + 5 (cut by the top byte, then chunked), uniform and few keys,
#         each checked by hash
# (default: all three).  The tree itself is not changed.  Logs go to $OUT (default
# build/pending-08-lib); the last line says which parts passed.  Without a GPU it stops
# after the builds with the program's own line, exit 77.
set -u
cd "$(dirname "$0")/../.." || exit 1
. pending/lib.sh
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(test memcheck sort)
export NCCL_NVLS_ENABLE=0

pending_setup pending-08-lib
cp pending/08_multi_gpu/onesweep_lib.cu "$tree/08_multi_gpu/onesweep_lib.cu"
rm "$tree/08_multi_gpu/onesweep_kernels.cu"
note "check: 08's library on 07's last step in place in $tree ($(date -u +%FT%TZ))"
make -j"$(nproc)" build/bin/08_multi_gpu >"$OUT/build-course.log" 2>&1 ||
    { note "check: the course's build failed ($OUT/build-course.log)"; exit 1; }
(cd "$tree" && make -j"$(nproc)" build/bin/08_multi_gpu build/tests/test_08_multi_gpu) >"$OUT/build.log" 2>&1 ||
    { note "check: the build with the new library failed ($OUT/build.log): $(grep -m1 -i error "$OUT/build.log")"; exit 1; }
stop_without_gpu "$tree/build/bin/08_multi_gpu" --gpus 1 -n 1000 --no-cub --no-composition

sort_once() { # LABEL PROGRAM ARGS...: one sort on one GPU, its RESULT line
    local label=$1 program=$2 out
    shift 2
    out=$("$program" --gpus 1 --no-cub --no-composition --runs 3 --check hash "$@" 2>&1) ||
        { echo "lib=$label FAILED $*: $(tail -n 2 <<<"$out" | tr '\n' ' ')"; return 1; }
    echo "lib=$label $(grep '^RESULT' <<<"$out")"
}
sorts() {
    local n dist status=0
    for n in 268435456 2147483648 4294967301; do
        for dist in uniform few; do
            sort_once course build/bin/08_multi_gpu -n "$n" --dist "$dist" || status=1
            sort_once new "$tree/build/bin/08_multi_gpu" -n "$n" --dist "$dist" || status=1
        done
    done
    return $status
}
# STATUS LOG: the test program's status, where a skip on one GPU after the library's own
# checks passed (they run first) counts as a pass
library_status() {
    [ "$1" -ne 77 ] || ! grep -q 'library alone on GPU 0 ran first' "$2" || return 0
    return "$1"
}
part_test() {
    "$tree/build/tests/test_08_multi_gpu" >"$OUT/test.log" 2>&1
    library_status $? "$OUT/test.log"
    local rc=$?
    note "test: exit $rc: $(tail -n 1 "$OUT/test.log")"
    return $rc
}
part_memcheck() {
    compute-sanitizer --tool memcheck --report-api-errors no "$tree/build/tests/test_08_multi_gpu" --small \
        >"$OUT/memcheck.log" 2>&1
    library_status $? "$OUT/memcheck.log"
    local rc=$?
    note "memcheck: exit $rc: $(grep -m1 'ERROR SUMMARY' "$OUT/memcheck.log")"
    return $rc
}
part_sort() {
    sorts >"$OUT/sort.log" 2>&1
    local rc=$?
    note "sort: exit $rc, $(grep -c RESULT "$OUT/sort.log") runs ($OUT/sort.log)"
    return $rc
}
run_parts "${parts[@]}"
