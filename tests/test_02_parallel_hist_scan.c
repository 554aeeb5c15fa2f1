/*
 * test_02_parallel_hist_scan.c - a step of stage 02 (STEP, 1 to 3: the Makefile
 * builds test_02_parallel_hist_scan_K from this file for each step): the
 * step's building blocks against CPU versions at awkward sizes - every
 * histogram kernel (02.1, 02.2), every scan (02.2, 02.3), the [digit][block]
 * table and the scatter a thread a block (02.3) - then the sort battery for
 * each of the step's choices x digit width.  GPU.
 */
#define _POSIX_C_SOURCE 200809L /* check.h: alarm, sigaction */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../02_parallel_hist_scan/radix_sort.h"
#include "check.h"
#include "keys.h"
#include "options.h"
#include "sort_battery.h"
#include "sort_stage.h"
#include "scan_check.h"
#include "test_util.h"

#if STEP <= 2
static void test_histograms(void)
{
    const int block = 256;
    uint32_t hist[256], expect[256];
    int threads = s02_histogram(NULL, 0, 0, 4, 3, block, hist); /* one grid-stride sweep */
    CHECK(threads > 0);
    const size_t sizes[] = {1, block - 1, block, block + 1, 100 * block + 7, 1000003,
                            (size_t)threads * 3 + 5};
    size_t count = sizeof sizes / sizeof sizes[0];
    const int widths[] = {1, 4, 8};
    for (int variant = 1; variant <= 3; variant++) {
        for (size_t s = 0; s < count; s++) {
            size_t n = sizes[s];
            if (test_small && n > 5000)
                continue;
            uint32_t *keys = alloc_u32(n);
            make_keys(keys, n, s % 2 ? DIST_UNIFORM : DIST_FEW, n);
            for (int w = 0; w < 3; w++) {
                int width = widths[w], shift = 32 - width - (int)(s % 3);
                uint32_t mask = (1u << width) - 1;
                memset(expect, 0, sizeof expect);
                for (size_t i = 0; i < n; i++)
                    expect[(keys[i] >> shift) & mask]++;
                fill_garbage(hist, 256, n);
                s02_histogram(keys, n, shift, width, variant, block, hist);
                CHECK_MSG(memcmp(hist, expect, (mask + 1) * sizeof(uint32_t)) == 0,
                          "histogram %d, n=%zu, width=%d: counts differ from the CPU's", variant,
                          n, width);
            }
            free(keys);
        }
    }
    /* the empty input: every count zero (the buffer starts as garbage) */
    s02_histogram(NULL, 0, 0, 8, 3, block, hist);
    int zeros = 1;
    for (int d = 0; d < 256; d++)
        zeros &= hist[d] == 0;
    CHECK_MSG(zeros, "the histogram of no keys is not all zeros");
}

#endif

#if STEP == 3
/* The table: block b's count of digit d at [d * blocks + b]. */
static void test_block_histograms(void)
{
    const int blocks[] = {32, 256, 1024};
    const int widths[] = {1, 6, 8};
    for (int b = 0; b < 3; b++)
        for (int w = 0; w < 3; w++) {
            size_t block = (size_t)blocks[b], n = 7 * block + 5 + (size_t)w;
            size_t nblocks = (n + block - 1) / block, bins = (size_t)1 << widths[w];
            int shift = 32 - widths[w] - w;
            uint32_t *keys = alloc_u32(n), *got = alloc_u32(bins * nblocks);
            uint32_t *expect = alloc_u32(bins * nblocks);
            make_keys(keys, n, w == 1 ? DIST_FEW : DIST_UNIFORM, n);
            memset(expect, 0, bins * nblocks * sizeof(uint32_t));
            for (size_t i = 0; i < n; i++)
                expect[((keys[i] >> shift) & (bins - 1)) * nblocks + i / block]++;
            fill_garbage(got, bins * nblocks, 9);
            s02_block_histograms(keys, n, shift, widths[w], blocks[b], got);
            CHECK_MSG(memcmp(got, expect, bins * nblocks * sizeof(uint32_t)) == 0,
                      "block histograms, block %d, width %d, n=%zu: the table differs", blocks[b],
                      widths[w], n);
            free(keys);
            free(got);
            free(expect);
        }
}

