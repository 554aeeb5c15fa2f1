#!/usr/bin/env bash
# device-check.sh [PART...] - everything that needs the GPU, in one go, for the
# course's GPU machine (and `make device-check`).  Logs go to $OUT (default
# build/device-check).  The last line is the verdict:
#   device-check: PASS (build test ...) on <GPU>, driver <version>
#   device-check: FAIL (failed: test; not run: bench) on <GPU>, driver <version>
# and the exit status is non-zero if any part failed or could not run.
# Without a GPU it does nothing: one 'skipped' line before any build, exit 0.
#   PARTS (default: build test sanitize run bench)
#     build     make -j all (architecture from nvidia-smi; BUILD_TARGETS: other targets)
#     test      make test: every test program and test script, as many at once as the
#               runner's default (one per core; TEST_JOBS), each with its default timeout
#               (TESTS: a grep pattern of their names, default all)
#     testfull  the same with the long batteries (make test FULL=1)
#     grades    tests/test_grade_gpu.sh on every GPU step (TEST_FULL=1), at the levels of
#               GRADE_TEST_LEVELS (default both): the stubs 0/100, the course's files 100/100
#     sanitize  every GPU test program under the four compute-sanitizer tools (TESTS, too;
#               SANITIZE_JOBS, SANITIZE_TIMEOUT as tools/sanitize.sh says)
#     limits    make limits: the GPU's copy bandwidth, int8 mma and shared atomic rates
#               (build/limits/<gpu>/limits.csv, or results/<gpu>/ with SAVE=1)
#     run       make run: every stage at its defaults, the summary table
#     bench     tools/bench.sh (BENCH_SETS, default "stages sweep02 sweep03 sweep04 sweep05"):
#               CSVs under build/bench/<gpu>/, or results/<gpu>/ with SAVE=1
#     profile   tools/profile.sh on PROFILE_STAGES (default "04 05"): Nsight Compute
#               reports under build/profile/<gpu>/, or results/<gpu>/profile/ with SAVE=1
#     launch    tools/launch-config.sh: every GPU step's kernels as Nsight Compute sees them
#               launched (block, shared memory, registers, occupancy limits), for
#               `make fit`: results/<gpu>/launch_config.csv with SAVE=1, else under
#               $OUT/launch, where ncu's own pages go
#     ab        tools/ab-compare.sh: AB_BASELINE (a binary built from an earlier commit,
#               carried to the machine) against build/bin/$AB_STAGE (default 07_onesweep),
#               AB_ROUNDS turns each (default 5), with AB_ARGS (default -n 268435456)
#     answers   tools/answer-runs.sh $ANSWER_RUNS (label prefixes, default all): the runs
#               behind the lab answers, answers.log and answers.csv under $OUT/answers
#     lab       tools/lab-experiments.sh $LAB_EXPERIMENTS (names, default 02-gpuscatter): the
#               measurements behind the lab answers that change the code, logs in $OUT/lab
#     smoke08   stage 08's first look: each step on 1, 2 and every GPU, small and 2^28
#               keys, verbose, and under mpirun where the build has MPI, each run under a
#               timeout (a lost NCCL peer hangs): smoke08.log
#     socket08  stage 08's exchange where the network sets its rate, simulated on one host:
#               nccl_alltoall and 08's last step at SOCKET08_N keys (default 2^30) on 2 GPUs
#               and on every GPU, first as NCCL chooses (NVLink), then with its peer-to-peer
#               and shared-memory transports off (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1: its
#               sockets), each under a timeout: socket08.log
#     scout06   stage 06 at a tenth of the full size (1,000 queries), K = 5 and 5000,
#               every version: what the full-size runs of `bench` with nn06 will cost
set -u
# its builds choose their own -j: the jobserver of a make that called it is not theirs
# (the variables given on that make's command line still apply)
MAKEFLAGS=$(sed -E 's/ ?--jobserver-(auth|fds)=[^ ]*//g' <<<"${MAKEFLAGS:-}")
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(build test sanitize run bench)
# without a GPU there is nothing to check: one line, before anything is built (as make
# sanitize, profile and limits say it), and success, as a skipped test is not a failure
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
if [ -z "$gpu" ]; then
    echo "device-check: skipped - its parts (${parts[*]}) are for a machine with a CUDA GPU; nvidia-smi lists none; nothing was built or run"
    exit 0
fi
OUT=${OUT:-build/device-check}
mkdir -p "$OUT"
jobs=$(nproc)
summary="$OUT/summary.txt"
note() { echo "$*" | tee -a "$summary"; }

