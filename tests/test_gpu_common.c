/*
 * test_gpu_common.c - the GPU side of the harness: the CUB baseline sorts
 * exactly, the device step timer measures what the GPU did, gpu_alloc's poison
 * is really garbage, and an impossible allocation is refused with a message.
 * Without a CUDA device it prints "SKIP: no CUDA device" and exits 77.
 */
#define _POSIX_C_SOURCE 200809L /* check.h: alarm, sigaction */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cub_baseline.h"
#include "cuda_check.h"
#include "gpu_spin.h"
#include "keys.h"
#include "reference.h"
#include "timer.h"

static void test_cub(void)
{
    const size_t sizes[] = {0, 1, 2, 33, 1000, 65537, 1000003};
    size_t count = sizeof sizes / sizeof sizes[0];
    int ndists = DIST_COUNT;
    if (test_small) { /* under the sanitizer: small sizes, uniform keys */
        count = 5;
        ndists = 1;
    }
    for (size_t s = 0; s < count; s++) {
        for (int d = 0; d < ndists; d++) {
            size_t n = sizes[s];
            uint32_t *keys = malloc((n + 1) * 4), *out = malloc((n + 1) * 4),
                     *ref = malloc((n + 1) * 4);
            make_keys(keys, n, (key_dist)d, n + 11);
            fill_garbage(out, n, 5);
            reference_sort(keys, ref, n);
            cub_times t = {-1.0, -1.0, -1.0};
            char err[512];
            CHECK(cub_sort_keys(keys, n, 2, out, &t, err, sizeof err) == 0);
            CHECK_MSG(verify_sorted(out, ref, n, err, sizeof err) == 0, "CUB n=%zu dist=%s: %s",
                      n, dist_name(d), err);
            /* both count types timed, and the baseline is the faster */
            CHECK_MSG(t.i32_ms >= 0.0 && t.i64_ms >= 0.0 &&
                          t.ms == (t.i32_ms < t.i64_ms ? t.i32_ms : t.i64_ms),
                      "CUB times: %f (int %f, int64_t %f)", t.ms, t.i32_ms, t.i64_ms);
            free(keys);
            free(out);
            free(ref);
        }
    }
}

/* The device step timer promises three things (timer.h), and they are what is checked:
 *   - a step's time is the device work between its two marks: no less than the kernel in it
 *     ran by the GPU's own clock, no more than the host saw around it;
 *   - steps are kept apart: each interval goes to its (pass, step), the others stay 0;
 *   - host work between a mark and a resume belongs to no step.
 * Nothing is assumed about how long a kernel takes: each spin reads the GPU's nanosecond
 * clock and writes down how long it ran by it, and the events are compared with that.
 * The margin of "no less" is two event resolutions (CUDA: about 0.5 us each) and two
 * steps of the GPU's clock as the spin saw it; of "no more", 0.05 ms (the host clock and
 * the events each resolve far finer).  The first round's figures and the spread over the
 * rounds are printed: measurements, reported, not judged (tests/README.md, "Checks that
 * involve time"). */
enum { TIMER_ROUNDS = 10 };

static void test_step_timer(void)
{
    unsigned long long *ran = gpu_alloc(4 * sizeof *ran, 1), spun[4];
    gpu_spin(0.1, ran); /* the first launch loads the kernel: keep that out */
    CUDA_CHECK(cudaDeviceSynchronize());

    double least = 1e9, most = -1e9; /* events minus the kernel's own time, over the rounds */
    for (int round = 0; round < (test_small ? 2 : TIMER_ROUNDS); round++) {
        step_timer t;
        sort_report rep;
        report_clear(&rep, 2);
        step_timer_create(&t);
        double h0 = host_time_ms();
        step_timer_start(&t);
        gpu_spin(2.0, ran);
        step_timer_mark(&t, 0, 1);
        CUDA_CHECK(cudaDeviceSynchronize());
        double first_host = host_time_ms() - h0;

        step_timer_resume(&t);
        double h1 = host_time_ms();
        while (host_time_ms() - h1 < 30.0) {
        }
        double h2 = host_time_ms();
        step_timer_resume(&t); /* the 30 ms above belong to no step */
        gpu_spin(5.0, ran + 2);
        step_timer_mark(&t, 1, 0);
        step_timer_collect(&t, &rep);
        double second_host = host_time_ms() - h2;
        step_timer_destroy(&t);
        CUDA_CHECK(cudaMemcpy(spun, ran, sizeof spun, cudaMemcpyDeviceToHost));

        double own[2] = {spun[0] / 1e6, spun[2] / 1e6}, host[2] = {first_host, second_host};
        double timed[2] = {rep.pass_ms[0][1], rep.pass_ms[1][0]};
        for (int k = 0; k < 2; k++) {
            double tick = (k ? spun[3] : spun[1]) / 1e6;
            double slack = 2 * 0.0005 + 2 * tick;
            CHECK_MSG(timed[k] >= own[k] - slack && timed[k] <= host[k] + 0.05,
                      "round %d, spin %d: the events timed %.4f ms, the kernel ran %.4f ms by the "
                      "GPU's clock (step %.4f ms), the host saw %.4f ms",
                      round, k, timed[k], own[k], tick, host[k]);
            least = timed[k] - own[k] < least ? timed[k] - own[k] : least;
            most = timed[k] - own[k] > most ? timed[k] - own[k] : most;
        }
        CHECK(rep.pass_ms[0][0] == 0.0 && rep.pass_ms[1][1] == 0.0);
        CHECK_MSG(rep.host_gaps == 2, "the two resumes were counted as %d host gaps",
                  rep.host_gaps);
        double total = report_total_ms(&rep, 2);
        CHECK_MSG(total <= first_host + second_host + 0.1,
                  "host time leaked into the device steps: %.3f ms counted, the host saw %.3f ms "
                  "around the device work (and 30 ms between)", total, first_host + second_host);
        if (round == 0)
            printf("step timer: the 2 ms spin: events %.4f ms, the kernel's own clock %.4f ms "
                   "(its step %llu ns), the host %.4f ms\n", timed[0], own[0], spun[1], host[0]);
    }
    printf("step timer: events minus the kernel's own time, over the rounds: %+.4f to %+.4f ms\n",
           least, most);
    gpu_free(ran);
}

