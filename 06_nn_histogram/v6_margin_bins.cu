/*
 * 06_nn_histogram/v6_margin_bins.cu - version 6: exact bins without reading
 * the thresholds.
 *
 * What changed since version 5: the bin of a distance.  Version 5 guessed it
 * in float arithmetic and corrected the guess by reading the thresholds on
 * either side (nn_bin_guessed): two global loads per distance.  Here the
 * float guess is known to be off by at most a per-query margin, measured once
 * with the thresholds (bin_rule.h, nn_bin_fast); only a distance within the
 * margin of a bin edge reads the thresholds.
 */
#include "cuda_check.h"
#include "gpu.h"
#include "nn_device.h"

#define F_THREADS 256
#define F_RPT 8                      /* references per thread per tile */
#define F_DC 4                       /* dimensions staged per step */
#define F_TILES_PER_BLOCK 32
#define F_GROUPS 4                   /* groups of 8 queries per block, where it can (plan_pass) */

enum { PASS_MINMAX = 0, PASS_HISTOGRAM = 1 };

/* Thread t's share of the F_DC x TILE reference values of dimensions
 * [k0, k0 + F_DC) and references [r0, r0 + TILE): consecutive threads read
 * consecutive references (coalesced), and the loop is unrolled so that all
 * STAGE loads are in flight at once instead of one after another. */
template <int TILE, int STAGE>
static __device__ __forceinline__ void load_stage(const float *base_t, int refs, int d, int r0,
                                                  int k0, int t, float staged[STAGE])
{
#pragma unroll
    for (int i = 0; i < STAGE; i++) {
        int at = t + i * F_THREADS, kk = at / TILE, rr = at % TILE;
        staged[i] = (k0 + kk < d && r0 + rr < refs) ? base_t[(size_t)(k0 + kk) * refs + r0 + rr]
                                                    : 0.0f;
    }
}

/* A block owns QG groups of 8 queries (blockIdx.x) and F_TILES_PER_BLOCK tiles
 * of references (blockIdx.y); its threads split into QG teams, one per group.
 * The queries vary fastest in the grid, so the blocks that run at the same
 * time work on the same references, which can come from the L2 cache (lab 8
 * tries the other order) - and each reference brought into shared memory
 * serves all 8 QG queries of the block.  Each thread computes an 8 x F_RPT tile of dot
 * products in registers: per dimension it reads F_RPT references (two 16-byte
 * loads) and 8 query values (the same address for the whole warp: a
 * broadcast), for 8 * F_RPT multiply-adds.  While it does, the next step's
 * reference values are already on their way into its registers (load_stage),
 * so the wait for memory overlaps the arithmetic.  The squared distance is
 * ||q||^2 + ||r||^2 - 2 q.r.
 * PASS_MINMAX keeps the smallest and largest per query; PASS_HISTOGRAM bins
 * them into the block's private histograms (s_hist, when they fit in shared
 * memory) and adds those to the global counts once at the end.  A distance
 * is binned by its float guess alone unless it lies within the query's
 * margin of an edge (nn_bin_fast). */
