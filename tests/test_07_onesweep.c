/*
 * test_07_onesweep.c - one of stage 07's steps against the reference, and what
 * it adds to stage 05.4 checked on its own.  GPU.  Built once per step
 * (-DSTEP=K: build/tests/test_07_onesweep_K, linked with step K's file).
 *   - the option rules and the bytes model (36 bytes of keys a key);
 *   - the histogram step against CPU counts and scans, every pass;
 *   - the first pass alone: its output against a CPU stable sort by the digit,
 *     its look-back words against the CPU's prefix of every tile and digit;
 *   - slow tiles: one tile at a time made to wait before it publishes - the
 *     first, the last, and every tile of a small sort - and the sort still ends,
 *     sorted;
 *   - the battery at the defaults and at every digit width x keys per thread,
 *     every block size, with and without pass skipping (the battery's
 *     distributions include equal keys and keys that differ only in their top
 *     8 bits: passes to skip);
 *   - skipping: equal keys run no pass at all, keys that differ only in their
 *     top byte run one; with --no-skip every pass runs, and the output is the
 *     same.
 */
#define _POSIX_C_SOURCE 200809L /* check.h: alarm, sigaction */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../07_onesweep/onesweep.h"
#include "check.h"
#include "keys.h"
#include "options.h"
#include "reference.h"
#include "sort_battery.h"
#include "sort_stage.h"
#include "test_util.h"
#include "tile_pass.h"

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
#if STEP <= 3 /* and 16 KiB of lane masks: more than the 48 KiB these steps may use */
    CHECK_MSG(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 &&
                  strstr(err, "shared memory"),
              "message was: %s", err);
#else /* 07.4-07.9: the masks share the keys' words, 07.10: the counters take 16 bits; and a
       block may ask for 64 KiB */
    CHECK_MSG(check_sort_options(&STAGE, &opt, 100, err, sizeof err) == 0, "message was: %s",
              err);
#endif
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
#if STEP >= 13 /* the histogram kernel also clears the look-back table */
    double table = 4.0 * 256 * (double)((n + 8191) / 8192);
    CHECK_MSG(histogram == 4.0 * n + table, "histogram: %.4f B/key", histogram / n);
#else
    CHECK_MSG(histogram == 4.0 * n, "histogram: %.2f B/key", histogram / n);
#endif
    CHECK_MSG(all >= 36.0 * n && all < 40.0 * n, "all: %.2f B/key", all / n);
}

/* ---- the histogram step ------------------------------------------------------ */

/* The histogram step on the CPU: expect[p * 2^bits + d] = where the run of digit d starts
 * in the output of pass p, for every pass of bits-wide digits. */
static void cpu_starts(const uint32_t *keys, size_t n, int bits, uint32_t *expect)
{
    int passes = passes_for_bits(bits);
    size_t bins = (size_t)1 << bits;
    memset(expect, 0, passes * bins * sizeof(uint32_t));
    for (size_t i = 0; i < n; i++)
        for (int p = 0; p < passes; p++)
            expect[p * bins + ((keys[i] >> (p * bits)) & (bins - 1))]++;
    for (int p = 0; p < passes; p++) { /* counts -> exclusive scans */
        uint32_t running = 0;
        for (size_t b = 0; b < bins; b++) {
            uint32_t c = expect[p * bins + b];
            expect[p * bins + b] = running;
            running += c;
        }
    }
}

/* The histogram step of n keys at opt's digit width - every pass's starts, read over
 * garbage - against the CPU's; case_label names the case in the message. */
static void check_histogram(const char *case_label, const sort_options *opt, const uint32_t *keys,
                            size_t n, uint64_t garbage_seed)
{
    size_t bins = (size_t)1 << opt->bits;
    int passes = passes_for_bits(opt->bits);
    uint32_t *got = alloc_u32(passes * bins), *expect = alloc_u32(passes * bins);
    fill_garbage(got, passes * bins, garbage_seed);
    s07_histogram(keys, n, opt, got);
    cpu_starts(keys, n, opt->bits, expect);
    size_t i = first_difference(got, expect, passes * bins);
    CHECK_MSG(i == passes * bins, "%s: pass %zu digit %zu got %u expected %u", case_label,
              i / bins, i % bins, i < passes * bins ? got[i] : 0, i < passes * bins ? expect[i] : 0);
    free(got);
    free(expect);
}

static void test_histogram(void)
{
    const int widths[] = {4, 5, 8};
    const size_t sizes[] = {1, 1000, 3 * 4096 + 5, 100003};
    const key_dist dists[] = {DIST_UNIFORM, DIST_FEW, DIST_EQUAL};
    for (int w = 0; w < 3; w++)
        for (int s = 0; s < 4; s++)
            for (int d = 0; d < 3; d++) {
                if (test_small && (s == 3 || d == 1))
                    continue;
                sort_options opt = options(widths[w], 256, 16);
                size_t n = sizes[s];
                uint32_t *keys = alloc_u32(n);
                make_keys(keys, n, dists[d], n + (size_t)w);
                char label[96];
                snprintf(label, sizeof label, "histogram: bits=%d n=%zu dist=%s", opt.bits, n,
                         dist_name(dists[d]));
                check_histogram(label, &opt, keys, n, 5);
                free(keys);
            }
}

/* ---- the first pass and its look-back words ----------------------------------- */

