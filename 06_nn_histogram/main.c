/*
 * 06_nn_histogram/main.c - the driver of stage 06.
 *
 * data (generated SIFT-like, or --base/--query .fvecs) -> the double-precision
 * reference of a sample of queries -> the cuBLAS baseline -> the chosen
 * version(s), each a warm-up and the median of --runs runs, each checked ->
 * a table (version, time, distance pairs per second, ratio to cuBLAS) and one
 * RESULT line per version -> exit status (0 every check passed, 1 a check
 * failed, 2 bad usage or input, 3 CUDA error, 77 skipped: no CUDA device).
 * Version 1 bins by the report's float rule on purpose: its check counts the
 * histograms that differ from the exact reference (the lesson, exit 0) and
 * fails only where a row differs from what that rule gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "files.h"
#include "gpu.h"
#include "keys.h"
#include "nn_histogram.h"
#include "options.h"
#include "stats.h"
#include "timer.h"
#include "vecs.h"

enum { EXIT_CHECK_FAILED = 1, EXIT_USAGE = 2 };

#define MAX_QUERIES 500000    /* the fused kernel's grid holds 65535 x 8 queries */
#define MAX_REFS 100000000
#define MAX_BINS 8192
#define ALL_VERSIONS (-2)
/* More device memory than any GPU has (the largest hold under 300 GB): a problem
 * that needs more is refused before the GPU is looked for. */
#define MAX_GPU_BYTES ((double)(1ull << 39))

typedef struct {
    int queries, refs, dims, bins;
    int version;   /* 1..NN_VERSIONS, or ALL_VERSIONS */
    int reduce;    /* version 3's reduction */
    uint64_t seed;
    int runs;
    int check;     /* sampled queries checked against the reference; 0: all */
    const char *base, *query, *output;
    int no_cublas, help;
} nn_config;

static void die(const char *message)
{
    fprintf(stderr, "06_nn_histogram: error: %s\n", message);
    exit(EXIT_USAGE);
}

static void usage(void)
{
    printf("usage: 06_nn_histogram [options]\n"
           "the nearest-neighbour distance histogram: for each query, the histogram of its\n"
           "distances to every reference point, K equal-width bins from min to max\n\n"
           "data (default: SIFT-like integers 0..255, -q %d -r %d -d %d)\n"
           "  -q N, -r N, -d N    queries, references, dimensions to generate\n"
           "  --seed S            seed of the generator (default %d)\n"
           "  --base FILE         references from an .fvecs file (with --query)\n"
           "  --query FILE        queries from an .fvecs file (with --base)\n"
           "problem\n"
           "  --bins K            bins per histogram, 1..%d (default %d)\n"
           "  --version N|all     step 06.N of the course: 1 the report's pipeline (float\n"
           "                      bins), 2 exact bins, 3 reductions and privatisation,\n"
           "                      4 register tiles, 5 fused, 6 margin binning, 7 bytes\n"
           "                      (dp4a), 8 integer tensor cores, 9 binning side by\n"
           "                      side, 10 histogram copies, 11 more warps, 12 16-bit\n"
           "                      counters, 13 min/max of 64 queries a block, 14 mma\n"
           "                      operands swapped (7-14: byte data, else 6 runs)\n"
           "                      (default 14)\n"
           "  --reduce N          version 3's reduction: 1 divergent, 2 strided, 3 sequential,\n"
           "                      4 warp shuffle (default 4)\n"
           "measurement and output\n"
           "  --runs R            timed runs after one warm-up; the median is shown (default 3)\n"
           "  --check N|all       queries checked against the CPU reference (default 16)\n"
           "  --no-cublas         do not run the cuBLAS baselines (cublas-fp32: SGEMM;\n"
           "                      cublas-int8: integer GEMM, byte data only)\n"
           "  --output FILE       the histograms as .ivecs (of the last version run)\n",
           NN_DEFAULT_QUERIES, NN_DEFAULT_REFS, NN_DEFAULT_DIMS, NN_DEFAULT_SEED, MAX_BINS,
           NN_DEFAULT_BINS);
}

