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
 * What is sorted: u32, i32 or f32 keys (--type), as unsigned numbers in the
 * wanted order (radix_form), ascending or --descending, by all bits or by bits
 * [B, E) only; alone or with a value each (--pairs), which moves with its key.
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
    .uses = USES_BITS | USES_MODE | USES_BLOCK | USES_TYPE | USES_PAIRS | USES_DESCENDING |
            USES_BIT_RANGE,
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

/* ---- keys as unsigned numbers in the wanted order ------------------------- */

/* A radix sort orders keys as unsigned numbers, bit by bit.  i32: flipping the
 * sign bit puts the negatives (sign 1) before the positives.  f32: flipping the
 * sign bit of a positive float and every bit of a negative one orders IEEE
 * floats: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN (of two negative
 * floats the larger magnitude is the smaller number).  Descending: every bit
 * flipped, so the largest key comes first - and equal keys still keep their
 * input order, the pass being stable. */
static uint32_t radix_form(uint32_t key, int key_type, int descending)
{
    uint32_t form = key;
    if (key_type == KEY_I32)
        form = key ^ 0x80000000u;
    else if (key_type == KEY_F32)
        form = key >> 31 ? ~key : key | 0x80000000u;
    return descending ? ~form : form;
}

/* The key back from its radix form. */
static uint32_t key_of(uint32_t form, int key_type, int descending)
{
    if (descending)
        form = ~form;
    if (key_type == KEY_I32)
        return form ^ 0x80000000u;
    if (key_type == KEY_F32)
        return form >> 31 ? form & 0x7FFFFFFFu : ~form;
    return form;
}

/* u32 keys in ascending order are their own radix form: nothing to transform. */
static int keys_are_radix_forms(const sort_options *opt)
{
    return opt->key_type == KEY_U32 && !opt->descending;
}

/* The type and the order are read once, not once a key: opt could alias the keys. */
static void to_radix_forms(const uint32_t *keys, uint32_t *forms, size_t n,
                           const sort_options *opt)
{
    const int key_type = opt->key_type, descending = opt->descending;
    for (size_t i = 0; i < n; i++)
        forms[i] = radix_form(keys[i], key_type, descending);
}

static void from_radix_forms(const uint32_t *forms, uint32_t *keys, size_t n,
                             const sort_options *opt)
{
    const int key_type = opt->key_type, descending = opt->descending;
    for (size_t i = 0; i < n; i++)
        keys[i] = key_of(forms[i], key_type, descending);
}

/* ---- plain mode: one histogram for the whole array ------------------------ */

static void histogram(const uint32_t *src, size_t n, int shift, uint32_t mask, uint32_t *count,
                      size_t nbins)
{
    /* WRITE BEGIN pass: one pass's three steps - histogram, exclusive_scan and scatter, whole */
    /* LAB BEGIN histogram: count[d] = the number of keys whose digit is d, for d < nbins */
    memset(count, 0, nbins * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[(src[i] >> shift) & mask]++;
    /* LAB END histogram */
    /* WRITE END pass */
}

/* In place: count[i] becomes the sum of count[0 .. i-1]. */
static void exclusive_scan(uint32_t *count, size_t len)
{
    /* WRITE BEGIN pass: one pass's three steps - histogram, exclusive_scan and scatter, whole */
    /* LAB BEGIN scan: count[i] = the sum of count[0 .. i-1], in place */
    uint32_t running = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t c = count[i];
        count[i] = running;
        running += c;
    }
    /* LAB END scan */
    /* WRITE END pass */
}

/* offset[d] is the next free output slot for digit d; it is used up as keys land.
 * A key's value (if there are values: vsrc) lands in the same slot of vdst. */
static void scatter(const uint32_t *src, uint32_t *dst, const uint32_t *vsrc, uint32_t *vdst,
                    size_t n, int shift, uint32_t mask, uint32_t *offset)
{
    /* WRITE BEGIN pass: one pass's three steps - histogram, exclusive_scan and scatter, whole */
    /* LAB BEGIN scatter: each key, in input order, to dst[offset[its digit]++]; its value too */
    for (size_t i = 0; i < n; i++) {
        uint32_t key = src[i], slot = offset[(key >> shift) & mask]++;
        dst[slot] = key;
        if (vsrc)
            vdst[slot] = vsrc[i];
    }
    /* LAB END scatter */
    /* WRITE END pass */
}

/* ---- blocked mode: one histogram per block, stored [digit][block] --------- */

static void block_histograms(const uint32_t *src, size_t n, int shift, uint32_t mask, int block,
                             size_t nblocks, uint32_t *table)
{
    /* WRITE BEGIN blocked_pass: blocked mode's two steps - block_histograms and block_scatter */
    /* LAB BEGIN block_histograms: table[d * nblocks + b] = the keys of block b with digit d */
    memset(table, 0, ((size_t)mask + 1) * nblocks * sizeof *table);
    for (size_t b = 0; b < nblocks; b++) {
        size_t end = (b + 1) * (size_t)block < n ? (b + 1) * (size_t)block : n;
        for (size_t i = b * (size_t)block; i < end; i++)
            table[((src[i] >> shift) & mask) * nblocks + b]++;
    }
    /* LAB END block_histograms */
    /* WRITE END blocked_pass */
}

