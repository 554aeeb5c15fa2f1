#!/usr/bin/env bash
# cub-counts.sh [ARCH] - what CUB's onesweep kernels cost in each of CUB's count types, from
# the build: for every onesweep kernel the CUB baseline instantiates (common/cub_baseline.cu:
# keys alone or with 32-bit values, u32 / i32 / f32 keys, ascending or descending, with an
# `int` or an `int64_t` count), the registers a thread and the static shared memory ptxas
# reported for ARCH (default sm_90), the keys a thread CUB's policy for ARCH gives it, and
# how many of its 384-thread blocks one multiprocessor holds (tools/fit-check.awk's
# arithmetic, with tools/arch-limits.csv's limits).  Prints a Markdown table, the one in
# results/cub_counts.md (07_onesweep/README.md, "CUB's fastest call").
#
# The keys a thread follow CUB's tuning for 4-byte keys from sm_90 on
# (cub/device/dispatch/tuning/tuning_radix_sort.cuh, OnesweepSmallKeyTunedPolicy): 384
# threads, keys alone 20 - OFFSET_64BIT - FLOAT_KEYS a thread, keys with 4-byte values 23,
# or 17 with a 64-bit count.  CUB counts keys in an unsigned type of the count's width: an
# `int` count becomes a 32-bit offset (`j` in the kernel's mangled name), an `int64_t` one a
# 64-bit offset (`y`).
set -u
cd "$(dirname "$0")/.." || exit 1
arch=${1:-sm_90}
report=${BUILD:-build}/obj/common/cub_baseline.o.ptxas
[ -f "$report" ] || { echo "cub-counts: $report not found: build first (make)" >&2; exit 2; }
grep -q "for '$arch'" "$report" ||
    { echo "cub-counts: the build has no $arch code (make ARCH=$arch, or the portable list)" >&2; exit 2; }
awk -v arch="$arch" -f tools/csv.awk -f <(sed -n '/^function ceil_to/,/^}/p; /^function fit(/,/^}/p' tools/fit-check.awk) \
    -f tools/cub-counts.awk tools/arch-limits.csv "$report"
