/* keys.c - generated distributions and raw key files (see keys.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "files.h"
#include "keys.h"

static const char *const DIST_NAMES[DIST_COUNT] = {
    "uniform", "equal", "sorted", "reversed", "few", "and2", "and4", "high", "low",
};

const char *dist_name(key_dist d) { return (d >= 0 && d < DIST_COUNT) ? DIST_NAMES[d] : "?"; }

int dist_from_name(const char *name, key_dist *d)
{
    for (int i = 0; i < DIST_COUNT; i++) {
        if (strcmp(name, DIST_NAMES[i]) == 0) {
            *d = (key_dist)i;
            return 0;
        }
    }
    return -1;
}

const char *dist_list(void)
{
    return "uniform, equal, sorted, reversed, few, and2, and4, high, low";
}

uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t rng_u32(uint64_t *state) { return (uint32_t)(rng_next(state) >> 32); }

/* Non-decreasing keys with random gaps, spread over the whole 32-bit range. */
static void make_sorted(uint32_t *keys, size_t n, uint64_t *state)
{
    uint64_t step = n ? (UINT64_C(1) << 32) / n : 1;
    uint64_t value = 0;
    for (size_t i = 0; i < n; i++) {
        value += rng_next(state) % (step + 1); /* gaps of 0 make repeats */
        keys[i] = (uint32_t)(value > UINT32_MAX ? UINT32_MAX : value);
    }
}

void make_keys(uint32_t *keys, size_t n, key_dist dist, uint64_t seed)
{
    uint64_t state = seed;
    uint32_t constant = rng_u32(&state);
    uint32_t few[16];
    for (int i = 0; i < 16; i++)
        few[i] = rng_u32(&state);

    switch (dist) {
    case DIST_UNIFORM:
        for (size_t i = 0; i < n; i++)
            keys[i] = rng_u32(&state);
        break;
    case DIST_EQUAL:
        for (size_t i = 0; i < n; i++)
            keys[i] = constant;
        break;
    case DIST_SORTED:
        make_sorted(keys, n, &state);
        break;
    case DIST_REVERSED:
        make_sorted(keys, n, &state);
        for (size_t i = 0; i < n / 2; i++) {
            uint32_t t = keys[i];
            keys[i] = keys[n - 1 - i];
            keys[n - 1 - i] = t;
        }
        break;
    case DIST_FEW:
        for (size_t i = 0; i < n; i++)
            keys[i] = few[rng_next(&state) % 16];
        break;
    case DIST_AND2:
        for (size_t i = 0; i < n; i++)
            keys[i] = rng_u32(&state) & rng_u32(&state);
        break;
    case DIST_AND4:
        for (size_t i = 0; i < n; i++)
            keys[i] = rng_u32(&state) & rng_u32(&state) & rng_u32(&state) & rng_u32(&state);
        break;
    case DIST_HIGH:
        for (size_t i = 0; i < n; i++)
            keys[i] = (rng_u32(&state) & 0xFF000000u) | (constant & 0x00FFFFFFu);
        break;
    case DIST_LOW:
        for (size_t i = 0; i < n; i++)
            keys[i] = (constant & 0xFFFFFF00u) | (rng_u32(&state) & 0xFFu);
        break;
    default:
        break;
    }
}

void fill_garbage(uint32_t *buf, size_t n, uint64_t seed)
{
    uint64_t state = seed ^ 0xA5A5A5A5DEADBEEFull;
    for (size_t i = 0; i < n; i++)
        buf[i] = rng_u32(&state) | 1u; /* odd, so never zero */
}

static int host_is_little_endian(void)
{
    const uint32_t one = 1;
    return *(const unsigned char *)&one == 1;
}

static uint32_t byte_swap(uint32_t x)
{
    return (x >> 24) | ((x >> 8) & 0xFF00u) | ((x << 8) & 0xFF0000u) | (x << 24);
}

static void to_or_from_little_endian(uint32_t *keys, size_t n)
{
    if (host_is_little_endian())
        return;
    for (size_t i = 0; i < n; i++)
        keys[i] = byte_swap(keys[i]);
}

int read_keys_file(const char *path, size_t max_keys, uint32_t **keys, size_t *n,
                   char *err, size_t errlen)
{
    *keys = NULL;
    *n = 0;
    long long bytes;
    if (stat_regular_file(path, "input file", &bytes, err, errlen))
        return -1;
    if (bytes % 4 != 0) {
        snprintf(err, errlen,
                 "input file '%s' has %lld bytes, not a multiple of 4: it must hold raw "
                 "little-endian uint32 keys",
                 clip(path).text, bytes);
        return -1;
    }
    size_t count = (size_t)bytes / 4;
    if (count > max_keys) {
        snprintf(err, errlen, "input file '%s' holds %zu keys; at most %zu are supported",
                 clip(path).text, count, max_keys);
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open input file '%s': %s", clip(path).text,
                 strerror(errno));
        return -1;
    }
    uint32_t *buf = malloc(count ? count * sizeof *buf : 4);
    if (!buf) {
        snprintf(err, errlen, "not enough host memory for %zu keys from '%s'", count,
                 clip(path).text);
        fclose(f);
        return -1;
    }
    if (fread(buf, 4, count, f) != count) {
        snprintf(err, errlen, "error while reading input file '%s'", clip(path).text);
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    to_or_from_little_endian(buf, count);
    *keys = buf;
    *n = count;
    return 0;
}

int write_keys_file(const char *path, const uint32_t *keys, size_t n, char *err, size_t errlen)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "cannot create output file '%s': %s", clip(path).text,
                 strerror(errno));
        return -1;
    }
    int ok = 1;
    if (host_is_little_endian()) {
        ok = fwrite(keys, 4, n, f) == n;
    } else {
        for (size_t i = 0; i < n && ok; i++) {
            uint32_t le = byte_swap(keys[i]);
            ok = fwrite(&le, 4, 1, f) == 1;
        }
    }
    if (fclose(f) != 0)
        ok = 0;
    if (!ok) {
        snprintf(err, errlen, "error while writing output file '%s'", clip(path).text);
        return -1;
    }
    return 0;
}
