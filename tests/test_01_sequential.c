/*
 * test_01_sequential.c - the sort battery on stage 01, in both modes, for
 * every digit width it accepts (1..16), and its option checks; then what it
 * sorts beside u32 keys: i32 and f32 keys (the special floats among them),
 * descending order, bit ranges and key-value pairs, against the reference
 * and against an order written out by hand.  CPU only.
 */
#define _POSIX_C_SOURCE 200809L /* check.h: alarm, sigaction */
#include <limits.h>
#include <math.h>
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

static void battery(const char *mode, sort_options opt, size_t tile, enum battery_depth depth)
{
    char label[96];
    snprintf(label, sizeof label, "mode=%s bits=%d block=%d", mode, opt.bits, opt.block);
    if (!test_group(label))
        return;
    battery_result r = run_sort_battery(label, &opt, tile, depth, test_scale());
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

        /* a [digit][block] table of 2^bits rows: past 12 bits each sort clears and scans
         * millions of counters, so by default those widths run the quick battery */
        sort_options blocked = plain;
        blocked.mode = MODE_BLOCKED;
        blocked.block = 256;
        battery("blocked", blocked, 256,
                (bits == 4 || bits == 8)      ? BATTERY_SWEEP
                : bits <= 12 || test_full ? BATTERY_SIZES
                                              : BATTERY_QUICK);
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

/* ---- types, order, bit ranges, pairs ---------------------------------------- */

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The f32 order, written out: every key in the order a sort must give, a NaN of
 * each sign at the ends, a denormal of each sign beside the zeros. */
static void test_float_order_by_hand(void)
{
    const uint32_t in_order[] = {
        0xFFC00001u,                /* -NaN (a payload) */
        0xFF800000u,                /* -inf */
        float_bits(-3.0e38f), float_bits(-1.0f), float_bits(-1e-38f),
        0x80000001u,                /* the smallest negative denormal's magnitude */
        0x80000000u,                /* -0.0 */
        0x00000000u,                /* +0.0 */
        0x00000001u,                /* the smallest positive denormal */
        float_bits(1e-38f), float_bits(1.0f), float_bits(3.0e38f),
        0x7F800000u,                /* +inf */
        0x7FC00000u,                /* +NaN */
    };
    const size_t n = sizeof in_order / sizeof in_order[0];
    uint32_t shuffled[sizeof in_order / sizeof in_order[0]], out[sizeof in_order / sizeof in_order[0]];
    for (size_t i = 0; i < n; i++)
        shuffled[i] = in_order[(i * 5 + 3) % n];
    sort_options opt = STAGE.defaults;
    opt.key_type = KEY_F32;
    sort_report rep;
    char err[256];
    CHECK(stage_sort(shuffled, out, n, &opt, &rep, err, sizeof err) == 0);
    CHECK_MSG(memcmp(out, in_order, sizeof out) == 0, "f32 keys are not in IEEE total order");
    CHECK(reference_sort_ordered(shuffled, n, &opt, out, NULL) == 0);
    CHECK_MSG(memcmp(out, in_order, sizeof out) == 0, "the reference's f32 order is not IEEE's");
    opt.descending = 1;
    CHECK(stage_sort(shuffled, out, n, &opt, &rep, err, sizeof err) == 0);
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(out[i] == in_order[n - 1 - i], "descending f32: index %zu", i);
}

/* Keys of one kind: f32 with the specials and many equal values, i32 with
 * INT_MIN and INT_MAX, or u32; n of them from a seed. */
static void make_typed_keys(uint32_t *keys, size_t n, int type, uint64_t seed)
{
    make_keys(keys, n, DIST_UNIFORM, seed);
    const uint32_t f32_special[] = {0x80000000u, 0u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                    0xFFC00000u, 1u, 0x80000001u, float_bits(2.0f)};
    const uint32_t i32_special[] = {(uint32_t)INT_MIN, (uint32_t)INT_MAX, 0u, 0xFFFFFFFFu, 1u};
    for (size_t i = 0; i < n; i++) {
        if (type == KEY_F32 && i % 3 == 0)
            keys[i] = f32_special[(keys[i] >> 8) % 9];
        else if (type == KEY_I32 && i % 4 == 0)
            keys[i] = i32_special[(keys[i] >> 8) % 5];
        else if (i % 5 == 0)
            keys[i] &= 0xFF00FF00u; /* many equal values */
    }
}

/* Every bit range x mode x size of one type and order, keys alone and pairs, against
 * the reference: the values are the stable argsort, so they check stability. */
static void types_orders_ranges(int type, int desc)
{
    const int ranges[][2] = {{0, 32}, {0, 16}, {8, 24}, {31, 32}, {3, 4}, {16, 32}};
    const size_t sizes[] = {0, 1, 2, 33, 1000, 70001};
    for (int r = 0; r < 6; r++)
        for (int mode = MODE_PLAIN; mode <= MODE_BLOCKED; mode++)
            for (int s = 0; s < 6; s++) {
                if (test_small && (s == 5 || r % 2))
                    continue;
                size_t n = sizes[s];
                sort_options opt = STAGE.defaults;
                opt.key_type = type;
                opt.descending = desc;
                opt.begin_bit = ranges[r][0];
                opt.end_bit = ranges[r][1];
                opt.mode = mode;
                opt.bits = mode == MODE_BLOCKED ? 4 : 6;
                uint32_t *keys = malloc((n + 1) * 4);
                if (!keys)
                    exit(2);
                make_typed_keys(keys, n, type, n * 7 + (uint64_t)r);
                char label[128], msg[256];
                snprintf(label, sizeof label, "type=%d descending=%d bits [%d, %d) mode=%d",
                         type, desc, ranges[r][0], ranges[r][1], mode);
                for (int pairs = 1; pairs >= 0; pairs--) /* pairs, then the keys alone */
                    CHECK_MSG(check_ordered_sort(label, &opt, keys, n, pairs, msg,
                                                 sizeof msg) == 0, "%s", msg);
                free(keys);
            }
}

/* Every type x order: a group each. */
static void test_types_orders_ranges(void)
{
    for (int type = KEY_U32; type <= KEY_F32; type++)
        for (int desc = 0; desc <= 1; desc++) {
            char group[64];
            snprintf(group, sizeof group, "types, orders, ranges: type=%d descending=%d", type,
                     desc);
            if (test_group(group))
                types_orders_ranges(type, desc);
        }
}

/* Pairs on every distribution, both modes, ascending and descending: the
 * values (input indices) are the stable argsort, so equal keys - most keys of
 * equal, few, high and low - must keep their input order. */
static void test_pairs_every_distribution(void)
{
    const size_t n = test_small ? 5000 : 100003;
    uint32_t *keys = malloc(n * 4);
    if (!keys)
        exit(2);
    for (int d = 0; d < DIST_COUNT; d++)
        for (int mode = MODE_PLAIN; mode <= MODE_BLOCKED; mode++)
            for (int desc = 0; desc <= 1; desc++) {
                make_keys(keys, n, (key_dist)d, 77 + (uint64_t)d);
                sort_options opt = STAGE.defaults;
                opt.pairs = 1;
                opt.mode = mode;
                opt.descending = desc;
                char label[128], msg[256];
                snprintf(label, sizeof label, "pairs, --dist %s, mode %d, descending %d",
                         dist_name((key_dist)d), mode, desc);
                CHECK_MSG(check_ordered_sort(label, &opt, keys, n, 1, msg, sizeof msg) == 0, "%s",
                          msg);
            }
    free(keys);
}

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    TEST_GROUP(test_option_checks);
    TEST_GROUP(test_report);
    test_block_sizes(); /* batteries: a group each */
    test_every_width();
    TEST_GROUP(test_float_order_by_hand);
    test_types_orders_ranges(); /* a group for each type and order */
    TEST_GROUP(test_pairs_every_distribution);
    return check_summary("test_01_sequential");
}
