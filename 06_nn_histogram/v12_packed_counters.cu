/*
 * 06_nn_histogram/v12_packed_counters.cu - version 12: 16-bit counters.
 *
 * What changed since version 11: the histogram pass at large K, where the
 * 32-bit histograms leave shared memory room for fewer than all 4 groups of
 * queries.  Two queries' counters now share each word, 16 bits each, so twice
 * the queries fit and each reference read serves twice the distances.  A
 * block counts fewer than 2^16 references (no half ever carries into the
 * other), and a warp step holds one tile of references instead of two
 * (MT, a template parameter now), so that the registers still allow 24 warps.
 */
#include "cuda_check.h"
#include "gpu.h"
#include "imma_layout.h"
#include "nn_device.h"

#define F_THREADS 256
#define F_RPT 8                      /* references per thread per tile */
#define F_WC 4                       /* words (4 dimensions each) staged per step */
#define F_TILES_PER_BLOCK 32
#define F_GROUPS 4                   /* groups of 8 queries per block, where it can (plan_pass) */

enum { PASS_MINMAX = 0, PASS_HISTOGRAM = 1 };

/* Thread t's share of the F_WC x TILE reference words of words
 * [k0, k0 + F_WC) and references [r0, r0 + TILE): consecutive threads read
 * consecutive references (coalesced), and the loop is unrolled so that all
 * STAGE loads are in flight at once instead of one after another. */
template <int TILE, int STAGE>
static __device__ __forceinline__ void load_stage(const uint32_t *base4, int refs, int dw,
                                                  int r0, int k0, int t, uint32_t staged[STAGE])
{
#pragma unroll
    for (int i = 0; i < STAGE; i++) {
        int at = t + i * F_THREADS, kk = at / TILE, rr = at % TILE;
        staged[i] = (k0 + kk < dw && r0 + rr < refs) ? base4[(size_t)(k0 + kk) * refs + r0 + rr]
                                                     : 0u;
    }
}

/* A block owns QG groups of 8 queries (blockIdx.x) and F_TILES_PER_BLOCK tiles
 * of references (blockIdx.y); its threads split into QG teams, one per group.
 * The queries vary fastest in the grid, so the blocks that run at the same
 * time work on the same references, which can come from the L2 cache (lab 8
 * tries the other order) - and each reference brought into shared memory
 * serves all 8 QG queries of the block.  Each thread computes an 8 x F_RPT tile of dot
 * products in registers: per word (4 dimensions) it reads F_RPT references'
 * words (two 16-byte loads) and 8 query words (the same address for the whole
 * warp: a broadcast), for 8 * F_RPT __dp4a - 4 byte multiply-adds each.
 * While it does, the next step's reference words are already on their way
 * into its registers (load_stage), so the wait for memory overlaps the
 * arithmetic.  The squared distance is
 * ||q||^2 + ||r||^2 - 2 q.r.
 * PASS_MINMAX keeps the smallest and largest per query; PASS_HISTOGRAM bins
 * them into the block's private histograms (s_hist, when they fit in shared
 * memory) and adds those to the global counts once at the end.  A distance
 * is binned by its float guess alone unless it lies within the query's
 * margin of an edge (nn_bin_fast). */
