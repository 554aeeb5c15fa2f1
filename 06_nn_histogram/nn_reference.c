/* nn_reference.c - the double-precision CPU reference of stage 06 (see nn_problem.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bin_rule.h"
#include "nn_problem.h"
#include "parallel.h"
#include "vecs.h"

/* Every component an integer from 0 to 255, in at most max_dims dimensions. */
static int byte_data_within(const nn_problem *p, int max_dims)
{
    return p->dims <= max_dims &&
           is_byte_data(p->query, (size_t)p->queries * (size_t)p->dims) &&
           is_byte_data(p->base, (size_t)p->refs * (size_t)p->dims);
}

int nn_exact_data(const nn_problem *p) { return byte_data_within(p, 129); }

int nn_imma_data(const nn_problem *p) { return byte_data_within(p, 256); }

static double squared_distance(const float *a, const float *b, int dims)
{
    double s = 0.0;
    for (int i = 0; i < dims; i++) {
        double diff = (double)a[i] - (double)b[i];
        s += diff * diff;
    }
    return s;
}

void nn_reference_row(const nn_problem *p, int q, uint32_t *hist, uint32_t *near_edge,
                      uint32_t *report_hist, double *smin_out, double *smax_out)
{
    const float *query = p->query + (size_t)q * (size_t)p->dims;
    double *s = malloc((size_t)p->refs * sizeof *s);
    if (!s) {
        fprintf(stderr, "nn_reference: not enough host memory\n");
        exit(2);
    }
    double smin = INFINITY, smax = 0.0;
    for (int r = 0; r < p->refs; r++) {
        s[r] = squared_distance(query, p->base + (size_t)r * (size_t)p->dims, p->dims);
        smin = s[r] < smin ? s[r] : smin;
        smax = s[r] > smax ? s[r] : smax;
    }
    int k = p->bins;
    memset(hist, 0, (size_t)k * sizeof *hist);
    if (near_edge)
        memset(near_edge, 0, ((size_t)k + 1) * sizeof *near_edge);
    double root_min = sqrt(smin), width = sqrt(smax) - root_min;
    /* float32 squared distances carry a relative error of a few 1e-7 per term;
     * 1e-4 of the largest distance is a generous bound, in units of bins */
    double slack = width > 0.0 ? 1e-4 * k * sqrt(smax) / width : 0.0;
    for (int r = 0; r < p->refs; r++) {
        hist[nn_bin(s[r], smin, smax, k)]++;
        if (near_edge && width > 0.0) {
            double t = (sqrt(s[r]) - root_min) * k / width;
            double edge = floor(t + 0.5);
            if (edge >= 1.0 && edge <= k - 1.0 && fabs(t - edge) <= slack)
                near_edge[(int)edge]++;
        }
    }
    if (report_hist) { /* the float s is the GPU's on exact data: integers below 2^24 */
        float lo = sqrtf((float)smin), hi = sqrtf((float)smax);
        float inv_width = nn_report_inv_width(lo, hi, k);
        memset(report_hist, 0, (size_t)k * sizeof *report_hist);
        for (int r = 0; r < p->refs; r++)
            report_hist[nn_report_bin(sqrtf((float)s[r]), lo, inv_width, k)]++;
    }
    *smin_out = smin;
    *smax_out = smax;
    free(s);
}

int nn_sample_rows(int queries, int count, int *rows)
{
    if (count >= queries || count <= 0) {
        for (int i = 0; i < queries; i++)
            rows[i] = i;
        return queries;
    }
    for (int i = 0; i < count; i++) /* first and last included, evenly spaced */
        rows[i] = count == 1 ? 0 : (int)((long long)i * (queries - 1) / (count - 1));
    return count;
}

typedef struct {
    const nn_problem *p;
    nn_reference *ref;
    int first, step;
} reference_job;

static void *reference_worker(void *arg)
{
    reference_job *job = arg;
    nn_reference *ref = job->ref;
    for (int i = job->first; i < ref->nrows; i += job->step) {
        double smin, smax;
        nn_reference_row(job->p, ref->rows[i], ref->hist + (size_t)i * ref->bins,
                         ref->near_edge + (size_t)i * (ref->bins + 1),
                         ref->report_hist + (size_t)i * ref->bins, &smin, &smax);
    }
    return NULL;
}