static void test_first_pass_case(int bits, int block, int kpt, size_t n, key_dist dist)
{
    sort_options opt = options(bits, block, kpt);
    size_t tile = (size_t)block * kpt, tiles = (n + tile - 1) / tile, bins = (size_t)1 << bits;
    uint32_t *keys = alloc_u32(n), *got = alloc_u32(n), *expect = alloc_u32(n);
    uint32_t *words = alloc_u32(tiles * bins), *expect_words = alloc_u32(tiles * bins);
    make_keys(keys, n, dist, n * 3 + (size_t)bits);
    fill_garbage(got, n, 6);
    fill_garbage(words, tiles * bins, 7);
    s07_first_pass(keys, n, &opt, got, words);
    /* a stable counting sort by digit 0, and each tile's inclusive prefix of each digit */
    uint32_t *count = calloc(bins, sizeof(uint32_t)), *start = calloc(bins, sizeof(uint32_t));
    for (size_t i = 0; i < n; i++)
        count[keys[i] & (bins - 1)]++;
    for (size_t d = 1; d < bins; d++)
        start[d] = start[d - 1] + count[d - 1];
    memset(count, 0, bins * sizeof(uint32_t));
    for (size_t i = 0; i < n; i++) {
        uint32_t d = keys[i] & (bins - 1);
        expect[start[d] + count[d]++] = keys[i];
        if (i % tile == tile - 1 || i == n - 1) /* the end of tile i / tile */
            for (size_t e = 0; e < bins; e++)
                expect_words[(i / tile) * bins + e] = S07_PREFIX | count[e];
    }
    size_t i = first_difference(got, expect, n);
    CHECK_MSG(i == n, "first pass: bits=%d block=%d kpt=%d n=%zu dist=%s: index %zu got %u "
              "expected %u", bits, block, kpt, n, dist_name(dist), i, i < n ? got[i] : 0,
              i < n ? expect[i] : 0);
    i = first_difference(words, expect_words, tiles * bins);
    CHECK_MSG(i == tiles * bins, "look-back: bits=%d block=%d kpt=%d n=%zu dist=%s: tile %zu "
              "digit %zu got %08x expected %08x", bits, block, kpt, n, dist_name(dist),
              i / bins, i % bins, i < tiles * bins ? words[i] : 0,
              i < tiles * bins ? expect_words[i] : 0);
    free(count);
    free(start);
    free(keys);
    free(got);
    free(expect);
    free(words);
    free(expect_words);
}

static void test_first_pass(void)
{
    const int kpts[] = {1, 4, 16};
    const key_dist dists[] = {DIST_UNIFORM, DIST_FEW, DIST_EQUAL, DIST_SORTED};
    for (int k = 0; k < 3; k++)
        for (int block = 256; block <= 512; block *= 2)
            for (int bits = 5; bits <= 8; bits += 3) {
                sort_options opt = options(bits, block, kpts[k]);
                char err[512];
                if (check_sort_options(&STAGE, &opt, 1, err, sizeof err))
                    continue; /* the tile does not fit in shared memory */
                size_t tile = (size_t)block * kpts[k];
                const size_t sizes[] = {1, tile - 1, tile, 5 * tile + 7, 40 * tile + 1};
                for (int s = 0; s < 5; s++) {
                    if ((test_small && (s == 4 || k == 1)) || (test_tiny && s != 1 && s != 3))
                        continue; /* --tiny: a part of a tile, and five tiles and 7 keys */
                    test_first_pass_case(bits, block, kpts[k], sizes[s], dists[(s + k) % 4]);
                }
            }
}

/* ---- slow tiles -------------------------------------------------------------- */

static void sort_with_slow_tile(size_t n, long long tile, unsigned ns)
{
    sort_options opt = STAGE.defaults;
    opt.poison = test_poison;
    uint32_t *keys = alloc_u32(n), *out = alloc_u32(n), *ref = alloc_u32(n);
    make_keys(keys, n, DIST_UNIFORM, (uint64_t)tile + 11);
    fill_garbage(out, n, 8);
    sort_report rep;
    char err[512], msg[512];
    s07_slow_tile(tile, ns);
    CHECK(stage_sort(keys, out, n, &opt, &rep, err, sizeof err) == 0);
    s07_slow_tile(-1, 0);
    CHECK(reference_sort(keys, ref, n) == 0);
    CHECK_MSG(verify_sorted(out, ref, n, msg, sizeof msg) == 0, "tile %lld slow by %u ns, n=%zu: %s",
              tile, ns, n, msg);
    free(keys);
    free(out);
    free(ref);
}

/* Every tile of a 17-tile sort slow in turn (all of them are in flight at once: every
 * position in the look-back window), then the first, the last and one in the middle of
 * a sort of 300 tiles, more than an H100 holds at once.  --small: three of the 17 and
 * the middle of the 300; --tiny (racecheck and initcheck, which look at shared memory and
 * at reads of unwritten memory, not at the order of tiles): one of the 17. */
static void test_slow_tiles(void)
{
    const size_t tile = (size_t)STAGE.defaults.block * STAGE.defaults.kpt;
    for (long long t = 0; t < 17; t++)
        if (!test_small || t % 8 == 0)
            if (!test_tiny || t == 8)
                sort_with_slow_tile(16 * tile + 5, t, 200000);
    const long long big[] = {0, 1, 150, 298, 299};
    for (int i = 0; i < 5; i++)
        if ((!test_small || i == 2) && !test_tiny)
            sort_with_slow_tile(300 * tile - 3, big[i], 1000000);
}

