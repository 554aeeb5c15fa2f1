/*
 * test_04_paper_local_sort.c - each step of one pass of stage 04 against a CPU
 * version (the local sort of each tile against a stable sort by digit, the
 * [digit][block] histogram and run starts against a CPU count, the scan of the
 * table, the scatter), then the sort battery for every scan variant, keys per
 * thread and digit width, block sizes, and sizes that leave the last tile
 * partly empty.  GPU.
 */
#define _POSIX_C_SOURCE 200809L /* check.h: alarm, sigaction */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../04_paper_local_sort/radix_sort.h"
#include "check.h"
#include "keys.h"
#include "options.h"
#include "sort_battery.h"
#include "sort_stage.h"
#include "scan_check.h"
#include "test_util.h"
#include "tile_pass.h"

static void test_one_pass(int block, int kpt, int variant, int width, size_t n, key_dist dist)
{
    sort_options opt = STAGE.defaults;
    opt.block = block;
    opt.kpt = kpt;
    opt.scan_variant = variant;
    size_t tile = (size_t)block * kpt, tiles = (n + tile - 1) / tile;
    size_t table = ((size_t)1 << width) * tiles;
    int shift = width < 32 ? (int)((n * 7) % (size_t)(33 - width)) : 0;

    uint32_t *keys = alloc_u32(n);
    make_keys(keys, n, dist, n * 31 + (size_t)width);
    s04_pass_outputs got = {alloc_u32(n), alloc_u32(table), alloc_u32(table), alloc_u32(table),
                            alloc_u32(n)};
    s04_pass_outputs expect = {alloc_u32(n), alloc_u32(table), alloc_u32(table),
                               alloc_u32(table), alloc_u32(n)};
    fill_garbage(got.tiles_sorted, n, 1);
    fill_garbage(got.table, table, 2);
    fill_garbage(got.starts, table, 3);
    fill_garbage(got.scanned, table, 4);
    fill_garbage(got.out, n, 5);
    s04_one_pass(keys, n, shift, width, &opt, &got);
    cpu_tile_pass(keys, n, shift, width, tile, expect.tiles_sorted, expect.table, expect.starts,
                  expect.scanned, expect.out);

    const char *what[] = {"local sort", "histogram table", "run starts", "scanned table",
                          "scatter"};
    uint32_t *g[] = {got.tiles_sorted, got.table, got.starts, got.scanned, got.out};
    uint32_t *e[] = {expect.tiles_sorted, expect.table, expect.starts, expect.scanned, expect.out};
    size_t len[] = {n, table, table, table, n};
    for (int s = 0; s < 5; s++) {
        size_t i = first_difference(g[s], e[s], len[s]);
        CHECK_MSG(i == len[s],
                  "%s: block=%d kpt=%d scan=%d width=%d shift=%d n=%zu dist=%s: index %zu got %u "
                  "expected %u",
                  what[s], block, kpt, variant, width, shift, n, dist_name(dist), i,
                  i < len[s] ? g[s][i] : 0, i < len[s] ? e[s][i] : 0);
    }
    for (int s = 0; s < 5; s++) {
        free(g[s]);
        free(e[s]);
    }
    free(keys);
}

/* Under --small (the sanitizer): blocks 32 and 256, kpt 1 and 3, widths 1 and 4,
 * three sizes (--tiny: one). */
static void test_steps(void)
{
    const int blocks[] = {32, 256, 1024};
    const int kpts[] = {1, 2, 3, 4, 8};
    const int widths[] = {1, 4, 8};
    const key_dist dists[] = {DIST_UNIFORM, DIST_FEW, DIST_EQUAL};
    for (int variant = SCAN_HILLIS_STEELE; variant <= SCAN_BLELLOCH; variant++)
        for (int b = 0; b < 3; b++)
            for (int k = 0; k < 5; k++) {
                if (test_small && (blocks[b] == 1024 || (kpts[k] != 1 && kpts[k] != 3)))
                    continue;
                size_t tile = (size_t)blocks[b] * kpts[k];
                const size_t sizes[] = {1, tile - 1, tile, tile + 1, 5 * tile + 7};
                for (int w = 0; w < 3; w++)
                    for (size_t s = 0; s < 5; s++) {
                        if ((test_small && (widths[w] == 8 || s == 1 || s == 2)) ||
                            (test_tiny && s != 4)) /* --tiny: 5 tiles and 7 keys */
                            continue;
                        test_one_pass(blocks[b], kpts[k], variant, widths[w], sizes[s],
                                      dists[s % 3]);
                    }
            }
}