int nn_reference_create(const nn_problem *p, int sample, nn_reference *ref)
{
    memset(ref, 0, sizeof *ref);
    ref->bins = p->bins;
    ref->rows = malloc((size_t)p->queries * sizeof *ref->rows);
    if (!ref->rows)
        return -1;
    ref->nrows = nn_sample_rows(p->queries, sample, ref->rows);
    ref->hist = malloc((size_t)ref->nrows * (size_t)p->bins * sizeof *ref->hist);
    ref->near_edge = malloc((size_t)ref->nrows * ((size_t)p->bins + 1) * sizeof *ref->near_edge);
    ref->report_hist = malloc((size_t)ref->nrows * (size_t)p->bins * sizeof *ref->report_hist);
    if (!ref->hist || !ref->near_edge || !ref->report_hist) {
        nn_reference_destroy(ref);
        return -1;
    }
    int threads = cpu_count();
    threads = threads > PARALLEL_MAX_JOBS ? PARALLEL_MAX_JOBS : threads;
    threads = threads > ref->nrows ? ref->nrows : threads;
    reference_job jobs[PARALLEL_MAX_JOBS];
    for (int t = 0; t < threads; t++) /* job t takes rows t, t + threads, ... */
        jobs[t] = (reference_job){p, ref, t, threads};
    run_parallel(reference_worker, jobs, sizeof jobs[0], threads);
    return 0;
}

void nn_reference_destroy(nn_reference *ref)
{
    free(ref->rows);
    free(ref->hist);
    free(ref->near_edge);
    free(ref->report_hist);
    memset(ref, 0, sizeof *ref);
}

/* 0 if every row of hist sums to the number of references, else -1 and msg. */
static int check_row_sums(const nn_problem *p, const uint32_t *hist, char *msg, size_t msglen)
{
    int k = p->bins;
    for (int q = 0; q < p->queries; q++) {
        uint64_t sum = 0;
        for (int b = 0; b < k; b++)
            sum += hist[(size_t)q * k + b];
        if (sum != (uint64_t)p->refs) {
            snprintf(msg, msglen, "query %d: the counts sum to %llu, not to the %d references", q,
                     (unsigned long long)sum, p->refs);
            return -1;
        }
    }
    return 0;
}

/* The first bin where sampled row i of hist differs from the reference by more
 * than float rounding allows (nothing when exact), or -1 if none does. */
static int row_differs(const nn_problem *p, const nn_reference *ref, const uint32_t *hist, int i,
                       int exact)
{
    int k = p->bins;
    const uint32_t *got = hist + (size_t)ref->rows[i] * k, *want = ref->hist + (size_t)i * k;
    const uint32_t *near = ref->near_edge + (size_t)i * (k + 1);
    for (int b = 0; b < k; b++) {
        uint32_t allowed = exact ? 0 : near[b] + near[b + 1];
        uint32_t diff = got[b] > want[b] ? got[b] - want[b] : want[b] - got[b];
        if (diff > allowed)
            return b;
    }
    return -1;
}

int nn_check(const nn_problem *p, const nn_reference *ref, const uint32_t *hist, int exact,
             char *msg, size_t msglen)
{
    int k = p->bins;
    if (check_row_sums(p, hist, msg, msglen))
        return -1;
    for (int i = 0; i < ref->nrows; i++) {
        int q = ref->rows[i], b = row_differs(p, ref, hist, i, exact);
        if (b >= 0) {
            snprintf(msg, msglen,
                     "query %d, bin %d: GPU counted %u, the reference %u%s", q, b,
                     hist[(size_t)q * k + b], ref->hist[(size_t)i * k + b],
                     exact ? " (exact data: they must be equal)" : "");
            return -1;
        }
    }
    snprintf(msg, msglen, "%s: %d sampled rows equal the double-precision reference%s, every "
                          "row sums to %d",
             exact ? "exact" : "within float rounding", ref->nrows,
             exact ? " bin for bin" : " (up to distances at bin edges)", p->refs);
    return 0;
}

int nn_check_report_rule(const nn_problem *p, const nn_reference *ref, const uint32_t *hist,
                         int exact, int *mismatched, char *msg, size_t msglen)
{
    int k = p->bins;
    *mismatched = 0;
    if (check_row_sums(p, hist, msg, msglen))
        return -1;
    for (int i = 0; i < ref->nrows; i++) {
        int q = ref->rows[i];
        const uint32_t *got = hist + (size_t)q * k, *want = ref->report_hist + (size_t)i * k;
        for (int b = 0; exact && b < k; b++)
            if (got[b] != want[b]) {
                snprintf(msg, msglen,
                         "query %d, bin %d: GPU counted %u, the report's float rule on the CPU "
                         "%u (exact data: they must be equal)", q, b, got[b], want[b]);
                return -1;
            }
        *mismatched += row_differs(p, ref, hist, i, exact) >= 0;
    }
    snprintf(msg, msglen, "float bins (the report's rule): %d of %d sampled rows differ from the "
                          "exact reference%s, every row sums to %d",
             *mismatched, ref->nrows,
             exact ? "; each row equals the float rule's on the CPU bin for bin"
                   : " beyond rounding (float data: the rule itself is not checked)",
             p->refs);
    return 0;
}
