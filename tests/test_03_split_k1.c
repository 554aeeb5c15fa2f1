/*
 * test_03_split_k1.c - one split pass against a CPU stable split (equal bits
 * must keep their order), the carried-forward scan, then the sort battery for
 * each scan variant and block size.  GPU.
 */
#define _POSIX_C_SOURCE 200809L /* check.h: alarm, sigaction */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../03_split_k1/radix_sort.h"
#include "check.h"
#include "keys.h"
#include "options.h"
#include "sort_battery.h"
#include "sort_stage.h"
#include "scan_check.h"
#include "test_util.h"

/* The stable split on the CPU: zeros in order, then ones in order. */
static void cpu_split(const uint32_t *keys, uint32_t *out, size_t n, int bit)
{
    size_t k = 0;
    for (int want = 0; want <= 1; want++)
        for (size_t i = 0; i < n; i++)
            if ((int)((keys[i] >> bit) & 1u) == want)
                out[k++] = keys[i];
}

static void test_split(void)
{
    const int blocks[] = {32, 256, 1024};
    const key_dist dists[] = {DIST_UNIFORM, DIST_EQUAL, DIST_HIGH, DIST_FEW};
    const int bits[] = {0, 5, 31};
    for (int variant = SCAN_HILLIS_STEELE; variant <= SCAN_BLELLOCH; variant++) {
        for (int b = 0; b < 3; b++) {
            size_t tile = (size_t)blocks[b] * (variant == SCAN_BLELLOCH ? 2 : 1);
            const size_t sizes[] = {1, 2, tile - 1, tile, tile + 1, 37 * tile + 3, 1000003};
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                size_t n = sizes[s];
                if ((test_small && n > 5000) || (test_tiny && n != tile + 1))
                    continue; /* --tiny: a tile and one key, random keys, bit 5 */
                uint32_t *keys = alloc_u32(n), *out = alloc_u32(n), *expect = alloc_u32(n);
                for (int d = 0; d < (test_tiny ? 1 : 4); d++) {
                    make_keys(keys, n, dists[d], n + (size_t)d);
                    for (int k = test_tiny; k < (test_tiny ? 2 : 3); k++) {
                        cpu_split(keys, expect, n, bits[k]);
                        fill_garbage(out, n, 3);
                        s03_split(keys, out, n, bits[k], variant, blocks[b], 32);
                        size_t bad = n;
                        for (size_t i = 0; i < n && bad == n; i++)
                            if (out[i] != expect[i])
                                bad = i;
                        CHECK_MSG(bad == n,
                                  "split scan=%d block=%d n=%zu dist=%s bit=%d: index %zu got %u "
                                  "expected %u",
                                  variant, blocks[b], n, dist_name(dists[d]), bits[k], bad,
                                  bad < n ? out[bad] : 0, bad < n ? expect[bad] : 0);
                    }
                }
                free(keys);
                free(out);
                free(expect);
            }
        }
    }
}

static void test_scan(void)
{
    const size_t sizes[] = {1, 63, 64, 65, 4097, 300001};
    for (int variant = SCAN_HILLIS_STEELE; variant <= SCAN_BLELLOCH; variant++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            if (test_small && n > 5000)
                continue;
            size_t bad = scan_hook_first_error(s03_exclusive_scan, n, variant, 32, 0xFF);
            CHECK_MSG(bad == n, "scan %d n=%zu: wrong at index %zu", variant, n, bad);
        }
    }
}

static void battery(sort_options opt, enum battery_depth depth)
{
    char label[96];
    snprintf(label, sizeof label, "scan=%d block=%d scan_block=%d", opt.scan_variant, opt.block,
             opt.scan_block);
    if (!test_group(label))
        return;
    opt.poison = test_poison;
    size_t tile = (size_t)opt.block * (opt.scan_variant == SCAN_BLELLOCH ? 2 : 1);
    battery_result r = run_sort_battery(label, &opt, tile, depth, test_scale());
    CHECK_MSG(r.failures == 0, "%s: %d of %d sorts failed", label, r.failures, r.sorts);
}

/* The full battery on the defaults; each scan with every block size and two
 * scan block sizes on the quick one (under --small: blocks 32 and 1024). */
static void test_sorts(void)
{
    sort_options opt = STAGE.defaults;
    battery(opt, BATTERY_SWEEP);
    for (int scan = SCAN_HILLIS_STEELE; scan <= SCAN_BLELLOCH; scan++) {
        for (int block = 32; block <= 1024; block *= 2) {
            if (test_small && block != 32 && block != 1024)
                continue;
            opt = STAGE.defaults;
            opt.scan_variant = scan;
            opt.block = block;
            battery(opt, BATTERY_QUICK);
        }
        if (test_small)
            continue;
        for (int scan_block = 32; scan_block <= 1024; scan_block *= 32) {
            opt = STAGE.defaults;
            opt.scan_variant = scan;
            opt.block = 32; /* many tiles, so that the tile counts need several levels */
            opt.scan_block = scan_block;
            battery(opt, BATTERY_QUICK);
        }
    }
}

static void test_option_checks(void)
{
    char err[512];
    sort_options opt = STAGE.defaults;
    opt.block = 48;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 && strstr(err, "powers of two"));
    opt = STAGE.defaults;
    opt.scan_block = 2048;
    CHECK(check_sort_options(&STAGE, &opt, 100, err, sizeof err) != 0 && strstr(err, "--scan-block"));
}

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    REQUIRE_GPU();
    TEST_GROUP(test_option_checks);
    TEST_GROUP(test_scan);
    TEST_GROUP(test_split);
    test_sorts(); /* batteries: a group each */
    return check_summary("test_03_split_k1");
}