static void battery(sort_options opt, enum battery_depth depth)
{
    char label[160];
    snprintf(label, sizeof label, "bits=%d block=%d kpt=%d skip=%s", opt.bits, opt.block, opt.kpt,
             opt.no_skip ? "off" : "on");
    if (!test_group(label))
        return;
    opt.poison = test_poison;
    char err[512];
    CHECK_MSG(check_sort_options(&STAGE, &opt, 1, err, sizeof err) == 0, "%s: %s", label, err);
    battery_result r =
        run_sort_battery(label, &opt, (size_t)opt.block * opt.kpt, depth, test_scale());
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
    const size_t n = test_tiny ? 20000 : 100000; /* which passes run does not depend on n */
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

#if STEP >= 7
/* Keys of one kind: f32 with its special values and many equal keys, i32 with
 * INT_MIN and INT_MAX, or u32 of a distribution. */
static void make_typed_keys(uint32_t *keys, size_t n, int type, key_dist dist, uint64_t seed)
{
    make_keys(keys, n, dist, seed);
    const uint32_t f32_special[] = {0x80000000u, 0u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                    0xFFC00000u, 1u, 0x80000001u, 0x40000000u};
    const uint32_t i32_special[] = {0x80000000u, 0x7FFFFFFFu, 0u, 0xFFFFFFFFu, 1u};
    for (size_t i = 0; i < n; i++) {
        if (type == KEY_F32 && i % 3 == 0)
            keys[i] = f32_special[(keys[i] >> 8) % 9];
        else if (type == KEY_I32 && i % 4 == 0)
            keys[i] = i32_special[(keys[i] >> 8) % 5];
    }
}

/* One sort of pairs (or keys alone) against the ordered reference. */
static void check_ordered(const char *label, const sort_options *opt, const uint32_t *keys,
                          size_t n, int pairs)
{
    char msg[256];
    CHECK_MSG(check_ordered_sort(label, opt, keys, n, pairs, msg, sizeof msg) == 0, "%s", msg);
}

#if STEP >= 11
/* One sort of n keys of dist (from seed), pairs or keys alone, against the ordered
 * reference: what the tests of a tile's sizes sort. */
static void check_made(const char *label, const sort_options *opt, size_t n, key_dist dist,
                       uint64_t seed, int pairs)
{
    uint32_t *keys = alloc_u32(n);
    make_keys(keys, n, dist, seed);
    check_ordered(label, opt, keys, n, pairs);
    free(keys);
}
#endif

/* Every bit range (07.8 on) x size of one type and order (07.7 on), keys alone
 * and pairs (07.9), on awkward sizes (a partial tile, one key, many tiles), with
 * skipping on and off. */
static void types_orders_ranges(int type, int desc)
{
    const int ranges[][2] = {{0, 32}, {0, 16}, {8, 24}, {31, 32}, {3, 4}, {16, 32}};
    const int nranges = STEP >= 8 ? 6 : 1; /* bit ranges from 07.8 on */
    const size_t tile = (size_t)STAGE.defaults.block * STAGE.defaults.kpt;
    const size_t sizes[] = {1, 2, 33, tile - 1, 3 * tile + 17};
    char label[160];
    for (int r = 0; r < nranges; r++)
        for (int s = 0; s < 5; s++) {
            if ((test_small && (s == 4 || r % 2)) || (test_tiny && (s < 2 || r > 2)))
                continue; /* --tiny: 33 keys and a tile less one, two ranges */
            size_t n = sizes[s];
            uint32_t *keys = malloc(n * 4);
            if (!keys)
                exit(2);
            make_typed_keys(keys, n, type, DIST_UNIFORM, n * 7 + (uint64_t)r);
            sort_options opt = options(8, STAGE.defaults.block, STAGE.defaults.kpt);
            opt.key_type = type;
            opt.descending = desc;
            opt.begin_bit = ranges[r][0];
            opt.end_bit = ranges[r][1];
            opt.no_skip = s % 2;
            snprintf(label, sizeof label, "type=%d descending=%d bits [%d, %d) skip=%s", type,
                     desc, ranges[r][0], ranges[r][1], opt.no_skip ? "off" : "on");
#if STEP >= 9
            check_ordered(label, &opt, keys, n, 1);
#endif
            check_ordered(label, &opt, keys, n, 0);
            free(keys);
        }
}

#if STEP >= 9
/* Pairs of every distribution, both orders: equal keys keep their input order. */
static void test_pairs_every_distribution(void)
{
    const size_t tile = (size_t)STAGE.defaults.block * STAGE.defaults.kpt;
    const size_t n = test_small ? 5000 : 3 * tile + 17;
    uint32_t *keys = malloc(n * 4);
    if (!keys)
        exit(2);
    char label[160];
    for (int d = 0; d < DIST_COUNT; d++)
        for (int desc = 0; desc <= 1; desc++) {
            make_keys(keys, n, (key_dist)d, 91 + (uint64_t)d);
            sort_options opt = options(8, STAGE.defaults.block, STAGE.defaults.kpt);
            opt.pairs = 1;
            opt.descending = desc;
            snprintf(label, sizeof label, "pairs --dist %s descending=%d", dist_name((key_dist)d),
                     desc);
            check_ordered(label, &opt, keys, n, 1);
        }
    free(keys);
}
#endif

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
#endif

#if STEP >= 10
/* The lesson of 07.10: the pass for keys alone keeps three blocks of 512 on a
 * multiprocessor wherever the GPU's shared memory holds three (where it does, the
 * multiprocessor holds 1,536 threads or more, and 40 registers a thread allow three);
 * pairs keep two. */
static void test_residency(void)
{
    sort_options opt = STAGE.defaults;
    int fits = 0, keys = s07_pass_blocks(&opt, 0, &fits);
    int pairs_fit = 0, pairs = s07_pass_blocks(&opt, 1, &pairs_fit);
    int want = fits < 3 ? fits : 3;
    CHECK_MSG(keys == want, "keys: %d blocks of 512 a multiprocessor, want %d (shared memory "
              "holds %d)", keys, want, fits);
    want = pairs_fit < 2 ? pairs_fit : 2;
    CHECK_MSG(pairs == want, "pairs: %d blocks of 512 a multiprocessor, want %d", pairs, want);
    if (fits < 3)
        printf("  test_residency: this GPU's shared memory holds %d blocks of the pass, not 3: "
               "checked %d\n", fits, want);
}
#endif

#if STEP >= 11
/* The lesson of 07.11: a pass of the default shape - blocks of 512, 16 keys a thread,
 * digits of 8 bits - runs the kernel compiled for that shape; any other shape, the
 * narrower last pass of a bit range and pairs run the general kernel (every battery and
 * the bit-range groups check that both sort exactly). */
static void test_shape_constants(void)
{
    sort_options opt = STAGE.defaults;
    CHECK_MSG(s07_pass_for_default_shape(&opt, 8, 0) == 1,
              "keys at the default shape: the general kernel, want the one compiled for it");
    CHECK_MSG(s07_pass_for_default_shape(&opt, 8, 1) == 0,
              "pairs at the default shape: the kernel compiled for keys alone");
    CHECK_MSG(s07_pass_for_default_shape(&opt, 5, 0) == 0,
              "a 5-bit last pass of a bit range: the kernel compiled for 8-bit digits");
    const int blocks[] = {256, 512, 512}, kpts[] = {16, 15, 16}, bits[] = {8, 8, 7};
    for (int i = 0; i < 3; i++) {
        sort_options o = opt;
        o.block = blocks[i];
        o.kpt = kpts[i];
        o.bits = bits[i];
        CHECK_MSG(s07_pass_for_default_shape(&o, o.bits, 0) == 0,
                  "--block %d --kpt %d --bits %d: the kernel compiled for blocks of 512, 16 keys "
                  "a thread and 8-bit digits", o.block, o.kpt, o.bits);
    }
}
#endif

#if STEP >= 15
/* The lesson of 07.15: the histogram step plans a pass to count by match exactly where
 * two of the n keys share its digit with a chance above 1/32 (the sum of the pass's
 * squared digit counts over n^2), and a skipped pass not at all - computed here on the
 * CPU from the keys, for distributions on both sides of the line (few and and4 keys
 * above it, uniform keys below it at 8-bit digits and above it at 4-bit ones, equal and
 * high keys with skipped passes). */
static void test_crowded_passes(void)
{
    const key_dist dists[] = {DIST_UNIFORM, DIST_FEW, DIST_AND4, DIST_AND2, DIST_EQUAL,
                              DIST_HIGH, DIST_SORTED};
    const int widths[] = {8, 4};
    const size_t n = test_tiny ? 20000 : 100003;
    uint32_t *keys = alloc_u32(n);
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < 7; k++) {
            sort_options opt = options(widths[w], STAGE.defaults.block, STAGE.defaults.kpt);
            size_t bins = (size_t)1 << opt.bits;
            make_keys(keys, n, dists[k], 77 + (uint64_t)k);
            int got[32], passes = s07_crowded_passes(keys, n, &opt, got);
            CHECK_MSG(passes == passes_for_bits(opt.bits), "%d passes, want %d", passes,
                      passes_for_bits(opt.bits));
            for (int p = 0; p < passes && p < passes_for_bits(opt.bits); p++) {
                uint64_t count[256] = {0}, squares = 0;
                int one_digit = 0;
                for (size_t i = 0; i < n; i++)
                    count[(keys[i] >> (p * opt.bits)) & (bins - 1)]++;
                for (size_t d = 0; d < bins; d++) {
                    squares += count[d] * count[d];
                    one_digit |= count[d] == n;
                }
                int want = !one_digit && squares > (uint64_t)n * n / 32;
                CHECK_MSG(got[p] == want, "--bits %d, %s keys: pass %d planned to count by %s, "
                          "want by %s (sum of squares / n^2 = %.4f)", opt.bits,
                          dist_name(dists[k]), p, got[p] ? "match" : "atomics",
                          want ? "match" : "atomics", (double)squares / ((double)n * n));
            }
        }
    free(keys);
}
#endif

