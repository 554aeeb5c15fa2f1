/*
 * driver.c - main() of every sort stage.
 *
 * input -> warm-up -> median of --runs runs -> exact check against the CPU
 * reference -> CUB on the same input in the same process (when there is a GPU)
 * -> a table in the style of the course reports' logs -> one RESULT line ->
 * exit status (0 check passed, 1 check failed, 2 bad usage or input,
 * 3 CUDA error, 77 skipped: no CUDA device).  Bad options, files and sizes are
 * reported before the GPU is looked for.  A stage of several steps (05) sorts
 * with its last step, or the one --step K names (STAGE_STEPS in sort_stage.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cub_baseline.h"
#include "files.h"
#include "gpu.h"
#include "keys.h"
#include "options.h"
#include "reference.h"
#include "sort_stage.h"
#include "stats.h"
#include "timer.h"

enum { EXIT_CHECK_FAILED = 1, EXIT_USAGE = 2 };

/* The step this run sorts with, and its description (for a stage of one step:
 * the stage's own functions and STAGE). */
static const stage_step *S;
static const stage_info *STEP;

typedef struct {
    uint32_t *keys;   /* the input */
    uint32_t *sorted; /* the stage's output */
    uint32_t *ref;    /* the reference sort */
    uint32_t *values, *sorted_values, *ref_values; /* --pairs: each key's input index */
    size_t n;
} key_buffers;

static void die(const char *message)
{
    fprintf(stderr, "%s: error: %s\n", STAGE_STEPS[0].info->name, message);
    exit(EXIT_USAGE);
}

/* "05.3" for step 3 of stage 05, "04" for a stage of one step. */
static const char *step_id(char *buf, size_t len)
{
    int step = (int)(S - STAGE_STEPS) + 1;
    if (STAGE_STEP_COUNT > 1)
        snprintf(buf, len, "%.2s.%d", STEP->name, step);
    else
        snprintf(buf, len, "%.2s", STEP->name);
    return buf;
}

/* The option parse_sort_args refused because this step does not read it (its USES_* bit:
 * refused): where another step of the stage reads it, the error names that step - "--type
 * needs one of steps 07.9 to 07.10 (--step 9 to 10)" - instead of "not an option". */
static void die_for_option(const char *err, unsigned refused, const char *name)
{
    int first = 0, last = 0;
    for (int k = 1; refused && STAGE_STEP_COUNT > 1 && k <= STAGE_STEP_COUNT; k++)
        if (STAGE_STEPS[k - 1].info->uses & refused) {
            first = first ? first : k;
            last = k;
        }
    if (!first)
        die(err);
    char msg[256];
    const char *stage = STEP->name;
    if (first == last)
        snprintf(msg, sizeof msg, "%s needs step %.2s.%d (--step %d)", name, stage, first, first);
    else
        snprintf(msg, sizeof msg, "%s needs one of steps %.2s.%d to %.2s.%d (--step %d to %d)",
                 name, stage, first, stage, last, first, last);
    die(msg);
}

/* --help of a stage of several steps: what --step picks. */
static void print_steps_usage(void)
{
    if (STAGE_STEP_COUNT == 1)
        return;
    printf("steps (each has its own defaults: --step K --help shows them)\n");
    printf("  --step K          the step to sort with, 1..%d (default %d, the last):\n",
           STAGE_STEP_COUNT, STAGE_STEP_COUNT);
    for (int k = 0; k < STAGE_STEP_COUNT; k++)
        printf("%20s%d  %s\n", "", k + 1, STAGE_STEPS[k].info->title);
}

static uint32_t *alloc_keys(size_t n)
{
    uint32_t *p = malloc(n ? n * sizeof *p : 4);
    if (!p) {
        char msg[160];
        snprintf(msg, sizeof msg, "not enough host memory for %zu keys", n);
        die(msg);
    }
    return p;
}

/* A file is read at once: reading it is how its errors are found, and they
 * must be reported before the GPU is looked for.  Generated keys wait. */
static void read_input(const run_config *cfg, key_buffers *b)
{
    char err[512];
    memset(b, 0, sizeof *b);
    b->n = cfg->n;
    if (cfg->input && read_keys_file(cfg->input, N_MAX, &b->keys, &b->n, err, sizeof err))
        die(err);
}

