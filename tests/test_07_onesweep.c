/*
 * test_07_onesweep.c - one of stage 07's steps against the reference, and what
 * it adds to stage 05.3 checked on its own.  GPU.  Built once per step
 * (-DSTEP=K: build/tests/test_07_onesweep_K, linked with step K's file).
 *   - the option rules and the bytes model (36 bytes of keys a key);
 *   - the battery at the defaults and at every digit width x keys per thread,
 *     every block size, with and without pass skipping (the battery's
 *     distributions include equal keys and keys that differ only in their top
 *     8 bits: passes to skip);
 *   - skipping: equal keys run no pass at all, keys that differ only in their
 *     top byte run one; with --no-skip every pass runs, and the output is the
 *     same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "keys.h"
#include "options.h"
#include "reference.h"
#include "sort_battery.h"
#include "sort_stage.h"
#include "test_util.h"

#ifndef STEP
#error "build with -DSTEP=K, the step under test (the Makefile does)"
#endif

static sort_options options(int bits, int block, int kpt)
{
    sort_options opt = STAGE.defaults;
    opt.bits = bits;
    opt.block = block;
    opt.kpt = kpt;
    return opt;
}

static void test_option_checks(void)
{
    char err[512];
    sort_options opt = options(8, 128, 4); /* 256 digits, 128 threads */
    CHECK_MSG(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 &&
                  strstr(err, "a thread per digit"),
              "message was: %s", err);
    opt.bits = 7;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) == 0);
    opt = options(8, 512, 16); /* 32 KiB of keys and 16 KiB of warp counters */
    CHECK_MSG(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 &&
                  strstr(err, "shared memory"),
              "message was: %s", err);
    opt = STAGE.defaults;
    CHECK(check_sort_options(&STAGE, &opt, ((size_t)1 << 30) - 1, err, sizeof err) == 0);
    CHECK_MSG(check_sort_options(&STAGE, &opt, (size_t)1 << 30, err, sizeof err) != 0 &&
                  strstr(err, "30-bit"),
              "message was: %s", err);
}

/* 4 bytes a key for the histogram, 8 a pass: 36 for 4 passes of 8 bits, plus
 * the look-back words (256 a tile of 4096 keys, three times a pass: 3 bytes). */
static void test_bytes_model(void)
{
    const size_t n = ((size_t)1 << 24) + 1;
    double histogram = stage_step_bytes(&STAGE.defaults, n, 0);
    double all = histogram + stage_step_bytes(&STAGE.defaults, n, 1);
    CHECK_MSG(histogram == 4.0 * n, "histogram: %.2f B/key", histogram / n);
    CHECK_MSG(all >= 36.0 * n && all < 40.0 * n, "all: %.2f B/key", all / n);
}

static void battery(sort_options opt, enum battery_depth depth)
{
    char label[160];
    snprintf(label, sizeof label, "bits=%d block=%d kpt=%d skip=%s", opt.bits, opt.block, opt.kpt,
             opt.no_skip ? "off" : "on");
    opt.poison = test_poison;
    char err[512];
    CHECK_MSG(check_sort_options(&STAGE, &opt, 1, err, sizeof err) == 0, "%s: %s", label, err);
    battery_result r =
        run_sort_battery(label, &opt, (size_t)opt.block * opt.kpt, depth, test_small);
    CHECK_MSG(r.failures == 0, "%s: %d of %d sorts failed", label, r.failures, r.sorts);
}

static void test_sorts(void)
{
    sort_options opt = STAGE.defaults;
    battery(opt, BATTERY_SWEEP);
    if (STEP >= 2) { /* pass skipping, and without it */
        opt.no_skip = 1;
        battery(opt, test_small ? BATTERY_QUICK : BATTERY_SWEEP);
    }
    const int kpts[] = {1, 2, 3, 4, 8, 16};
    for (int k = 0; k < 6; k++)
        for (int bits = 1; bits <= 8; bits++) {
            if (test_small && !((bits == 8 && kpts[k] == 3) || (bits == 5 && kpts[k] == 1)))
                continue;
            battery(options(bits, 256, kpts[k]), BATTERY_QUICK);
        }
    for (int block = 256; block <= 512; block *= 2) {
        if (test_small && block != 512)
            continue;
        battery(options(8, block, 4), BATTERY_QUICK);
    }
}

#if STEP >= 2
/* The passes a sort of n keys of `dist` ran (not marked skipped).  With
 * `keep_byte2`, bits 16..23 of every key are one value: passes 0, 1 and 3 run,
 * pass 2 is skipped between them. */
static int passes_run(const sort_options *opt, size_t n, key_dist dist, int keep_byte2, int *ok)
{
    uint32_t *keys = alloc_u32(n), *out = alloc_u32(n), *ref = alloc_u32(n);
    make_keys(keys, n, dist, 7);
    for (size_t i = 0; keep_byte2 && i < n; i++)
        keys[i] = (keys[i] & 0xFF00FFFFu) | 0x00AB0000u;
    fill_garbage(out, n, 3);
    sort_report rep;
    char err[512], msg[512];
    CHECK(stage_sort(keys, out, n, opt, &rep, err, sizeof err) == 0);
    CHECK(reference_sort(keys, ref, n) == 0);
    *ok = verify_sorted(out, ref, n, msg, sizeof msg) == 0;
    int ran = 0;
    for (int p = 0; p < rep.npasses; p++)
        ran += !(rep.skipped >> p & 1u);
    free(keys);
    free(out);
    free(ref);
    return ran;
}
#endif

#if STEP >= 2
static void test_skipping(void)
{
    const size_t n = 100000;
    sort_options opt = STAGE.defaults;
    int ok;
    CHECK_MSG(passes_run(&opt, n, DIST_EQUAL, 0, &ok) == 0 && ok, "equal keys: a pass ran");
    CHECK_MSG(passes_run(&opt, n, DIST_HIGH, 0, &ok) == 1 && ok, "one top byte: not 1 pass");
    CHECK_MSG(passes_run(&opt, n, DIST_UNIFORM, 0, &ok) == 4 && ok, "uniform keys: not 4 passes");
    for (int twice = 0; twice < 2; twice++) /* run, run, skip, run: the tables stay clean */
        CHECK_MSG(passes_run(&opt, 3 * n + 1, DIST_UNIFORM, 1, &ok) == 3 && ok,
                  "byte 2 the same: not 3 passes, or not sorted");
    opt.no_skip = 1;
    CHECK_MSG(passes_run(&opt, n, DIST_EQUAL, 0, &ok) == 4 && ok, "--no-skip, equal keys");
    CHECK_MSG(passes_run(&opt, n, DIST_HIGH, 0, &ok) == 4 && ok, "--no-skip, one top byte");
}
#endif

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    test_option_checks();
    test_bytes_model();
    REQUIRE_GPU();
#if STEP >= 2
    test_skipping();
#endif
    test_sorts();
    char name[64];
    snprintf(name, sizeof name, "test_07_onesweep_%d", STEP);
    return check_summary(name);
}
