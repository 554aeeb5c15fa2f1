/*
 * 08_multi_gpu/onesweep_lib.cu - stage 07's last step, used as a library by stage 08
 * (onesweep_lib.h).  It includes the step's file, as stage 07's test hooks do, so that
 * stage 08 runs 07's kernels on device arrays without a copy of them.
 */
#include "../07_onesweep/step13_crowded_counts.cu"
#include "onesweep_lib.h"

struct os_sorter {
    sort_context c;
    sort_options opt; /* stage 07's defaults: 8-bit digits, 512 threads, 16 keys a thread */
    sort_report rep;
    size_t cap;
    int *h_result_in_b; /* pinned: the last sort's plan says where its result is */
};

extern "C" size_t os_max_keys(void) { return STAGE.max_keys; }

extern "C" os_sorter *os_create(size_t cap)
{
    os_sorter *s = (os_sorter *)calloc(1, sizeof *s);
    if (!s) {
        fprintf(stderr, "onesweep_lib: out of host memory\n");
        exit(EXIT_FAILURE);
    }
    s->opt = STAGE.defaults;
    s->cap = cap ? cap : 1;
    report_clear(&s->rep, passes_for_bits(s->opt.bits));
    context_create(&s->c, s->cap, &s->opt, &s->rep);
    CUDA_CHECK(cudaMallocHost((void **)&s->h_result_in_b, sizeof(int)));
    return s;
}

extern "C" void os_destroy(os_sorter *s)
{
    if (!s)
        return;
    context_destroy(&s->c);
    CUDA_CHECK(cudaFreeHost(s->h_result_in_b));
    free(s);
}

extern "C" void os_top_digit_counts(os_sorter *s, const uint32_t *d_keys, size_t n,
                                    uint32_t *d_counts)
{
    if (n == 0)
        return;
    const int bits = 8;
    all_pass_histogram<<<s->c.histogram_blocks, 256, ((size_t)1 << bits) * sizeof(uint32_t)>>>(
        d_keys, n, bits, 1, 32 - bits, 32, order_of(&s->opt), d_counts);
    CUDA_CHECK_LAUNCH();
}

/* Issues the passes of one sort; returns the number of passes (the plan's length). */
static int issue_sort(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n, int begin_bit,
                      int end_bit)
{
    if (n > s->cap) {
        fprintf(stderr, "onesweep_lib: %zu keys, more than the %zu this sorter was made for\n",
                n, s->cap);
        exit(EXIT_FAILURE);
    }
    sort_context *c = &s->c;
    s->opt.begin_bit = begin_bit;
    s->opt.end_bit = end_bit;
    c->n = n;
    c->tiles = tiles_for(n, &s->opt);
    int passes = passes_in_range(&s->opt);
    step_timer_start(&c->timer);
    context_clear(c);
    /* 07 makes a context for each sort, its tickets right after look-back tables of its
     * own size; this one, made for cap keys, sorts fewer too, and context_clear zeroes
     * only the tables of n keys: the tickets further on are zeroed here */
    CUDA_CHECK(cudaMemsetAsync(c->d_tickets, 0, MAX_PASSES * sizeof(uint32_t)));
    histogram(c, d_a, passes);
    for (int pass = 0; pass < passes; pass++) {
        int shift = begin_bit + pass * s->opt.bits;
        int width = end_bit - shift < s->opt.bits ? end_bit - shift : s->opt.bits;
        sort_pass(c, d_a, d_b, NULL, NULL, pass, shift, width);
    }
    return passes;
}

extern "C" void os_sort(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n, int begin_bit,
                        int end_bit)
{
    *s->h_result_in_b = 0;
    if (n == 0)
        return;
    int passes = issue_sort(s, d_a, d_b, n, begin_bit, end_bit);
    /* the plan's last word, read by the host once the GPU is done: no wait here, so
     * the caller can start the next GPU's sort at once */
    CUDA_CHECK(cudaMemcpyAsync(s->h_result_in_b, s->c.d_plan + passes, sizeof(int),
                               cudaMemcpyDeviceToHost, 0));
}

extern "C" uint32_t *os_sorted(const os_sorter *s, uint32_t *d_a, uint32_t *d_b)
{
    return *s->h_result_in_b ? d_b : d_a;
}

/* Copies a to b where the plan says the result is in a; otherwise every thread returns at
 * once. */
__global__ void copy_to_b_if_in_a(const int *result_in_b, const uint32_t *a, uint32_t *b, size_t n)
{
    if (*result_in_b)
        return;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}

extern "C" void os_sort_into_b(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n,
                               int begin_bit, int end_bit)
{
    if (n == 0)
        return;
    int passes = issue_sort(s, d_a, d_b, n, begin_bit, end_bit);
    size_t blocks = (n + 255) / 256;
    copy_to_b_if_in_a<<<blocks < 4096 ? (unsigned)blocks : 4096u, 256>>>(s->c.d_plan + passes, d_a,
                                                                          d_b, n);
    CUDA_CHECK_LAUNCH();
}
