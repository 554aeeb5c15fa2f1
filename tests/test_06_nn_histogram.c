/*
 * test_06_nn_histogram.c - every version of stage 06 and the cuBLAS baseline
 * against the double-precision reference, every row checked, on small and
 * awkward shapes: 1 query, 1 reference, d = 1, 3, 128, 129, K = 1 and 5000,
 * min = max, a query equal to a reference point, counts of references and
 * queries that are not multiples of any tile, bin counts whose histograms
 * fit in shared memory 4, 2 or 1 query per 8 at a time or not at all; byte
 * data beyond 129 dimensions (exact for versions 7-10 only); and float data
 * (not exact, where versions 7-10 must run version 6), checked within rounding at bin
 * edges.  Versions 8-14 run again with their tensor-core passes switched off, so
 * that their __dp4a pass (for GPUs without integer mma) is tested here too.  Version 1 bins by the report's float rule: on exact data each of its
 * rows must equal that rule's row on the CPU, and the rows where the rule
 * differs from the exact reference are counted - over all shapes the count
 * must be what the reference says, and not zero.  GPU.
 */
#define _POSIX_C_SOURCE 200809L /* check.h: alarm, sigaction */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../06_nn_histogram/nn_histogram.h"
#include "../06_nn_histogram/vecs.h"
#include "check.h"
#include "gpu.h"
#include "keys.h"

enum data_kind { SIFT_LIKE, FLAT, QUERY_IN_BASE, FLOATS };

typedef struct {
    int queries, refs, dims, bins;
    enum data_kind kind;
} shape;

static const char *kind_name(enum data_kind k)
{
    return k == SIFT_LIKE ? "sift-like" : k == FLAT ? "flat (min = max)"
                                        : k == QUERY_IN_BASE ? "queries in the base"
                                                             : "floats";
}

static void make_data(const shape *s, float *query, float *base, uint64_t seed)
{
    make_sift_like(query, s->queries, s->dims, seed);
    make_sift_like(base, s->refs, s->dims, seed + 1);
    size_t nq = (size_t)s->queries * s->dims, nr = (size_t)s->refs * s->dims;
    if (s->kind == FLAT) { /* every reference the same point: min = max */
        for (size_t i = 0; i < nr; i++)
            base[i] = base[i % s->dims];
    } else if (s->kind == QUERY_IN_BASE) { /* query q is reference q: min = 0 */
        for (int q = 0; q < s->queries && q < s->refs; q++)
            memcpy(base + (size_t)q * s->dims, query + (size_t)q * s->dims,
                   (size_t)s->dims * sizeof(float));
    } else if (s->kind == FLOATS) {
        uint64_t state = seed;
        for (size_t i = 0; i < nq; i++)
            query[i] = (float)(rng_next(&state) >> 40) / 1024.0f - 3000.0f;
        for (size_t i = 0; i < nr; i++)
            base[i] = (float)(rng_next(&state) >> 40) / 1024.0f - 3000.0f;
    }
}

/* Rows where the report's float rule and the exact rule disagree, over every
 * exact shape, as the GPU's version 1 counted them and as the CPU says. */
static int report_rows_counted, report_rows_expected;

static int rows_differing(const nn_reference *ref)
{
    int n = 0;
    for (int i = 0; i < ref->nrows; i++)
        n += memcmp(ref->hist + (size_t)i * ref->bins, ref->report_hist + (size_t)i * ref->bins,
                    (size_t)ref->bins * sizeof(uint32_t)) != 0;
    return n;
}