/* The scatter a thread a block, on a table scanned on the CPU, against the
 * CPU's walk of the blocks: the same keys in the same places (stable). */
static void test_block_scatter(void)
{
    const int blocks[] = {32, 256, 1024};
    const int widths[] = {1, 6, 8};
    for (int b = 0; b < 3; b++)
        for (int w = 0; w < 3; w++) {
            size_t block = (size_t)blocks[b], n = 37 * block + 11 + (size_t)w;
            if (test_small && n > 5000)
                n = 5 * block + 3;
            size_t nblocks = (n + block - 1) / block, bins = (size_t)1 << widths[w];
            int shift = 32 - widths[w] - w;
            uint32_t *keys = alloc_u32(n), *table = alloc_u32(bins * nblocks);
            uint32_t *got = alloc_u32(n), *expect = alloc_u32(n);
            make_keys(keys, n, w == 1 ? DIST_FEW : DIST_UNIFORM, n + 1);
            memset(table, 0, bins * nblocks * sizeof(uint32_t));
            for (size_t i = 0; i < n; i++)
                table[((keys[i] >> shift) & (bins - 1)) * nblocks + i / block]++;
            uint32_t running = 0;
            for (size_t e = 0; e < bins * nblocks; e++) {
                uint32_t count = table[e];
                table[e] = running;
                running += count;
            }
            fill_garbage(got, n, 11);
            s02_block_scatter(keys, got, n, shift, widths[w], blocks[b], table);
            for (size_t i = 0; i < n; i++) /* the CPU's walk: table used up as keys land */
                expect[table[((keys[i] >> shift) & (bins - 1)) * nblocks + i / block]++] = keys[i];
            CHECK_MSG(memcmp(got, expect, n * sizeof(uint32_t)) == 0,
                      "block scatter, block %d, width %d, n=%zu: the keys differ from the CPU's",
                      blocks[b], widths[w], n);
            free(keys);
            free(table);
            free(got);
            free(expect);
        }
}
#endif

#if STEP >= 2
static void test_scans(void)
{
    const int blocks[] = {32, 64, 256, 1024};
    for (int variant = SCAN_HILLIS_STEELE; variant <= SCAN_BLELLOCH; variant++) {
        for (int b = 0; b < 4; b++) {
            size_t tile = (size_t)blocks[b] * (variant == SCAN_BLELLOCH ? 2 : 1);
            const size_t sizes[] = {1, 2, tile - 1, tile, tile + 1, 5 * tile + 3,
                                    tile * tile - 1, tile * tile + 1, 3 * tile * tile + 17,
                                    1000003};
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                size_t n = sizes[s];
                if (test_small && n > 5000)
                    continue;
                size_t bad = scan_hook_first_error(s02_exclusive_scan, n, variant, blocks[b], 0xFFF);
                CHECK_MSG(bad == n, "scan %d block %d n=%zu: wrong at index %zu", variant,
                          blocks[b], n, bad);
            }
        }
    }
}

/* Not a check: the scan variants' time on 2^24 values, for the README. */
static void time_scans(void)
{
    size_t n = (size_t)1 << 24;
    uint32_t *in = alloc_u32(n), *out = alloc_u32(n);
    make_keys(in, n, DIST_UNIFORM, 5);
    for (size_t i = 0; i < n; i++)
        in[i] &= 1;
    for (int variant = SCAN_HILLIS_STEELE; variant <= SCAN_BLELLOCH; variant++) {
        for (int block = 128; block <= 1024; block *= 2) {
            s02_exclusive_scan(in, out, n, variant, block); /* warm-up */
            double best = 1e30;
            for (int r = 0; r < 5; r++) {
                double ms = s02_exclusive_scan(in, out, n, variant, block);
                best = ms < best ? ms : best;
            }
            printf("info: scan of 2^24 values, %s, block %4d: %.3f ms (best of 5)\n",
                   variant == SCAN_BLELLOCH ? "blelloch     " : "hillis-steele", block, best);
        }
    }
    free(in);
    free(out);
}
#endif