static void make_input(const run_config *cfg, key_buffers *b)
{
    if (!cfg->input) {
        b->keys = alloc_keys(b->n);
        make_keys(b->keys, b->n, cfg->dist, cfg->seed);
    }
    b->sorted = alloc_keys(b->n);
    b->ref = alloc_keys(b->n);
    if (cfg->sort.pairs) {
        b->values = alloc_keys(b->n);
        b->sorted_values = alloc_keys(b->n);
        b->ref_values = alloc_keys(b->n);
        for (size_t i = 0; i < b->n; i++)
            b->values[i] = (uint32_t)i;
    }
}

static void sort_reference(const sort_options *opt, key_buffers *b)
{
    int failed = opt->pairs || options_change_order(opt)
                     ? reference_sort_ordered(b->keys, b->n, opt, b->ref, b->ref_values)
                     : reference_sort(b->keys, b->ref, b->n);
    if (failed)
        die("not enough host memory for the reference sort");
}

/* The check of a sort in another order than u32 ascending, or of the values of
 * pairs: out equals ref, element for element; otherwise -1 and one line. */
static int verify_equal(const char *what, const uint32_t *out, const uint32_t *ref, size_t n,
                        char *msg, size_t msglen)
{
    for (size_t i = 0; i < n; i++)
        if (out[i] != ref[i]) {
            snprintf(msg, msglen, "%s differ from the reference at index %zu: %u, expected %u",
                     what, i, out[i], ref[i]);
            return -1;
        }
    snprintf(msg, msglen, "%s equal the reference's (%zu)", what, n);
    return 0;
}

/* Every check of one run's output: the keys, and the values of pairs. */
static int verify_run(const sort_options *opt, const key_buffers *b, char *msg, size_t msglen)
{
    if (!opt->pairs && !options_change_order(opt))
        return verify_sorted(b->sorted, b->ref, b->n, msg, msglen);
    if (verify_equal("keys", b->sorted, b->ref, b->n, msg, msglen))
        return -1;
    if (opt->pairs && verify_equal("values (the stable order of equal keys)", b->sorted_values,
                                   b->ref_values, b->n, msg, msglen))
        return -1;
    snprintf(msg, msglen, "keys%s equal the reference's, in %s order (%zu)",
             opt->pairs ? " and values" : "", opt->descending ? "descending" : "ascending", b->n);
    return 0;
}

/* " mode=plain bits=6 ...": the options the stage reads, as key=value fields. */
static void print_option_fields(const sort_options *o)
{
    unsigned uses = sort_options_in_use(STEP, o);
    if (uses & USES_MODE)
        printf(" mode=%s", mode_name(o->mode));
    if (uses & USES_TYPE)
        printf(" type=%s", key_type_name(o->key_type));
    if (uses & USES_PAIRS)
        printf(" pairs=%d", o->pairs);
    if (uses & USES_DESCENDING)
        printf(" order=%s", o->descending ? "descending" : "ascending");
    if (uses & USES_BIT_RANGE)
        printf(" begin_bit=%d end_bit=%d", first_bit(o), last_bit(o));
    if (uses & USES_BITS)
        printf(" bits=%d", o->bits);
    if (uses & USES_HIST)
        printf(" hist=%d", o->hist_variant);
    if (uses & USES_SCAN)
        printf(" scan=%s", scan_variant_name(o->scan_variant));
    if (uses & USES_BLOCK)
        printf(" block=%d", o->block);
    if (uses & USES_SCAN_BLOCK)
        printf(" scan_block=%d", o->scan_block);
    if (uses & USES_KPT)
        printf(" kpt=%d", o->kpt);
    if (uses & USES_SKIP)
        printf(" skip=%s", o->no_skip ? "off" : "on");
}

/* "the radix sort is 9.6x faster", or slower; under a hundredth of a millisecond the
 * timer's resolution decides, and a ratio would mean nothing. */
