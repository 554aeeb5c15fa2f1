/*
 * tile_pass.h - the CPU version of one pass of a tiled sort (stages 04 and 05),
 * written the obvious way, for their step-by-step tests.
 */
#ifndef TESTS_TILE_PASS_H
#define TESTS_TILE_PASS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t digit_at(uint32_t key, int shift, int width)
{
    return (key >> shift) & ((1u << width) - 1);
}

/* The first index where a and b differ, or n. */
static inline size_t first_difference(const uint32_t *a, const uint32_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return n;
}

/* One pass by the width-bit digit at shift, tiles of `tile` keys: each tile
 * stably sorted by digit (tiles_sorted), the [digit][tile] counts (table), each
 * digit's run start in its tile, [tile][digit] (starts; 0 for an empty run), the
 * exclusive scan of the table (scanned), and the whole array stably sorted by
 * the digit (out). */
static inline void cpu_tile_pass(const uint32_t *keys, size_t n, int shift, int width,
                                 size_t tile, uint32_t *tiles_sorted, uint32_t *table,
                                 uint32_t *starts, uint32_t *scanned, uint32_t *out)
{
    size_t tiles = (n + tile - 1) / tile, bins = (size_t)1 << width;
    memset(table, 0, bins * tiles * sizeof(uint32_t));
    memset(starts, 0, bins * tiles * sizeof(uint32_t));
    for (size_t b = 0; b < tiles; b++) {
        size_t base = b * tile, end = base + tile < n ? base + tile : n, k = base;
        for (uint32_t d = 0; d < bins; d++) { /* stable: digit by digit, in input order */
            starts[b * bins + d] = (uint32_t)(k - base);
            for (size_t i = base; i < end; i++)
                if (digit_at(keys[i], shift, width) == d) {
                    tiles_sorted[k++] = keys[i];
                    table[d * tiles + b]++;
                }
            if (table[d * tiles + b] == 0)
                starts[b * bins + d] = 0; /* an empty run starts at 0 */
        }
    }
    uint32_t running = 0;
    for (size_t i = 0; i < bins * tiles; i++) {
        scanned[i] = running;
        running += table[i];
    }
    size_t k = 0;
    for (uint32_t d = 0; d < bins; d++)
        for (size_t i = 0; i < n; i++)
            if (digit_at(keys[i], shift, width) == d)
                out[k++] = keys[i];
}

#endif
