/*
 * 06_nn_histogram/v13_packed_counters.cu - version 13: 16-bit counters.
 *
 * What changed since version 12: only the histogram pass where the 32-bit
 * histograms leave room for fewer than 4 groups of 8 queries per block (large
 * K: at K = 5000 one group's 160 KB fill the shared memory).  There two
 * queries share each counter word, 16 bits each, so a block holds twice the
 * queries in the same bytes and every reference it reads serves twice the
 * distances: at K = 5000 the references are read 625 times instead of 1,250.
 * A 16-bit counter must not overflow, so a block now counts fewer than 2^16
 * references (more blocks, each adding its counts to the histograms in global
 * memory), and a warp step takes one tile of 16 references instead of two,
 * so that half the registers of references leave room for 24 warps.  The
 * increment is 1 or 2^16, fixed by the query's group, so packing costs no
 * instruction per distance.
 * On a GPU older than compute capability 8.0 version 13 runs version 9, on
 * data that are not bytes version 8, and says so.
 */
#include "cuda_check.h"
#include "gpu.h"
#include "imma_layout.h"
#include "nn_device.h"

enum { PASS_MINMAX = 0, PASS_HISTOGRAM = 1 };

#define I_WARPS 8                  /* warps per block */
#define I_HIST_WARPS_ONE_GROUP 24  /* ... when one group fills the shared memory (plan_imma) */
#define I_HIST_WARPS 16            /* ... in the histogram pass otherwise (plan_imma) */
#define I_MTILES 2                 /* 16-reference tiles per warp step (packed counters: 1) */
#define I_STEP (16 * I_MTILES)     /* references per warp step: 32 */
#define I_MAX_GROUPS 4             /* groups of 8 queries per block: up to 32 queries */
#define I_MINMAX_REFS 65536        /* references per block in the min/max pass */

/* c += a b for one 16 x 8 tile and 32 dimensions: bytes in, int32 sums out. */
static __device__ __forceinline__ void mma_u8(int c[4], const uint32_t a[4], const uint32_t b[2])
{
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
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

/* A block's count of one query and bin into the histogram in global memory. */
static __device__ __forceinline__ void add_count(uint32_t *hist, size_t at, uint32_t count,
                                                 bool query_in)
{
    if (count != 0 && query_in)
        atomicAdd(&hist[at], count);
}

/* A block owns NQ groups of 8 queries and a range of references; each warp
 * takes steps of 16 MT references through the range.  Per step and 128
 * dimensions a thread loads 2 MT x 32 bytes of references (its share of the
 * A fragments, straight from global memory into registers) and reads the
 * queries' B fragments from shared memory; the warp then issues 4 mma per
 * tile and query group.  The int32 results are exact dot products, and
 * s = ||q||^2 + ||r||^2 - 2 q.r is an exact integer below 2^24.
 * PASS_MINMAX keeps each query's smallest and largest s; PASS_HISTOGRAM bins
 * s as versions 8 to 11 do (or, for K <= SMALLK + 1, by comparing it with each
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
                    if (!query_in[j])
                        continue;
                    if (copies) {
                        const int slot = PACKED ? ql[j] % SLOTS : ql[j];
                        const uint32_t one = PACKED && n >= NQ / 2 ? 1u << 16 : 1u;
                        uint32_t *counts = s_hist + slot * k * copies + copy;
                        if (full_step) {
#pragma unroll
                            for (int e = 0; e < E; e++)
                                atomicAdd(&counts[bin[j][e] * copies], one);
                        } else {
#pragma unroll
                            for (int e = 0; e < E; e++)
                                if (present >> e & 1u)
                                    atomicAdd(&counts[bin[j][e] * copies], one);
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
            uint32_t count = 0; /* the copies' sum: each half still below 2^16 */
            for (int c = 0; c < copies; c++)
                count += s_hist[i * copies + c];
            if (PACKED) {
                add_count(hist, (size_t)q0 * k + i, count & 0xffffu, q0 + i / k < nq);
                add_count(hist, (size_t)(q0 + SLOTS) * k + i, count >> 16, q0 + SLOTS + i / k < nq);
            } else {
                add_count(hist, (size_t)q0 * k + i, count, q0 + i / k < nq);
            }
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
         * work.  On the H100 at K = 5000 (1,000 queries, the histogram
         * pass of version 12; lab exercise 9): 8 warps 4.6 ms, 16 warps 2.8 ms,
         * 24 warps 2.3 ms, 32 warps 5.4 ms (and spills) */
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
 * or 2 (version 13 takes at most 256 dimensions). */
template <int KB>
static void run_imma_pass_kb(nn_device *dev, int pass, const imma_plan *plan)
{
    if (pass == PASS_MINMAX)
        launch_imma<PASS_MINMAX, I_MAX_GROUPS, I_WARPS, 0, KB>(dev, plan);
    else if (plan->packed && plan->groups == 4)
        launch_imma<PASS_HISTOGRAM, 4, I_HIST_WARPS_ONE_GROUP, 0, KB, 1, true>(dev, plan);
    else if (plan->packed)
        launch_imma<PASS_HISTOGRAM, 2, I_HIST_WARPS_ONE_GROUP, 0, KB, 1, true>(dev, plan);
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
    run_imma_pass(dev, PASS_MINMAX);
    step_timer_mark(&dev->timer, 0, NN_STEP_MINMAX);
    nn_launch_thresholds(dev, 0, dev->p.queries, 1);
    step_timer_mark(&dev->timer, 0, NN_STEP_THRESHOLDS);
    run_imma_pass(dev, PASS_HISTOGRAM);
    step_timer_mark(&dev->timer, 0, NN_STEP_HISTOGRAM);
}

/* No distances in memory; per pass the references are read once per block of
 * queries (mostly from the L2 cache) as bytes, 128 dimensions a block, the
 * queries once, and the histogram pass writes the counts. */
static double step_bytes(const nn_device *dev, int step)
{
    const nn_problem *p = &dev->p;
    const double q = p->queries, r = p->refs, k = p->bins;
    if (step == NN_STEP_DISTANCES)
        return 0;
    double row = 128.0 * dev->kblocks;
    imma_plan plan = plan_imma(dev, step == NN_STEP_MINMAX ? PASS_MINMAX : PASS_HISTOGRAM);
    double blocks = (double)nn_round_up(p->queries, plan.groups * 8) / (plan.groups * 8);
    return r * row * blocks + q * row + (step == NN_STEP_HISTOGRAM ? 4.0 * q * k : 0.0);
}

extern const nn_version nn_version_13 = {"16-bit counters", 0, run, step_bytes};
