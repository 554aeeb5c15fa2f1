/*
 * test_06_nn_cpu.c - stage 06's CPU side: the bin rule and its thresholds
 * (the mechanism that makes the GPU's binning exact), the .fvecs/.ivecs files,
 * the generated data, the double-precision reference and the check.  CPU only.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../06_nn_histogram/bin_rule.h"
#include "../06_nn_histogram/imma_layout.h"
#include "../06_nn_histogram/nn_problem.h"
#include "../06_nn_histogram/vecs.h"
#include "check.h"
#include "test_util.h"
#include "keys.h"

/* Distances 0..10 from a query at 0, K = 5: width 2, the maximum in the last bin. */
static void test_rule_by_hand(void)
{
    const int expect[11] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
    for (int d = 0; d <= 10; d++)
        CHECK_MSG(nn_bin(d * d, 0, 100, 5) == expect[d], "distance %d: bin %d, expected %d", d,
                  nn_bin(d * d, 0, 100, 5), expect[d]);
    CHECK(nn_bin(7, 7, 7, 5) == 0);          /* min = max: bin 0 */
    CHECK(nn_bin(100, 0, 100, 1) == 0);      /* one bin */
    CHECK(nn_bin(4, 4, 9, 3) == 0 && nn_bin(9, 4, 9, 3) == 2); /* distances 2..3 */
    /* "exact" is the rule in double precision, not real arithmetic (the README's example):
     * 10 (sqrt 18 - sqrt 2) / (sqrt 50 - sqrt 2) is 5 in reals, 4.999... in doubles */
    CHECK_MSG(nn_bin(18, 2, 50, 10) == 4, "nn_bin(18, 2, 50, 10) = %d, the README says 4",
              nn_bin(18, 2, 50, 10));
}

/* nn_threshold starts from a guess; the answer must be that of bisecting the
 * whole of [smin, smax]. */
static float bisected_threshold(int j, float smin, float smax, int k)
{
    if (nn_bin(smax, smin, smax, k) < j)
        return nn_bits_float(NN_NO_THRESHOLD);
    return nn_bisect_threshold(j, nn_float_bits(smin), nn_float_bits(smax), smin, smax, k);
}

static void test_threshold_search(void)
{
    uint64_t state = 13;
    const int ks[] = {2, 3, 5, 100, 5000, 8192};
    for (int trial = 0; trial < 120; trial++) {
        int k = ks[trial % 6];
        float smin, smax;
        if (trial % 4 == 3) { /* float data: any magnitudes, narrow or wide */
            smin = (float)(rng_next(&state) % 1000000) * 1e-3f;
            float step = trial % 8 == 3 ? 1e-6f : 1e-1f;
            smax = smin * (1.0f + (float)(rng_next(&state) % 1000) * step);
        } else {
            smin = (float)(rng_next(&state) % 200000);
            uint64_t span = trial % 5 == 0 ? rng_next(&state) % 40 : rng_next(&state) % 500000;
            smax = smin + (float)span;
        }
        int bad = 0;
        for (int j = 1; j < k && !bad; j += 1 + (int)(rng_next(&state) % 7)) {
            float got = nn_threshold(j, smin, smax, k), want = bisected_threshold(j, smin, smax, k);
            bad = nn_float_bits(got) != nn_float_bits(want);
            CHECK_MSG(!bad, "k=%d j=%d smin=%.9g smax=%.9g: threshold %.9g, bisection %.9g", k, j,
                      (double)smin, (double)smax, (double)got, (double)want);
        }
    }
}

/* The K - 1 thresholds of one query, as the GPU's thresholds kernel writes them. */
static void fill_thresholds(float *thr, float smin, float smax, int k)
{
    for (int j = 1; j < k; j++)
        thr[j - 1] = nn_threshold(j, smin, smax, k);
}

/* Binning by thresholds gives nn_bin's bin for every integer squared distance
 * in [smin, smax] and for random floats in it, whatever the guess. */