template <int QG>
static __global__ void __launch_bounds__(F_THREADS)
fused_pass(int pass, const float *query, const float *base_t, const float *qnorm,
           const float *rnorm, int nq, int refs, int d, int k, uint32_t *smin, uint32_t *smax,
           const float *threshold, const float *margin, uint32_t *hist, int shared_hist)
{
    constexpr int TQ = 8 * QG;                        /* queries per block */
    constexpr int TEAM = F_THREADS / QG;              /* threads per group of 8 queries */
    constexpr int TILE = TEAM * F_RPT;                /* references per tile */
    constexpr int STAGE = F_DC * TILE / F_THREADS;    /* values a thread stages per step */
    extern __shared__ __align__(16) float smem[];
    float *s_ref = smem;                  /* F_DC x TILE */
    float *s_q = s_ref + F_DC * TILE;     /* TQ x F_DC */
    uint32_t *s_hist = (uint32_t *)(s_q + TQ * F_DC); /* TQ x k */
    __shared__ float s_root[TQ], s_scale[TQ], s_margin[TQ];
    __shared__ uint32_t s_min[TQ], s_max[TQ];

    const int t = threadIdx.x, q0 = blockIdx.x * TQ;
    const int g8 = t / TEAM * 8, tr = t % TEAM; /* queries q0 + g8 .. + 7; tile column tr */
    const int r_begin = blockIdx.y * F_TILES_PER_BLOCK * TILE;
    const int r_end = min(refs, r_begin + F_TILES_PER_BLOCK * TILE);
    if (pass == PASS_HISTOGRAM && shared_hist)
        for (int i = t; i < TQ * k; i += F_THREADS)
            s_hist[i] = 0;
    /* WRITE BEGIN margin_bins: binning without lookups: margins, and bins by nn_bin_fast */
    if (t < TQ) {
        s_min[t] = 0xFFFFFFFFu;
        s_max[t] = 0;
        if (pass == PASS_HISTOGRAM && q0 + t < nq) {
            bin_guess_params(smin, smax, q0 + t, k, &s_root[t], &s_scale[t]);
            s_margin[t] = margin[q0 + t];
        }
    }
    /* WRITE END margin_bins */
    float qn[8];
    uint32_t my_min[8], my_max[8];
#pragma unroll
    for (int i = 0; i < 8; i++) {
        qn[i] = q0 + g8 + i < nq ? qnorm[q0 + g8 + i] : 0.0f;
        my_min[i] = 0xFFFFFFFFu;
        my_max[i] = 0;
    }

    float staged[STAGE];
    load_stage<TILE, STAGE>(base_t, refs, d, r_begin, 0, t, staged);
    for (int r0 = r_begin; r0 < r_end; r0 += TILE) {
        float acc[8][F_RPT];
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < F_RPT; j++)
                acc[i][j] = 0.0f;

        for (int k0 = 0; k0 < d; k0 += F_DC) {
            __syncthreads(); /* the previous step's values are used up */
#pragma unroll
            for (int i = 0; i < STAGE; i++)
                s_ref[t + i * F_THREADS] = staged[i];
            if (t < TQ * F_DC) {
                int qi = t / F_DC, kk = t % F_DC;
                s_q[t] = (q0 + qi < nq && k0 + kk < d) ? query[(size_t)(q0 + qi) * d + k0 + kk]
                                                       : 0.0f;
            }
            __syncthreads();
            /* the next step: the next dimensions, or the next tile's first */
            int next_k0 = k0 + F_DC < d ? k0 + F_DC : 0;
            int next_r0 = k0 + F_DC < d ? r0 : r0 + TILE;
            if (next_r0 < r_end)
                load_stage<TILE, STAGE>(base_t, refs, d, next_r0, next_k0, t, staged);
#pragma unroll
            for (int kk = 0; kk < F_DC; kk++) {
                const float4 *src = (const float4 *)(s_ref + kk * TILE + tr * F_RPT);
                float4 a = src[0], b = src[1];
                float r[F_RPT] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
                for (int i = 0; i < 8; i++) {
                    float qv = s_q[(g8 + i) * F_DC + kk];
#pragma unroll
                    for (int j = 0; j < F_RPT; j++)
                        acc[i][j] = fmaf(qv, r[j], acc[i][j]);
                }
            }
        }

#pragma unroll
        for (int j = 0; j < F_RPT; j++) {
            int r = r0 + tr * F_RPT + j;
            if (r >= refs)
                break;
            float rn = rnorm[r];
#pragma unroll
            for (int i = 0; i < 8; i++) {
                int qi = g8 + i;
                if (q0 + qi >= nq)
                    break;
                float s = qn[i] + rn - 2.0f * acc[i][j];
                s = s > 0.0f ? s : 0.0f; /* rounding on non-integer data; never -0 */
                if (pass == PASS_MINMAX) {
                    my_min[i] = min(my_min[i], __float_as_uint(s));
                    my_max[i] = max(my_max[i], __float_as_uint(s));
                } else {
                    /* WRITE BEGIN margin_bins: binning without lookups: margins, and bins by nn_bin_fast */
                    const float *thr = threshold + (size_t)(q0 + qi) * (k - 1);
                    /* LAB BEGIN fast_bin: b = the exact bin of s, by nn_bin_fast */
                    /* LAB STUB int b = 0; */
                    int b = nn_bin_fast(s, thr, k, s_root[qi], s_scale[qi], s_margin[qi]);
                    /* LAB END fast_bin */
                    uint32_t *counter = shared_hist ? &s_hist[qi * k + b]
                                                    : &hist[(size_t)(q0 + qi) * k + b];
                    atomicAdd(counter, 1u);
                    /* WRITE END margin_bins */
                }
            }
        }
    }

    if (pass == PASS_MINMAX) {
#pragma unroll
        for (int i = 0; i < 8; i++) { /* the warp's min/max (one team), then one shared atomic */
            uint32_t mn = my_min[i], mx = my_max[i];
            for (int offset = 16; offset > 0; offset /= 2) {
                mn = min(mn, __shfl_down_sync(FULL_MASK, mn, offset));
                mx = max(mx, __shfl_down_sync(FULL_MASK, mx, offset));
            }
            if (t % 32 == 0) {
                atomicMin(&s_min[g8 + i], mn);
                atomicMax(&s_max[g8 + i], mx);
            }
        }
        __syncthreads();
        if (t < TQ && q0 + t < nq) {
            atomicMin(&smin[q0 + t], s_min[t]);
            atomicMax(&smax[q0 + t], s_max[t]);
        }
    } else if (shared_hist) {
        __syncthreads();
        for (int i = t; i < TQ * k; i += F_THREADS)
            if (s_hist[i] != 0 && q0 + i / k < nq)
                atomicAdd(&hist[(size_t)q0 * k + i], s_hist[i]);
    }
}