static void print_comparison(double sort_ms, double qsort_ms)
{
    if (sort_ms < 0.01 || qsort_ms < 0.01)
        printf("both too quick to compare (under 0.01 ms)\n");
    else if (qsort_ms >= sort_ms)
        printf("the radix sort is %.1fx faster\n", qsort_ms / sort_ms);
    else
        printf("the radix sort is %.1fx slower\n", sort_ms / qsort_ms);
}

static void print_options(const run_config *cfg, size_t n)
{
    const sort_options *o = &cfg->sort;
    unsigned uses = sort_options_in_use(STEP, o);
    char id[16];
    if (STAGE_STEP_COUNT > 1)
        printf("%s, step %s - %s\n", STEP->name, step_id(id, sizeof id), STEP->title);
    else
        printf("%s - %s\n", STEP->name, STEP->title);
    if (cfg->input)
        printf("  input     %zu %s from %s\n", n, keys_word(n), cfg->input);
    else
        printf("  input     %zu %s, --dist %s --seed %llu\n", n, keys_word(n), dist_name(cfg->dist),
               (unsigned long long)cfg->seed);
    printf("  options  ");
    print_option_fields(o);
    if (uses & USES_BITS)
        printf(" (%d passes)", passes_in_range(o));
    printf("\n  runs      %d timed after 1 warm-up; the median run is shown\n", cfg->runs);
}

/* One run of the stage on garbage-filled output buffers, its output checked against the
 * reference.  r < 0 is the warm-up.  A wrong output clears *ok, and the first one is
 * described in check. */
static void run_once(const run_config *cfg, key_buffers *b, int r, sort_report *rep, int *ok,
                     char *check, size_t checklen)
{
    char err[512];
    fill_garbage(b->sorted, b->n, (uint64_t)(r + 2));
    int failed;
    if (cfg->sort.pairs) {
        fill_garbage(b->sorted_values, b->n, (uint64_t)(r + 9));
        failed = S->sort_pairs(b->keys, b->values, b->sorted, b->sorted_values, b->n, &cfg->sort,
                               rep, err, sizeof err);
    } else {
        failed = S->sort(b->keys, b->sorted, b->n, &cfg->sort, rep, err, sizeof err);
    }
    if (failed)
        die(err);
    char msg[512];
    if (verify_run(&cfg->sort, b, msg, sizeof msg)) {
        if (*ok)
            snprintf(check, checklen, "%s run: %s", r < 0 ? "warm-up" : "timed", msg);
        *ok = 0;
    } else if (*ok) {
        snprintf(check, checklen, "%s", msg);
    }
}

static double fastest_of(const double *ms, int runs)
{
    double best = ms[0];
    for (int r = 1; r < runs; r++)
        if (ms[r] < best)
            best = ms[r];
    return best;
}

/* Runs the stage (warm-up + runs), checks every run's output, and leaves the median run's
 * report in *median, its time in *sort_ms and the fastest run's in *fastest_ms (next to
 * the median, it shows how much a noisy host moved the runs).
 *
 * A GPU sort runs twice as many times: first with an event between its steps, for the
 * breakdown (*median), then with one event before it and one after, as CUB is timed, for
 * *sort_ms - the events between the kernels cost time of their own (timer.h).  *timing
 * says which: "span", or "steps" where the sort is the sum of its steps (the CPU stage, or
 * a GPU sort with host work between its steps).
 * Returns 1 if every run's output was right, 0 otherwise (check then holds the first
 * failure). */
