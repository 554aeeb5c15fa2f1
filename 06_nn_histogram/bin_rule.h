/*
 * 06_nn_histogram/bin_rule.h - the bin rule, written once.  The CPU reference
 * and every GPU version use these functions and nothing else to place a
 * distance in a bin.
 *
 * The rule.  For one query, let s be the squared distance to a reference
 * point, smin and smax the smallest and largest squared distances over all the
 * references, and K the number of bins.  The K bins split [sqrt(smin),
 * sqrt(smax)] into equal widths; the maximum falls in the last bin; if
 * smin = smax everything falls in bin 0:
 *
 *     bin(s) = 0                                                 if smax = smin
 *     bin(s) = min(K - 1, floor(K (sqrt(s) - sqrt(smin)) / (sqrt(smax) - sqrt(smin))))
 *
 * Exactly as computed - in IEEE double precision, each operation correctly
 * rounded, in this order, on the CPU and on the GPU alike:
 *
 *     a = sqrt(s) - sqrt(smin);   w = sqrt(smax) - sqrt(smin);   t = (a * K) / w;
 *     bin = min(K - 1, (int)t)
 *
 * Why this is exact on the GPU too.  Every operation above is monotone, so
 * bin(s) never decreases as s grows.  For each j = 1 .. K-1 there is then a
 * smallest float x_j with bin(x_j) >= j - its "threshold" - and a float s lies
 * in bin j exactly when x_j <= s < x_{j+1}.  The GPU computes the K - 1
 * thresholds of each query once, with this very function (binary search over
 * the floats between smin and smax), and then bins its distances by comparing
 * floats with thresholds: no square root or division per distance, and the
 * same bins the rule gives.  On integer data whose squared distances are
 * computed exactly (see nn_exact_data), the GPU's s is the CPU's s, so the
 * histograms match bin for bin.
 */
#ifndef STAGE06_BIN_RULE_H
#define STAGE06_BIN_RULE_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define NN_HD __host__ __device__
#else
#define NN_HD
#include <math.h>
#endif

/* The bin of squared distance s, for a query whose squared distances span
 * [smin, smax], with K bins (the rule above). */
NN_HD static inline int nn_bin(double s, double smin, double smax, int k)
{
    if (!(smax > smin))
        return 0;
#ifdef __CUDA_ARCH__
    /* the same IEEE operations as the host, with no contraction into FMAs */
    double root_min = __dsqrt_rn(smin);
    double a = __dsub_rn(__dsqrt_rn(s), root_min);
    double w = __dsub_rn(__dsqrt_rn(smax), root_min);
    double t = __ddiv_rn(__dmul_rn(a, (double)k), w);
#else
    double root_min = sqrt(smin);
    double a = sqrt(s) - root_min;
    double w = sqrt(smax) - root_min;
    double t = (a * (double)k) / w;
#endif
    if (t < 0.0) /* only for s < smin, which no reference has */
        return 0;
    return t >= (double)(k - 1) ? k - 1 : (int)t;
}

/* Squared distances are never negative, so the bits of a float squared
 * distance, read as an unsigned integer, are in the same order as the floats:
 * the thresholds are found by bisecting those integers. */
NN_HD static inline uint32_t nn_float_bits(float x)
{
#ifdef __CUDA_ARCH__
    return __float_as_uint(x);
#else
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

NN_HD static inline float nn_bits_float(uint32_t u)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

#define NN_NO_THRESHOLD 0x7F800000u /* +infinity: no squared distance reaches it */

/* The smallest float x in [smin, smax] with nn_bin(x) >= j (1 <= j < K), or
 * +infinity if there is none (when smin = smax, every distance is in bin 0). */
NN_HD static inline float nn_threshold(int j, float smin, float smax, int k)
{
    if (nn_bin(smax, smin, smax, k) < j)
        return nn_bits_float(NN_NO_THRESHOLD);
    uint32_t lo = nn_float_bits(smin), hi = nn_float_bits(smax); /* bin(hi) >= j */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (nn_bin(nn_bits_float(mid), smin, smax, k) >= j)
            hi = mid;
        else
            lo = mid + 1;
    }
    return nn_bits_float(lo);
}

/* The bin of s given the K - 1 thresholds of its query (threshold[j - 1] is
 * that of bin j) and a guess (any bin; the closer, the fewer steps). */
NN_HD static inline int nn_bin_from_thresholds(float s, const float *threshold, int k, int guess)
{
    int b = guess < 0 ? 0 : guess > k - 1 ? k - 1 : guess;
    while (b > 0 && s < threshold[b - 1])
        b--;
    while (b < k - 1 && s >= threshold[b])
        b++;
    return b;
}

/* A first guess at the bin from float arithmetic, which the thresholds then
 * make exact: root = sqrt(smin), scale = K / (sqrt(smax) - sqrt(smin)), or 0
 * when smax = smin (everything in bin 0). */
NN_HD static inline void nn_guess_params(float smin, float smax, int k, float *root, float *scale)
{
    *root = sqrtf(smin);
    *scale = smax > smin ? (float)k / (sqrtf(smax) - *root) : 0.0f;
}

/* The bin of s: the float guess, corrected by the query's thresholds. */
NN_HD static inline int nn_bin_guessed(float s, const float *threshold, int k, float root,
                                       float scale)
{
    return nn_bin_from_thresholds(s, threshold, k, (int)((sqrtf(s) - root) * scale));
}

#endif