static int number(const char *option, const char *text, uint64_t min, uint64_t max)
{
    uint64_t v;
    char msg[256];
    if (!text) {
        snprintf(msg, sizeof msg, "%s needs a value (see --help)", option);
        die(msg);
    }
    if (parse_number(text, min, max, &v)) {
        snprintf(msg, sizeof msg, "%s '%s': expected a whole number from %llu to %llu", option,
                 clip(text).text, (unsigned long long)min, (unsigned long long)max);
        die(msg);
    }
    return (int)v;
}

/* --version and --check: a number in [min, max], or "all" (returned as all_value). */
static int number_or_all(const char *option, const char *text, uint64_t min, uint64_t max,
                         int all_value)
{
    uint64_t v;
    char msg[256];
    if (!text) {
        snprintf(msg, sizeof msg, "%s needs a value (see --help)", option);
        die(msg);
    }
    if (!strcmp(text, "all"))
        return all_value;
    if (parse_number(text, min, max, &v)) {
        snprintf(msg, sizeof msg, "%s '%s': expected a whole number from %llu to %llu, or all",
                 option, clip(text).text, (unsigned long long)min, (unsigned long long)max);
        die(msg);
    }
    return (int)v;
}

/* The least device memory the problem needs: the queries, the references and their
 * transposed copy as float32, and the histograms.  Over what any GPU holds, it is
 * refused here, on any machine, rather than after the GPU check. */
static void check_problem_fits(int queries, int refs, int dims, int bins)
{
    double q = queries, r = refs, d = dims, k = bins;
    double bytes = (q * d + 2.0 * r * d + q * k) * 4.0;
    if (bytes > MAX_GPU_BYTES) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "%d queries x %d references x %d dimensions, %d bins: needs at least %.1f TB of "
                 "GPU memory, more than any GPU holds (refused above %.0f GB)",
                 queries, refs, dims, bins, bytes / 1e12, MAX_GPU_BYTES / 1e9);
        die(msg);
    }
}

static void parse(int argc, char **argv, nn_config *c)
{
    *c = (nn_config){.queries = NN_DEFAULT_QUERIES, .refs = NN_DEFAULT_REFS,
                     .dims = NN_DEFAULT_DIMS, .bins = NN_DEFAULT_BINS, .version = NN_VERSIONS,
                     .reduce = NN_REDUCE_SHUFFLE, .seed = NN_DEFAULT_SEED,
                     .runs = 3, .check = 16};
    int sizes_given = 0, reduce_given = 0;
    for (int i = 1; i < argc; i++) {
        /* "--bins 10" and "--bins=10" alike: name in a, value in v */
        char name[32];
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char *eq = a[0] == '-' && a[1] == '-' ? strchr(a, '=') : NULL;
        int takes = 1;
        if (eq && (size_t)(eq - a) < sizeof name) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
            a = name, v = eq + 1, takes = 0;
        }
        if (!strcmp(a, "-q"))
            c->queries = number(a, v, 1, MAX_QUERIES), sizes_given = 1;
        else if (!strcmp(a, "-r"))
            c->refs = number(a, v, 1, MAX_REFS), sizes_given = 1;
        else if (!strcmp(a, "-d"))
            c->dims = number(a, v, 1, NN_MAX_DIMS), sizes_given = 1;
        else if (!strcmp(a, "--bins"))
            c->bins = number(a, v, 1, MAX_BINS);
        else if (!strcmp(a, "--version"))
            c->version = number_or_all(a, v, 1, NN_VERSIONS, ALL_VERSIONS);
        else if (!strcmp(a, "--reduce"))
            c->reduce = number(a, v, 1, 4), reduce_given = 1;
        else if (!strcmp(a, "--seed")) {
            uint64_t s;
            if (!v)
                die("--seed needs a value (see --help)");
            if (parse_number(v, 0, UINT64_MAX, &s)) {
                char msg[256];
                snprintf(msg, sizeof msg, "--seed '%s': expected a whole number from 0 to %llu",
                         clip(v).text, (unsigned long long)UINT64_MAX);
                die(msg);
            }
            c->seed = s;
        } else if (!strcmp(a, "--runs"))
            c->runs = number(a, v, 1, 1000);
        else if (!strcmp(a, "--check"))
            c->check = number_or_all(a, v, 1, MAX_QUERIES, 0);
        else if (!strcmp(a, "--base") || !strcmp(a, "--query") || !strcmp(a, "--output")) {
            if (!v) {
                char msg[96];
                snprintf(msg, sizeof msg, "%s needs a file name", a);
                die(msg);
            }
            *(a[2] == 'b' ? &c->base : a[2] == 'q' ? &c->query : &c->output) = v;
        } else {
            char msg[160];
            int help = !strcmp(a, "--help") || !strcmp(a, "-h");
            if (!help && strcmp(a, "--no-cublas")) {
                snprintf(msg, sizeof msg, "unknown option '%s' (see --help)", clip(argv[i]).text);
                die(msg);
            }
            if (!takes) {
                snprintf(msg, sizeof msg, "%s takes no value", a);
                die(msg);
            }
            takes = 0;
            *(help ? &c->help : &c->no_cublas) = 1;
        }
        i += takes;
    }
    if (!c->base != !c->query)
        die("--base and --query go together: give both .fvecs files, or neither to generate data");
    if (c->base && sizes_given)
        die("-q, -r and -d size generated data: they cannot be combined with --base/--query");
    /* an option the version would not read is refused, not ignored */
    if (reduce_given && c->version != ALL_VERSIONS && c->version != NN_VERSION_REDUCE) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "--reduce picks version %d's reduction, and version %d does not read it: add "
                 "--version %d (or all)", NN_VERSION_REDUCE, c->version, NN_VERSION_REDUCE);
        die(msg);
    }
}