#if STEP >= 13
/* The lesson of 07.13, its first part: the sort's memset leaves the look-back table alone
 * (it still holds the garbage it was allocated with), and the histogram step leaves every
 * word of it 0 - at sizes of one word's tile to many, for both digit widths' tables, and
 * at a small tile shape where the table is larger than the histogram kernel's grid. */
static void test_first_table_cleared(void)
{
    const size_t sizes[] = {1, 8191, 8193, 100003, ((size_t)1 << 20) + 3};
    const int widths[] = {8, 5};
    for (int w = 0; w < 2; w++)
        for (int s = 0; s < 5; s++)
            for (int shape = 0; shape < 2; shape++) {
                if ((test_small || test_tiny) && s == 4)
                    continue;
                sort_options opt = shape ? options(widths[w], 256, 1)
                                         : options(widths[w], STAGE.defaults.block,
                                                   STAGE.defaults.kpt);
                size_t n = sizes[s], tile = (size_t)opt.block * opt.kpt;
                size_t words = ((n + tile - 1) / tile) << opt.bits;
                uint32_t *keys = alloc_u32(n), *before = alloc_u32(words);
                uint32_t *after = alloc_u32(words);
                make_keys(keys, n, DIST_UNIFORM, n + 3);
                fill_garbage(before, words, 1);
                fill_garbage(after, words, 2);
                size_t got = s07_first_table(keys, n, &opt, before, after);
                CHECK_MSG(got == words, "n=%zu --bits %d: a table of %zu words, want %zu", n,
                          opt.bits, got, words);
                size_t cleared = 0, left = 0;
                for (size_t i = 0; i < words; i++) {
                    cleared += before[i] == 0;
                    left += after[i] != 0;
                }
                CHECK_MSG(cleared < words, "n=%zu --bits %d --block %d --kpt %d: the sort's "
                          "memset cleared the first pass's table: that is the histogram's work now",
                          n, opt.bits, opt.block, opt.kpt);
                CHECK_MSG(left == 0, "n=%zu --bits %d --block %d --kpt %d: after the histogram "
                          "step %zu of the table's %zu words are not 0", n, opt.bits, opt.block,
                          opt.kpt, left, words);
                free(keys);
                free(before);
                free(after);
            }
}
#endif

