# pending/lib.sh - what the scripts of pending/ share (sourced, from the tree's root):
#   pending_setup NAME       $OUT (default build/NAME, made absolute), $tree: a scratch copy of
#                            this tree in ${TMPDIR:-/tmp}/NAME (no build/, no .git), and the
#                            GPU's name and driver in $OUT/gpu.txt
#   note TEXT                a line on stdout and in $OUT/summary.txt
#   add_step17 FILE LESSON   in $tree: FILE (already in 07_onesweep/) made step 07.17 - its
#                            line in steps.txt, its two in 07_onesweep/steps.c; 1 where
#                            steps.c did not take them
#   stop_without_gpu CMD...  runs CMD; where it skips (77, no GPU), says its line and exits 77
#   run_parts PART...        each PART by the script's function part_PART (its exit status),
#                            timed; then the verdict line, and exit 0 where all passed

pending_setup() {
    local name=$1
    root=$PWD
    OUT=${OUT:-$root/build/$name}
    mkdir -p "$OUT"
    OUT=$(cd "$OUT" && pwd)
    tree=${TMPDIR:-/tmp}/$name
    rm -rf "$tree"
    mkdir -p "$tree"
    tar -C "$root" --exclude=./build --exclude=./.git -cf - . | tar -C "$tree" -xf -
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt" 2>&1
}

note() { echo "$*" | tee -a "$OUT/summary.txt"; }

add_step17() {
    local file=$1 lesson=$2
    printf '07.17\t%s\tlesson\tadvanced\thopper\t%s\n' "$file" "$lesson" >>"$tree/steps.txt"
    sed -i -e 's/^STEP_DECLARE_PAIRS(16)$/STEP_DECLARE_PAIRS(16)\nSTEP_DECLARE_PAIRS(17)/' \
        -e 's/STEP_ENTRY_PAIRS(15), STEP_ENTRY_PAIRS(16)};/STEP_ENTRY_PAIRS(15), STEP_ENTRY_PAIRS(16),\n                                  STEP_ENTRY_PAIRS(17)};/' \
        -e 's/STAGE_STEP_COUNT = 16;/STAGE_STEP_COUNT = 17;/' "$tree/07_onesweep/steps.c"
    grep -q 'STEP_ENTRY_PAIRS(17)' "$tree/07_onesweep/steps.c" &&
        grep -q 'STAGE_STEP_COUNT = 17;' "$tree/07_onesweep/steps.c"
}

stop_without_gpu() {
    "$@" >"$OUT/probe.log" 2>&1
    [ $? -ne 77 ] || { note "$(tail -n 1 "$OUT/probe.log")"; exit 77; }
}

run_parts() {
    local part start rc passed=() failed=()
    for part in "$@"; do
        start=$SECONDS
        if declare -F "part_$part" >/dev/null; then
            "part_$part"
            rc=$?
        else
            note "no part '$part' (the parts: $(declare -F | sed -n 's/^declare -f part_//p' | paste -sd' ' -))"
            rc=2
        fi
        if [ "$rc" -eq 0 ]; then passed+=("$part"); else failed+=("$part"); fi
        note "  ($part took $((SECONDS - start)) s)"
    done
    note "passed: ${passed[*]:-none}; failed: ${failed[*]:-none}; on $(cat "$OUT/gpu.txt")"
    [ ${#failed[@]} -eq 0 ]
}
