/*
 * test_01_sequential.c - the sort battery on stage 01, in both modes, for
 * every digit width it accepts (1..16), and its option checks.  CPU only.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "keys.h"
#include "options.h"
#include "reference.h"
#include "sort_battery.h"
#include "sort_stage.h"

static void battery(const char *mode, sort_options opt, size_t tile, enum battery_depth depth)
{
    char label[96];
    snprintf(label, sizeof label, "mode=%s bits=%d block=%d", mode, opt.bits, opt.block);
    battery_result r = run_sort_battery(label, &opt, tile, depth, test_small);
    CHECK_MSG(r.failures == 0, "%s: %d of %d sorts failed", label, r.failures, r.sorts);
}

static int is_sweep_width(int bits)
{
    return bits == 1 || bits == 2 || bits == 4 || bits == 8 || bits == 11 || bits == 16;
}

static void test_every_width(void)
{
    for (int bits = 1; bits <= 16; bits++) {
        sort_options plain = STAGE.defaults;
        plain.mode = MODE_PLAIN;
        plain.bits = bits;
        battery("plain", plain, 256, is_sweep_width(bits) ? BATTERY_SWEEP : BATTERY_SIZES);

        sort_options blocked = plain;
        blocked.mode = MODE_BLOCKED;
        blocked.block = 256;
        battery("blocked", blocked, 256,
                (bits == 4 || bits == 8) ? BATTERY_SWEEP : BATTERY_SIZES);
    }
}

/* Blocks of odd sizes: the last block is partial, a block can hold one key. */
static void test_block_sizes(void)
{
    const int blocks[] = {1, 3, 7, 100, 1000, 4096};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        sort_options opt = STAGE.defaults;
        opt.mode = MODE_BLOCKED;
        opt.bits = 4;
        opt.block = blocks[i];
        battery("blocked", opt, (size_t)blocks[i], BATTERY_SIZES);
    }
}

static void test_option_checks(void)
{
    char err[512];
    sort_options opt = STAGE.defaults;
    opt.mode = MODE_BLOCKED;
    opt.bits = 16;
    opt.block = 1;
    CHECK(check_sort_options(&STAGE, &opt, 1000000, err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "table") && strstr(err, "--block"), "message was: %s", err);
    opt.block = 65536;
    CHECK(check_sort_options(&STAGE, &opt, 1000000, err, sizeof err) == 0);
    opt.mode = MODE_PLAIN;
    opt.block = 1;
    CHECK(check_sort_options(&STAGE, &opt, 1000000, err, sizeof err) == 0);
}

/* The report holds one row per pass and its steps add up. */
static void test_report(void)
{
    enum { N = 100000 };
    static uint32_t keys[N], out[N];
    make_keys(keys, N, DIST_UNIFORM, 3);
    const int widths[] = {1, 4, 11, 16};
    for (int i = 0; i < 4; i++) {
        sort_options opt = STAGE.defaults;
        opt.bits = widths[i];
        sort_report rep;
        char err[256];
        CHECK(stage_sort(keys, out, N, &opt, &rep, err, sizeof err) == 0);
        CHECK_MSG(rep.npasses == (32 + widths[i] - 1) / widths[i], "bits=%d: %d passes",
                  widths[i], rep.npasses);
        double total = report_total_ms(&rep, STAGE.nsteps);
        CHECK(total > 0.0);
        CHECK(report_step_ms(&rep, 2) > 0.0); /* the scatter of 100000 keys takes time */
    }
}

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    test_option_checks();
    test_report();
    test_block_sizes();
    test_every_width();
    return check_summary("test_01_sequential");
}
