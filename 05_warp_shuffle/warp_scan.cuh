/*
 * 05_warp_shuffle/warp_scan.cuh - a block-wide scan made of register shuffles,
 * the tool of step 05.1 (and of the steps after it).  Read it whole before
 * `make diff FROM=04 TO=05.1`, which shows where the sort uses it.
 *
 *   warp_inclusive_scan   a scan of one value per lane: 5 __shfl_up_sync;
 *   scan_warp_totals      the one step that needs shared memory: the warps' totals;
 *   block_exclusive_scan  the two together: stage 04's block scan, replaced.
 */

#define FULL_WARP 0xFFFFFFFFu

/* ---- scans by shuffles ----------------------------------------------------- */

/* Inclusive scan of one value per lane, within each warp: five steps in which
 * every lane adds the value `offset` lanes below it, read straight from that
 * lane's register.  No shared memory and no block barrier.  The lanes of a warp
 * do not run in lockstep (since Volta each may run ahead of the others): each
 * __shfl_up_sync waits for the lanes its mask names - all 32 - and is where they
 * meet, so every lane must reach it, even one with nothing to add. */
__device__ uint32_t warp_inclusive_scan(uint32_t v)
{
    /* WRITE BEGIN warp_scan: the block scan made of warp shuffles - warp_inclusive_scan, scan_warp_totals and block_exclusive_scan, whole */
    /* WRITE STUB return v; */
    const unsigned lane = threadIdx.x % 32;
    /* LAB BEGIN warp_scan: v becomes the sum of the values of this lane and every lane below it, by __shfl_up_sync steps of 1, 2, 4, 8, 16 lanes */
    for (unsigned offset = 1; offset < 32; offset *= 2) {
        uint32_t left = __shfl_up_sync(FULL_WARP, v, offset);
        if (lane >= offset)
            v += left;
    }
    /* LAB END warp_scan */
    return v;
    /* WRITE END warp_scan */
}

/* Each warp gives its total; returns the sum of the totals of the warps before
 * this thread's, and the block's total in *total.  s_warp holds 33 words.  The
 * one step that needs shared memory and barriers: the first warp scans the
 * (at most 32) totals with the warp scan. */
__device__ uint32_t scan_warp_totals(uint32_t warp_total, uint32_t *s_warp, uint32_t *total)
{
    /* WRITE BEGIN warp_scan: the block scan made of warp shuffles - warp_inclusive_scan, scan_warp_totals and block_exclusive_scan, whole */
    /* WRITE STUB return 0; */
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    if (lane == 0)
        s_warp[warp] = warp_total;
    __syncthreads();
    /* LAB BEGIN warp_totals: the first warp turns s_warp[w] into the sum of the totals of the warps before w, and s_warp[32] into the block's total */
    if (warp == 0) {
        uint32_t t = lane < warps ? s_warp[lane] : 0;
        uint32_t inclusive = warp_inclusive_scan(t);
        if (lane < warps)
            s_warp[lane] = inclusive - t;
        if (lane == 31)
            s_warp[32] = inclusive;
    }
    /* LAB END warp_totals */
    __syncthreads();
    uint32_t before = s_warp[warp];
    *total = s_warp[32];
    __syncthreads(); /* everyone has read s_warp before it is used again */
    return before;
    /* WRITE END warp_scan */
}

/* Exclusive scan of one value per thread over the whole block. */
__device__ uint32_t block_exclusive_scan(uint32_t v, uint32_t *s_warp, uint32_t *total)
{
    /* WRITE BEGIN warp_scan: the block scan made of warp shuffles - warp_inclusive_scan, scan_warp_totals and block_exclusive_scan, whole */
    /* WRITE STUB return 0; */
    uint32_t inclusive = warp_inclusive_scan(v);
    uint32_t warp_total = __shfl_sync(FULL_WARP, inclusive, 31);
    return scan_warp_totals(warp_total, s_warp, total) + inclusive - v;
    /* WRITE END warp_scan */
}