static void test_thresholds(void)
{
    uint64_t state = 77;
    const int ks[] = {1, 2, 3, 5, 7, 100, 5000};
    for (int trial = 0; trial < 60; trial++) {
        int k = ks[trial % 7];
        uint32_t smin = (uint32_t)(rng_next(&state) % 100000);
        uint32_t span = trial % 10 == 0 ? 0 : (uint32_t)(rng_next(&state) % 20000);
        uint32_t smax = smin + span;
        float *thr = malloc(((size_t)k > 1 ? (size_t)k - 1 : 1) * sizeof *thr);
        fill_thresholds(thr, (float)smin, (float)smax, k);
        int bad = 0;
        for (uint32_t s = smin; s <= smax && !bad; s++) {
            int want = nn_bin(s, smin, smax, k);
            int guess = (int)(rng_next(&state) % (uint64_t)(k + 2)) - 1;
            bad = nn_bin_from_thresholds((float)s, thr, k, guess) != want;
            CHECK_MSG(!bad, "k=%d smin=%u smax=%u s=%u: thresholds give %d, the rule %d", k, smin,
                      smax, s, nn_bin_from_thresholds((float)s, thr, k, guess), want);
        }
        for (int i = 0; i < 2000 && !bad && span > 0; i++) {
            float s = (float)smin + (float)(rng_next(&state) % 1000000) / 1e6f * (float)span;
            int want = nn_bin(s, smin, smax, k);
            bad = nn_bin_from_thresholds(s, thr, k, k / 2) != want;
            CHECK_MSG(!bad, "k=%d float s=%.9g: thresholds give %d, the rule %d", k, (double)s,
                      nn_bin_from_thresholds(s, thr, k, k / 2), want);
        }
        float root, scale; /* the GPU's path: float guess, then thresholds */
        nn_guess_params((float)smin, (float)smax, k, &root, &scale);
        for (uint32_t s = smin; s <= smax && !bad; s += 1 + span / 997) {
            bad = nn_bin_guessed((float)s, thr, k, root, scale) != nn_bin(s, smin, smax, k);
            CHECK_MSG(!bad, "k=%d s=%u: guessed bin %d, the rule %d", k, s,
                      nn_bin_guessed((float)s, thr, k, root, scale), nn_bin(s, smin, smax, k));
        }
        for (int j = 2; j < k; j++) /* thresholds never decrease */
            CHECK(thr[j - 1] >= thr[j - 2]);
        free(thr);
    }
}

/* The margin of one query, as the thresholds kernel computes it (serially here). */
static float query_margin(const float *thr, int k, float smin, float smax)
{
    float root, scale;
    nn_guess_params(smin, smax, k, &root, &scale);
    if (!(scale > 0.0f))
        return 0.0f;
    double worst = nn_margin_top(smax, k, root, scale);
    for (int j = 1; j < k; j++) {
        double m = nn_margin_at(j, thr[j - 1], root, scale);
        worst = m > worst ? m : worst;
    }
    return nn_margin_float(worst);
}

/* Versions 6-10 bin by the guess alone when it is clear of every edge by
 * more than the query's margin: the bins must still be the rule's, for every
 * integer squared distance and for random floats; and on SIFT-like spans the
 * thresholds must be needed rarely, or the shortcut buys nothing. */
