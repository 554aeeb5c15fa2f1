/* tools/lab-patches/06_sure_nearest.cu - stage 06's lab exercise 13: the sure test of a
 * guessed bin in one comparison, put before imma_pass in v14_swapped_operands.cu, its calls
 * of nn_bin_sure_guess in the histogram passes replaced by calls of this
 * (tools/lab-experiments.sh 06-surenearest). */
/* nn_bin_sure_guess's test in fewer instructions, for the guesses of the
 * histogram passes, which are >= 0 (s >= smin, so sqrt(s) >= root), NaN or
 * infinite.  "Clear of every integer by more than the margin" is "the
 * distance to the nearest integer is above the margin", and that distance,
 * |g - rint(g)|, is exact: rint(g) is within 1/2 of g, so the subtraction is
 * exact (Sterbenz; or rint(g) = 0).  So this is the same test - the same
 * distances are sure - with one rounding, one subtraction and one comparison
 * in place of a conversion back to float, two additions and two comparisons.
 * NaN and infinite guesses are never sure. */
static __device__ __forceinline__ int nn_bin_sure_nearest(float g, int k, float margin, int *bin)
{
    *bin = min(__float2int_rz(g), k - 1); /* the conversion saturates; NaN gives 0 */
    return fabsf(__fsub_rn(g, rintf(g))) > margin;
}