static int run_stage(const run_config *cfg, key_buffers *b, sort_report *median, double *sort_ms,
                     double *fastest_ms, const char **timing, char *check, size_t checklen)
{
    sort_report *reports = calloc((size_t)cfg->runs, sizeof *reports);
    double *totals = calloc((size_t)cfg->runs, sizeof *totals);
    if (!reports || !totals)
        die("not enough host memory for the run reports");
    int ok = 1, host_gaps = 0;
    snprintf(check, checklen, "not checked");
    for (int r = -1; r < cfg->runs; r++) { /* r = -1 is the warm-up */
        sort_report rep;
        run_once(cfg, b, r, &rep, &ok, check, checklen);
        host_gaps += rep.host_gaps;
        if (r >= 0) {
            reports[r] = rep;
            totals[r] = report_total_ms(&rep, STEP->nsteps);
        }
    }
    *median = reports[median_index(totals, cfg->runs)];
    *sort_ms = report_total_ms(median, STEP->nsteps);
    *fastest_ms = fastest_of(totals, cfg->runs);
    *timing = "steps";
    if (STEP->needs_gpu && host_gaps == 0) {
        step_timer_marks(0);
        for (int r = 0; r < cfg->runs; r++) {
            sort_report rep;
            run_once(cfg, b, cfg->runs + r, &rep, &ok, check, checklen);
            totals[r] = rep.span_ms;
        }
        step_timer_marks(1);
        *sort_ms = totals[median_index(totals, cfg->runs)];
        *fastest_ms = fastest_of(totals, cfg->runs);
        *timing = "span";
    }
    free(reports);
    free(totals);
    return ok;
}

static double time_qsort(const key_buffers *b, int runs);
static cub_times time_cub_ordered(const sort_options *opt, int runs, key_buffers *b,
                                  char *check, size_t checklen, int *check_ok);
static double time_thrust(const run_config *cfg, key_buffers *b, double sort_ms, const char *gpu,
                          char *check, size_t checklen, int *check_ok);

/* GB/s of a step that moved `bytes` in `ms`, and its share of the copy
 * bandwidth; -1 where there is nothing to say (a host step, no GPU). */
static double step_gbs(double bytes, double ms)
{
    return bytes > 0 && ms > 0 ? bytes / ms / 1e6 : -1;
}
static double step_pct(double gbs, double copy_gbs)
{
    return gbs > 0 && copy_gbs > 0 ? 100.0 * gbs / copy_gbs : -1;
}

static void print_steps(const sort_report *rep, const sort_options *opt, size_t n,
                        double copy_gbs, int verbose)
{
    printf("  %-22s %12s %12s %12s %10s %10s\n", "step", "total ms", "ms per pass", "MB moved",
           "GB/s", "% of copy");
    for (int s = 0; s < STEP->nsteps; s++) {
        double ms = report_step_ms(rep, s), bytes = S->step_bytes(opt, n, s);
        double gbs = step_gbs(bytes, ms), pct = step_pct(gbs, copy_gbs);
        printf("  %-22s %12.3f %12.3f", STEP->step_name[s], ms,
               rep->npasses ? ms / rep->npasses : 0.0);
        if (bytes > 0)
            printf(" %12.1f", bytes / 1e6);
        else
            printf(" %12s", "-");
        if (gbs > 0)
            printf(" %10.1f", gbs);
        else
            printf(" %10s", "-");
        if (pct > 0)
            printf(" %10.1f\n", pct);
        else
            printf(" %10s\n", "-");
    }
    int bits = opt->bits;
    if (!verbose)
        return;
    /* one line per pass, like the course reports' logs */
    for (int p = 0; p < rep->npasses; p++) {
        int low = first_bit(opt) + p * bits;
        int high = (low + bits < last_bit(opt) ? low + bits : last_bit(opt)) - 1;
        printf("  #%d (bits %d..%d):", p + 1, low, high);
        for (int s = 0; s < STEP->nsteps; s++)
            printf(" + %s %.3f ms", STEP->step_name[s], rep->pass_ms[p][s]);
        printf("%s\n", rep->skipped >> p & 1u ? " (skipped: one digit for every key)" : "");
    }
}

/* CUB's row of the table: its faster call (the baseline), and the other. */
static void print_cub(const char *what, const cub_times *cub, double sort_ms, const char *gpu)
{
    printf("  %-22s %12.3f   this stage takes %.2fx CUB's time (%s)\n", what, cub->ms,
           cub->ms > 0 ? sort_ms / cub->ms : 0.0, gpu);
    if (cub->i32_ms > 0)
        printf("  %-22s %12.3f   with an int64_t count, %.3f with an int: the faster is the baseline\n",
               "", cub->i64_ms, cub->i32_ms);
    else
        printf("  %-22s %12.3f   with an int64_t count (more keys than an int counts)\n", "",
               cub->i64_ms);
}