#if STEP >= 12
/* The lesson of 07.12: a warp's ranks, where a spread tile's leader takes its count from
 * the atomic that adds its lanes (add_16 returns the count before) and a shuffle hands it
 * to them.  One warp ranks its keys as a pass does, by masks (spread) and by match
 * (crowded), from counts that do not start at 0; each key's place must be its digit's
 * count so far in input order (key j of every lane before key j + 1), and the counts at
 * the end the starts plus the keys - a 16-bit count that carried into its neighbour, or a
 * lane handed another lane's count, shows in both. */
static void test_rank_warp(void)
{
    const int widths[] = {8, 5, 1}, kpts[] = {1, 16};
    const key_dist dists[] = {DIST_UNIFORM, DIST_FEW, DIST_EQUAL, DIST_AND4};
    for (int w = 0; w < 3; w++)
        for (int k = 0; k < 2; k++)
            for (int d = 0; d < 4; d++)
                for (int crowded = 0; crowded < 2; crowded++) {
                    int bits = widths[w], kpt = kpts[k];
                    size_t bins = (size_t)1 << bits, keys = (size_t)kpt * 32;
                    uint32_t *digits = alloc_u32(keys), *start = alloc_u32(bins);
                    uint32_t *ranks = alloc_u32(keys), *counts = alloc_u32(bins);
                    uint32_t *want = alloc_u32(bins);
                    make_keys(digits, keys, dists[d], (uint64_t)(w * 100 + k * 10 + d));
                    make_keys(start, bins, DIST_UNIFORM, (uint64_t)(bins + keys));
                    for (size_t i = 0; i < keys; i++)
                        digits[i] &= (uint32_t)bins - 1;
                    for (size_t i = 0; i < bins; i++)
                        want[i] = start[i] &= 4095;
                    fill_garbage(ranks, keys, 9);
                    fill_garbage(counts, bins, 10);
                    s07_rank_warp(digits, kpt, bits, crowded, start, ranks, counts);
                    size_t wrong = 0, first = keys;
                    for (size_t i = 0; i < keys; i++) /* key j of lane l is digits[j * 32 + l] */
                        if (ranks[i] != want[digits[i]]++) {
                            wrong++;
                            first = first < keys ? first : i;
                        }
                    CHECK_MSG(wrong == 0, "--bits %d, %d keys a lane, %s keys, %s: %zu of %zu "
                              "places wrong, the first key %zu of lane %zu", bits, kpt,
                              dist_name(dists[d]), crowded ? "by match" : "by masks", wrong,
                              keys, first / 32, first % 32);
                    size_t off = 0;
                    for (size_t i = 0; i < bins; i++)
                        off += counts[i] != want[i];
                    CHECK_MSG(off == 0, "--bits %d, %d keys a lane, %s keys, %s: %zu of %zu "
                              "counts wrong after the ranking", bits, kpt,
                              dist_name(dists[d]), crowded ? "by match" : "by masks", off,
                              bins);
                    free(digits);
                    free(start);
                    free(ranks);
                    free(counts);
                    free(want);
                }
}
#endif

#if STEP >= 15
/* The lesson of 07.15, its second part: a crowded pass ranks its keys as it counts
 * them.  One block counts a tile as such a pass does; each key's rank must be the number
 * of its warp's keys of its digit before it in the tile (key j of every lane before key
 * j + 1: the order a stable sort keeps), and the tile's counts the CPU's - a rank taken
 * from the wrong lane, or from a count that another group had already moved on, shows
 * in the first; a group counted twice or not at all, in the second. */
