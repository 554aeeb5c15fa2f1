/*
 * test_05_warp_shuffle.c - the building blocks of one of stage 05's steps
 * against CPU versions, then the sort battery.  GPU.  Built once per step
 * (-DSTEP=K: build/tests/test_05_warp_shuffle_K, linked with step K's file).
 *   - the warp-shuffle block scan against a CPU scan, every block size;
 *   - steps 1 and 2: one pass, kernel by kernel, as in stage 04's test (a
 *     block of 32 threads is one warp's split);
 *   - steps 3 and 4: the multisplit's ranks of each tile against a CPU stable counting
 *     sort by digit (places and counts), all keys equal and few values
 *     included; one pass: the upsweep's table against a CPU count, its scan,
 *     the downsweep's output against a stable sort by digit;
 *   - the battery for every digit width, keys per thread and block size.
 */
#define _POSIX_C_SOURCE 200809L /* check.h: alarm, sigaction */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../05_warp_shuffle/radix_sort.h"
#include "check.h"
#include "keys.h"
#include "options.h"
#include "sort_battery.h"
#include "sort_stage.h"
#include "test_util.h"
#include "tile_pass.h"

#ifndef STEP
#error "build with -DSTEP=K, the step under test (the Makefile does)"
#endif

static sort_options options(int block, int kpt)
{
    sort_options opt = STAGE.defaults;
    opt.block = block;
    opt.kpt = kpt;
    return opt;
}

/* ---- the warp-shuffle block scan ------------------------------------------ */

static void test_block_scan(void)
{
    for (int block = 32; block <= 1024; block *= 2) {
        const size_t blocks = 37;
        size_t n = blocks * block;
        uint32_t *in = alloc_u32(n), *out = alloc_u32(n), *totals = alloc_u32(blocks);
        make_keys(in, n, DIST_UNIFORM, (uint64_t)block);
        for (size_t i = 0; i < n; i++)
            in[i] &= 0xFFFF; /* sums stay below 2^32 */
        fill_garbage(out, n, 1);
        fill_garbage(totals, blocks, 2);
        s05_block_scan(in, out, totals, blocks, block);
        size_t bad = n, bad_total = blocks;
        for (size_t b = 0; b < blocks; b++) {
            uint32_t running = 0;
            for (int t = 0; t < block; t++) {
                size_t i = b * block + t;
                if (out[i] != running && bad == n)
                    bad = i;
                running += in[i];
            }
            if (totals[b] != running && bad_total == blocks)
                bad_total = b;
        }
        CHECK_MSG(bad == n, "block scan, block %d: wrong at index %zu", block, bad);
        CHECK_MSG(bad_total == blocks, "block scan, block %d: wrong total of block %zu", block,
                  bad_total);
        free(in);
        free(out);
        free(totals);
    }
}

/* ---- one pass, step by step ------------------------------------------------ */

static void test_one_pass(int block, int kpt, int width, size_t n, key_dist dist)
{
    sort_options opt = options(block, kpt);
    size_t tile = (size_t)block * kpt, tiles = (n + tile - 1) / tile;
    size_t table = ((size_t)1 << width) * tiles;
    int shift = (int)((n * 7) % (size_t)(33 - width));

    uint32_t *keys = alloc_u32(n);
    make_keys(keys, n, dist, n * 31 + (size_t)width);
    s05_pass_outputs got = {alloc_u32(n), alloc_u32(table), alloc_u32(table), alloc_u32(table),
                            alloc_u32(n)};
    s05_pass_outputs expect = {alloc_u32(n), alloc_u32(table), alloc_u32(table),
                               alloc_u32(table), alloc_u32(n)};
    uint32_t *g[] = {got.tiles_sorted, got.table, got.starts, got.scanned, got.out};
    uint32_t *e[] = {expect.tiles_sorted, expect.table, expect.starts, expect.scanned, expect.out};
    size_t len[] = {n, table, table, table, n};
    for (int s = 0; s < 5; s++)
        fill_garbage(g[s], len[s], (uint64_t)s + 1);
    s05_one_pass(keys, n, shift, width, &opt, &got);
    cpu_tile_pass(keys, n, shift, width, tile, expect.tiles_sorted, expect.table, expect.starts,
                  expect.scanned, expect.out);

    const char *what[] = {"local sort", "histogram table", "run starts", "scanned table",
                          "scatter"};
    for (int s = 0; s < 5; s++) {
        if (STEP >= 3 && (s == 0 || s == 2))
            continue; /* the multisplit has no local sort and no run starts */
        size_t i = first_difference(g[s], e[s], len[s]);
        CHECK_MSG(i == len[s],
                  "%s: step=%d block=%d kpt=%d width=%d shift=%d n=%zu dist=%s: index %zu got %u "
                  "expected %u",
                  what[s], STEP, block, kpt, width, shift, n, dist_name(dist), i,
                  i < len[s] ? g[s][i] : 0, i < len[s] ? e[s][i] : 0);
    }
    for (int s = 0; s < 5; s++) {
        free(g[s]);
        free(e[s]);
    }
    free(keys);
}