static void print_result_line(const run_config *cfg, size_t n, const sort_report *rep,
                              double sort_ms, double min_ms, const char *timing, double qsort_ms,
                              const cub_times *cub, double thrust_ms, double copy_gbs,
                              int check_ok, const char *gpu)
{
    char id[16];
    printf("RESULT stage=%s step=%s n=%zu", STEP->name, step_id(id, sizeof id), n);
    if (cfg->input)
        printf(" input=%s", cfg->input);
    else
        printf(" dist=%s seed=%llu", dist_name(cfg->dist), (unsigned long long)cfg->seed);
    print_option_fields(&cfg->sort);
    /* timing: how sort_ms was taken (run_stage); steps_ms: the sum of the steps below */
    printf(" runs=%d sort_ms=%.3f min_ms=%.3f timing=%s steps_ms=%.3f", cfg->runs, sort_ms,
           min_ms, timing, report_total_ms(rep, STEP->nsteps));
    if (sort_ms > 0)
        printf(" gkeys_s=%.4f", n / sort_ms / 1e6);
    else
        printf(" gkeys_s=NA");
    for (int s = 0; s < STEP->nsteps; s++)
        printf(" %s_ms=%.3f", STEP->step_name[s], report_step_ms(rep, s));
    for (int s = 0; s < STEP->nsteps; s++) { /* each device step's share of the memory system */
        double gbs = step_gbs(S->step_bytes(&cfg->sort, n, s), report_step_ms(rep, s));
        if (gbs > 0 && copy_gbs > 0)
            printf(" %s_gbs=%.1f %s_pct=%.1f", STEP->step_name[s], gbs, STEP->step_name[s],
                   step_pct(gbs, copy_gbs));
    }
    if (copy_gbs > 0)
        printf(" copy_gbs=%.1f", copy_gbs);
    printf(" setup_ms=%.3f", rep->setup_ms);
    if (qsort_ms >= 0)
        printf(" qsort_ms=%.3f", qsort_ms);
    /* vs_cub: against CUB's faster call, named by cub_call (cub_baseline.h) */
    if (cub->ms > 0) {
        printf(" cub_ms=%.3f vs_cub=%.2f cub_call=%s", cub->ms, sort_ms / cub->ms, cub_call_name(cub));
        if (cub->i32_ms > 0)
            printf(" cub_i32_ms=%.3f", cub->i32_ms);
        printf(" cub_i64_ms=%.3f", cub->i64_ms);
    } else {
        printf(" cub_ms=NA vs_cub=NA");
    }
    if (thrust_ms > 0)
        printf(" thrust_ms=%.3f vs_thrust=%.2f", thrust_ms, sort_ms / thrust_ms);
    printf(" check=%s gpu=\"%s\"\n", check_ok ? "PASS" : "FAIL", gpu);
}