/* How a pass is laid out: groups of 8 queries per block, whether the block's
 * histograms are in shared memory, and the shared memory it needs. */
typedef struct {
    int groups, shared_hist;
    size_t smem;
} fused_plan;

/* The shared memory a block of `groups` groups of queries stages its
 * reference and query values in. */
static size_t staging_bytes(int groups)
{
    return (size_t)(F_DC * (F_THREADS / groups * F_RPT) + 8 * groups * F_DC) * sizeof(float);
}

/* The more queries a block takes, the fewer times each reference is read -
 * but the histogram pass needs 8 x groups x K counters in shared memory: as
 * many groups as fit (or all F_GROUPS with global counters, when not even
 * one group's histograms fit in this GPU's shared memory). */
static fused_plan plan_pass(const nn_device *dev, int pass)
{
    fused_plan plan = {F_GROUPS, 0, staging_bytes(F_GROUPS)};
    if (pass == PASS_MINMAX)
        return plan;
    for (int groups = F_GROUPS; groups >= 1; groups /= 2) {
        size_t hists = (size_t)8 * groups * dev->p.bins * sizeof(uint32_t);
        size_t with_hist = staging_bytes(groups) + hists;
        if (with_hist + 1024 <= gpu_shared_memory_optin()) { /* room for the static arrays */
            fused_plan fits = {groups, 1, with_hist};
            return fits;
        }
    }
    return plan; /* not even one group's histograms fit: all groups, global counters */
}

template <int QG>
static void launch_pass(nn_device *dev, int pass, const fused_plan *plan)
{
    const nn_problem *p = &dev->p;
    CUDA_CHECK(cudaFuncSetAttribute(fused_pass<QG>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)plan->smem));
    size_t refs_per_block = (size_t)F_THREADS / QG * F_RPT * F_TILES_PER_BLOCK;
    dim3 grid((unsigned)((p->queries + 8 * QG - 1) / (8 * QG)),
              (unsigned)((p->refs + refs_per_block - 1) / refs_per_block));
    fused_pass<QG><<<grid, F_THREADS, plan->smem>>>(pass, dev->query, dev->base_t, dev->qnorm,
                                                    dev->rnorm, p->queries, p->refs, p->dims,
                                                    p->bins, dev->smin, dev->smax, dev->threshold,
                                                    dev->margin, dev->hist, plan->shared_hist);
    CUDA_CHECK_LAUNCH();
}

static void run_pass(nn_device *dev, int pass)
{
    fused_plan plan = plan_pass(dev, pass);
    if (plan.groups == 4)
        launch_pass<4>(dev, pass, &plan);
    else if (plan.groups == 2)
        launch_pass<2>(dev, pass, &plan);
    else
        launch_pass<1>(dev, pass, &plan);
}

static void run(nn_device *dev, int reduce)
{
    (void)reduce;
    run_pass(dev, PASS_MINMAX);
    step_timer_mark(&dev->timer, 0, NN_STEP_MINMAX);
    /* WRITE BEGIN margin_bins: binning without lookups: margins, and bins by nn_bin_fast */
    /* LAB BEGIN margins: every query's thresholds and margin (nn_launch_thresholds) */
    nn_launch_thresholds(dev, 0, dev->p.queries, 1);
    /* LAB END margins */
    /* WRITE END margin_bins */
    step_timer_mark(&dev->timer, 0, NN_STEP_THRESHOLDS);
    run_pass(dev, PASS_HISTOGRAM);
    step_timer_mark(&dev->timer, 0, NN_STEP_HISTOGRAM);
}

/* No distances in memory; per pass the references are read once per block of
 * 8 x groups queries (mostly from the L2 cache), the queries once, and the
 * histogram pass writes the counts. */
static double step_bytes(const nn_device *dev, int step)
{
    const nn_problem *p = &dev->p;
    const double q = p->queries, r = p->refs, d = p->dims, k = p->bins;
    if (step == NN_STEP_DISTANCES)
        return 0;
    int tq = 8 * plan_pass(dev, step == NN_STEP_MINMAX ? PASS_MINMAX : PASS_HISTOGRAM).groups;
    double blocks = (double)nn_round_up(p->queries, tq) / tq;
    return 4.0 * d * (r * blocks + q) + (step == NN_STEP_HISTOGRAM ? 4.0 * q * k : 0.0);
}

extern const nn_version nn_version_6 = {"fused, margin binning", 0, run, step_bytes};
