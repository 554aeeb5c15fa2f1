/* Stage 04, lab exercise 4 (tools/lab-experiments.sh 04-atomic): tile_histogram by
 * shared-memory atomics instead of the runs' boundaries - each key adds one to its
 * digit's counter, and one thread turns the counts into the runs' starts.  It does not
 * need the tile to be sorted to count; the starts still assume it is. */
__global__ void tile_histogram(const uint32_t *sorted, size_t n, int shift, uint32_t mask,
                               size_t tile, uint32_t *table, uint32_t *starts)
{
    extern __shared__ uint32_t s_run[]; /* each digit's count, then where its run starts */
    const uint32_t bins = mask + 1;
    uint32_t *s_count = s_run, *s_start = s_run + bins;
    for (uint32_t d = threadIdx.x; d < bins; d += blockDim.x)
        s_count[d] = 0;
    __syncthreads();

    size_t base = (size_t)blockIdx.x * tile;
    size_t valid = n - base < tile ? n - base : tile;
    for (size_t j = threadIdx.x; j < valid; j += blockDim.x)
        atomicAdd(&s_count[digit_of(sorted[base + j], shift, mask)], 1u);
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t run = 0;
        for (uint32_t d = 0; d < bins; d++) {
            s_start[d] = s_count[d] ? run : 0; /* an empty run starts at 0, as before */
            run += s_count[d];
        }
    }
    __syncthreads();

    for (uint32_t d = threadIdx.x; d < bins; d += blockDim.x) {
        table[(size_t)d * gridDim.x + blockIdx.x] = s_count[d];
        starts[(size_t)blockIdx.x * bins + d] = s_start[d];
    }
}