template <int QG>
static __global__ void __launch_bounds__(F_THREADS)
fused_pass(int pass, const uint32_t *query4, const uint32_t *base4, const float *qnorm,
           const float *rnorm, int nq, int refs, int dw, int k, uint32_t *smin, uint32_t *smax,
           const float *threshold, const float *margin, uint32_t *hist, int shared_hist)
{
    constexpr int TQ = 8 * QG;                        /* queries per block */
    constexpr int TEAM = F_THREADS / QG;              /* threads per group of 8 queries */
    constexpr int TILE = TEAM * F_RPT;                /* references per tile */
    constexpr int STAGE = F_WC * TILE / F_THREADS;    /* words a thread stages per step */
    extern __shared__ __align__(16) uint32_t smem[];
    uint32_t *s_ref = smem;               /* F_WC x TILE */
    uint32_t *s_q = s_ref + F_WC * TILE;  /* TQ x F_WC */
    uint32_t *s_hist = s_q + TQ * F_WC;   /* TQ x k */
    __shared__ float s_root[TQ], s_scale[TQ], s_margin[TQ];
    __shared__ uint32_t s_min[TQ], s_max[TQ];

    const int t = threadIdx.x, q0 = blockIdx.x * TQ;
    const int g8 = t / TEAM * 8, tr = t % TEAM; /* queries q0 + g8 .. + 7; tile column tr */
    const int r_begin = blockIdx.y * F_TILES_PER_BLOCK * TILE;
    const int r_end = min(refs, r_begin + F_TILES_PER_BLOCK * TILE);
    if (pass == PASS_HISTOGRAM && shared_hist)
        for (int i = t; i < TQ * k; i += F_THREADS)
            s_hist[i] = 0;
    if (t < TQ) {
        s_min[t] = 0xFFFFFFFFu;
        s_max[t] = 0;
        if (pass == PASS_HISTOGRAM && q0 + t < nq) {
            bin_guess_params(smin, smax, q0 + t, k, &s_root[t], &s_scale[t]);
            s_margin[t] = margin[q0 + t];
        }
    }
    int qn[8]; /* the norms are integers: exact in float, and here in int */
    uint32_t my_min[8], my_max[8];
#pragma unroll
    for (int i = 0; i < 8; i++) {
        qn[i] = q0 + g8 + i < nq ? (int)qnorm[q0 + g8 + i] : 0;
        my_min[i] = 0xFFFFFFFFu;
        my_max[i] = 0;
    }

    uint32_t staged[STAGE];
    load_stage<TILE, STAGE>(base4, refs, dw, r_begin, 0, t, staged);
    for (int r0 = r_begin; r0 < r_end; r0 += TILE) {
        uint32_t acc[8][F_RPT];
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < F_RPT; j++)
                acc[i][j] = 0u;

        for (int k0 = 0; k0 < dw; k0 += F_WC) {
            __syncthreads(); /* the previous step's values are used up */
#pragma unroll
            for (int i = 0; i < STAGE; i++)
                s_ref[t + i * F_THREADS] = staged[i];
            if (t < TQ * F_WC) {
                int qi = t / F_WC, kk = t % F_WC;
                s_q[t] = (q0 + qi < nq && k0 + kk < dw) ? query4[(size_t)(q0 + qi) * dw + k0 + kk]
                                                        : 0u;
            }
            __syncthreads();
            /* the next step: the next dimensions, or the next tile's first */
            int next_k0 = k0 + F_WC < dw ? k0 + F_WC : 0;
            int next_r0 = k0 + F_WC < dw ? r0 : r0 + TILE;
            if (next_r0 < r_end)
                load_stage<TILE, STAGE>(base4, refs, dw, next_r0, next_k0, t, staged);
#pragma unroll
            for (int kk = 0; kk < F_WC; kk++) {
                const uint4 *src = (const uint4 *)(s_ref + kk * TILE + tr * F_RPT);
                uint4 a = src[0], b = src[1];
                uint32_t r[F_RPT] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
                for (int i = 0; i < 8; i++) {
                    uint32_t qv = s_q[(g8 + i) * F_WC + kk];
#pragma unroll
                    for (int j = 0; j < F_RPT; j++)
                        acc[i][j] = __dp4a(qv, r[j], acc[i][j]); /* unsigned bytes */
                }
            }
        }

#pragma unroll
        for (int j = 0; j < F_RPT; j++) {
            int r = r0 + tr * F_RPT + j;
            if (r >= refs)
                break;
            int rn = (int)rnorm[r];
#pragma unroll
            for (int i = 0; i < 8; i++) {
                int qi = g8 + i;
                if (q0 + qi >= nq)
                    break;
                float s = (float)(qn[i] + rn - 2 * (int)acc[i][j]); /* exact, below 2^24 */
                if (pass == PASS_MINMAX) {
                    my_min[i] = min(my_min[i], __float_as_uint(s));
                    my_max[i] = max(my_max[i], __float_as_uint(s));
                } else {
                    const float *thr = threshold + (size_t)(q0 + qi) * (k - 1);
                    int b = nn_bin_fast(s, thr, k, s_root[qi], s_scale[qi], s_margin[qi]);
                    uint32_t *counter = shared_hist ? &s_hist[qi * k + b]
                                                    : &hist[(size_t)(q0 + qi) * k + b];
                    atomicAdd(counter, 1u);
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
    return (size_t)(F_WC * (F_THREADS / groups * F_RPT) + 8 * groups * F_WC) * sizeof(uint32_t);
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
    fused_pass<QG><<<grid, F_THREADS, plan->smem>>>(pass, dev->query4, dev->base4, dev->qnorm,
                                                    dev->rnorm, p->queries, p->refs, dev->words,
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

/* ---- the tensor-core pass.  The bytes are stored once more in the order of
 * the mma fragments (imma_layout.h): a thread's share of a fragment is one
 * 32-byte load from global memory, and each warp walks its block's references
 * 32 at a time, with no shared-memory staging of them. */

#define I_WARPS 8                  /* warps per block */
#define I_HIST_WARPS_ONE_GROUP 24  /* ... when one group fills the shared memory (plan_imma) */
#define I_HIST_WARPS 16            /* ... in the histogram pass otherwise (plan_imma) */
#define I_MTILES 2                 /* 16-reference tiles per warp step */
#define I_STEP (16 * I_MTILES)     /* references per warp step: 32 */
#define I_MAX_GROUPS 4             /* groups of 8 queries per block: up to 32 queries */
#define I_MINMAX_REFS 65536        /* references per block in the min/max pass */

/* c += a b for one 16 x 8 tile and 32 dimensions: bytes in, int32 sums out (on Turing four
 * m8n8k16, imma_layout.h; make NN_MMA=m8n8k16 builds that form on any GPU). */
static __device__ __forceinline__ void mma_u8(int c[4], const uint32_t a[4], const uint32_t b[2])
{
#if __CUDA_ARCH__ >= 800 && !defined(NN_MMA_M8N8K16)
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif __CUDA_ARCH__ >= 750
    mma_u8_m8n8k16(&c[0], a[0], b[0]);
    mma_u8_m8n8k16(&c[0], a[2], b[1]);
    mma_u8_m8n8k16(&c[2], a[1], b[0]);
    mma_u8_m8n8k16(&c[2], a[3], b[1]);
#else
    (void)c, (void)a, (void)b;
    __trap(); /* never launched: imma_usable() rejects these GPUs */
#endif
}

/* A thread's 8 packed words of one vector and block, from its two 16-byte pieces. */
static __device__ __forceinline__ void words_of(uint4 lo, uint4 hi, uint32_t w[8])
{
    w[0] = lo.x, w[1] = lo.y, w[2] = lo.z, w[3] = lo.w;
    w[4] = hi.x, w[5] = hi.y, w[6] = hi.z, w[7] = hi.w;
}

/* The A words of a warp step (MT tiles, rows g and g + 8 of each) for
 * block kb of the dimensions.  `rows` points at this thread's share of row g
 * of the step's first tile: row g + 8 * h of tile mt is (16 mt + 8 h) rows on,
 * and a packed row is KB blocks of 8 uint4. */
template <int KB, int MT>
static __device__ __forceinline__ void load_step(const uint4 *rows, int kb, uint32_t wa[MT][2][8])
{
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const uint4 *p = rows + ((mt * 16 + half * 8) * KB + kb) * 8;
            words_of(p[0], p[1], wa[mt][half]);
        }
}

/* A block owns NQ groups of 8 queries and a range of references; each warp
 * takes steps of 16 MT references through the range.  Per step and 128
 * dimensions a thread loads 2 MT x 32 bytes of references (its share of the
 * A fragments, straight from global memory into registers) and reads the
 * queries' B fragments from shared memory; the warp then issues 4 mma per
 * tile and query group.  The int32 results are exact dot products, and
 * s = ||q||^2 + ||r||^2 - 2 q.r is an exact integer below 2^24.
 * PASS_MINMAX keeps each query's smallest and largest s; PASS_HISTOGRAM bins
 * s as versions 6 to 8 do (or, for K <= SMALLK + 1, by comparing it with each
 * threshold) into `copies` private histograms per query in shared memory
 * (lane % copies picks one, copies a power of two: with 32 copies no two
 * lanes of a warp ever collide), or straight into global memory when
 * copies = 0; PACKED puts two queries' counts in each word.  The pass, NQ,
 * the warps per block, SMALLK, KB (blocks of 128 dimensions), MT (tiles per
 * step) and PACKED are template parameters: the accumulators stay in
 * registers, every loop over them unrolls, and each pass is compiled with
 * only its own registers. */
template <int PASS, int NQ, int WARPS, int SMALLK, int KB, int MT, bool PACKED>
static __global__ void __launch_bounds__(WARPS * 32, WARPS <= 8 ? 2 : 1)
imma_pass(const uint4 *query8, const uint4 *base8, const float *qnorm, const float *rnorm, int nq,
          int refs, int refs_per_block, int k, uint32_t *smin, uint32_t *smax,
          const float *threshold, const float *margin, uint32_t *hist, int copies)
{
    extern __shared__ __align__(16) uint4 i_smem[];
    uint4 *s_qlo = i_smem;                            /* NQ x KB x 32 lanes */
    uint4 *s_qhi = s_qlo + NQ * KB * 32;
    uint32_t *s_hist = (uint32_t *)(s_qhi + NQ * KB * 32); /* SLOTS x k x copies */
    /* PACKED: two queries share each counter word, 16 bits each - query i in
     * the low half, query i + NQ * 4 in the high half - so twice the queries
     * fit; a block counts fewer than 2^16 references (plan_imma), so no half
     * ever carries into the other */
    constexpr int SLOTS = PACKED ? NQ * 4 : NQ * 8;
    __shared__ int s_qn[NQ * 8];
    __shared__ float s_root[NQ * 8], s_scale[NQ * 8], s_margin[NQ * 8];
    __shared__ int s_min[NQ * 8], s_max[NQ * 8];
    __shared__ __align__(16) float s_thr[NQ * 8 * (SMALLK ? SMALLK : 1)]; /* +inf padded */

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
    const int q0 = blockIdx.x * NQ * 8;
    const int r_begin = blockIdx.y * refs_per_block;
    const int r_end = refs - r_begin < refs_per_block ? refs : r_begin + refs_per_block;
    const int block_vec = KB * (IMMA_BLOCK_DIMS / 16); /* uint4 per packed vector */

    /* the queries' B fragments, one 32-byte piece per (group, block, lane);
     * the packed queries are padded to whole groups, so every row exists */
    for (int i = threadIdx.x; i < NQ * KB * 32; i += WARPS * 32) {
        int l = i % 32, n = i / 32 / KB, kb = i / 32 % KB;
        const uint4 *src = query8 + (size_t)(q0 + n * 8 + l / 4) * block_vec + kb * 8 + 2 * (l % 4);
        s_qlo[i] = src[0];
        s_qhi[i] = src[1];
    }
    for (int i = threadIdx.x; i < NQ * 8; i += WARPS * 32) {
        int q = q0 + i;
        s_qn[i] = q < nq ? (int)qnorm[q] : 0; /* exact: an integer below 2^24 */
        s_min[i] = INT_MAX;
        s_max[i] = INT_MIN;
        s_root[i] = s_scale[i] = s_margin[i] = 0.0f;
        if (PASS == PASS_HISTOGRAM && q < nq) {
            bin_guess_params(smin, smax, q, k, &s_root[i], &s_scale[i]);
            s_margin[i] = margin[q];
        }
        for (int b = 0; b < SMALLK; b++)
            s_thr[i * SMALLK + b] = q < nq && b < k - 1 ? threshold[(size_t)q * (k - 1) + b]
                                                        : __uint_as_float(NN_NO_THRESHOLD);
    }
    if (PASS == PASS_HISTOGRAM && copies)
        for (int i = threadIdx.x; i < SLOTS * k * copies; i += WARPS * 32)
            s_hist[i] = 0;
    __syncthreads();

    /* What this thread needs of its 2 queries per group, in registers for the
     * whole range when there are few groups (with 4 groups, 32 more registers
     * would cost a block per multiprocessor: read from shared memory then). */
    constexpr bool HOIST = NQ <= 2;
    int h_qn[NQ][2];
    float h_root[NQ][2], h_scale[NQ][2], h_margin[NQ][2];
    int my_min[NQ][2], my_max[NQ][2]; /* of s - ||q||^2, which needs no add per distance */
#pragma unroll
    for (int n = 0; n < NQ; n++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
            int ql = n * 8 + imma_c_query(lane, j);
            my_min[n][j] = INT_MAX, my_max[n][j] = INT_MIN;
            if (HOIST) {
                h_qn[n][j] = s_qn[ql];
                h_root[n][j] = s_root[ql], h_scale[n][j] = s_scale[ql];
                h_margin[n][j] = s_margin[ql];
            }
        }
    const int copy = lane & (copies - 1); /* copies is a power of two */

    /* this thread's share of row g of the warp's first step, and of its norms */
    constexpr int STEP = 16 * MT; /* references per warp step */
    int r0 = r_begin + warp * STEP;
    const uint4 *rows = base8 + (size_t)(r0 + g) * block_vec + 2 * t;
    const float *rnorms = rnorm + r0 + g;
    const size_t rows_per_step = (size_t)WARPS * STEP;
    uint32_t wa[MT][2][8];
    if (r0 < r_end)
        load_step<KB, MT>(rows, 0, wa);
    for (; r0 < r_end; r0 += WARPS * STEP, rows += rows_per_step * block_vec,
                       rnorms += rows_per_step) {
        int acc[MT][NQ][4];
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int n = 0; n < NQ; n++)
                acc[mt][n][0] = acc[mt][n][1] = acc[mt][n][2] = acc[mt][n][3] = 0;
#pragma unroll
        for (int kb = 0; kb < KB; kb++) {
            if (kb > 0)
                load_step<KB, MT>(rows, kb, wa);
#pragma unroll
            for (int n = 0; n < NQ; n++) {
                uint32_t wb[8];
                int piece = (n * KB + kb) * 32 + lane;
                words_of(s_qlo[piece], s_qhi[piece], wb);
#pragma unroll
                for (int c = 0; c < 4; c++) {
                    uint32_t b[2];
                    imma_b_fragment(wb, c, b);
#pragma unroll
                    for (int mt = 0; mt < MT; mt++) {
                        uint32_t a[4];
                        imma_a_fragment(wa[mt][0], wa[mt][1], c, a);
                        mma_u8(acc[mt][n], a, b);
                    }
                }
            }
        }
        /* the next step's first block is on its way while this one is binned */
        const bool full_step = r0 + STEP <= r_end; /* all but a range's last step */
        if (r0 + WARPS * STEP < r_end)
            load_step<KB, MT>(rows + rows_per_step * block_vec, 0, wa);

        /* ||r||^2 of rows g and g + 8 of each tile; past the end of the
         * range (the last step only) a reference is absent */
        int rn[MT][2];
        unsigned present = (1u << (MT * 2)) - 1; /* bit 2 mt + half */
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int half = 0; half < 2; half++) {
                bool in = full_step || r0 + mt * 16 + half * 8 + g < r_end;
                rn[mt][half] = in ? (int)rnorms[mt * 16 + half * 8] : 0;
                if (!in)
                    present &= ~(1u << (2 * mt + half));
            }

        /* c[i] of a tile is query imma_c_query(lane, i), which depends on i % 2
         * only: a thread holds 2 queries per group (j), each for 4 references
         * (c[j] and c[2 + j] of each of its 2 tiles: e = 2 mt + half).  The 8
         * distances of a group are binned side by side, without a branch, so
         * that their instructions interleave; the rare unsure ones afterwards. */
        constexpr int E = MT * 2;
#pragma unroll
        for (int n = 0; n < NQ; n++) {
            int ql[2], d[2][E]; /* d: s - ||q||^2 = ||r||^2 - 2 q.r */
            bool query_in[2];
#pragma unroll
            for (int j = 0; j < 2; j++) {
                ql[j] = n * 8 + imma_c_query(lane, j);
                query_in[j] = q0 + ql[j] < nq;
#pragma unroll
                for (int mt = 0; mt < MT; mt++)
#pragma unroll
                    for (int half = 0; half < 2; half++)
                        d[j][2 * mt + half] = rn[mt][half] - 2 * acc[mt][n][2 * half + j];
            }
            if constexpr (PASS == PASS_MINMAX) {
#pragma unroll
                for (int j = 0; j < 2; j++)
#pragma unroll
                    for (int e = 0; e < E; e++) {
                        bool in = present >> e & 1u;
                        my_min[n][j] = min(my_min[n][j], in ? d[j][e] : INT_MAX);
                        my_max[n][j] = max(my_max[n][j], in ? d[j][e] : INT_MIN);
                    }
            } else {
                int qn[2], bin[2][E];
#pragma unroll
                for (int j = 0; j < 2; j++)
                    qn[j] = HOIST ? h_qn[n][j] : s_qn[ql[j]];
                if (SMALLK) { /* K <= SMALLK + 1: count the thresholds at or below s */
#pragma unroll
                    for (int j = 0; j < 2; j++) {
                        const float *thr = s_thr + ql[j] * SMALLK;
#pragma unroll
                        for (int e = 0; e < E; e++) {
                            float s = (float)(qn[j] + d[j][e]);
                            bin[j][e] = 0;
#pragma unroll
                            for (int b = 0; b < SMALLK; b++)
                                bin[j][e] += s >= thr[b];
                        }
                    }
                } else {
                    float root[2], scale[2], qmargin[2];
#pragma unroll
                    for (int j = 0; j < 2; j++) {
                        root[j] = HOIST ? h_root[n][j] : s_root[ql[j]];
                        scale[j] = HOIST ? h_scale[n][j] : s_scale[ql[j]];
                        qmargin[j] = HOIST ? h_margin[n][j] : s_margin[ql[j]];
                    }
                    bool any_unsure = false;
#pragma unroll
                    for (int j = 0; j < 2; j++)
#pragma unroll
                        for (int e = 0; e < E; e++) {
                            float g_s = nn_guess_small((float)(qn[j] + d[j][e]), root[j], scale[j]);
                            any_unsure |= !nn_bin_sure_guess(g_s, k, qmargin[j], &bin[j][e]);
                        }
                    if (any_unsure) { /* rare: find which, and ask the thresholds */
#pragma unroll
                        for (int j = 0; j < 2; j++) {
                            const float *thr = threshold + (size_t)(q0 + ql[j]) * (k - 1);
#pragma unroll
                            for (int e = 0; e < E; e++) {
                                float s = (float)(qn[j] + d[j][e]);
                                if (query_in[j] && (present >> e & 1u) &&
                                    !nn_bin_sure_guess(nn_guess_small(s, root[j], scale[j]), k,
                                                       qmargin[j], &bin[j][e]))
                                    bin[j][e] = nn_bin_from_thresholds(s, thr, k, bin[j][e]);
                            }
                        }
                    }
                }
                /* separate loops, so that the compiler knows which memory each
                 * atomic goes to (a generic atomic on shared memory is slow), and
                 * none of them waits on a test in the usual, full step */
#pragma unroll
                for (int j = 0; j < 2; j++) {
                    if (PACKED) { /* one copy; a query past the end counts unseen */
                        /* WRITE BEGIN packed_counters: 16-bit counters: two queries a word, and their flush */
                        /* LAB BEGIN packed_count: count each distance of query ql[j] in its half of a 16-bit pair */
                        const uint32_t one = n >= NQ / 2 ? 1u << 16 : 1u;
                        uint32_t *counts = s_hist + (ql[j] % SLOTS) * k;
                        if (full_step) {
#pragma unroll
                            for (int e = 0; e < E; e++)
                                atomicAdd(&counts[bin[j][e]], one);
                        } else {
#pragma unroll
                            for (int e = 0; e < E; e++)
                                if (present >> e & 1u)
                                    atomicAdd(&counts[bin[j][e]], one);
                        }
                        /* LAB END packed_count */
                        /* WRITE END packed_counters */
                        continue;
                    }
                    if (!query_in[j])
                        continue;
                    if (copies) {
                        uint32_t *counts = s_hist + ql[j] * k * copies + copy;
                        if (full_step) {
#pragma unroll
                            for (int e = 0; e < E; e++)
                                atomicAdd(&counts[bin[j][e] * copies], 1u);
                        } else {
#pragma unroll
                            for (int e = 0; e < E; e++)
                                if (present >> e & 1u)
                                    atomicAdd(&counts[bin[j][e] * copies], 1u);
                        }
                    } else {
                        uint32_t *counts = hist + (size_t)(q0 + ql[j]) * k;
#pragma unroll
                        for (int e = 0; e < E; e++)
                            if (present >> e & 1u)
                                atomicAdd(&counts[bin[j][e]], 1u);
                    }
                }
            }
        }
    }

    if (PASS == PASS_MINMAX) {
        /* lanes with the same t hold the same queries: combine over g */
#pragma unroll
        for (int n = 0; n < NQ; n++)
#pragma unroll
            for (int j = 0; j < 2; j++) {
                int mn = my_min[n][j], mx = my_max[n][j];
                for (int offset = 4; offset < 32; offset *= 2) {
                    mn = min(mn, __shfl_xor_sync(FULL_MASK, mn, offset));
                    mx = max(mx, __shfl_xor_sync(FULL_MASK, mx, offset));
                }
                if (g == 0) {
                    atomicMin(&s_min[n * 8 + 2 * t + j], mn);
                    atomicMax(&s_max[n * 8 + 2 * t + j], mx);
                }
            }
        __syncthreads();
        /* s = ||q||^2 + d; integers below 2^24 are exact floats, in the same
         * order as their bits */
        for (int i = threadIdx.x; i < NQ * 8; i += WARPS * 32)
            if (q0 + i < nq && s_min[i] != INT_MAX) {
                atomicMin(&smin[q0 + i], __float_as_uint((float)(s_qn[i] + s_min[i])));
                atomicMax(&smax[q0 + i], __float_as_uint((float)(s_qn[i] + s_max[i])));
            }
    } else if (copies) {
        __syncthreads();
        for (int i = threadIdx.x; i < SLOTS * k; i += WARPS * 32) {
            uint32_t count = 0;
            for (int c = 0; c < copies; c++)
                count += s_hist[i * copies + c];
            if (PACKED) { /* each half of the copies' sum is still below 2^16 */
                /* WRITE BEGIN packed_counters: 16-bit counters: two queries a word, and their flush */
                if ((count & 0xffffu) != 0 && q0 + i / k < nq)
                    atomicAdd(&hist[(size_t)q0 * k + i], count & 0xffffu);
                if ((count >> 16) != 0 && q0 + SLOTS + i / k < nq)
                    atomicAdd(&hist[(size_t)(q0 + SLOTS) * k + i], count >> 16);
                /* WRITE END packed_counters */
            } else if (count != 0 && q0 + i / k < nq)
                atomicAdd(&hist[(size_t)q0 * k + i], count);
        }
    }
}

/* How one pass is laid out: query groups per block, warps per block,
 * histogram copies (0: the counts go to global memory), references per block,
 * tiles per warp step, 16-bit counters or not, dynamic shared memory. */
typedef struct {
    int groups, warps, copies, refs_per_block, mtiles, packed;
    size_t smem;
} imma_plan;

static imma_plan plan_imma(const nn_device *dev, int pass)
{
    const nn_problem *p = &dev->p;
    imma_plan plan = {I_MAX_GROUPS, I_WARPS, 0, I_MINMAX_REFS, I_MTILES, 0, 0};
    size_t fragments = (size_t)I_MAX_GROUPS * dev->kblocks * 32 * 2 * sizeof(uint4);
    size_t room = gpu_shared_memory_optin() - 2048; /* the static arrays */
    if (pass == PASS_HISTOGRAM) {
        /* as many queries as have a histogram in shared memory (fewer queries
         * per block means the references are read more often) */
        size_t per_query = (size_t)p->bins * sizeof(uint32_t);
        while (plan.groups > 1 && fragments + plan.groups * 8 * per_query > room)
            plan.groups /= 2;
        if (fragments + plan.groups * 8 * per_query <= room) {
            /* extra copies where they are cheap, against colliding lanes */
            size_t cheap = room < 48 * 1024 ? room : 48 * 1024;
            plan.copies = 1;
            while (plan.copies < 32 &&
                   fragments + plan.groups * 8 * per_query * plan.copies * 2 <= cheap)
                plan.copies *= 2;
        } else {
            plan.groups = I_MAX_GROUPS;
        }
        /* The histograms fill the shared memory, or the registers (128 a
         * thread) allow 512 threads a multiprocessor: 16 warps a block,
         * where two blocks of 8 may not fit.  One group at K = 5000 leaves
         * room for more threads at 80 registers: 24 warps, so that while
         * some wait for their references or their atomics, others have
         * work; at 32 the registers fall to 64 and spill.  Lab exercise 9
         * times each count of warps at K = 5000 (ANSWERS.md gives what
         * they took on one H100). */
        plan.warps = plan.groups == 1 ? I_HIST_WARPS_ONE_GROUP : I_HIST_WARPS;
        /* enough references per block that the final flush of its K counters
         * per query is small beside the distances it counted */
        plan.refs_per_block = (int)nn_round_up((size_t)(64 * p->bins > I_MINMAX_REFS ? 64 * p->bins
                                                                                   : I_MINMAX_REFS),
                                            plan.warps * I_STEP);
        /* Where the 32-bit histograms leave room for fewer than all groups,
         * 16-bit counters hold twice the queries in the same bytes: each
         * reference read serves twice the distances.  The price: a block
         * may count fewer than 2^16 references (more blocks, more flushes),
         * and one tile per warp step, so that the registers still allow 24
         * warps. */
        if (plan.copies > 0 && plan.groups < I_MAX_GROUPS) {
            plan.groups *= 2;
            plan.packed = 1;
            plan.copies = 1; /* the kernel counts into one copy (more never fit) */
            plan.mtiles = 1;
            plan.warps = I_HIST_WARPS_ONE_GROUP;
            plan.refs_per_block = 65535 / (plan.warps * 16) * (plan.warps * 16);
        }
    }
    /* the grid's y dimension holds at most 65535 ranges (at most 32,769
     * references each, for an int count of them: never more than the
     * packed counters allow) */
    const int step = plan.warps * plan.mtiles * 16;
    size_t least = nn_round_up(((size_t)p->refs + 65534) / 65535, step);
    if ((size_t)plan.refs_per_block < least)
        plan.refs_per_block = (int)least;
    plan.smem = (size_t)plan.groups * dev->kblocks * 32 * 2 * sizeof(uint4) +
                (size_t)plan.groups * 8 * p->bins * plan.copies * sizeof(uint32_t) /
                    (plan.packed ? 2 : 1);
    return plan;
}

template <int PASS, int NQ, int WARPS, int SMALLK, int KB, int MT = I_MTILES, bool PACKED = false>
static void launch_imma(nn_device *dev, const imma_plan *plan)
{
    const nn_problem *p = &dev->p;
    CUDA_CHECK(cudaFuncSetAttribute(imma_pass<PASS, NQ, WARPS, SMALLK, KB, MT, PACKED>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)plan->smem));
    dim3 grid((unsigned)((p->queries + NQ * 8 - 1) / (NQ * 8)),
              (unsigned)((p->refs + plan->refs_per_block - 1) / plan->refs_per_block));
    imma_pass<PASS, NQ, WARPS, SMALLK, KB, MT, PACKED><<<grid, WARPS * 32, plan->smem>>>(
        (const uint4 *)dev->query8, (const uint4 *)dev->base8, dev->qnorm, dev->rnorm, p->queries,
        p->refs, plan->refs_per_block, p->bins, dev->smin, dev->smax, dev->threshold, dev->margin,
        dev->hist, plan->copies);
    CUDA_CHECK_LAUNCH();
}

/* The kernel for this pass and plan; KB, the blocks of 128 dimensions, is 1
 * or 2 (the pass takes at most 256 dimensions). */
template <int KB>
static void run_imma_pass_kb(nn_device *dev, int pass, const imma_plan *plan)
{
    if (pass == PASS_MINMAX)
        launch_imma<PASS_MINMAX, I_MAX_GROUPS, I_WARPS, 0, KB>(dev, plan);
    else if (plan->packed && plan->groups == 2)
        launch_imma<PASS_HISTOGRAM, 2, I_HIST_WARPS_ONE_GROUP, 0, KB, 1, true>(dev, plan);
    else if (plan->packed)
        launch_imma<PASS_HISTOGRAM, 4, I_HIST_WARPS_ONE_GROUP, 0, KB, 1, true>(dev, plan);
    else if (plan->groups == 4 && dev->p.bins <= 5) /* a few thresholds: compare with each */
        launch_imma<PASS_HISTOGRAM, 4, I_HIST_WARPS, 4, KB>(dev, plan);
    else if (plan->groups == 4 && dev->p.bins <= 9)
        launch_imma<PASS_HISTOGRAM, 4, I_HIST_WARPS, 8, KB>(dev, plan);
    else if (plan->groups == 4)
        launch_imma<PASS_HISTOGRAM, 4, I_HIST_WARPS, 0, KB>(dev, plan);
    else if (plan->groups == 2)
        launch_imma<PASS_HISTOGRAM, 2, I_HIST_WARPS, 0, KB>(dev, plan);
    else
        launch_imma<PASS_HISTOGRAM, 1, I_HIST_WARPS_ONE_GROUP, 0, KB>(dev, plan);
}

static void run_imma_pass(nn_device *dev, int pass)
{
    imma_plan plan = plan_imma(dev, pass);
    if (dev->kblocks == 1)
        run_imma_pass_kb<1>(dev, pass, &plan);
    else
        run_imma_pass_kb<2>(dev, pass, &plan);
}

static void run(nn_device *dev, int reduce)
{
    (void)reduce;
    void (*pass)(nn_device *, int) = dev->imma ? run_imma_pass : run_pass;
    pass(dev, PASS_MINMAX);
    step_timer_mark(&dev->timer, 0, NN_STEP_MINMAX);
    nn_launch_thresholds(dev, 0, dev->p.queries, 1);
    step_timer_mark(&dev->timer, 0, NN_STEP_THRESHOLDS);
    pass(dev, PASS_HISTOGRAM);
    step_timer_mark(&dev->timer, 0, NN_STEP_HISTOGRAM);
}

/* No distances in memory; per pass the references are read once per block of
 * 8 x groups queries (mostly from the L2 cache), as bytes, the queries once,
 * and the histogram pass writes the counts. */
static double step_bytes(const nn_device *dev, int step)
{
    const nn_problem *p = &dev->p;
    const double q = p->queries, r = p->refs, d = 4.0 * dev->words, k = p->bins;
    if (step == NN_STEP_DISTANCES)
        return 0;
    if (dev->imma) { /* the tensor-core pass: rows of 128 dimensions, its own blocks */
        double row = 128.0 * dev->kblocks;
        imma_plan plan = plan_imma(dev, step == NN_STEP_MINMAX ? PASS_MINMAX : PASS_HISTOGRAM);
        double blocks = (double)nn_round_up(p->queries, plan.groups * 8) / (plan.groups * 8);
        return r * row * blocks + q * row + (step == NN_STEP_HISTOGRAM ? 4.0 * q * k : 0.0);
    }
    int tq = 8 * plan_pass(dev, step == NN_STEP_MINMAX ? PASS_MINMAX : PASS_HISTOGRAM).groups;
    double blocks = (double)nn_round_up(p->queries, tq) / tq;
    return d * (r * blocks + q) + (step == NN_STEP_HISTOGRAM ? 4.0 * q * k : 0.0);
}

extern const nn_version nn_version_12 = {"16-bit counters", 0, run, step_bytes};
