/*
 * 01_sequential/radix_sort.c - LSD radix sort on the CPU, the starting point.
 *
 * What this stage is
 *   The whole course sorts 32-bit keys with a least-significant-digit (LSD)
 *   radix sort.  This stage does it sequentially, in plain C, so that every
 *   later stage has a reference for its steps and a time to beat.  Nothing here
 *   is parallel yet; what matters is the shape of one pass, because the GPU
 *   stages keep that shape and parallelise its steps one by one.
 *
 * The algorithm (plain mode, --mode plain)
 *   Split each key into digits of k bits (--bits k).  For each digit, from the
 *   least significant to the most significant, do one pass of three steps:
 *     1. histogram: count how many keys have each digit value (2^k counters);
 *     2. scan:      an exclusive prefix sum of the counts gives, for each digit
 *                   value, the first output position of the keys with that digit;
 *     3. scatter:   walk the keys in order and put each one at the next free
 *                   position of its digit.
 *   The scatter walks the keys in order, so keys with equal digits keep their
 *   relative order: each pass is STABLE, which is why sorting by the low digit
 *   first and the high digit last leaves the keys sorted by all of them.
 *   The keys move between two buffers, one pass into the other ("ping-pong").
 *
 * Worked example: k = 2 bits, keys written in base 4 (each base-4 digit is 2 bits)
 *   input                  31  12  23  11  32  21
 *   pass 1, low digit:     1   2   3   1   2   1
 *     histogram            digit 0:0  1:3  2:2  3:1
 *     exclusive scan       digit 0:0  1:0  2:3  3:5   (first slot of each digit)
 *     scatter              31  11  21  12  32  23     (31, 11, 21 keep their order)
 *   pass 2, high digit:    3   1   2   1   3   2
 *     histogram            digit 0:0  1:2  2:2  3:2
 *     exclusive scan       digit 0:0  1:0  2:2  3:4
 *     scatter              11  12  21  23  31  32     sorted
 *   32-bit keys need ceil(32 / k) passes; when k does not divide 32 (k = 11) the
 *   last pass sorts by the bits that remain.
 *
 * Blocked mode (--mode blocked): the data layout of Satish, Harris & Garland
 *   The paper the GPU stages follow cuts the keys into blocks of B keys
 *   (--block B) and changes the three steps so that blocks could work apart:
 *     1. each block counts its own digits, and the counts are stored as a table
 *        hist[digit * numBlocks + block] - column after column, one column per
 *        digit value, blocks in order inside a column;
 *     2. ONE exclusive scan over the whole table: the entry of (digit, block)
 *        becomes the number of keys that go before that block's keys of that
 *        digit - all keys with a smaller digit, plus the keys with the same digit
 *        in earlier blocks;
 *     3. each block scatters its keys from its own offsets.
 *   Done sequentially this is slower than plain mode (the table is numBlocks
 *   times larger than the plain histogram), but it is exactly what stage 04
 *   parallelises: one GPU thread block per block of keys.  The course reports
 *   timed this sequential version too (report 001, "baseline04 v1").
 *
 * Timing: each step is timed with the monotonic clock and summed over passes;
 * copying the input into the work buffer and the result out is "setup".
 *
 * Run:  build/bin/01_sequential                 (defaults: 2^24+1 uniform keys, 6-bit digits)
 *       build/bin/01_sequential --bits 4 --mode blocked --block 256 --verbose
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