/* Runs one version (or baseline) on dev and checks every row of its histograms. */
static void run_and_check(nn_device *dev, const nn_problem *p, const nn_reference *ref,
                          const shape *s, int version, int variant, int ran, int exact,
                          uint32_t *hist)
{
    char err[512];
    nn_timing t;
    fill_garbage(hist, (size_t)s->queries * s->bins, 9);
    if (test_poison) /* not the last version's distances (initcheck: left as they are) */
        nn_device_poison_scratch(dev);
    int rc = version == NN_CUBLAS ? nn_run_cublas(dev, hist, &t, err, sizeof err)
             : version == NN_CUBLAS_INT8
                 ? nn_run_cublas_int8(dev, hist, &t, err, sizeof err)
                 : nn_run_version(dev, version, variant, hist, &t, err, sizeof err);
    CHECK_MSG(rc == 0, "%s", err);
    if (rc)
        return;
    CHECK_MSG(t.ran_version == ran, "version %d ran as %d, expected %d", version, t.ran_version,
              ran);
    char msg[512] = "";
    /* versions 7-10's and the INT8 baseline's integer sums are exact on any byte
     * data up to d = 256 */
    int exact_row = exact || version == NN_CUBLAS_INT8 ||
                    (!nn_is_baseline(version) && t.ran_version >= NN_VERSION_BYTES);
    int mismatched = 0;
    int failed = nn_version_report_bins(version)
                     ? nn_check_report_rule(p, ref, hist, exact_row, &mismatched, msg, sizeof msg)
                     : nn_check(p, ref, hist, exact_row, msg, sizeof msg);
    CHECK_MSG(!failed, "version %d (reduce %d%s), %dx%dx%d K=%d %s: %s", version, variant,
              nn_imma_unusable(dev) ? ", no tensor cores" : "", s->queries, s->refs, s->dims,
              s->bins, kind_name(s->kind), msg);
    if (nn_version_report_bins(version) && exact) {
        report_rows_counted += mismatched;
        report_rows_expected += rows_differing(ref);
    }
}

static void test_shape(const shape *s, int small)
{
    float *query = malloc((size_t)s->queries * s->dims * sizeof(float));
    float *base = malloc((size_t)s->refs * s->dims * sizeof(float));
    uint32_t *hist = malloc((size_t)s->queries * s->bins * sizeof(uint32_t));
    if (!query || !base || !hist)
        exit(2);
    make_data(s, query, base, (uint64_t)s->queries * 131 + (uint64_t)s->refs);
    nn_problem p = {.queries = s->queries, .refs = s->refs, .dims = s->dims, .bins = s->bins,
                    .query = query, .base = base};
    int exact = nn_exact_data(&p);
    CHECK_MSG(exact == (s->kind != FLOATS && s->dims <= 129), "exactness of %s d=%d",
              kind_name(s->kind), s->dims);
    char err[512];
    nn_device *dev = nn_device_create(&p, err, sizeof err);
    CHECK_MSG(dev != NULL, "%s", err);
    nn_reference ref;
    CHECK(nn_reference_create(&p, 0, &ref) == 0); /* every row */
    /* versions 8-14's tensor-core passes must run wherever they apply, or their rows
     * would test the __dp4a pass only */
    int bytes = nn_imma_data(&p), imma = bytes && gpu_compute_capability() >= 75;
    CHECK_MSG((nn_imma_unusable(dev) == NULL) == imma, "version %d %s on %s d=%d",
              NN_VERSION_IMMA, imma ? "did not apply" : "applied", kind_name(s->kind), s->dims);

    /* the INT8 baseline applies exactly where the data are bytes (compute capability 6.1+);
     * a lab handout has no baselines (nn_cublas_absent): its versions alone are checked */
    int baselines = nn_cublas_absent() == NULL;
    int int8 = baselines && bytes && gpu_compute_capability() >= 61;
    if (baselines)
        CHECK_MSG((nn_cublas_int8_unusable(dev) == NULL) == int8, "cublas-int8 %s on %s d=%d",
                  int8 ? "did not apply" : "applied", kind_name(s->kind), s->dims);
    for (int version = NN_CUBLAS_INT8; version <= NN_VERSIONS; version++) {
        if (version == NN_CUBLAS_INT8 + 1 || version == 0 || (version == NN_CUBLAS_INT8 && !int8) ||
            (version == NN_CUBLAS && !baselines))
            continue; /* -2 and 0 are no version; the INT8 baseline only where it applies */
        int reduces = version == NN_VERSION_REDUCE && !small ? 4 : 1;
        int ran = version >= NN_VERSION_BYTES && !bytes ? NN_VERSION_BYTES - 1 : version;
        for (int reduce = 1; reduce <= reduces; reduce++) {
            int variant = version == NN_VERSION_REDUCE && small ? NN_REDUCE_SHUFFLE : reduce;
            run_and_check(dev, &p, &ref, s, version, variant, ran, exact, hist);
        }
    }
    if (imma) { /* the same versions on the __dp4a pass of a GPU without integer mma */
        nn_device_without_tensor_cores(dev);
        CHECK(nn_imma_unusable(dev) != NULL);
        for (int version = NN_VERSION_IMMA; version <= NN_VERSIONS; version++)
            run_and_check(dev, &p, &ref, s, version, NN_REDUCE_SHUFFLE, version, exact, hist);
    }
    nn_reference_destroy(&ref);
    nn_device_destroy(dev);
    free(query);
    free(base);
    free(hist);
}

