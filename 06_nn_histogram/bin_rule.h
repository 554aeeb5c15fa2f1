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

/* The report's rule (report 004), in single precision - version 1 uses it on
 * purpose, to show what it costs.  The report bins the distance d = sqrtf(s)
 * between its query's border values lo = sqrtf(smin) and hi = sqrtf(smax):
 *
 *     inv_width = K / (hi - lo);   bin = (int)((d - lo) * inv_width);   K -> K - 1
 *
 * Every one of those float operations rounds, so a distance close to a bin
 * edge can land in the neighbouring bin: some histograms differ from nn_bin's
 * (577 of the report's 10,000).  The CPU reference repeats these operations
 * one for one (IEEE single precision, a subtraction then a multiplication: no
 * FMA to contract) to tell which rows the GPU must get wrong, and how.
 * One change: with lo = hi the report divides by zero and converts NaN to an
 * int (bin 0 on the GPU, undefined in C); here inv_width = 0 gives bin 0. */
NN_HD static inline float nn_report_inv_width(float lo, float hi, int k)
{
    return hi > lo ? (float)k / (hi - lo) : 0.0f;
}

NN_HD static inline int nn_report_bin(float d, float lo, float inv_width, int k)
{
    int bin = (int)((d - lo) * inv_width);
    return bin >= k ? k - 1 : bin; /* the maximum: exactly K */
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

/* A first guess at the bin from float arithmetic, which the thresholds then
 * make exact: root = sqrt(smin), scale = K / (sqrt(smax) - sqrt(smin)), or 0
 * when smax = smin (everything in bin 0). */
NN_HD static inline void nn_guess_params(float smin, float smax, int k, float *root, float *scale)
{
    *root = sqrtf(smin);
    *scale = smax > smin ? (float)k / (sqrtf(smax) - *root) : 0.0f;
}

/* The smallest float in [lo, hi] (as bits) with nn_bin >= j, given that
 * bin(hi) >= j: plain bisection of the floats' bits. */
NN_HD static inline float nn_bisect_threshold(int j, uint32_t lo, uint32_t hi, float smin,
                                              float smax, int k)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (nn_bin(nn_bits_float(mid), smin, smax, k) >= j)
            hi = mid;
        else
            lo = mid + 1;
    }
    return nn_bits_float(lo);
}

/* The smallest float x in [smin, smax] with nn_bin(x) >= j (1 <= j < K), or
 * +infinity if there is none (when smin = smax, every distance is in bin 0).
 * A binary search over the floats' bits: the answer is in [lo, hi], every
 * float below lo has a bin below j, and bin(hi) >= j.  Rather than start from
 * all of [smin, smax] (some 25 halvings), it starts from where the edge
 * should be, s = (sqrt(smin) + j / scale)^2, and widens a bracket around it by
 * doubling steps - a handful of evaluations of the rule instead of 25.  The
 * answer is the same: it depends only on the rule. */
NN_HD static inline float nn_threshold(int j, float smin, float smax, int k)
{
    if (nn_bin(smax, smin, smax, k) < j)
        return nn_bits_float(NN_NO_THRESHOLD);
    uint32_t lo = nn_float_bits(smin), hi = nn_float_bits(smax); /* bin(hi) >= j */
    float root, scale;
    nn_guess_params(smin, smax, k, &root, &scale); /* smax > smin: scale > 0 (maybe inf) */
    float edge = root + (float)j / scale;
    uint32_t u = nn_float_bits(edge * edge);
    u = u < lo ? lo : u > hi ? hi : u;
    if (nn_bin(nn_bits_float(u), smin, smax, k) >= j) { /* the answer is at or below u */
        hi = u;
        for (uint32_t step = 1; hi - lo > step; step *= 2) {
            if (nn_bin(nn_bits_float(hi - step), smin, smax, k) < j) {
                lo = hi - step + 1;
                break;
            }
            hi -= step;
        }
    } else { /* above u */
        lo = u + 1;
        for (uint32_t step = 1; hi - lo > step; step *= 2) {
            if (nn_bin(nn_bits_float(lo + step), smin, smax, k) >= j) {
                hi = lo + step;
                break;
            }
            lo += step + 1;
        }
    }
    return nn_bisect_threshold(j, lo, hi, smin, smax, k);
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

/* The guess itself, g(s) = (sqrt(s) - root) * scale in float, each operation
 * correctly rounded.  Correctly rounded operations are monotone, so g never
 * decreases as s grows - the fact the margin below stands on. */
NN_HD static inline float nn_guess(float s, float root, float scale)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(__fsub_rn(__fsqrt_rn(s), root), scale);
#else
    return (sqrtf(s) - root) * scale;
#endif
}

#ifdef __CUDACC__
/* sqrt(s), correctly rounded, for s = 0 and 1 <= s <= 2^24 only: versions 9-10's
 * squared distances, integers below 2^24.  __fsqrt_rn first checks whether
 * its input is tiny, huge or special and branches to a slow path if so; in a
 * loop over 1e10 distances that check and branch cost as much as the root,
 * and the branch keeps the compiler from interleaving one distance's work
 * with the next.  This is __fsqrt_rn's own fast path - an approximate
 * reciprocal root, one Newton correction, one rounding - with 0 picked apart.
 * Being the same function on this range, its guess is the same as nn_guess's,
 * so the margins stay valid: test_06_nn_histogram compares it with
 * __fsqrt_rn bit for bit on every float of [1, 2^24]. */