static void battery(sort_options opt, enum battery_depth depth)
{
    char label[96];
    snprintf(label, sizeof label, "hist=%d scan=%d bits=%d block=%d", opt.hist_variant,
             opt.scan_variant, opt.bits, opt.block);
    if (!test_group(label))
        return;
    opt.poison = test_poison;
    battery_result r = run_sort_battery(label, &opt, (size_t)opt.block, depth, test_scale());
    CHECK_MSG(r.failures == 0, "%s: %d of %d sorts failed", label, r.failures, r.sorts);
}

/* The full battery on the defaults; every choice of the step x digit width on
 * the quick one: 02.1 every histogram kernel, 02.2 every kernel x scan, 02.3
 * every scan x block size.  Under the sanitizer (--small): 4 bits, and widths
 * 1 and 8 on the defaults. */
static void test_sorts(void)
{
    sort_options opt = STAGE.defaults;
    battery(opt, BATTERY_SWEEP);
#if STEP <= 2
    const int kernels = 3, scans = STEP == 1 ? 1 : 2, blocks = 1;
#else
    const int kernels = 1, scans = 2, blocks = 3;
#endif
    for (int hist = 1; hist <= kernels; hist++)
        for (int scan = 1; scan <= scans; scan++)
            for (int b = 0; b < blocks; b++)
                for (int bits = 1; bits <= 8; bits++) {
                    opt = STAGE.defaults;
                    if (kernels > 1)
                        opt.hist_variant = hist;
                    if (scans > 1)
                        opt.scan_variant = scan == 1 ? SCAN_HILLIS_STEELE : SCAN_BLELLOCH;
                    if (blocks > 1)
                        opt.block = 32 << (2 * b); /* 32, 128, 512 */
                    int is_default = opt.hist_variant == STAGE.defaults.hist_variant &&
                                     opt.scan_variant == STAGE.defaults.scan_variant &&
                                     opt.block == STAGE.defaults.block;
                    if (test_small && bits != 4 && !(is_default && (bits == 1 || bits == 8)))
                        continue;
                    battery(opt, STEP == 3 && bits == 6 && b == 1 ? BATTERY_SIZES : BATTERY_QUICK);
                }
}

static void test_option_checks(void)
{
    char err[512];
    sort_options opt = STAGE.defaults;
    opt.bits = 9;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 && strstr(err, "accepts 1..8"));
    opt = STAGE.defaults;
    opt.block = 100;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 && strstr(err, "powers of two"));
#if STEP >= 2
    opt = STAGE.defaults;
    opt.scan_block = 2048;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 && strstr(err, "--scan-block"));
#endif
#if STEP == 3
    opt = STAGE.defaults; /* 2^8 x 2^26 counters: past the table's limit */
    opt.bits = 8;
    opt.block = 32;
    CHECK(stage_check_options(&opt, (size_t)1 << 31, err, sizeof err) != 0 && strstr(err, "table"));
#endif
    opt = STAGE.defaults;
    opt.block = 16;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0);
    size_t bytes = stage_device_bytes(&STAGE.defaults, (size_t)1 << 31);
    CHECK(gpu_require_memory(bytes, "2^31 keys", err, sizeof err) == 0 || strstr(err, "GPU memory"));
}

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    REQUIRE_GPU();
    TEST_GROUP(test_option_checks);
#if STEP <= 2
    TEST_GROUP(test_histograms);
#endif
#if STEP == 3
    TEST_GROUP(test_block_histograms);
    TEST_GROUP(test_block_scatter);
#endif
#if STEP >= 2
    TEST_GROUP(test_scans);
    if (!test_small && STEP == 2)
        TEST_GROUP(time_scans);
#endif
    test_sorts(); /* batteries: a group each */
    char name[64];
    snprintf(name, sizeof name, "test_02_parallel_hist_scan_%d", STEP);
    return check_summary(name);
}