/* Versions 9-14's square root against the correctly rounded one, every float it meets. */
static void test_sqrt(void)
{
    long long sqrt_mismatches = nn_sqrt_small_check();
    CHECK_MSG(sqrt_mismatches == 0, "nn_sqrt_small differs from __fsqrt_rn on %lld floats of [1, 2^24]",
              sqrt_mismatches);
}

/* The float rule's cost is real on the shapes, and counted right (over the shapes that ran:
 * the grader may pass some over, --from-group). */
static void test_report_rows(void)
{
    CHECK_MSG(report_rows_counted == report_rows_expected,
              "version 1: %d rows counted as differing, the reference says %d",
              report_rows_counted, report_rows_expected);
    if (!test_small && test_from_group == 0) /* the small shapes may all happen to bin alike */
        CHECK_MSG(report_rows_expected > 0,
                  "the report's float rule agreed with the exact rule on every row tested");
    printf("test_06_nn_histogram: version 1 (float bins) differs from the exact reference on %d "
           "rows of the exact shapes, as the CPU says\n", report_rows_counted);
}

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    REQUIRE_GPU();
    const shape shapes[] = {
        {1, 1, 1, 1, SIFT_LIKE},       {1, 1, 3, 5000, SIFT_LIKE},
        {3, 100, 1, 5, SIFT_LIKE},     {5, 1000, 3, 7, SIFT_LIKE},
        {33, 2049, 128, 5000, SIFT_LIKE}, {9, 4097, 129, 5, SIFT_LIKE},
        {8, 2048, 128, 1, SIFT_LIKE},  {17, 3001, 128, 5000, QUERY_IN_BASE},
        {4, 700, 16, 50, FLAT},        {6, 5000, 130, 64, SIFT_LIKE}, /* d > 129: not exact */
        {7, 3000, 24, 100, FLOATS},    {65, 66001, 128, 5, SIFT_LIKE},
        {9, 3000, 128, 8192, SIFT_LIKE},  /* no histogram fits in shared memory */
        {20, 1900, 200, 2000, SIFT_LIKE}, /* two groups of 8 queries (12-14: four); 2 blocks of dims */
        {3, 5000, 256, 300, SIFT_LIKE},   /* the largest d of versions 7-14 */
        {8, 4000, 128, 5000, SIFT_LIKE},  /* 11: one group, 24 warps; 12-14: packed (also --small) */
        /* more references than a block of the min/max pass takes, and one
         * bin that gets all 70,000 distances of its query (versions 12-14: 65,280
         * of them in one 16-bit counter, in both halves of the words) */
        {17, 70000, 128, 5000, SIFT_LIKE}, {16, 70000, 16, 5000, FLAT},
    };
    TEST_GROUP(test_sqrt);
    int count = sizeof shapes / sizeof shapes[0];
    for (int i = 0; i < count; i++) { /* a group each */
        long long pairs = (long long)shapes[i].queries * shapes[i].refs;
        if ((test_small && pairs > 40000) || (test_tiny && pairs > 17000))
            continue; /* under the sanitizer: the small shapes only (--tiny: d = 1-256, the
                         histograms in shared memory and flat data still among them) */
        const shape *sh = &shapes[i];
        char name[96];
        snprintf(name, sizeof name, "shape %d x %d x %d, K = %d, %s", sh->queries, sh->refs,
                 sh->dims, sh->bins, kind_name(sh->kind));
        if (test_group(name))
            test_shape(sh, test_small);
    }
    TEST_GROUP(test_report_rows);
    return check_summary("test_06_nn_histogram");
}
