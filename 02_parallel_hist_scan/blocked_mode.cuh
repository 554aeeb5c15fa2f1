/*
 * 02_parallel_hist_scan/blocked_mode.cuh - the host side of --mode blocked, a
 * variant of this stage (course report 001's baseline04-v2, report 000's
 * "level 1"): stage 01's blocked mode with its [digit][block] table counted
 * (gpu_histogram.cuh) and scanned on the GPU; the scatter still walks the
 * blocks on the CPU.  It is the layout stage 04 runs on a GPU from end to end.
 */

/* The [digit][block] table of blocked mode may not grow past this many counters. */
#define MAX_TABLE_ENTRIES ((size_t)1 << 27)

static size_t blocks_for(size_t n, int block) { return (n + (size_t)block - 1) / (size_t)block; }

/* The columns of the table: one per block of keys (none without keys), or one
 * in plain mode. */
static size_t table_blocks(const sort_options *opt, size_t n)
{
    return opt->mode == MODE_BLOCKED ? blocks_for(n, opt->block) : 1;
}

static int check_blocked_options(const sort_options *opt, size_t n, char *err, size_t errlen)
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
