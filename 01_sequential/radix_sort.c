/*
 * 01_sequential/radix_sort.c - LSD radix sort on the CPU, the starting point.
 *
 * What this stage is (the whole story, with a worked example: README.md)
 *   A least-significant-digit radix sort of 32-bit keys, sequential, in plain C:
 *   the reference every later stage is checked against and the time it must
 *   beat.  Each key is cut into k-bit digits (--bits k); ceil(32 / k) passes sort
 *   by one digit each, lowest first.  Each pass is stable, so the last one leaves
 *   the keys sorted by all their digits.
 *
 * Steps of one pass
 *   1. histogram: count the keys of each digit value (2^k counters);
 *   2. scan:      exclusive prefix sum of the counts: each digit's first slot;
 *   3. scatter:   walk the keys in order, each to the next free slot of its digit.
 *   --mode blocked: the same with one histogram per block of --block keys, kept
 *   as a [digit][block] table and scanned once: the layout stage 04 runs on a GPU.
 *
 * Run:  build/bin/01_sequential --bits 4 --verbose
 *       build/bin/01_sequential --mode blocked --bits 4 --block 256
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort_stage.h"
#include "timer.h"

enum { STEP_HISTOGRAM, STEP_SCAN, STEP_SCATTER };

/* The [digit][block] table of blocked mode may not grow past this many counters. */
#define MAX_TABLE_ENTRIES ((size_t)1 << 27)

const stage_info STAGE = {
    .name = "01_sequential",
    .title = "LSD radix sort on the CPU: histogram -> exclusive scan -> scatter",
    .needs_gpu = 0,
    .nsteps = 3,
    .step_name = {"histogram", "scan", "scatter"},
    .uses = USES_BITS | USES_MODE | USES_BLOCK,
    .defaults = {.bits = 6, .block = 256, .mode = MODE_PLAIN},
    .range = {.bits = {1, 16}, .block = {1, 1 << 24}},
};

static size_t blocks_for(size_t n, int block) { return (n + (size_t)block - 1) / (size_t)block; }

int stage_check_options(const sort_options *opt, size_t n, char *err, size_t errlen)
{
    if (opt->mode == MODE_BLOCKED) {
        size_t entries = ((size_t)1 << opt->bits) * blocks_for(n, opt->block);
        if (entries > MAX_TABLE_ENTRIES) {
            snprintf(err, errlen,
                     "blocked mode with --bits %d and --block %d needs a [digit][block] table of "
                     "%zu counters (at most %zu): use a larger --block or fewer bits",
                     opt->bits, opt->block, entries, MAX_TABLE_ENTRIES);
            return -1;
        }
    }
    return 0;
}

size_t stage_device_bytes(const sort_options *opt, size_t n)
{
    (void)opt;
    (void)n;
    return 0; /* a CPU stage */
}

double stage_step_bytes(const sort_options *opt, size_t n, int step)
{
    (void)opt;
    (void)n;
    (void)step;
    return 0; /* no device memory moved */
}

/* ---- plain mode: one histogram for the whole array ------------------------ */

static void histogram(const uint32_t *src, size_t n, int shift, uint32_t mask, uint32_t *count,
                      size_t nbins)
{
    memset(count, 0, nbins * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[(src[i] >> shift) & mask]++;
}

/* In place: count[i] becomes the sum of count[0 .. i-1]. */
static void exclusive_scan(uint32_t *count, size_t len)
{
    uint32_t running = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t c = count[i];
        count[i] = running;
        running += c;
    }
}

/* offset[d] is the next free output slot for digit d; it is used up as keys land. */
static void scatter(const uint32_t *src, uint32_t *dst, size_t n, int shift, uint32_t mask,
                    uint32_t *offset)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t key = src[i];
        dst[offset[(key >> shift) & mask]++] = key;
    }
}

/* ---- blocked mode: one histogram per block, stored [digit][block] --------- */