static void test_count_ranks(void)
{
    const int widths[] = {8, 5, 1}, blocks[] = {512, 64}, kpts[] = {1, 7, 16};
    const key_dist dists[] = {DIST_UNIFORM, DIST_FEW, DIST_EQUAL, DIST_AND4};
    for (int w = 0; w < 3; w++)
        for (int b = 0; b < 2; b++)
            for (int k = 0; k < 3; k++)
                for (int d = 0; d < 4; d++) {
                    int bits = widths[w], block = blocks[b], kpt = kpts[k];
                    size_t bins = (size_t)1 << bits, tile = (size_t)block * kpt;
                    if (block < (int)bins)
                        continue; /* a pass gives each digit a thread */
                    uint32_t *keys = alloc_u32(tile), *ranks = alloc_u32(tile);
                    uint32_t *counts = alloc_u32(bins), *seen = alloc_u32(bins);
                    make_keys(keys, tile, dists[d], (uint64_t)(w * 100 + b * 10 + k + d * 1000));
                    for (size_t i = 0; i < tile; i++)
                        keys[i] &= (uint32_t)bins - 1;
                    fill_garbage(ranks, tile, 11);
                    fill_garbage(counts, bins, 12);
                    s07_count_ranks(keys, block, kpt, bits, ranks, counts);
                    size_t wrong = 0, first = tile, warp_keys = (size_t)32 * kpt;
                    for (size_t i = 0; i < tile; i++) {
                        if (i % warp_keys == 0) /* a warp's keys: a run of the tile */
                            memset(seen, 0, bins * sizeof *seen);
                        if (ranks[i] != seen[keys[i]]++) {
                            wrong++;
                            first = first < tile ? first : i;
                        }
                    }
                    CHECK_MSG(wrong == 0, "--bits %d --block %d --kpt %d, %s keys: %zu of %zu "
                              "ranks wrong, the first key %zu of the tile", bits, block, kpt,
                              dist_name(dists[d]), wrong, tile, first);
                    memset(seen, 0, bins * sizeof *seen);
                    for (size_t i = 0; i < tile; i++)
                        seen[keys[i]]++;
                    size_t off = 0;
                    for (size_t i = 0; i < bins; i++)
                        off += counts[i] != seen[i];
                    CHECK_MSG(off == 0, "--bits %d --block %d --kpt %d, %s keys: %zu of %zu "
                              "digit counts wrong", bits, block, kpt, dist_name(dists[d]), off,
                              bins);
                    free(keys);
                    free(ranks);
                    free(counts);
                    free(seen);
                }
}
#endif

#if STEP >= 14
/* ---- the histogram's copies per lane (07.14) --------------------------------------- */

/* A lane's copy holds 16-bit counters: a block whose threads counted too many keys would
 * overflow them.  On one block, as few as the GPU may run, the grid must still grow with
 * n: equal keys (one digit a pass, every key on the same counter of its lane's copy) and
 * uniform keys, counted against the CPU; 2^22 + 3 equal keys on one block would put
 * 131,072 counts in a half.  Then every key type and order, which the default sort's
 * histogram reads through the radix transform: the sorts check them. */
static void test_lane_copies(void)
{
    const size_t sizes[] = {(1u << 22) + 3, 5000001};
    const key_dist dists[] = {DIST_EQUAL, DIST_UNIFORM};
    s07_copy_blocks(1);
    for (int s = 0; s < 2; s++)
        for (int d = 0; d < 2; d++) {
            if (test_small && s == 1)
                continue;
            sort_options opt = options(8, 512, 16);
            size_t n = sizes[s];
            uint32_t *keys = alloc_u32(n);
            make_keys(keys, n, dists[d], 17 + n);
            char label[96];
            snprintf(label, sizeof label, "lane copies on the least grid: n=%zu dist=%s", n,
                     dist_name(dists[d]));
            check_histogram(label, &opt, keys, n, 7);
            free(keys);
        }
    s07_copy_blocks(0);
}
#endif

#if STEP >= 13
/* ---- one look-back table, its words flipped every other pass (07.13) ------------------ */

/* After a sort every word of the one table is the prefix the last pass that ran left: its
 * flag PREFIX, bit 31 flipped where that pass ran after an odd number of others.  Keys that
 * run 4 passes, 2 (bits 16-31 the same for every key) and 1 (only the low byte differs): a
 * step that never flips, or always does, leaves the wrong flag on one of them; and every
 * battery sorts with passes that read the words the pass before left. */
static void test_flipped_words(void)
{
    const size_t n = 100003;
    uint32_t *keys = alloc_u32(n);
    for (int c = 0; c < 3; c++) {
        uint64_t state = 19 + (uint64_t)c;
        for (size_t i = 0; i < n; i++) {
            uint32_t r = (uint32_t)rng_next(&state);
            keys[i] = c == 0 ? r : c == 1 ? 0xABCD0000u | (r & 0xFFFFu) : 0x12345600u | (r & 0xFFu);
        }
        sort_options opt = options(8, 512, 16);
        size_t tiles = (n + 8191) / 8192, words = tiles * 256;
        uint32_t *table = alloc_u32(words);
        fill_garbage(table, words, 3);
        int runs = s07_last_table(keys, n, &opt, table);
        const int want_runs[] = {4, 2, 1};
        CHECK_MSG(runs == want_runs[c], "flipped words: keys of %d passes ran %d", want_runs[c], runs);
        uint32_t want = runs % 2 ? S07_PREFIX : 0; /* PREFIX, bit 31 flipped where runs is even */
        size_t bad = words;
        for (size_t w = 0; w < words && bad == words; w++)
            if ((table[w] & (S07_AGGREGATE | S07_PREFIX)) != want)
                bad = w;
        CHECK_MSG(bad == words, "flipped words: %d passes ran: word %zu (tile %zu, digit %zu) is "
                  "0x%08x, its flag should be 0x%08x", runs, bad, bad / 256, bad % 256,
                  bad < words ? table[bad] : 0, want);
        free(table);
    }
    free(keys);
}
#endif

#if STEP >= 16
/* ---- pairs in wide tiles, 512 x 24 (07.16) ------------------------------------------------- */

/* Pairs at the default shape run tiles of 512 x 24 exactly where the GPU holds two of their
 * blocks a multiprocessor - by the occupancy calculator's count, not by the step's own rule;
 * keys alone and any other shape never do.  Then pairs on sizes about that tile: one short
 * of it, one tile, one over, and a partial tile after seven, of spread, crowded and equal
 * keys (every battery and test_pairs_every_distribution sort pairs too). */
