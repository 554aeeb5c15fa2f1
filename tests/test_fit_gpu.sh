#!/usr/bin/env bash
# test_fit_gpu.sh - `make fit` (tools/fit-check.sh): which GPU step launches on which GPU
# architecture.  Needs no GPU, but the CUDA build (what ptxas reported for every kernel),
# so the CPU build - no nvcc - leaves it out.  Checks:
#   - on sm_90, the occupancy arithmetic gives, for every kernel of every GPU step, the
#     blocks a multiprocessor that the H100 itself reported under Nsight Compute
#     (results/nvidia-h100-80gb-hbm3/launch_config.csv);
#   - where the build is for the portable list (a machine without a GPU builds it, as CI
#     does), INSTRUCTOR.md's table and results/fit_check.md are what the tool prints now;
#   - the tool can say no: a kernel given more shared memory than sm_75 allows a block is
#     named as not launching there, and a launch the GPU reported otherwise is a mismatch.
set -u
cd "$(dirname "$0")/.."
source tests/cli_lib.sh # check_that, fail, finish, $tmp
launch=results/nvidia-h100-80gb-hbm3/launch_config.csv

ls build/obj/*/*.ptxas >/dev/null 2>&1 ||
    { echo "test_fit_gpu: no ptxas reports under build/obj (build first: make)"; exit 1; }

tools/fit-check.sh --check >"$tmp/check" 2>&1
rc=$?
check_that "tools/fit-check.sh --check passes: $(tail -n 2 "$tmp/check" | tr '\n' ' ')" test "$rc" -eq 0
cat "$tmp/check"

# the tool can fail: 05.4's downsweep given 240,000 bytes of dynamic shared memory (more than any
# architecture of the list allows a block, sm_90's 227 KB included: a build for one
# architecture has that one column), and its reported blocks a multiprocessor changed
awk -F, 'BEGIN { OFS = "," } $2 == "05.4" && $4 ~ /downsweep/ { $8 = 240000 } { print }' \
    "$launch" >"$tmp/big.csv"
FIT_LAUNCH=$tmp/big.csv tools/fit-check.sh >"$tmp/big.out" 2>&1
grep '^| 05.4 | `downsweep`' "$tmp/big.out" >"$tmp/row"
check_that "a downsweep of 240,000 B of shared memory does not launch on sm_90 ($(cut -c1-160 "$tmp/row"))" \
    grep -q '| \*\*does not launch\*\* (240000 B of shared memory > 232448) |$' "$tmp/row"
awk -F, 'BEGIN { OFS = "," } $2 == "05.4" && $4 ~ /downsweep/ { $9 = $9 + 1; $10 = $10 + 1; $11 = $11 + 1; $12 = $12 + 1 } { print }' \
    "$launch" >"$tmp/off.csv"
FIT_LAUNCH=$tmp/off.csv tools/fit-check.sh --check >"$tmp/off.out" 2>&1
rc=$?
check_that "a report of one more block a multiprocessor is a mismatch (exit $rc)" \
    grep -q '^MISMATCH 05.4 downsweep' "$tmp/off.out"
check_that "and the check fails on it" test "$rc" -ne 0

# a template instance that tools/fit-not-launched.txt names (07.16's pairs in wide tiles) is
# named as not launched below its first architecture, and launched there; read from a row
# made up with 07.16's file, where the launch table has none yet
wide=_Z13onesweep_passILi512ELi24ELi0ELi2EEv9pass_args
if grep -q "entry function '$wide'" build/obj/07_onesweep/step16_*.ptxas 2>/dev/null; then
    { cat "$launch"
      echo "2026-12-08,07.16,07_onesweep/step16_wide_pairs.cu,$wide,512,64,16,215040,32,2,1,4"; } >"$tmp/wide.csv"
    FIT_LAUNCH=$tmp/wide.csv tools/fit-check.sh >"$tmp/wide.out" 2>&1
    row=$(grep '^| 07.16 | `onesweep_pass<512,24,0,2>`' "$tmp/wide.out")
    check_that "07.16's wide pairs kernel is named by its instance and not launched below sm_90 ($(cut -c1-200 <<<"$row"))" \
        grep -qE '^(\| [^|]* ){4}\| not launched: pairs with their slots in registers [^|]*\| not launched' <<<"$row"
    check_that "and launched on sm_90 ($(cut -c1-200 <<<"$row"))" grep -qE '\| [0-9]+ x 512, [0-9]+% \([0-9]+ regs\) \|$' <<<"$row"
else
    echo "test_fit_gpu: no sm_90 ptxas report of 07.16's wide pairs kernel in this build: its not-launched check skipped"
fi
finish test_fit_gpu