static void block_histograms(const uint32_t *src, size_t n, int shift, uint32_t mask, int block,
                             size_t nblocks, uint32_t *table)
{
    memset(table, 0, ((size_t)mask + 1) * nblocks * sizeof *table);
    for (size_t b = 0; b < nblocks; b++) {
        size_t end = (b + 1) * (size_t)block < n ? (b + 1) * (size_t)block : n;
        for (size_t i = b * (size_t)block; i < end; i++)
            table[((src[i] >> shift) & mask) * nblocks + b]++;
    }
}

/* Block b's keys of digit d start at the scanned table[d * nblocks + b]. */
static void block_scatter(const uint32_t *src, uint32_t *dst, size_t n, int shift, uint32_t mask,
                          int block, size_t nblocks, uint32_t *table)
{
    for (size_t b = 0; b < nblocks; b++) {
        size_t end = (b + 1) * (size_t)block < n ? (b + 1) * (size_t)block : n;
        for (size_t i = b * (size_t)block; i < end; i++) {
            uint32_t key = src[i];
            dst[table[((key >> shift) & mask) * nblocks + b]++] = key;
        }
    }
}

/* ---- one pass, in either mode --------------------------------------------- */

static void sort_pass(const uint32_t *src, uint32_t *dst, size_t n, int shift, int width,
                      const sort_options *opt, uint32_t *table, double step_ms[3])
{
    uint32_t mask = (1u << width) - 1;
    size_t nbins = (size_t)mask + 1;
    size_t nblocks = opt->mode == MODE_BLOCKED ? blocks_for(n, opt->block) : 1;

    double t0 = host_time_ms();
    if (opt->mode == MODE_BLOCKED)
        block_histograms(src, n, shift, mask, opt->block, nblocks, table);
    else
        histogram(src, n, shift, mask, table, nbins);
    double t1 = host_time_ms();
    exclusive_scan(table, nbins * nblocks);
    double t2 = host_time_ms();
    if (opt->mode == MODE_BLOCKED)
        block_scatter(src, dst, n, shift, mask, opt->block, nblocks, table);
    else
        scatter(src, dst, n, shift, mask, table);
    double t3 = host_time_ms();

    step_ms[STEP_HISTOGRAM] = t1 - t0;
    step_ms[STEP_SCAN] = t2 - t1;
    step_ms[STEP_SCATTER] = t3 - t2;
}

int stage_sort(const uint32_t *keys_in, uint32_t *keys_out, size_t n, const sort_options *opt,
               sort_report *rep, char *err, size_t errlen)
{
    int passes = passes_for_bits(opt->bits);
    report_clear(rep, passes);

    double t0 = host_time_ms();
    size_t nblocks = opt->mode == MODE_BLOCKED ? blocks_for(n, opt->block) : 1;
    size_t table_len = ((size_t)1 << opt->bits) * (nblocks ? nblocks : 1);
    uint32_t *table = malloc(table_len * sizeof *table);
    uint32_t *buffer = malloc((n ? n : 1) * sizeof *buffer);
    if (!table || !buffer) {
        free(table);
        free(buffer);
        snprintf(err, errlen, "not enough host memory to sort %zu keys", n);
        return -1;
    }
    memcpy(keys_out, keys_in, n * sizeof *keys_out);
    rep->setup_ms = host_time_ms() - t0;

    uint32_t *src = keys_out, *dst = buffer;
    for (int pass = 0; pass < passes; pass++) {
        sort_pass(src, dst, n, pass * opt->bits, bits_in_pass(opt->bits, pass), opt, table,
                  rep->pass_ms[pass]);
        uint32_t *t = src;
        src = dst;
        dst = t;
    }

    t0 = host_time_ms();
    if (src != keys_out)
        memcpy(keys_out, src, n * sizeof *keys_out);
    free(buffer);
    free(table);
    rep->setup_ms += host_time_ms() - t0;
    return 0;
}