int main(int argc, char **argv)
{
    run_config cfg;
    char err[512];
    setvbuf(stdout, NULL, _IOLBF, 0);
    int step = step_from_args(argc, argv, STAGE_STEPS[0].info->name, STAGE_STEP_COUNT, err,
                              sizeof err);
    if (step < 0)
        die(err);
    S = &STAGE_STEPS[step - 1];
    STEP = S->info;
    if (parse_sort_args(argc, argv, STEP, &cfg, err, sizeof err))
        die_for_option(err, cfg.refused, cfg.refused_option);
    if (cfg.help) {
        print_sort_usage(stdout, STEP);
        print_steps_usage();
        return 0;
    }

    /* everything that needs no GPU is checked first (exit 2), then the GPU
     * (77 when there is none, 3 when it fails), then the work */
    if (cfg.output && check_output_file(cfg.output, err, sizeof err))
        die(err);
    if (cfg.output_values && check_output_file(cfg.output_values, err, sizeof err))
        die(err);
    if (cfg.sort.pairs && !S->sort_pairs)
        die("--pairs: this step sorts keys only");
    if (cfg.thrust && (cfg.sort.pairs || options_change_order(&cfg.sort)))
        die("--thrust: the Thrust baseline sorts u32 keys, ascending, all 32 bits, keys only");
    if (cfg.thrust && !STEP->needs_gpu)
        die("--thrust: this stage runs on the CPU; the Thrust baseline is for the GPU stages");
    key_buffers b;
    read_input(&cfg, &b);
    if (S->check_options(&cfg.sort, b.n, err, sizeof err))
        die(err);
    /* zero keys are sorted to nothing by every program, with no GPU: nothing of the
     * sort runs on one */
    if (STEP->needs_gpu && b.n > 0)
        gpu_require(STEP->name);
    char why[256];
    int have_gpu = gpu_probe(why, sizeof why) == GPU_READY;
    if (have_gpu && gpu_require_memory(S->device_bytes(&cfg.sort, b.n), "sorting these keys",
                                       err, sizeof err))
        die(err);

    make_input(&cfg, &b);
    sort_reference(&cfg.sort, &b);
    print_options(&cfg, b.n);

    sort_report rep;
    char check[640];
    double sort_ms, min_ms;
    const char *timing;
    int check_ok = run_stage(&cfg, &b, &rep, &sort_ms, &min_ms, &timing, check, sizeof check);
    /* the last run's output, written before the baselines reuse the buffer */
    if (cfg.output && write_keys_file(cfg.output, b.sorted, b.n, err, sizeof err))
        die(err);
    if (cfg.output_values && write_keys_file(cfg.output_values, b.sorted_values, b.n, err,
                                             sizeof err))
        die(err);
    /* measured once per run, after the sort: what "% of copy" is a share of */
    double copy_gbs = STEP->needs_gpu && have_gpu ? gpu_copy_gbs() : -1.0;
    print_steps(&rep, &cfg.sort, b.n, copy_gbs, cfg.verbose);
    double steps_ms = report_total_ms(&rep, STEP->nsteps);
    printf("  %-22s %12.3f %25.1f Mkeys/s\n", "sort (sum of steps)", steps_ms,
           steps_ms > 0 ? b.n / steps_ms / 1e3 : 0.0);
    if (!strcmp(timing, "span"))
        printf("  %-22s %12.3f %25.1f Mkeys/s   one event before, one after, as CUB is timed\n",
               "sort (no step events)", sort_ms, sort_ms > 0 ? b.n / sort_ms / 1e3 : 0.0);
    printf("  %-22s %12.3f   of the %d timed runs (above: the median run)\n", "fastest run",
           min_ms, cfg.runs);
    printf("  %-22s %12.3f   allocation and transfers, not in the sort time\n", "setup",
           rep.setup_ms);

    double qsort_ms = -1.0;
    if (!STEP->needs_gpu) {
        qsort_ms = time_qsort(&b, cfg.runs);
        printf("  %-22s %12.3f   ", "qsort (C library)", qsort_ms);
        print_comparison(sort_ms, qsort_ms);
    }

    cub_times cub = {-1.0, -1.0, -1.0};
    char gpu[256] = "none";
    if (have_gpu) {
        gpu_name(gpu, sizeof gpu);
        if (cfg.no_cub) {
            printf("  %-22s   not run (--no-cub)\n", "CUB DeviceRadixSort");
        } else if (cfg.sort.pairs || options_change_order(&cfg.sort)) {
            cub = time_cub_ordered(&cfg.sort, cfg.runs, &b, check, sizeof check, &check_ok);
            print_cub(cfg.sort.pairs ? "CUB SortPairs" : "CUB DeviceRadixSort", &cub, sort_ms, gpu);
        } else {
            if (cub_sort_keys(b.keys, b.n, cfg.runs, b.sorted, &cub, err, sizeof err))
                die(err);
            char msg[512];
            if (verify_sorted(b.sorted, b.ref, b.n, msg, sizeof msg)) {
                snprintf(check, sizeof check, "CUB's own output: %s", msg);
                check_ok = 0;
            }
            print_cub("CUB DeviceRadixSort", &cub, sort_ms, gpu);
        }
    } else {
        printf("  %-22s   not run: no CUDA device (%s)\n", "CUB DeviceRadixSort", why);
    }
    double thrust_ms = -1.0;
    if (have_gpu && cfg.thrust)
        thrust_ms = time_thrust(&cfg, &b, sort_ms, gpu, check, sizeof check, &check_ok);
    printf("  check     %s: %s\n", check_ok ? "PASS" : "FAIL", check);

    if (copy_gbs > 0)
        printf("  %-22s %12.1f   GB/s, a device-to-device copy: what %% of copy refers to\n",
               "copy bandwidth", copy_gbs);
    print_result_line(&cfg, b.n, &rep, sort_ms, min_ms, timing, qsort_ms, &cub, thrust_ms,
                      copy_gbs, check_ok, gpu);
    free(b.keys);
    free(b.sorted);
    free(b.ref);
    return check_ok ? 0 : EXIT_CHECK_FAILED;
}