static void test_pair_tiles(void)
{
    sort_options opt = STAGE.defaults;
    opt.pairs = 1;
    int blocks = 0, wide = s07_wide_pairs(&opt, &blocks);
    CHECK_MSG(wide == (blocks >= 2), "pairs at the default shape: tiles of 512 x 24 %s, and the "
              "GPU holds %d of their blocks a multiprocessor", wide ? "chosen" : "not chosen",
              blocks);
    if (!wide)
        printf("  test_pair_tiles: this GPU holds %d blocks of 512 x 24 pairs a multiprocessor, "
               "not 2: its pairs keep tiles of 512 x 16\n", blocks);
    sort_options narrower = opt, keys_alone = STAGE.defaults;
    narrower.kpt = 15;
    int unused = 0;
    CHECK_MSG(s07_wide_pairs(&narrower, &unused) == 0, "pairs at --kpt 15: tiles of 512 x 24");
    CHECK_MSG(s07_wide_pairs(&keys_alone, &unused) == 0, "keys alone: tiles of 512 x 24");
    const size_t tile = 512 * 24, sizes[] = {tile - 1, tile, tile + 1, 7 * tile + 4097};
    const key_dist dists[] = {DIST_UNIFORM, DIST_FEW, DIST_EQUAL};
    char label[96];
    for (int s = 0; s < 4; s++)
        for (int d = 0; d < 3; d++) {
            snprintf(label, sizeof label, "pairs in wide tiles: n=%zu --dist %s", sizes[s],
                     dist_name(dists[d]));
            check_made(label, &opt, sizes[s], dists[d], 20 + (uint64_t)(s * 3 + d), 1);
        }
}
#endif

#if STEP >= 16
/* ---- values loaded as their keys are ranked (07.16) ---------------------------------------- */

/* Tiles of 512 x 24 load each value as its key is ranked and write each place's key and
 * value in one loop; the kernel whose slots stay in registers keeps 07.15's order, beside
 * the same code.  Pairs at the default shape (the wide tiles, where they fit), at --kpt 15
 * and --block 256 (slots in registers), and at --bits 7 (a last pass
 * of 4 bits: the wide kernel's digit width comes from the launch), on sizes about each
 * shape's tile - one short, one over, a partial tile after five - of spread and crowded
 * keys: a value that took another key's place, or none, breaks the order. */
static void test_values_early(void)
{
    const int shapes[][3] = {{8, 512, 16}, {8, 512, 15}, {8, 256, 16}, {7, 512, 16}};
    const key_dist dists[] = {DIST_UNIFORM, DIST_FEW};
    char label[128];
    for (int h = 0; h < 4; h++) {
        sort_options opt = options(shapes[h][0], shapes[h][1], shapes[h][2]);
        opt.pairs = 1;
        int unused = 0, wide = s07_wide_pairs(&opt, &unused);
        const size_t tile = (size_t)opt.block * (wide ? 24 : opt.kpt);
        const size_t sizes[] = {tile - 1, tile + 1, 5 * tile + 333};
        for (int s = 0; s < 3; s++)
            for (int d = 0; d < 2; d++) {
                snprintf(label, sizeof label,
                         "pairs --bits %d --block %d --kpt %d (tiles of %zu): n=%zu --dist %s",
                         opt.bits, opt.block, opt.kpt, tile, sizes[s], dist_name(dists[d]));
                check_made(label, &opt, sizes[s], dists[d], 40 + (uint64_t)(h * 6 + s * 2 + d), 1);
            }
    }
}
#endif

#if STEP >= 17
/* ---- digits spread over the banks (07.17) ------------------------------------------------- */

/* bin_of is a permutation of the digits of every width, 1 to 8 bits; the eight digits that
 * differ only in their top three bits (0, 32, ..., 224, and each such group) get eight banks
 * for their lane-mask words (bin % 32) and eight for their counters' words (bin / 2 % 32).
 * Then keys with few 1 bits (and2, whose digits crowd those groups), alone and as pairs, on
 * sizes about a tile of the default shape: a digit counted in one bin and ranked from
 * another breaks the order. */
static int banks_of_top_bit_groups(int counter_words)
{
    int worst = 32;
    for (uint32_t low = 0; low < 32; low++) {
        uint32_t banks = 0;
        for (uint32_t top = 0; top < 8; top++) {
            uint32_t bin = s07_bin_of(top << 5 | low);
            banks |= 1u << ((counter_words ? bin / 2 : bin) % 32);
        }
        int used = 0;
        for (; banks; banks &= banks - 1)
            used++;
        worst = used < worst ? used : worst;
    }
    return worst;
}

static void test_spread_bins(void)
{
    for (int width = 1; width <= 8; width++) {
        const uint32_t bins = 1u << width;
        unsigned char seen[256] = {0};
        uint32_t outside = 0, twice = 0;
        for (uint32_t d = 0; d < bins; d++) {
            uint32_t bin = s07_bin_of(d);
            if (bin >= bins)
                outside++;
            else if (seen[bin]++)
                twice++;
        }
        CHECK_MSG(outside == 0 && twice == 0, "bin_of at %d bits: %u digits sent past the last "
                  "bin, %u bins taken twice (a permutation of the %u digits has none)", width,
                  outside, twice, bins);
    }
    int masks = banks_of_top_bit_groups(0), counters = banks_of_top_bit_groups(1);
    CHECK_MSG(masks == 8, "eight digits that differ in their top three bits alone: their lane "
              "masks' words in as few as %d banks, not 8", masks);
    CHECK_MSG(counters == 8, "eight digits that differ in their top three bits alone: their "
              "counters' words in as few as %d banks, not 8", counters);
    sort_options opt = STAGE.defaults;
    const size_t tile = (size_t)opt.block * opt.kpt, sizes[] = {tile - 1, 9 * tile + 513};
    char label[96];
    for (int pairs = 0; pairs <= 1; pairs++)
        for (int s = 0; s < 2; s++) {
            snprintf(label, sizeof label, "%s of and2 keys: n=%zu", pairs ? "pairs" : "keys",
                     sizes[s]);
            check_made(label, &opt, sizes[s], DIST_AND2, 60 + (uint64_t)(pairs * 2 + s), pairs);
        }
}
#endif