static void test_scan(void)
{
    const size_t sizes[] = {1, 255, 256, 257, 70001};
    for (int variant = SCAN_HILLIS_STEELE; variant <= SCAN_BLELLOCH; variant++) {
        for (size_t s = 0; s < 5; s++) {
            size_t n = sizes[s];
            size_t bad = scan_hook_first_error(s04_exclusive_scan, n, variant, 64, 0xFF);
            CHECK_MSG(bad == n, "scan %d n=%zu: wrong at index %zu", variant, n, bad);
        }
    }
}

static void battery(sort_options opt, enum battery_depth depth)
{
    char label[128];
    snprintf(label, sizeof label, "bits=%d block=%d kpt=%d scan=%d scan_block=%d", opt.bits,
             opt.block, opt.kpt, opt.scan_variant, opt.scan_block);
    if (!test_group(label))
        return;
    opt.poison = test_poison;
    battery_result r =
        run_sort_battery(label, &opt, (size_t)opt.block * opt.kpt, depth, test_scale());
    CHECK_MSG(r.failures == 0, "%s: %d of %d sorts failed", label, r.failures, r.sorts);
}

/* The full battery on the defaults; every scan x keys per thread x digit
 * width, and every block size, on the quick one.  Under --small: kpt 1 and 4
 * at 4 bits, and widths 1 and 7 (a last pass of 4 bits) on the defaults. */
static void test_sorts(void)
{
    sort_options opt = STAGE.defaults;
    battery(opt, BATTERY_SWEEP);
    const int kpts[] = {1, 2, 4, 8};
    for (int scan = SCAN_HILLIS_STEELE; scan <= SCAN_BLELLOCH; scan++)
        for (int k = 0; k < 4; k++)
            for (int bits = 1; bits <= 8; bits++) {
                int is_default = scan == STAGE.defaults.scan_variant && kpts[k] == STAGE.defaults.kpt;
                if (test_small && !((bits == 4 && (kpts[k] == 1 || kpts[k] == 4)) ||
                                    (is_default && (bits == 1 || bits == 7))))
                    continue;
                opt = STAGE.defaults;
                opt.scan_variant = scan;
                opt.kpt = kpts[k];
                opt.bits = bits;
                battery(opt, BATTERY_QUICK);
            }
    if (test_small)
        return;
    for (int block = 32; block <= 1024; block *= 2) { /* block and scan block sizes */
        opt = STAGE.defaults;
        opt.block = block;
        opt.scan_block = 1024 / block * 32 > 1024 ? 1024 : 1024 / block * 32;
        battery(opt, BATTERY_QUICK);
    }
    opt = STAGE.defaults; /* a tile that is not a power of two */
    opt.kpt = 3;
    battery(opt, BATTERY_SWEEP);
}

static void test_option_checks(void)
{
    char err[512];
    sort_options opt = STAGE.defaults;
    opt.bits = 9;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 && strstr(err, "accepts 1..8"));
    opt = STAGE.defaults;
    opt.block = 96;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 && strstr(err, "powers of two"));
    opt = STAGE.defaults;
    opt.kpt = 17;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 && strstr(err, "--kpt"));
    opt = STAGE.defaults;
    opt.block = 1024;
    opt.kpt = 16; /* 16384 keys: 66 KB of shared memory */
    CHECK_MSG(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 && strstr(err, "shared memory"),
              "message was: %s", err);
    opt.kpt = 8;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) == 0);
}

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    REQUIRE_GPU();
    TEST_GROUP(test_option_checks);
    TEST_GROUP(test_scan);
    TEST_GROUP(test_steps);
    test_sorts(); /* batteries: a group each */
    return check_summary("test_04_paper_local_sort");
}