static int compare_keys(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The C library's qsort on the same input, median of `runs` runs - at most 3:
 * it is a point of comparison, and it takes about ten times as long as the
 * radix sort, whose runs matter more. */
static double time_qsort(const key_buffers *b, int runs)
{
    if (runs > 3)
        runs = 3;
    double *times = calloc((size_t)runs, sizeof *times);
    if (!times)
        die("not enough host memory");
    for (int r = 0; r < runs; r++) {
        memcpy(b->sorted, b->keys, b->n * sizeof *b->keys);
        double t0 = host_time_ms();
        qsort(b->sorted, b->n, sizeof *b->sorted, compare_keys);
        times[r] = host_time_ms() - t0;
    }
    double ms = times[median_index(times, runs)];
    free(times);
    return ms;
}

/* CUB on a sort of another order than u32 ascending, or of pairs (cub_sort_ordered):
 * its median time, and its output checked against the reference where CUB's order
 * is the course's - everywhere but f32 keys with a -0.0 among them, which CUB takes
 * for +0.0.  A difference fails the run's check (CUB's output, or the reference,
 * would then be wrong).  The stage's output has been checked and written before:
 * b->sorted and b->sorted_values take CUB's. */
static cub_times time_cub_ordered(const sort_options *opt, int runs, key_buffers *b,
                                  char *check, size_t checklen, int *check_ok)
{
    _Static_assert((int)KEY_I32 == CUB_KEYS_I32 && (int)KEY_F32 == CUB_KEYS_F32, "key type numbers");
    char err[256];
    cub_times ms = {-1.0, -1.0, -1.0};
    if (cub_sort_ordered(b->keys, opt->pairs ? b->values : NULL, b->n, opt->key_type,
                         opt->descending, first_bit(opt), last_bit(opt), runs, b->sorted,
                         b->sorted_values, &ms, err, sizeof err))
        die(err);
    int negative_zero = 0;
    for (size_t i = 0; opt->key_type == KEY_F32 && i < b->n && !negative_zero; i++)
        negative_zero = b->keys[i] == 0x80000000u;
    if (negative_zero) {
        printf("  %-22s   not compared: a key is -0.0, which CUB orders as +0.0\n",
               "CUB's output");
        return ms;
    }
    char msg[512];
    if (verify_run(opt, b, msg, sizeof msg)) {
        snprintf(check, checklen, "CUB's own output: %s", msg);
        *check_ok = 0;
    } else {
        printf("  %-22s   the same as the reference (keys%s)\n", "CUB's output",
               opt->pairs ? " and values" : "");
    }
    return ms;
}

/* thrust::sort on the same keys (--thrust): what the course reports timed beside their
 * sorts.  Its output is checked against the reference like CUB's; a difference fails
 * the run's check.  b->sorted takes Thrust's output. */
static double time_thrust(const run_config *cfg, key_buffers *b, double sort_ms, const char *gpu,
                          char *check, size_t checklen, int *check_ok)
{
    char err[256];
    double ms = 0.0;
    if (thrust_sort_keys(b->keys, b->n, cfg->runs, b->sorted, &ms, err, sizeof err))
        die(err);
    char msg[512];
    if (verify_sorted(b->sorted, b->ref, b->n, msg, sizeof msg)) {
        snprintf(check, checklen, "Thrust's own output: %s", msg);
        *check_ok = 0;
    }
    printf("  %-22s %12.3f   this stage takes %.2fx Thrust's time (%s)\n", "thrust::sort", ms,
           ms > 0 ? sort_ms / ms : 0.0, gpu);
    return ms;
}