/* Under --small (the sanitizer): fewer blocks, keys per thread, widths and sizes. */
static void test_steps(void)
{
    const int blocks[] = {32, 256, 1024};
    const int kpts[] = {1, 2, 3, 8, 16};
    const int widths[] = {1, 4, 8};
    const key_dist dists[] = {DIST_UNIFORM, DIST_FEW, DIST_EQUAL};
    for (int b = 0; b < 3; b++)
        for (int k = 0; k < 5; k++) {
            if (test_small && (blocks[b] == 1024 || (kpts[k] != 1 && kpts[k] != 3)))
                continue;
            sort_options opt = options(blocks[b], kpts[k]);
            size_t tile = (size_t)blocks[b] * kpts[k];
            const size_t sizes[] = {1, tile - 1, tile, tile + 1, 5 * tile + 7};
            for (int w = 0; w < 3; w++) {
                char err[512];
                opt.bits = widths[w];
                if (check_sort_options(&STAGE, &opt, 1, err, sizeof err))
                    continue; /* a multisplit block too small for 2^width digits */
                for (size_t s = 0; s < 5; s++) {
                    if (test_small && (widths[w] == 8 || s == 1 || s == 2))
                        continue;
                    test_one_pass(blocks[b], kpts[k], widths[w], sizes[s], dists[s % 3]);
                }
            }
        }
}

/* ---- the multisplit's ranks of a tile (steps 3, 4) ----------------------------- */

#if STEP >= 3

/* Each tile stably sorted by digit on the CPU: the place of every key in its
 * tile, and each tile's count of each digit (the padding of a partial last
 * tile counted as keys of the largest digit, as the GPU ranks it). */
static void cpu_tile_ranks(const uint32_t *keys, size_t n, int shift, int width, size_t tile,
                           uint32_t *places, uint32_t *counts)
{
    size_t tiles = (n + tile - 1) / tile, bins = (size_t)1 << width;
    memset(counts, 0, tiles * bins * sizeof(uint32_t));
    for (size_t b = 0; b < tiles; b++) {
        size_t base = b * tile, end = base + tile < n ? base + tile : n;
        uint32_t place = 0;
        for (uint32_t d = 0; d < bins; d++)
            for (size_t i = base; i < end; i++)
                if (digit_at(keys[i], shift, width) == d) {
                    places[i] = place++;
                    counts[b * bins + d]++;
                }
        counts[b * bins + bins - 1] += (uint32_t)(tile - (end - base));
    }
}

static void test_tile_ranks(void)
{
    const int blocks[] = {256, 512, 1024};
    const int kpts[] = {1, 3, 12, 16};
    const key_dist dists[] = {DIST_UNIFORM, DIST_EQUAL, DIST_FEW, DIST_LOW, DIST_SORTED};
    for (int b = 0; b < 3; b++)
        for (int k = 0; k < 4; k++)
            for (int width = 4; width <= 8; width++)
                for (int d = 0; d < 5; d++) {
                    if (test_small && (b > 0 || k >= 2 || width != 8 - d % 2))
                        continue;
                    sort_options opt = options(blocks[b], kpts[k]);
                    char err[512];
                    opt.bits = width;
                    if (check_sort_options(&STAGE, &opt, 1, err, sizeof err))
                        continue; /* the tile does not fit in shared memory */
                    size_t tile = (size_t)blocks[b] * kpts[k], n = 3 * tile + 17 * (size_t)d;
                    size_t tiles = (n + tile - 1) / tile, bins = (size_t)1 << width;
                    int shift = (width * d) % (33 - width);
                    uint32_t *keys = alloc_u32(n), *got = alloc_u32(n), *expect = alloc_u32(n);
                    uint32_t *got_counts = alloc_u32(tiles * bins);
                    uint32_t *expect_counts = alloc_u32(tiles * bins);
                    make_keys(keys, n, dists[d], n + (size_t)width);
                    fill_garbage(got, n, 3);
                    fill_garbage(got_counts, tiles * bins, 4);
                    s05_tile_ranks(keys, n, shift, width, &opt, got, got_counts);
                    cpu_tile_ranks(keys, n, shift, width, tile, expect, expect_counts);
                    size_t i = first_difference(got, expect, n);
                    CHECK_MSG(i == n,
                              "tile ranks: block=%d kpt=%d width=%d dist=%s n=%zu: key %zu got "
                              "place %u expected %u",
                              blocks[b], kpts[k], width, dist_name(dists[d]), n, i,
                              i < n ? got[i] : 0, i < n ? expect[i] : 0);
                    i = first_difference(got_counts, expect_counts, tiles * bins);
                    CHECK_MSG(i == tiles * bins,
                              "tile counts: block=%d kpt=%d width=%d dist=%s: tile %zu digit %zu "
                              "got %u expected %u",
                              blocks[b], kpts[k], width, dist_name(dists[d]), i / bins, i % bins,
                              i < tiles * bins ? got_counts[i] : 0,
                              i < tiles * bins ? expect_counts[i] : 0);
                    free(keys);
                    free(got);
                    free(expect);
                    free(got_counts);
                    free(expect_counts);
                }
}
#endif