static void test_bin_fast(void)
{
    uint64_t state = 91;
    const int ks[] = {1, 2, 3, 5, 7, 100, 1000, 5000, 8192};
    for (int trial = 0; trial < 90; trial++) {
        int k = ks[trial % 9];
        uint32_t smin = (uint32_t)(rng_next(&state) % 200000);
        uint32_t span = trial % 15 == 0   ? 0
                        : trial % 3 == 0 ? (uint32_t)(rng_next(&state) % 300)
                                         : (uint32_t)(rng_next(&state) % 60000);
        uint32_t smax = smin + span;
        float *thr = malloc(((size_t)k > 1 ? (size_t)k - 1 : 1) * sizeof *thr);
        fill_thresholds(thr, (float)smin, (float)smax, k);
        float margin = query_margin(thr, k, (float)smin, (float)smax);
        /* bins thinner than the float resolution of sqrt(s) give a margin above 1:
         * then every distance takes the thresholds, slowly but exactly */
        CHECK_MSG(margin >= 0.0f, "k=%d smin=%u smax=%u: margin %g", k, smin, smax, (double)margin);
        float root, scale;
        nn_guess_params((float)smin, (float)smax, k, &root, &scale);
        int bad = 0;
        for (uint32_t s = smin; s <= smax && !bad; s++) {
            int got = nn_bin_fast((float)s, thr, k, root, scale, margin);
            bad = got != nn_bin(s, smin, smax, k);
            CHECK_MSG(!bad, "k=%d smin=%u smax=%u s=%u margin %g: fast bin %d, the rule %d", k,
                      smin, smax, s, (double)margin, got, nn_bin(s, smin, smax, k));
        }
        for (int i = 0; i < 3000 && !bad && span > 0; i++) {
            float s = (float)smin + (float)(rng_next(&state) % 1000000) / 1e6f * (float)span;
            int got = nn_bin_fast(s, thr, k, root, scale, margin);
            bad = got != nn_bin(s, smin, smax, k);
            CHECK_MSG(!bad, "k=%d float s=%.9g: fast bin %d, the rule %d", k, (double)s, got,
                      nn_bin(s, smin, smax, k));
        }
        free(thr);
    }

    /* a span too narrow for float square roots: sqrtf(2^24 + 2) = sqrtf(2^24), so the
     * scale is infinite and every guess NaN - the thresholds must still give the rule */
    {
        uint32_t smin = 16777216u, smax = 16777218u;
        const int k = 5;
        float thr[4], root, scale;
        fill_thresholds(thr, (float)smin, (float)smax, k);
        nn_guess_params((float)smin, (float)smax, k, &root, &scale);
        float margin = query_margin(thr, k, (float)smin, (float)smax);
        for (uint32_t s = smin; s <= smax; s += 2) /* the floats in the span */
            CHECK_MSG(nn_bin_fast((float)s, thr, k, root, scale, margin) ==
                              nn_bin(s, smin, smax, k) &&
                          nn_bin_guessed((float)s, thr, k, root, scale) == nn_bin(s, smin, smax, k),
                      "narrow span, s=%u: fast %d, guessed %d, the rule %d", s,
                      nn_bin_fast((float)s, thr, k, root, scale, margin),
                      nn_bin_guessed((float)s, thr, k, root, scale), nn_bin(s, smin, smax, k));
    }

    /* SIFT-like: squared distances from about 5e4 to 5e5, K = 5 and 5000 */
    const int sift_k[] = {5, 5000};
    for (int i = 0; i < 2; i++) {
        int k = sift_k[i];
        uint32_t smin = 51234, smax = 498765;
        float *thr = malloc((size_t)k * sizeof *thr);
        fill_thresholds(thr, (float)smin, (float)smax, k);
        float margin = query_margin(thr, k, (float)smin, (float)smax), root, scale;
        nn_guess_params((float)smin, (float)smax, k, &root, &scale);
        uint32_t slow = 0, total = 0;
        for (uint32_t s = smin; s <= smax; s++, total++) {
            float g = nn_guess((float)s, root, scale), f = g - (float)nn_guess_floor(g, k);
            slow += !(f > margin && f + margin < 1.0f);
        }
        CHECK_MSG(slow < total / 100, "K=%d: %u of %u distances need the thresholds (margin %g)",
                  k, slow, total, (double)margin);
        free(thr);
    }
}