gpu_words="${gpu%%,*}, driver ${gpu##*, }"
note "device-check $(date -u +%FT%TZ) on $gpu_words"
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1
# logged_run LOG LIMIT CMD...: CMD under a timeout of LIMIT s (a lost NCCL peer hangs), its
# output and its exit status appended to LOG; returns that status
logged_run() {
    local log=$1 limit=$2 r
    shift 2
    echo "=== $*" >>"$log"
    timeout --kill-after=5 "$limit" "$@" >>"$log" 2>&1
    r=$?
    echo "=== exit $r" >>"$log"
    return $r
}
passed=() failed=() not_run=()
for part in "${parts[@]}"; do
    start=$(date +%s)
    case $part in
    build)
        make -j"$jobs" ${BUILD_TARGETS:-all} >"$OUT/build.log" 2>&1
        rc=$?
        note "build: exit $rc ($(grep -m1 'ARCH =' "$OUT/build.log"))" ;;
    test | testfull)
        # what make test runs, in the runner's default parallel mode (the GPU is shared:
        # its tests' CPU work overlaps, and none measures a time the others could spoil)
        full=0; [ "$part" = testfull ] && full=1
        TEST_FULL=$full TEST_LOG_DIR=build/test-logs \
            tools/run-tests.sh $(make -s print-tests | grep -- "${TESTS:-.}") 2>&1 | tee "$OUT/$part.log"
        rc=${PIPESTATUS[0]}
        note "$part: $(tail -n 1 "$OUT/$part.log")" ;;
    grades)
        TEST_FULL=1 bash tests/test_grade_gpu.sh 2>&1 | tee "$OUT/grades.log"
        rc=${PIPESTATUS[0]}
        note "grades: $(tail -n 1 "$OUT/grades.log")" ;;
    sanitize)
        gpu_tests=$(ls build/tests/test_* 2>/dev/null | grep -v -e test_harness -e test_01_sequential -e test_06_nn_cpu |
                    grep -- "${TESTS:-.}")
        # the script's defaults: one run a core, over every GPU, each stopped after 300 s
        tools/sanitize.sh $gpu_tests 2>&1 | tee "$OUT/sanitize.log"
        rc=${PIPESTATUS[0]}
        note "$(tail -n 1 "$OUT/sanitize.log")" ;;
    run)
        make run >"$OUT/run.log" 2>&1
        rc=$?
        note "run: exit $rc"; sed -n '/=== summary/,$p' "$OUT/run.log" | tee -a "$summary" ;;
    limits)
        make limits >"$OUT/limits.log" 2>&1
        rc=$?
        note "limits: exit $rc"; grep -E '^  |RESULT' "$OUT/limits.log" | tee -a "$summary" ;;
    launch)
        csv=$OUT/launch/launch_config.csv
        [ "${SAVE:-0}" = 1 ] && csv=results/$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 |
            tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')/launch_config.csv
        tools/launch-config.sh build/bin "$csv" "$OUT/launch" >"$OUT/launch.log" 2>&1
        rc=$?
        note "launch: exit $rc, $(($(wc -l <"$csv") - 1)) kernels in $csv" ;;
    ab)
        tools/ab-compare.sh "${AB_BASELINE:?AB_BASELINE: the binary to compare with}" \
            "build/bin/${AB_STAGE:-07_onesweep}" "${AB_ROUNDS:-5}" ${AB_ARGS:--n 268435456} \
            >"$OUT/ab.log" 2>&1
        rc=$?
        note "ab: exit $rc"; tail -n 3 "$OUT/ab.log" | tee -a "$summary" ;;
    answers)
        mkdir -p "$OUT/answers"
        # shellcheck disable=SC2086 # the prefixes are words
        tools/answer-runs.sh ${ANSWER_RUNS:-} >"$OUT/answers.log" 2>&1
        rc=$?
        cp build/answers/*/answers*.csv build/answers/*/answers.log "$OUT/answers/" 2>/dev/null
        note "answers: exit $rc, $(tail -n 1 "$OUT/answers.log")" ;;
    lab)
        OUT=$OUT/lab tools/lab-experiments.sh ${LAB_EXPERIMENTS:-02-gpuscatter} >"$OUT/lab.log" 2>&1
        rc=$?
        note "lab: exit $rc (${LAB_EXPERIMENTS:-02-gpuscatter})" ;;
    smoke08)
        rc=0
        all=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
        smoke() { # ARGS...: one run, its output and exit status in the log
            logged_run "$OUT/smoke08.log" "${SMOKE_TIMEOUT:-90}" "$@"
            local r=$?
            [ "$r" -eq 0 ] || rc=$r
            note "smoke08: exit $r: ${*#build/bin/}"
        }
        for g in $(printf '%s\n' 1 2 "$all" | sort -nu); do
            [ "$g" -le "$all" ] || continue
            for step in 1 2; do
                smoke build/bin/08_multi_gpu --gpus "$g" --step "$step" -n 1000 --runs 1 --check ref --verbose
                smoke build/bin/08_multi_gpu --gpus "$g" --step "$step" -n 16777219 --dist few --runs 2 --check ref --verbose
                smoke build/bin/08_multi_gpu --gpus "$g" --step "$step" -n 268435456 --runs 3 --check hash --verbose
            done
        done
        if ldd build/bin/08_multi_gpu | grep -q libmpi; then
            for step in 1 2; do
                smoke mpirun --allow-run-as-root -np "$all" build/bin/08_multi_gpu --step "$step" -n 16777219 --runs 2 --check hash --no-cub
            done
        else
            note "smoke08: no MPI in this build (mpicc: $(command -v mpicc || echo none), mpirun: $(command -v mpirun || echo none))"
        fi ;;
    socket08)
        rc=0
        all=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
        keys=${SOCKET08_N:-1073741824}
        wire() { # TRANSPORT ARGS...: one run with NCCL's transports as TRANSPORT says, logged
            local transport=$1 sockets=()
            shift
            [ "$transport" != socket ] || sockets=(env NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1)
            echo "=== transport=$transport" >>"$OUT/socket08.log"
            logged_run "$OUT/socket08.log" "${SOCKET08_TIMEOUT:-300}" "${sockets[@]}" "$@"
            local r=$?
            [ "$r" -eq 0 ] || rc=$r
            note "socket08: exit $r: transport=$transport ${*#build/bin/}"
        }
        if [ "$all" -lt 2 ]; then
            note "socket08: not run: $all GPU here, and the exchange needs two or more"
            not_run+=("$part")
            continue
        fi
        for g in $(printf '%s\n' 2 "$all" | sort -nu); do
            [ "$g" -le "$all" ] && [ "$g" -ge 2 ] || continue
            for transport in nvlink socket; do
                wire "$transport" build/bin/nccl_alltoall -n "$keys" --gpus "$g"
                wire "$transport" build/bin/08_multi_gpu --gpus "$g" -n "$keys" --runs 5 --check hash --verbose
            done
        done
        grep -E '^RESULT|^=== (transport|env |build/)' "$OUT/socket08.log" | tee -a "$summary" ;;
    scout06)
        rc=0
        for k in 5 5000; do
            timeout "${SCOUT_TIMEOUT:-200}" build/bin/06_nn_histogram -q 1000 --bins "$k" \
                --version all --runs 1 >"$OUT/scout06_k$k.log" 2>&1
            r=$?; [ "$r" -eq 0 ] || rc=$r
            note "scout06 K=$k: exit $r"
            grep -E '^  (cublas|naive|report|exact|reductions|shared|fused|bytes|integer|tensor|copies)' "$OUT/scout06_k$k.log" | tee -a "$summary"
        done ;;
    bench)
        tools/bench.sh build/bin ${BENCH_SETS:-stages sweep02 sweep03 sweep04 sweep05} >"$OUT/bench.log" 2>&1
        rc=$?
        note "bench: exit $rc" ;;
    profile)
        rc=0
        for s in ${PROFILE_STAGES:-04 05}; do
            tools/profile.sh build/bin "$s" >>"$OUT/profile.log" 2>&1 || rc=1
        done
        note "profile: exit $rc, $(grep -c '^profile: wrote' "$OUT/profile.log") reports (stages ${PROFILE_STAGES:-04 05})" ;;
    *) note "unknown part '$part'"; not_run+=("$part"); continue ;;
    esac
    if [ "$rc" -eq 0 ]; then passed+=("$part"); else failed+=("$part"); fi
    note "  ($part took $(( $(date +%s) - start )) s)"
done
# test and sanitizer logs, results CSVs: one archive (the device tool returns few files)
tar czf "$OUT/logs.tar.gz" build/test-logs build/sanitize build/bench build/profile results 2>/dev/null

if [ ${#failed[@]} -eq 0 ] && [ ${#not_run[@]} -eq 0 ]; then
    note "device-check: PASS (${passed[*]}) on $gpu_words"
    exit 0
fi
why=""
[ ${#failed[@]} -eq 0 ] || why="failed: ${failed[*]}"
[ ${#not_run[@]} -eq 0 ] || why="${why:+$why; }not run: ${not_run[*]}"
note "device-check: FAIL ($why) on $gpu_words"
exit 1
