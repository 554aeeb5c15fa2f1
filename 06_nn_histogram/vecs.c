/* vecs.c - .fvecs / .ivecs files and generated data (see vecs.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "files.h"
#include "keys.h"
#include "vecs.h"

static int32_t read_le_i32(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

static void put_le_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

int read_fvecs(const char *path, float **data, int *count, int *dims, char *err, size_t errlen)
{
    *data = NULL;
    long long bytes;
    if (stat_regular_file(path, ".fvecs file", &bytes, err, errlen))
        return -1;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open .fvecs file '%s': %s", clip(path).text,
                 strerror(errno));
        return -1;
    }
    unsigned char head[4];
    if (fread(head, 1, 4, f) != 4) {
        snprintf(err, errlen, "'%s' holds no vector (an .fvecs file starts with an int32 "
                              "dimension)", clip(path).text);
        fclose(f);
        return -1;
    }
    int32_t d = read_le_i32(head);
    if (d < 1 || d > NN_MAX_DIMS) {
        snprintf(err, errlen, "'%s': the first vector's dimension is %d; expected 1 to %d",
                 clip(path).text, (int)d, NN_MAX_DIMS);
        fclose(f);
        return -1;
    }
    size_t record = 4 + 4 * (size_t)d;
    if ((size_t)bytes % record != 0) {
        snprintf(err, errlen,
                 "'%s' has %lld bytes, not a whole number of %d-dimensional vectors (%zu "
                 "bytes each): truncated, or vectors of different dimensions",
                 clip(path).text, bytes, (int)d, record);
        fclose(f);
        return -1;
    }
    size_t n = (size_t)bytes / record;
    if (n > (size_t)INT32_MAX / 2) {
        snprintf(err, errlen, "'%s' holds %zu vectors, too many", clip(path).text, n);
        fclose(f);
        return -1;
    }
    float *out = malloc(n * (size_t)d * sizeof *out);
    unsigned char *buf = malloc(record);
    if (!out || !buf) {
        snprintf(err, errlen, "not enough host memory for '%s'", clip(path).text);
        free(out);
        free(buf);
        fclose(f);
        return -1;
    }
    rewind(f);
    for (size_t i = 0; i < n; i++) {
        if (fread(buf, 1, record, f) != record) {
            snprintf(err, errlen, "error while reading '%s' (vector %zu)", clip(path).text, i);
            goto fail;
        }
        int32_t di = read_le_i32(buf);
        if (di != d) {
            snprintf(err, errlen, "'%s': vector %zu has dimension %d, vector 0 has %d",
                     clip(path).text, i, (int)di, (int)d);
            goto fail;
        }
        for (int32_t j = 0; j < d; j++) {
            uint32_t bits = (uint32_t)read_le_i32(buf + 4 + 4 * (size_t)j);
            float x;
            memcpy(&x, &bits, sizeof x);
            if (!isfinite(x)) {
                snprintf(err, errlen, "'%s': vector %zu, component %d is not a finite number",
                         clip(path).text, i, (int)j);
                goto fail;
            }
            out[i * (size_t)d + (size_t)j] = x;
        }
    }
    free(buf);
    fclose(f);
    *data = out;
    *count = (int)n;
    *dims = (int)d;
    return 0;
fail:
    free(buf);
    free(out);
    fclose(f);
    return -1;
}

/* Writes rows of (int32 k, k 32-bit words) records. */
static int write_records(const char *path, const void *values, int rows, int k, char *err,
                         size_t errlen)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "cannot create '%s': %s", clip(path).text, strerror(errno));
        return -1;
    }
    unsigned char *buf = malloc(4 + 4 * (size_t)k);
    int ok = buf != NULL;
    const uint32_t *words = values;
    for (int r = 0; r < rows && ok; r++) {
        put_le_u32(buf, (uint32_t)k);
        for (int j = 0; j < k; j++)
            put_le_u32(buf + 4 + 4 * (size_t)j, words[(size_t)r * (size_t)k + (size_t)j]);
        ok = fwrite(buf, 1, 4 + 4 * (size_t)k, f) == 4 + 4 * (size_t)k;
    }
    free(buf);
    if (fclose(f) != 0)
        ok = 0;
    if (!ok) {
        snprintf(err, errlen, "error while writing '%s'", clip(path).text);
        return -1;
    }
    return 0;
}

int write_fvecs(const char *path, const float *data, int count, int dims, char *err,
                size_t errlen)
{
    return write_records(path, data, count, dims, err, errlen); /* floats as their bits */
}

int write_ivecs(const char *path, const uint32_t *counts, int rows, int k, char *err,
                size_t errlen)
{
    return write_records(path, counts, rows, k, err, errlen);
}

void make_sift_like(float *data, int count, int dims, uint64_t seed)
{
    uint64_t state = seed ^ 0x51F7DA7Aull;
    for (size_t i = 0; i < (size_t)count * (size_t)dims; i++) {
        /* u^3 with u uniform in [0, 1): most components small, a few near 255 */
        double u = (double)(rng_next(&state) >> 11) / 9007199254740992.0;
        data[i] = (float)floor(256.0 * u * u * u);
    }
}

int is_byte_data(const float *data, size_t values)
{
    for (size_t i = 0; i < values; i++) {
        float x = data[i];
        if (!(x >= 0.0f && x <= 255.0f) || x != floorf(x))
            return 0;
    }
    return 1;
}