typedef struct {
    float *query, *base;
    nn_problem p;
} nn_data;

/* --base and --query: read before the GPU is looked for, so that a bad file
 * is reported on any machine. */
static void read_data(const nn_config *c, nn_data *data)
{
    char err[512];
    int nq, nr, dq, dr;
    if (read_fvecs(c->base, &data->base, &nr, &dr, err, sizeof err) ||
        read_fvecs(c->query, &data->query, &nq, &dq, err, sizeof err))
        die(err);
    if (dq != dr) {
        snprintf(err, sizeof err, "the queries have %d dimensions, the references %d", dq, dr);
        die(err);
    }
    if (nq > MAX_QUERIES || nr > MAX_REFS) {
        snprintf(err, sizeof err, "%d queries and %d references: at most %d and %d", nq, nr,
                 MAX_QUERIES, MAX_REFS);
        die(err);
    }
    data->p = (nn_problem){.queries = nq, .refs = nr, .dims = dq, .bins = c->bins,
                           .query = data->query, .base = data->base};
}

/* SIFT-like data: made only once there is a GPU to use it (it can take
 * seconds and gigabytes). */
static void generate_data(const nn_config *c, nn_data *data)
{
    int nq = c->queries, nr = c->refs, d = c->dims;
    data->query = malloc((size_t)nq * d * sizeof(float));
    data->base = malloc((size_t)nr * d * sizeof(float));
    if (!data->query || !data->base)
        die("not enough host memory for the data");
    make_sift_like(data->query, nq, d, c->seed);
    make_sift_like(data->base, nr, d, c->seed + 1);
    data->p = (nn_problem){.queries = nq, .refs = nr, .dims = d, .bins = c->bins,
                           .query = data->query, .base = data->base};
}

typedef struct {
    const char *name;
    int version; /* or NN_CUBLAS, NN_CUBLAS_INT8 */
    int ran;     /* the version that ran (nn_version_runs_as) */
    nn_timing median;
    int check_ok;
    int mismatched; /* float bins: sampled rows that differ from the exact reference */
    char check[600]; /* "timed run: " + a check message */
} result_row;