__device__ static inline float nn_sqrt_small(float s)
{
    float y; /* 1 / sqrt(s), approximately; for s = 0, 1, which makes the root 0 */
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(fmaxf(s, 1.0f)));
    float r = __fmul_rn(s, y), half_y = __fmul_rn(y, 0.5f);
    float e = __fmaf_rn(-r, r, s);
    return __fmaf_rn(e, half_y, r);
}

/* nn_guess for those s. */
__device__ static inline float nn_guess_small(float s, float root, float scale)
{
    return __fmul_rn(__fsub_rn(nn_sqrt_small(s), root), scale);
}
#endif

/* floor(g) for a guess in [0, K + 1), else K - also for NaN, which a span too
 * narrow for float square roots gives (scale = infinity times 0): the
 * thresholds then decide.  Keeps the float-to-int conversion defined. */
NN_HD static inline int nn_guess_floor(float g, int k)
{
    return g >= 0.0f && g < (float)k + 1.0f ? (int)g : k;
}

/* The bin of s: the float guess, corrected by the query's thresholds. */
NN_HD static inline int nn_bin_guessed(float s, const float *threshold, int k, float root,
                                       float scale)
{
    return nn_bin_from_thresholds(s, threshold, k, nn_guess_floor(nn_guess(s, root, scale), k));
}

/*
 * Exact bins without reading the thresholds (versions 6 to 14).
 *
 * The guess g(s) is off by a few float roundings, so it is only wrong near a
 * bin edge.  How near, each query measures once, at its own thresholds: the
 * first float of bin j is x_j, the last float of bin j - 1 is the float just
 * below it, and since g never decreases, every s in bin j has
 *     g(x_j) <= g(s) <= g(float below x_{j+1})      (g(smax) for the last bin).
 * The query's margin is the largest amount by which g crosses a bin edge at
 * those points:
 *     margin = max over j of  j - g(x_j),  g(float below x_j) - j,  and  g(smax) - K
 * (and at least 0).  Then for every s of the query: if g(s) is more than the
 * margin away from every integer, its bin is floor(g(s)) - exactly the rule's.
 * (Proof: say s is in bin j and m = floor(g(s)) with m + margin < g(s) <
 * m + 1 - margin.  From j - margin <= g(s) < m + 1 - margin, j <= m; from
 * g(s) <= j + 1 + margin and g(s) > m + margin, j >= m.)  Only the distances
 * within the margin of an edge - a tiny fraction - read two thresholds.
 */

/* The contribution of threshold x_j (bin j, 1 <= j < K) to the margin, in
 * double: j and g are floats below 2^24, so the differences are exact. */
NN_HD static inline double nn_margin_at(int j, float x_j, float root, float scale)
{
    float below = nn_bits_float(nn_float_bits(x_j) - 1u); /* x_j > smin >= 0 */
    double over = (double)j - (double)nn_guess(x_j, root, scale);
    double under = (double)nn_guess(below, root, scale) - (double)j;
    return over > under ? over : under;
}

/* The last bin's contribution: g(smax) - K. */
NN_HD static inline double nn_margin_top(float smax, int k, float root, float scale)
{
    return (double)nn_guess(smax, root, scale) - (double)k;
}

/* The margin as a float, rounded up (never below the exact value) and >= 0. */
NN_HD static inline float nn_margin_float(double margin)
{
    if (!(margin > 0.0))
        return 0.0f;
#ifdef __CUDA_ARCH__
    return __double2float_ru(margin);
#else
    float f = (float)margin;
    return (double)f < margin ? nextafterf(f, INFINITY) : f;
#endif
}

/* The bin of a distance from its guess g alone, and whether it is sure: 1
 * when g is clear of every integer by more than the margin (the bin is then
 * *bin, the rule's), 0 otherwise (*bin is then where nn_bin_from_thresholds
 * should start).  f = g - floor(g) is exact (Sterbenz), and f + margin,
 * rounded, is below 1 only if f + margin is.  No branch and no memory: a
 * kernel can bin many distances side by side and look up only the few unsure
 * ones. */
NN_HD static inline int nn_bin_sure_guess(float g, int k, float margin, int *bin)
{
#ifdef __CUDA_ARCH__
    /* The GPU's conversion saturates and takes NaN to 0 (f is then NaN: not
     * sure), so nn_guess_floor's tests are not needed; they differ only for
     * g >= K + 1, which takes s > smax, whose bin is K - 1 either way. */
    int m = __float2int_rz(g);
#else
    int m = nn_guess_floor(g, k);
#endif
    float f = g - (float)m; /* NaN for a NaN guess: not sure, the thresholds decide */
#ifdef __CUDA_ARCH__
    float f_plus = __fadd_rn(f, margin);
#else
    float f_plus = f + margin;
#endif
    *bin = m < k - 1 ? m : k - 1;
    return f > margin && f_plus < 1.0f;
}

NN_HD static inline int nn_bin_sure(float s, int k, float root, float scale, float margin,
                                    int *bin)
{
    return nn_bin_sure_guess(nn_guess(s, root, scale), k, margin, bin);
}

/* The bin of s from the guess when it is sure, from the thresholds otherwise. */
NN_HD static inline int nn_bin_fast(float s, const float *threshold, int k, float root,
                                    float scale, float margin)
{
    int b;
    if (nn_bin_sure(s, k, root, scale, margin, &b))
        return b;
    return nn_bin_from_thresholds(s, threshold, k, b);
}

#endif
