/*
 * 08_multi_gpu/onesweep_lib.cu - stage 07's last step, used as a library by stage 08
 * (onesweep_lib.h).  It includes the step's file, as stage 07's test hooks do, so that
 * stage 08 runs 07's kernels on device arrays without a copy of them.
 */
#include "../07_onesweep/step9_pairs.cu"
#include "onesweep_lib.h"

struct os_sorter {
    sort_context c;
    sort_options opt; /* stage 07's defaults: 8-bit digits, 512 threads, 16 keys a thread */
    sort_report rep;
    size_t cap;
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
    return s;
}

extern "C" void os_destroy(os_sorter *s)
{
    if (!s)
        return;
    context_destroy(&s->c);
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

extern "C" uint32_t *os_sort(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n, int begin_bit,
                             int end_bit)
{
    if (n == 0)
        return d_a;
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
    histogram(c, d_a, passes);
    for (int pass = 0; pass < passes; pass++) {
        int shift = begin_bit + pass * s->opt.bits;
        int width = end_bit - shift < s->opt.bits ? end_bit - shift : s->opt.bits;
        sort_pass(c, d_a, d_b, NULL, NULL, pass, shift, width);
    }
    int result_in_b = 0;
    CUDA_CHECK(cudaMemcpy(&result_in_b, c->d_plan + passes, sizeof(int), cudaMemcpyDeviceToHost));
    return result_in_b ? d_b : d_a;
}