/* Without the marks (step_timer_marks(0)), the timer promises the span: the device work
 * from the start to the collect, two kernels here with a mark between that records nothing,
 * no less than the kernels ran by the GPU's clock and no more than the host saw; no step gets
 * a time.  The same margins as above. */
static void test_step_timer_span(void)
{
    unsigned long long *ran = gpu_alloc(4 * sizeof *ran, 1), spun[4];
    gpu_spin(0.1, ran);
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int round = 0; round < (test_small ? 2 : TIMER_ROUNDS); round++) {
        step_timer t;
        sort_report rep;
        report_clear(&rep, 2);
        step_timer_create(&t);
        step_timer_marks(0);
        double h0 = host_time_ms();
        step_timer_start(&t);
        gpu_spin(2.0, ran);
        step_timer_mark(&t, 0, 0);
        gpu_spin(3.0, ran + 2);
        step_timer_mark(&t, 0, 1);
        step_timer_collect(&t, &rep);
        double host = host_time_ms() - h0;
        step_timer_marks(1);
        CHECK_MSG(t.count == 2, "%d events recorded without the marks, not 2", t.count);
        step_timer_destroy(&t);
        CUDA_CHECK(cudaMemcpy(spun, ran, sizeof spun, cudaMemcpyDeviceToHost));

        double own = (spun[0] + spun[2]) / 1e6, slack = 2 * 0.0005 + 2 * (spun[1] + spun[3]) / 1e6;
        CHECK_MSG(rep.span_ms >= own - slack && rep.span_ms <= host + 0.05,
                  "round %d: the span timed %.4f ms, the kernels ran %.4f ms by the GPU's clock, "
                  "the host saw %.4f ms", round, rep.span_ms, own, host);
        CHECK_MSG(report_total_ms(&rep, 2) == 0.0 && rep.host_gaps == 0,
                  "without the marks a step was timed (%.4f ms) or a gap counted (%d)",
                  report_total_ms(&rep, 2), rep.host_gaps);
        if (round == 0)
            printf("step timer, no marks: the 2 + 3 ms spins: span %.4f ms, their own clock "
                   "%.4f ms, the host %.4f ms\n", rep.span_ms, own, host);
    }
    gpu_free(ran);
}

static void test_alloc(void)
{
    const size_t n = 1000;
    uint32_t *d = gpu_alloc(n * 4, 1);
    uint32_t host[1000];
    CUDA_CHECK(cudaMemcpy(host, d, n * 4, cudaMemcpyDeviceToHost));
    int garbage = 1;
    for (size_t i = 0; i < n; i++)
        garbage &= host[i] == 0xA5A5A5A5u;
    CHECK_MSG(garbage, "gpu_alloc(poison) did not fill the buffer");
    gpu_free(d);

    char err[512];
    CHECK(gpu_require_memory((size_t)1 << 50, "a petabyte", err, sizeof err) != 0);
    CHECK_MSG(strstr(err, "a petabyte needs") && strstr(err, "GiB"), "message was: %s", err);
    CHECK(gpu_require_memory(1 << 20, "a megabyte", err, sizeof err) == 0);

    /* what "% of copy" is a share of: a device that copies at all, and no faster
     * than any memory made so far (10 TB/s).  Under a sanitizer (--small) every copy
     * is watched and runs at a fraction of its speed: there, only "it copies". */
    double copy = gpu_copy_gbs();
    CHECK_MSG(copy > (test_small ? 0.0 : 10.0) && copy < 10000.0, "copy bandwidth %.1f GB/s", copy);
}

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    REQUIRE_GPU();
    TEST_GROUP(test_alloc);
    TEST_GROUP(test_step_timer);
    TEST_GROUP(test_step_timer_span);
    TEST_GROUP(test_cub);
    return check_summary("test_gpu_common");
}