/* ---- whole sorts ---------------------------------------------------------- */

static void battery(sort_options opt, enum battery_depth depth)
{
    char label[160];
    snprintf(label, sizeof label, "step=%d bits=%d block=%d kpt=%d scan=%d scan_block=%d", STEP,
             opt.bits, opt.block, opt.kpt, opt.scan_variant, opt.scan_block);
    if (!test_group(label))
        return;
    opt.poison = test_poison;
    char err[512];
    CHECK_MSG(check_sort_options(&STAGE, &opt, 1, err, sizeof err) == 0, "%s: %s", label, err);
    battery_result r =
        run_sort_battery(label, &opt, (size_t)opt.block * opt.kpt, depth, test_scale());
    CHECK_MSG(r.failures == 0, "%s: %d of %d sorts failed", label, r.failures, r.sorts);
}

/* The full battery on the step's defaults (and on report 001's v6 and v7 for
 * step 1: one and two keys a thread); every keys per thread x digit width,
 * every block size and both table scans on the quick one.  Under --small: a
 * few of them. */
static void test_sorts(void)
{
    battery(STAGE.defaults, BATTERY_SWEEP);
    if (!test_small && STEP == 1) {
        battery(options(256, 1), BATTERY_SWEEP);
        battery(options(256, 2), BATTERY_SWEEP);
    }
    const int kpts[] = {1, 2, 3, 4, 8, 16};
    for (int k = 0; k < 6; k++)
        for (int bits = 1; bits <= 8; bits++) {
            sort_options opt = options(256, kpts[k]);
            opt.bits = bits;
            if (test_small && !((bits == 8 && kpts[k] == 3) || (bits == 5 && kpts[k] == 1)))
                continue;
            battery(opt, BATTERY_QUICK);
        }
    for (int block = STEP >= 3 ? 256 : 32; block <= 1024; block *= 2) {
        if (test_small && block != 512)
            continue;
        /* 1024 threads x 4 keys: the multisplit's 32 warp counters do not fit */
        int kpt = STEP >= 3 && block == 1024 ? 2 : 4;
        sort_options opt = options(block, kpt);
        opt.scan_block = 1024 / block * 32 > 1024 ? 1024 : 1024 / block * 32;
        opt.scan_variant = block == 512 ? SCAN_BLELLOCH : SCAN_HILLIS_STEELE;
        battery(opt, BATTERY_QUICK);
    }
}

static void test_option_checks(void)
{
    char err[512];
    sort_options opt = STAGE.defaults;
    opt.bits = 9;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 && strstr(err, "accepts 1..8"));
    opt = options(128, 4); /* 256 digits, 128 threads: the multisplit needs a thread per digit */
    opt.bits = 8;
    CHECK_MSG((check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 &&
               strstr(err, "a thread per digit")) == (STEP >= 3),
              "message was: %s", err);
    opt.bits = 7;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) == 0);
    opt = options(1024, 16); /* 64 KiB of keys */
    CHECK_MSG(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 &&
                  strstr(err, "shared memory"),
              "message was: %s", err);
    opt = options(32, 16);
    opt.bits = 1;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) == 0);
}

/* The bytes model behind GB/s and % of copy, at the step's defaults: 12 bytes
 * of keys per key and pass for the multisplit (48 at 8 bits, 96 at 4), 20 for
 * the splits (160 at 4 bits), plus the [digit][tile] tables: 6 bytes per key
 * for 256 digits and 4096-key tiles, 2 for 16 digits and 2048-key tiles. */
static void test_bytes_model(void)
{
    const size_t n = ((size_t)1 << 24) + 1;
    double bytes = 0;
    for (int step = 0; step < STAGE.nsteps; step++)
        bytes += stage_step_bytes(&STAGE.defaults, n, step);
    double keys = passes_for_bits(STAGE.defaults.bits) * (STEP >= 3 ? 12.0 : 20.0);
    double most = keys + (STAGE.defaults.bits == 8 ? 8.0 : 3.0);
    CHECK_MSG(bytes >= keys * n && bytes < most * n, "step %d: %.2f B/key", STEP, bytes / n);
}

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    TEST_GROUP(test_option_checks);
    TEST_GROUP(test_bytes_model);
    REQUIRE_GPU();
    TEST_GROUP(test_block_scan);
    TEST_GROUP(test_steps);
#if STEP >= 3
    TEST_GROUP(test_tile_ranks);
#endif
    test_sorts(); /* batteries: a group each */
    char name[64];
    snprintf(name, sizeof name, "test_05_warp_shuffle_%d", STEP);
    return check_summary(name);
}