/* Warm-up, then the median of runs; every run's histograms are checked. */
static void measure(nn_device *dev, const nn_config *c, const nn_problem *p,
                    const nn_reference *ref, int exact, uint32_t *hist, result_row *row)
{
    nn_timing *t = calloc((size_t)c->runs, sizeof *t);
    double *totals = calloc((size_t)c->runs, sizeof *totals);
    if (!t || !totals)
        die("not enough host memory");
    char err[512];
    row->check_ok = 1;
    for (int r = -1; r < c->runs; r++) { /* r = -1: the warm-up */
        nn_timing run;
        fill_garbage(hist, (size_t)p->queries * p->bins, (uint64_t)(r + 2));
        int rc = row->version == NN_CUBLAS ? nn_run_cublas(dev, hist, &run, err, sizeof err)
                 : row->version == NN_CUBLAS_INT8
                     ? nn_run_cublas_int8(dev, hist, &run, err, sizeof err)
                     : nn_run_version(dev, row->version, c->reduce, hist, &run, err, sizeof err);
        if (rc)
            die(err);
        char msg[512];
        /* versions 7-10's and the INT8 baseline's integer sums are exact on every byte
         * data they accept */
        int exact_run = exact || row->version == NN_CUBLAS_INT8 ||
                        (!nn_is_baseline(row->version) && run.ran_version >= NN_VERSION_BYTES);
        int failed = nn_version_report_bins(row->version)
                         ? nn_check_report_rule(p, ref, hist, exact_run, &row->mismatched, msg,
                                                sizeof msg)
                         : nn_check(p, ref, hist, exact_run, msg, sizeof msg);
        if (failed) {
            if (row->check_ok)
                snprintf(row->check, sizeof row->check, "%s run: %s", r < 0 ? "warm-up" : "timed",
                         msg);
            row->check_ok = 0;
        } else if (row->check_ok) {
            snprintf(row->check, sizeof row->check, "%s", msg);
        }
        if (r >= 0) {
            t[r] = run;
            totals[r] = run.total_ms;
        }
    }
    row->median = t[median_index(totals, c->runs)];
    row->ran = row->median.ran_version;
    free(t);
    free(totals);
}

static void print_row(const result_row *row, const nn_problem *p, double cublas_ms)
{
    const nn_timing *m = &row->median;
    double pairs = (double)p->queries * p->refs;
    printf("  %-26s %10.3f %10.3f %10.3f %10.3f %10.3f %9.1f ", row->name, m->total_ms,
           m->step_ms[NN_STEP_DISTANCES], m->step_ms[NN_STEP_MINMAX],
           m->step_ms[NN_STEP_THRESHOLDS], m->step_ms[NN_STEP_HISTOGRAM],
           m->total_ms > 0 ? pairs / m->total_ms / 1e6 : 0.0);
    if (cublas_ms > 0)
        printf("%9.2fx", m->total_ms / cublas_ms);
    else
        printf("%10s", "NA");
    printf("  %s\n", row->check_ok ? "PASS" : "FAIL");
}

static const char *const step_names[NN_STEPS] = {"distances", "minmax", "thresholds",
                                                 "histogram"};

/* GB/s of step s of a row: the bytes its version must move (nn_step_bytes) over
 * its time; -1 where the step did not run. */
static double step_gbs(const nn_device *dev, const result_row *row, int s)
{
    double ms = row->median.step_ms[s], bytes = nn_step_bytes(dev, row->ran, s);
    return ms > 0 && bytes > 0 ? bytes / ms / 1e6 : -1.0;
}

/* One line per row: each step's GB/s and its share of the copy bandwidth. */
static void print_bandwidth(const nn_device *dev, const result_row *row, double copy_gbs)
{
    printf("  %-26s", row->name);
    for (int s = 0; s < NN_STEPS; s++) {
        double gbs = step_gbs(dev, row, s);
        if (gbs > 0)
            printf(" %11.1f (%5.1f%%)", gbs, 100.0 * gbs / copy_gbs);
        else
            printf(" %20s", "-");
    }
    printf("\n");
}

/* "cublas-fp32" or "cublas-int8": how the CSVs and every "vs cuBLAS" name a baseline. */
static const char *baseline_name(int version)
{
    return version == NN_CUBLAS_INT8 ? "cublas-int8" : "cublas-fp32";
}