/* Version 8's byte layout and fragments (imma_layout.h), run through an
 * emulation of mma.m16n8k32 written from the PTX manual's fragment tables:
 * the 16 x 8 products must be the dot products of the original vectors. */
static void test_imma_layout(void)
{
    const int dims[] = {1, 3, 31, 32, 100, 128, 129, 200, 256};
    uint64_t state = 5;
    for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++) {
        int d = dims[di], kblocks = (d + IMMA_BLOCK_DIMS - 1) / IMMA_BLOCK_DIMS;
        int words = kblocks * IMMA_BLOCK_WORDS;
        float ref[16][256], query[8][256];
        uint32_t pref[16][64], pquery[8][64];
        for (int r = 0; r < 16; r++)
            for (int i = 0; i < d; i++)
                ref[r][i] = (float)(rng_next(&state) % 256);
        for (int q = 0; q < 8; q++)
            for (int i = 0; i < d; i++)
                query[q][i] = (float)(rng_next(&state) % 256);
        for (int w = 0; w < words; w++) {
            for (int r = 0; r < 16; r++)
                pref[r][w] = imma_pack_word(ref[r], d, w);
            for (int q = 0; q < 8; q++)
                pquery[q][w] = imma_pack_word(query[q], d, w);
        }
        long long product[16][8] = {{0}};
        for (int kb = 0; kb < kblocks; kb++)
            for (int c = 0; c < 4; c++) {
                unsigned a_mat[16][32] = {{0}}, b_mat[32][8] = {{0}};
                for (int lane = 0; lane < 32; lane++) {
                    int g = lane / 4, t = lane % 4;
                    uint32_t a[4], b[2];
                    int at = kb * 32 + 8 * t; /* the thread's 8 words of block kb */
                    imma_a_fragment(&pref[g][at], &pref[g + 8][at], c, a);
                    imma_b_fragment(&pquery[g][at], c, b);
                    /* the PTX tables: a0/a2 row g, a1/a3 row g + 8; a0/a1 columns 4t..,
                     * a2/a3 columns 16 + 4t..; b0 rows 4t.., b1 rows 16 + 4t.., column g */
                    for (int i = 0; i < 4; i++)
                        for (int j = 0; j < 4; j++)
                            a_mat[g + 8 * (i % 2)][4 * t + j + 16 * (i / 2)] =
                                (a[i] >> (8 * j)) & 255;
                    for (int i = 0; i < 2; i++)
                        for (int j = 0; j < 4; j++)
                            b_mat[4 * t + j + 16 * i][g] = (b[i] >> (8 * j)) & 255;
                }
                for (int r = 0; r < 16; r++)
                    for (int q = 0; q < 8; q++)
                        for (int i = 0; i < 32; i++)
                            product[r][q] += (long long)a_mat[r][i] * b_mat[i][q];
            }
        int bad = 0;
        for (int r = 0; r < 16 && !bad; r++)
            for (int q = 0; q < 8 && !bad; q++) {
                long long dot = 0;
                for (int i = 0; i < d; i++)
                    dot += (long long)ref[r][i] * (long long)query[q][i];
                bad = product[r][q] != dot;
                CHECK_MSG(!bad, "d=%d: reference %d . query %d = %lld, the fragments give %lld", d,
                          r, q, dot, product[r][q]);
            }
    }
    /* the accumulators, from the PTX table: c0, c1 row g; c2, c3 row g + 8; column 2t + i % 2 */
    CHECK(imma_c_ref(0, 0) == 0 && imma_c_query(0, 0) == 0);
    CHECK(imma_c_ref(5, 3) == 9 && imma_c_query(5, 3) == 3);
    CHECK(imma_c_ref(31, 2) == 15 && imma_c_query(31, 2) == 6);
    CHECK(imma_c_ref(30, 1) == 7 && imma_c_query(30, 1) == 5);
}