#if STEP >= 11
/* ---- whole tiles of keys loaded without a bound check (07.11) ------------------------------ */

/* A pass of keys alone loads a tile that ends at or before n with plain loads, and checks
 * each key only in a tile that reaches past n.  Keys at the default shape (its kernel of
 * constants), at --kpt 15 and at --bits 6 (the general kernel), on sizes where the last
 * tile is whole (one tile, three) and where it is not (one short of a tile, three and one
 * key): a whole tile taken for a partial one only costs time, a partial one taken for
 * whole reads past the end and ranks what it finds there among the keys. */
static void test_whole_tiles(void)
{
    const int shapes[][3] = {{8, 512, 16}, {8, 512, 15}, {6, 512, 16}};
    const key_dist dists[] = {DIST_UNIFORM, DIST_FEW};
    char label[128];
    for (int h = 0; h < 3; h++) {
        sort_options opt = options(shapes[h][0], shapes[h][1], shapes[h][2]);
        const size_t tile = (size_t)opt.block * opt.kpt;
        const size_t sizes[] = {tile, 3 * tile, tile - 1, 3 * tile + 1};
        for (int s = 0; s < 4; s++)
            for (int d = 0; d < 2; d++) {
                snprintf(label, sizeof label, "keys --bits %d --kpt %d: n=%zu (%s) --dist %s",
                         opt.bits, opt.kpt, sizes[s], s < 2 ? "whole tiles" : "a partial tile",
                         dist_name(dists[d]));
                check_made(label, &opt, sizes[s], dists[d], 60 + (uint64_t)(h * 8 + s * 2 + d), 0);
            }
    }
}
#endif

#if STEP >= 14
/* ---- the histogram's counters a half a pass (07.14) ------------------------------------ */

/* Passes 0 and 1 count in the low and high halves of one row of a copy's words, passes 2
 * and 3 in the next row.  Keys whose four bytes follow four different laws - byte 0
 * uniform, byte 1 one of two values, byte 2 the same in every key, byte 3 byte 0 mirrored
 * (255 - byte 0) - so that no pass's counts look like another's: a digit counted in the
 * other half, in the other row or at the old counter p * 256 + digit lands on counts that
 * differ.  On the least grid (byte 2's one digit brings a lane's half near its 2^16
 * bound), on the GPU's grid, and on fewer keys than a warp has lanes, against the CPU. */
static void test_pass_halves(void)
{
    const size_t sizes[] = {(1u << 22) + 3, 1000003, 5};
    const int least_grid[] = {1, 0, 0};
    for (int s = 0; s < 3; s++) {
        sort_options opt = options(8, 512, 16);
        size_t n = sizes[s];
        uint32_t *keys = alloc_u32(n);
        uint64_t state = 23 + n;
        for (size_t i = 0; i < n; i++) {
            uint64_t x = rng_next(&state);
            uint32_t low = (uint32_t)(x >> 56), second = (x >> 40) & 1 ? 0x5Au : 0xA5u;
            keys[i] = low | second << 8 | 0x3Cu << 16 | (255u - low) << 24;
        }
        s07_copy_blocks(least_grid[s]);
        char label[64];
        snprintf(label, sizeof label, "halves a pass, %s grid: n=%zu",
                 least_grid[s] ? "the least" : "the GPU's", n);
        check_histogram(label, &opt, keys, n, 9);
        free(keys);
    }
    s07_copy_blocks(0);
}
#endif

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    TEST_GROUP(test_option_checks);
    TEST_GROUP(test_bytes_model);
#if STEP >= 11
    TEST_GROUP(test_shape_constants); /* which kernel: no GPU needed */
#endif
    REQUIRE_GPU();
    TEST_GROUP(test_histogram);
    TEST_GROUP(test_first_pass);
    TEST_GROUP(test_slow_tiles);
#if STEP >= 10
    TEST_GROUP(test_residency);
#endif
#if STEP >= 11
    TEST_GROUP(test_whole_tiles);
#endif
#if STEP >= 12
    TEST_GROUP(test_rank_warp);
#endif
#if STEP >= 13
    TEST_GROUP(test_first_table_cleared);
    TEST_GROUP(test_flipped_words);
#endif
#if STEP >= 14
    TEST_GROUP(test_lane_copies);
    TEST_GROUP(test_pass_halves);
#endif
#if STEP >= 15
    TEST_GROUP(test_crowded_passes);
    TEST_GROUP(test_count_ranks);
#endif
#if STEP >= 16
    TEST_GROUP(test_pair_tiles);
    TEST_GROUP(test_values_early);
#endif
#if STEP >= 17
    TEST_GROUP(test_spread_bins);
#endif
#if STEP >= 2
    TEST_GROUP(test_skipping);
#endif
    test_sorts(); /* batteries: a group each */
#if STEP >= 7
    test_types_orders_ranges(); /* a group for each type and order */
#endif
#if STEP >= 9
    TEST_GROUP(test_pairs_every_distribution);
#endif
    char name[64];
    snprintf(name, sizeof name, "test_07_onesweep_%d", STEP);
    return check_summary(name);
}