static void print_result(const result_row *row, const nn_problem *p, const nn_config *c,
                         const result_row *best, int exact, int checked_rows, double pack_ms,
                         const nn_device *dev, double copy_gbs, const char *gpu)
{
    double cublas_ms = best ? best->median.total_ms : -1.0;
    printf("RESULT stage=06_nn_histogram queries=%d refs=%d dims=%d bins=%d", p->queries,
           p->refs, p->dims, p->bins);
    if (!nn_is_baseline(row->version))
        printf(" version=%d", row->version);
    else
        printf(" version=%s", baseline_name(row->version));
    if (row->version == NN_VERSION_REDUCE)
        printf(" reduce=%d", c->reduce);
    if (!nn_is_baseline(row->version) && row->ran != row->version)
        printf(" ran=%d", row->ran);
    /* the one-off byte copies of versions 7-10, outside ms like every setup step */
    if (!nn_is_baseline(row->version) && row->ran >= NN_VERSION_BYTES)
        printf(" pack_ms=%.3f", pack_ms);
    printf(" runs=%d ms=%.3f", c->runs, row->median.total_ms);
    for (int s = 0; s < NN_STEPS; s++)
        printf(" %s_ms=%.3f", step_names[s], row->median.step_ms[s]);
    for (int s = 0; s < NN_STEPS; s++) { /* each step's share of the memory system */
        double gbs = step_gbs(dev, row, s);
        if (gbs > 0)
            printf(" %s_gbs=%.1f %s_pct=%.1f", step_names[s], gbs, step_names[s],
                   100.0 * gbs / copy_gbs);
    }
    printf(" copy_gbs=%.1f", copy_gbs);
    /* vs_cublas: against the faster of the two baselines, named by cublas= */
    if (cublas_ms > 0)
        printf(" cublas=%s cublas_ms=%.3f vs_cublas=%.2f", baseline_name(best->version), cublas_ms,
               row->median.total_ms / cublas_ms);
    else
        printf(" cublas=NA cublas_ms=NA vs_cublas=NA");
    if (nn_version_report_bins(row->version)) /* the float rule's cost, as the report counted it */
        printf(" mismatched_rows=%d checked_rows=%d", row->mismatched, checked_rows);
    printf(" exact=%s check=%s gpu=\"%s\"\n", exact ? "yes" : "no", row->check_ok ? "PASS" : "FAIL",
           gpu);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    nn_config c;
    parse(argc, argv, &c);
    if (c.help) {
        usage();
        return 0;
    }
    /* everything that needs no GPU is checked first (exit 2), then the GPU
     * (77 when there is none, 3 when it fails), then the work */
    char err[512], gpu[256];
    if (c.output && check_output_file(c.output, err, sizeof err))
        die(err);
    nn_data data;
    if (c.base)
        read_data(&c, &data);
    if (c.base)
        check_problem_fits(data.p.queries, data.p.refs, data.p.dims, c.bins);
    else
        check_problem_fits(c.queries, c.refs, c.dims, c.bins);
    gpu_require("06_nn_histogram");
    if (!c.base)
        generate_data(&c, &data);
    const nn_problem *p = &data.p;
    gpu_name(gpu, sizeof gpu);
    int exact = nn_exact_data(p);
    nn_device *dev = nn_device_create(p, err, sizeof err);
    if (!dev)
        die(err);
    nn_reference ref;
    if (nn_reference_create(p, c.check, &ref))
        die("not enough host memory for the reference");
    uint32_t *hist = malloc((size_t)p->queries * p->bins * sizeof *hist);
    if (!hist)
        die("not enough host memory for the histograms");

    printf("06_nn_histogram - nearest-neighbour distance histograms\n");
    printf("  data      %d queries x %d references x %d dimensions, %s\n", p->queries, p->refs,
           p->dims, c.base ? "from .fvecs files" : "SIFT-like, generated");
    printf("  bins      %d\n", p->bins);
    printf("  exact     %s\n", exact ? "yes: integers 0..255, d <= 129 - the check is bin for bin"
                                     : "no: the check allows float rounding at bin edges");
    printf("  runs      %d timed after 1 warm-up; the median is shown; %d queries checked\n",
           c.runs, ref.nrows);
    printf("  setup     %.3f ms (upload, transpose, norms, byte copies; not in the times)\n",
           nn_device_setup_ms(dev));
    if (nn_device_pack_ms(dev) > 0.0)
        printf("            of which %.3f ms made versions 7-10's byte copies of the vectors\n",
               nn_device_pack_ms(dev));
    int wants_bytes = c.version == ALL_VERSIONS || c.version >= NN_VERSION_BYTES;
    int wants_imma = c.version == ALL_VERSIONS || c.version >= NN_VERSION_IMMA;
    if (wants_bytes && nn_version_runs_as(dev, NN_VERSION_BYTES) != NN_VERSION_BYTES)
        printf("  versions %d-%d run version %d here: %s\n", NN_VERSION_BYTES, NN_VERSIONS,
               NN_VERSION_BYTES - 1, nn_imma_unusable(dev));
    else if (wants_imma && nn_imma_unusable(dev))
        printf("  versions %d-%d run version %d's __dp4a pass here: %s\n", NN_VERSION_IMMA,
               NN_VERSIONS, NN_VERSION_IMMA - 1, nn_imma_unusable(dev));

    int all = c.version == ALL_VERSIONS;
    int first = all ? 1 : c.version, last = all ? NN_VERSIONS : c.version;
    if (!c.no_cublas && nn_cublas_absent()) {
        printf("  the cuBLAS baselines do not run here: %s\n", nn_cublas_absent());
        c.no_cublas = 1;
    }
    const char *int8_why = nn_cublas_int8_unusable(dev);
    int baselines = c.no_cublas ? 0 : int8_why ? 1 : 2;
    if (!c.no_cublas && int8_why)
        printf("  cublas-int8 does not run here: %s\n", int8_why);
    int nrows = baselines + last - first + 1;
    result_row *rows = calloc((size_t)nrows, sizeof *rows);
    if (!rows)
        die("not enough host memory");
    int i = 0;
    if (!c.no_cublas)
        rows[i++] = (result_row){.name = "cublas-fp32 (SGEMM)", .version = NN_CUBLAS};
    if (baselines == 2)
        rows[i++] = (result_row){.name = "cublas-int8 (GEMM int8)", .version = NN_CUBLAS_INT8};
    for (int v = first; v <= last; v++)
        rows[i++] = (result_row){.name = nn_version_name(v), .version = v};

    printf("  %-26s %10s %10s %10s %10s %10s %9s %10s  %s\n", "version", "total ms", "distances",
           "minmax", "thresholds", "histogram", "Mpairs/s", "vs cuBLAS", "check");
    /* the baselines first: every "vs cuBLAS" is against the faster of them */
    const result_row *best = NULL;
    int all_ok = 1;
    for (i = 0; i < nrows; i++) {
        measure(dev, &c, p, &ref, exact, hist, &rows[i]);
        all_ok &= rows[i].check_ok;
        if (i < baselines) {
            if (!best || rows[i].median.total_ms < best->median.total_ms)
                best = &rows[i];
            if (i + 1 < baselines)
                continue;
            for (int b = 0; b < baselines; b++)
                print_row(&rows[b], p, best->median.total_ms);
            continue;
        }
        print_row(&rows[i], p, best ? best->median.total_ms : -1.0);
    }
    if (best)
        printf("  vs cuBLAS: x the time of the faster baseline, %s (%.3f ms)\n",
               baseline_name(best->version), best->median.total_ms);
    for (i = 0; i < nrows; i++)
        printf("  check %-20s %s: %s\n",
               !nn_is_baseline(rows[i].version) ? nn_version_name(rows[i].version)
                                                 : baseline_name(rows[i].version),
               rows[i].check_ok ? "PASS" : "FAIL", rows[i].check);
    /* measured once, after the versions: what "% of copy" is a share of */
    double copy_gbs = gpu_copy_gbs();
    printf("  GB/s of each step: the bytes it must move (a model, step_bytes in each\n"
           "  vN_*.cu: vectors once per block of queries, mostly from the L2 cache)\n"
           "  over its time, and %% of the device-to-device copy bandwidth, %.1f GB/s here\n",
           copy_gbs);
    printf("  %-26s", "version");
    for (int s = 0; s < NN_STEPS; s++)
        printf(" %20s", step_names[s]);
    printf("\n");
    for (i = 0; i < nrows; i++)
        print_bandwidth(dev, &rows[i], copy_gbs);
    for (i = 0; i < nrows; i++)
        print_result(&rows[i], p, &c, best, exact, ref.nrows, nn_device_pack_ms(dev), dev,
                     copy_gbs, gpu);
    if (c.output && write_ivecs(c.output, hist, p->queries, p->bins, err, sizeof err))
        die(err);

    free(rows);
    free(hist);
    nn_reference_destroy(&ref);
    nn_device_destroy(dev);
    free(data.query);
    free(data.base);
    return all_ok ? 0 : EXIT_CHECK_FAILED;
}
