/*
 * 05_warp_shuffle/warp_multisplit.cuh - a key's rank among its warp's keys of
 * the same digit, made of ballots: the tool of step 05.3.  Read it whole before
 * `make diff FROM=05.2 TO=05.3`, which shows where the sort uses it.
 *
 *   lanes_with_digit      k ballots: the lanes that hold this lane's digit;
 *   rank_in_warp          a key's place among the warp's keys of its digit.
 *
 * It uses FULL_WARP and the scans of warp_scan.cuh, included before it.
 */

/* ---- ranks by ballots ------------------------------------------------------ */

/* The lanes of this warp whose digit equals this lane's: one ballot per bit
 * of the digit, each keeping the lanes that agree with this lane on that bit. */
__device__ __forceinline__ unsigned lanes_with_digit(uint32_t digit, int width)
{
    /* WRITE BEGIN multisplit: the warp multisplit - lanes_with_digit, rank_in_warp (warp_multisplit.cuh) and multisplit_tile, whole */
    /* WRITE STUB return 0; */
    unsigned same = FULL_WARP;
#pragma unroll
    for (int b = 0; b < 8; b++) {
        if (b < width) {
            /* LAB BEGIN lanes_with_digit: keep in same only the lanes that agree with this lane on bit b of the digit (one ballot) */
            unsigned ones = __ballot_sync(FULL_WARP, (digit >> b) & 1u);
            same &= (digit >> b) & 1u ? ones : ~ones;
            /* LAB END lanes_with_digit */
        }
    }
    return same;
    /* WRITE END multisplit */
}

/* The place of this lane's key among the warp's keys of its digit so far:
 * the warp's running count of the digit (count[digit]) plus the lanes below
 * holding the same digit.  The lowest such lane updates the count for all of
 * them and hands the old count to the others with a shuffle. */
__device__ __forceinline__ uint32_t rank_in_warp(uint32_t digit, int width, uint32_t *count)
{
    /* WRITE BEGIN multisplit: the warp multisplit - lanes_with_digit, rank_in_warp (warp_multisplit.cuh) and multisplit_tile, whole */
    /* WRITE STUB return 0; */
    const unsigned lane = threadIdx.x % 32;
    unsigned same = lanes_with_digit(digit, width);
    unsigned leader = __ffs(same) - 1;
    uint32_t before = 0;
    if (lane == leader) {
        before = count[digit];
        count[digit] = before + __popc(same);
    }
    /* The lanes of a warp may run apart, and a shuffle does not order shared memory:
     * without this, the next key's leader (maybe another lane) could read count[]
     * before this leader's write reaches it. */
    __syncwarp();
    before = __shfl_sync(FULL_WARP, before, leader);
    return before + __popc(same & ((1u << lane) - 1));
    /* WRITE END multisplit */
}