static void expect_fvecs_error(const char *path, const char *needle)
{
    float *data = NULL;
    int n = -1, d = -1;
    char err[512] = "";
    CHECK_MSG(read_fvecs(path, &data, &n, &d, err, sizeof err) != 0, "%s was accepted", path);
    CHECK_MSG(strstr(err, needle) != NULL, "%s: '%s' lacks '%s'", path, err, needle);
    CHECK(data == NULL);
}

static void test_files(void)
{
    char dir[] = "/tmp/test_06_XXXXXX", path[512], err[512];
    if (!mkdtemp(dir))
        exit(2);
    float v[6] = {1, 2, 3, 4.5f, 5, 255};
    snprintf(path, sizeof path, "%s/good.fvecs", dir);
    CHECK(write_fvecs(path, v, 2, 3, err, sizeof err) == 0);
    float *data = NULL;
    int n = 0, d = 0;
    CHECK(read_fvecs(path, &data, &n, &d, err, sizeof err) == 0);
    CHECK(n == 2 && d == 3 && data && memcmp(data, v, sizeof v) == 0);
    free(data);

    snprintf(path, sizeof path, "%s/missing.fvecs", dir);
    expect_fvecs_error(path, "cannot open");
    snprintf(path, sizeof path, "%s/empty.fvecs", dir);
    write_bytes(path, "", 0);
    expect_fvecs_error(path, "holds no vector");
    const unsigned char zero_dim[8] = {0, 0, 0, 0, 1, 2, 3, 4};
    snprintf(path, sizeof path, "%s/zero.fvecs", dir);
    write_bytes(path, zero_dim, sizeof zero_dim);
    expect_fvecs_error(path, "dimension is 0");
    const unsigned char negative[8] = {0xFB, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
    snprintf(path, sizeof path, "%s/negative.fvecs", dir);
    write_bytes(path, negative, sizeof negative);
    expect_fvecs_error(path, "dimension is -5");
    /* a truncated last vector: two 3-d vectors less 3 bytes */
    unsigned char record[32];
    FILE *f;
    snprintf(path, sizeof path, "%s/good.fvecs", dir);
    f = fopen(path, "rb");
    size_t len = fread(record, 1, sizeof record, f);
    fclose(f);
    CHECK(len == 32);
    snprintf(path, sizeof path, "%s/truncated.fvecs", dir);
    write_bytes(path, record, 29);
    expect_fvecs_error(path, "not a whole number");
    /* a 3-d vector, then two 1-d vectors: the sizes add up, the dimensions differ */
    unsigned char mixed[32] = {3, 0, 0, 0};
    mixed[16] = 1;
    mixed[24] = 1;
    snprintf(path, sizeof path, "%s/mixed.fvecs", dir);
    write_bytes(path, mixed, sizeof mixed);
    expect_fvecs_error(path, "vector 1 has dimension 1");
    /* not a number */
    unsigned char nan_record[8] = {1, 0, 0, 0, 0x00, 0x00, 0xC0, 0x7F};
    snprintf(path, sizeof path, "%s/nan.fvecs", dir);
    write_bytes(path, nan_record, sizeof nan_record);
    expect_fvecs_error(path, "not a finite number");
    expect_fvecs_error(dir, "not a regular file");

    /* .ivecs: int32 k then k counts, little-endian */
    uint32_t counts[4] = {1, 2, 3, 0x01020304};
    snprintf(path, sizeof path, "%s/out.ivecs", dir);
    CHECK(write_ivecs(path, counts, 2, 2, err, sizeof err) == 0);
    unsigned char bytes[24];
    f = fopen(path, "rb");
    len = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    const unsigned char want[24] = {2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0,
                                    2, 0, 0, 0, 3, 0, 0, 0, 4, 3, 2, 1};
    CHECK(len == 24 && memcmp(bytes, want, 24) == 0);
    snprintf(path, sizeof path, "%s/no/dir/out.ivecs", dir);
    CHECK(write_ivecs(path, counts, 2, 2, err, sizeof err) != 0 && strstr(err, "cannot create"));

    const char *names[] = {"good.fvecs", "empty.fvecs", "zero.fvecs", "negative.fvecs",
                           "truncated.fvecs", "mixed.fvecs", "nan.fvecs", "out.ivecs"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void test_data(void)
{
    enum { N = 300, D = 128 };
    static float a[N * D], b[N * D];
    make_sift_like(a, N, D, 5);
    make_sift_like(b, N, D, 5);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(is_byte_data(a, N * D));
    int small = 0;
    for (int i = 0; i < N * D; i++)
        small += a[i] < 32.0f;
    CHECK_MSG(small > N * D / 3, "SIFT-like data should be mostly small values (%d of %d)", small,
              N * D);
    const float not_bytes[][1] = {{256.0f}, {1.5f}, {-1.0f}};
    for (int i = 0; i < 3; i++)
        CHECK(!is_byte_data(not_bytes[i], 1));
    const float bytes[3] = {0.0f, 255.0f, 3.0f};
    CHECK(is_byte_data(bytes, 3));
}

static void test_reference(void)
{
    float base[11], query[2] = {0.0f, 4.0f};
    for (int i = 0; i <= 10; i++)
        base[i] = (float)i;
    nn_problem p = {.queries = 2, .refs = 11, .dims = 1, .bins = 5, .query = query,
                    .base = base};
    CHECK(nn_exact_data(&p));
    uint32_t hist[5], near[6];
    double smin, smax;
    nn_reference_row(&p, 0, hist, near, NULL, &smin, &smax); /* distances 0..10 */
    const uint32_t want0[5] = {2, 2, 2, 2, 3};
    CHECK(memcmp(hist, want0, sizeof want0) == 0 && smin == 0.0 && smax == 100.0);
    /* a query equal to a reference: distances 0,1,1,2,2,3,3,4,4,5,6; width 1.2 */
    nn_reference_row(&p, 1, hist, NULL, NULL, &smin, &smax);
    const uint32_t want1[5] = {3, 2, 2, 2, 2};
    uint32_t total = 0;
    for (int b = 0; b < 5; b++)
        total += hist[b];
    CHECK(total == 11 && smin == 0.0 && smax == 36.0);
    CHECK_MSG(memcmp(hist, want1, sizeof want1) == 0, "got %u %u %u %u %u", hist[0], hist[1],
              hist[2], hist[3], hist[4]);

    float same[4] = {7, 7, 7, 7}; /* min = max: everything in bin 0 */
    nn_problem flat = {.queries = 1, .refs = 4, .dims = 1, .bins = 3, .query = same,
                       .base = same};
    uint32_t h3[3];
    nn_reference_row(&flat, 0, h3, NULL, NULL, &smin, &smax);
    CHECK(h3[0] == 4 && h3[1] == 0 && h3[2] == 0);

    /* the check: a result equal to the reference passes; a moved count fails with
     * the query, the bin and both counts; a row that loses a count fails */
    nn_reference ref;
    CHECK(nn_reference_create(&p, 0, &ref) == 0 && ref.nrows == 2);
    uint32_t result[10];
    memcpy(result, ref.hist, sizeof result);
    char msg[512];
    CHECK(nn_check(&p, &ref, result, 1, msg, sizeof msg) == 0);
    result[5 + 1]--;
    result[5 + 2]++;
    CHECK(nn_check(&p, &ref, result, 1, msg, sizeof msg) != 0);
    CHECK_MSG(strstr(msg, "query 1, bin 1: GPU counted 1, the reference 2"), "message was: %s",
              msg);
    result[5 + 2]--;
    CHECK(nn_check(&p, &ref, result, 1, msg, sizeof msg) != 0);
    CHECK_MSG(strstr(msg, "query 1: the counts sum to 10"), "message was: %s", msg);
    nn_reference_destroy(&ref);

    int rows[16];
    CHECK(nn_sample_rows(100, 4, rows) == 4 && rows[0] == 0 && rows[3] == 99);
    CHECK(nn_sample_rows(3, 16, rows) == 3 && rows[2] == 2);
}

/* The report's float rule (version 1): the same histogram as the exact rule on
 * easy data, a different one on some rows of realistic data - and the check of
 * a float-binning version counts those rows instead of failing, yet fails on a
 * count the float rule did not make. */
static void test_report_rule(void)
{
    float base[11], query[1] = {0.0f}; /* distances 0..10, K = 5: both rules agree */
    for (int i = 0; i <= 10; i++)
        base[i] = (float)i;
    nn_problem line = {.queries = 1, .refs = 11, .dims = 1, .bins = 5, .query = query,
                       .base = base};
    uint32_t hist[5], report[5];
    double smin, smax;
    nn_reference_row(&line, 0, hist, NULL, report, &smin, &smax);
    const uint32_t want[5] = {2, 2, 2, 2, 3};
    CHECK(memcmp(hist, want, sizeof want) == 0 && memcmp(report, want, sizeof want) == 0);
    CHECK(nn_report_bin(0.0f, 0.0f, nn_report_inv_width(7.0f, 7.0f, 3), 3) == 0); /* min = max */

    enum { Q = 40, R = 3000, D = 128, K = 5000 };
    float *q = malloc((size_t)Q * D * sizeof(float)), *r = malloc((size_t)R * D * sizeof(float));
    uint32_t *result = malloc((size_t)Q * K * sizeof(uint32_t));
    CHECK(q && r && result);
    make_sift_like(q, Q, D, 11);
    make_sift_like(r, R, D, 12);
    nn_problem p = {.queries = Q, .refs = R, .dims = D, .bins = K, .query = q, .base = r};
    nn_reference ref;
    CHECK(nn_reference_create(&p, 0, &ref) == 0 && ref.nrows == Q);
    int differ = 0;
    for (int i = 0; i < Q; i++)
        differ += memcmp(ref.hist + (size_t)i * K, ref.report_hist + (size_t)i * K,
                         K * sizeof(uint32_t)) != 0;
    CHECK_MSG(differ > 0, "the float rule agreed with the exact one on all %d rows", Q);
    memcpy(result, ref.report_hist, (size_t)Q * K * sizeof(uint32_t));
    char msg[512];
    int mismatched = -1;
    CHECK(nn_check(&p, &ref, result, 1, msg, sizeof msg) != 0);
    CHECK_MSG(nn_check_report_rule(&p, &ref, result, 1, &mismatched, msg, sizeof msg) == 0,
              "%s", msg);
    CHECK_MSG(mismatched == differ, "%d rows counted as different, %d differ", mismatched, differ);
    int b = 0;
    while (result[b] == 0) /* a count the float rule did not make: one moved up a bin */
        b++;
    result[b]--;
    result[b + 1]++;
    char where[32];
    snprintf(where, sizeof where, "query 0, bin %d:", b);
    CHECK(nn_check_report_rule(&p, &ref, result, 1, &mismatched, msg, sizeof msg) != 0);
    CHECK_MSG(strstr(msg, where) && strstr(msg, "float rule"), "message was: %s", msg);
    nn_reference_destroy(&ref);
    free(q);
    free(r);
    free(result);
}

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    TEST_GROUP(test_rule_by_hand);
    TEST_GROUP(test_threshold_search);
    TEST_GROUP(test_thresholds);
    TEST_GROUP(test_bin_fast);
    TEST_GROUP(test_imma_layout);
    TEST_GROUP(test_files);
    TEST_GROUP(test_data);
    TEST_GROUP(test_reference);
    TEST_GROUP(test_report_rule);
    return check_summary("test_06_nn_cpu");
}