/* Block b's keys of digit d start at the scanned table[d * nblocks + b]. */
static void block_scatter(const uint32_t *src, uint32_t *dst, const uint32_t *vsrc,
                          uint32_t *vdst, size_t n, int shift, uint32_t mask, int block,
                          size_t nblocks, uint32_t *table)
{
    /* WRITE BEGIN blocked_pass: blocked mode's two steps - block_histograms and block_scatter */
    /* LAB BEGIN block_scatter: as scatter, block by block, from table[d * nblocks + b] */
    for (size_t b = 0; b < nblocks; b++) {
        size_t end = (b + 1) * (size_t)block < n ? (b + 1) * (size_t)block : n;
        for (size_t i = b * (size_t)block; i < end; i++) {
            uint32_t key = src[i], slot = table[((key >> shift) & mask) * nblocks + b]++;
            dst[slot] = key;
            if (vsrc)
                vdst[slot] = vsrc[i];
        }
    }
    /* LAB END block_scatter */
    /* WRITE END blocked_pass */
}

/* ---- one pass, in either mode --------------------------------------------- */

static void sort_pass(const uint32_t *src, uint32_t *dst, const uint32_t *vsrc, uint32_t *vdst,
                      size_t n, int shift, int width, const sort_options *opt, uint32_t *table,
                      double step_ms[3])
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
        block_scatter(src, dst, vsrc, vdst, n, shift, mask, opt->block, nblocks, table);
    else
        scatter(src, dst, vsrc, vdst, n, shift, mask, table);
    double t3 = host_time_ms();

    step_ms[STEP_HISTOGRAM] = t1 - t0;
    step_ms[STEP_SCAN] = t2 - t1;
    step_ms[STEP_SCATTER] = t3 - t2;
}

/* Keys (and values, where values_in is not NULL) sorted from the input arrays
 * into the output arrays, in the radix forms of the keys, pass by pass over the
 * bits [first_bit, last_bit); back to keys at the end. */
int stage_sort_pairs(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                     uint32_t *values_out, size_t n, const sort_options *opt, sort_report *rep,
                     char *err, size_t errlen)
{
    int passes = passes_in_range(opt);
    report_clear(rep, passes);

    double t0 = host_time_ms();
    size_t nblocks = opt->mode == MODE_BLOCKED ? blocks_for(n, opt->block) : 1;
    size_t table_len = ((size_t)1 << opt->bits) * (nblocks ? nblocks : 1);
    uint32_t *table = malloc(table_len * sizeof *table);
    uint32_t *buffer = malloc((n ? n : 1) * sizeof *buffer);
    uint32_t *vbuffer = values_in ? malloc((n ? n : 1) * sizeof *vbuffer) : NULL;
    if (!table || !buffer || (values_in && !vbuffer)) {
        free(table);
        free(buffer);
        free(vbuffer);
        snprintf(err, errlen, "not enough host memory to sort %zu keys", n);
        return -1;
    }
    if (values_in)
        memcpy(values_out, values_in, n * sizeof *values_out);
    const int transform = !keys_are_radix_forms(opt);
    if (!transform) /* the sort starts from a copy, as a GPU stage from its upload */
        memcpy(keys_out, keys_in, n * sizeof *keys_out);
    rep->setup_ms = host_time_ms() - t0;

    /* the keys' radix forms: counted as part of the first pass's histogram */
    t0 = host_time_ms();
    if (transform)
        to_radix_forms(keys_in, keys_out, n, opt);
    double form_ms = host_time_ms() - t0;

    uint32_t *src = keys_out, *dst = buffer, *vsrc = values_in ? values_out : NULL, *vdst = vbuffer;
    for (int pass = 0; pass < passes; pass++) {
        int shift = first_bit(opt) + pass * opt->bits;
        int width = last_bit(opt) - shift < opt->bits ? last_bit(opt) - shift : opt->bits;
        sort_pass(src, dst, vsrc, vdst, n, shift, width, opt, table, rep->pass_ms[pass]);
        uint32_t *t = src;
        src = dst;
        dst = t;
        t = vsrc;
        vsrc = vdst;
        vdst = t;
    }

    /* back to keys: counted as part of the last pass's scatter */
    t0 = host_time_ms();
    if (transform)
        from_radix_forms(src, keys_out, n, opt);
    double back_ms = host_time_ms() - t0;
    if (passes > 0) {
        rep->pass_ms[0][STEP_HISTOGRAM] += form_ms;
        rep->pass_ms[passes - 1][STEP_SCATTER] += back_ms;
    }

    t0 = host_time_ms();
    if (!transform && src != keys_out)
        memcpy(keys_out, src, n * sizeof *keys_out);
    if (values_in && vsrc != values_out)
        memcpy(values_out, vsrc, n * sizeof *values_out);
    free(vbuffer);
    free(buffer);
    free(table);
    rep->setup_ms += host_time_ms() - t0;
    return 0;
}

int stage_sort(const uint32_t *keys_in, uint32_t *keys_out, size_t n, const sort_options *opt,
               sort_report *rep, char *err, size_t errlen)
{
    return stage_sort_pairs(keys_in, NULL, keys_out, NULL, n, opt, rep, err, errlen);
}
