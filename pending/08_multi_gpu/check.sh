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
root=$PWD
OUT=${OUT:-$root/build/pending-08-lib}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(test memcheck sort)
note() { echo "$*" | tee -a "$OUT/summary.txt"; }
export NCCL_NVLS_ENABLE=0

tree=${TMPDIR:-/tmp}/pending-08-lib
rm -rf "$tree"
mkdir -p "$tree"
tar -C "$root" --exclude=./build --exclude=./.git -cf - . | tar -C "$tree" -xf -
cp pending/08_multi_gpu/onesweep_lib.cu "$tree/08_multi_gpu/onesweep_lib.cu"
rm "$tree/08_multi_gpu/onesweep_kernels.cu"
note "check: 08's library on 07's last step in place in $tree ($(date -u +%FT%TZ))"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt" 2>&1
make -j"$(nproc)" build/bin/08_multi_gpu >"$OUT/build-course.log" 2>&1 ||
    { note "check: the course's build failed ($OUT/build-course.log)"; exit 1; }
(cd "$tree" && make -j"$(nproc)" build/bin/08_multi_gpu build/tests/test_08_multi_gpu) >"$OUT/build.log" 2>&1 ||
    { note "check: the build with the new library failed ($OUT/build.log): $(grep -m1 -i error "$OUT/build.log")"; exit 1; }
"$tree/build/bin/08_multi_gpu" --gpus 1 -n 1000 --no-cub --no-composition >"$OUT/probe.log" 2>&1
[ $? -ne 77 ] || { note "check: $(tail -n 1 "$OUT/probe.log")"; exit 77; }

passed=() failed=()
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
for part in "${parts[@]}"; do
    start=$SECONDS
    case $part in
    test)
        "$tree/build/tests/test_08_multi_gpu" >"$OUT/test.log" 2>&1
        rc=$?
        [ "$rc" -ne 77 ] || ! grep -q 'library alone on GPU 0 ran first' "$OUT/test.log" || rc=0
        note "test: exit $rc: $(tail -n 1 "$OUT/test.log")" ;;
    memcheck)
        compute-sanitizer --tool memcheck --report-api-errors no "$tree/build/tests/test_08_multi_gpu" --small \
            >"$OUT/memcheck.log" 2>&1
        rc=$?
        [ "$rc" -ne 77 ] || ! grep -q 'library alone on GPU 0 ran first' "$OUT/memcheck.log" || rc=0
        note "memcheck: exit $rc: $(grep -m1 'ERROR SUMMARY' "$OUT/memcheck.log")" ;;
    sort)
        sorts >"$OUT/sort.log" 2>&1
        rc=$?
        note "sort: exit $rc, $(grep -c RESULT "$OUT/sort.log") runs ($OUT/sort.log)" ;;
    *)
        note "check: no part '$part' (test memcheck sort)"
        rc=2 ;;
    esac
    if [ "$rc" -eq 0 ]; then passed+=("$part"); else failed+=("$part"); fi
    note "  ($part took $((SECONDS - start)) s)"
done
note "check: passed: ${passed[*]:-none}; failed: ${failed[*]:-none}; on $(cat "$OUT/gpu.txt")"
[ ${#failed[@]} -eq 0 ]
