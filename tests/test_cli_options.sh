#!/usr/bin/env bash
# test_cli_options.sh - one rule for the options of every program of the course: an option
# with a value takes it as the next argument or after '=' ("--runs 9", "--runs=9"), and
# --runs takes 1 to 1000 wherever it is an option.  Each case is followed by an unknown
# option, so that the line the program refuses with says whether the case itself passed:
# it must name the unknown option, not the case.  No GPU is needed (options are checked
# before the GPU); a program the build did not make (the CPU build has stage 01 alone) is
# named as skipped.
set -u
cd "$(dirname "$0")/.."
bins=${BIN_DIR:-build/bin}
source tests/cli_lib.sh # expect_error, check_that, finish, $tmp

# PROGRAM: OPTION=VALUE cases it must accept, then OPTION=VALUE cases it must refuse
cases() {
    case $1 in
    limits) echo "--csv=$tmp/limits.csv | --csv=" ;;
    *) echo "--runs=1000 --runs 1000 --runs=1 | --runs=1001 --runs=0 --runs=" ;;
    esac
}
skipped=()
for program in 01_sequential 02_parallel_hist_scan 03_split_k1 04_paper_local_sort 05_warp_shuffle \
               06_nn_histogram 06_reduce_lab 07_onesweep 08_multi_gpu limits nccl_alltoall; do
    bin=$bins/$program
    [ -x "$bin" ] || { skipped+=("$program"); continue; }
    read -r -a spec <<<"$(cases "$program")"
    side=accept
    i=0
    while [ $i -lt ${#spec[@]} ]; do
        c=${spec[$i]}
        i=$((i + 1))
        [ "$c" != "|" ] || { side=refuse; continue; }
        if [ "$c" = --runs ] && [ "${spec[$i]:-}" = 1000 ]; then # the two-argument form
            c="--runs 1000"
            i=$((i + 1))
        fi
        if [ $side = accept ]; then
            # shellcheck disable=SC2086
            expect_error no-such-option $c --no-such-option
        else
            # shellcheck disable=SC2086
            expect_error "${c%%=*}" $c --no-such-option
            check_that "$program $c: refused for its own value, not for the option after it ($(cat "$tmp/err"))" \
                bash -c "! grep -q -- --no-such-option '$tmp/err'"
        fi
    done
    [ "$program" != limits ] || check_that "limits --csv=FILE refused later leaves no FILE" test ! -e "$tmp/limits.csv"
done
[ ${#skipped[@]} -eq 0 ] || echo "test_cli_options: not built here, not checked: ${skipped[*]}"
finish test_cli_options
