/*
 * 08_multi_gpu/main.c - the program of stage 08: the options, each GPU's share of the
 * input, the timed runs, the checks and the report.  The sort itself is the step's
 * (mg_sort, in step1_partition_exchange.c ...).
 *
 *   build/bin/08_multi_gpu [-n N] [--dist D] [--seed S] [--gpus G] [--runs R] ...
 *   mpirun -np G build/bin/08_multi_gpu [...]      (a build with MPI: one GPU a rank)
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cub_baseline.h"
#include "cuda_check.h"
#include "files.h"
#include "gpu.h"
#include "keys.h"
#include "mg.h"
#include "reference.h"
#include "timer.h"

enum { EXIT_CHECK_FAILED = 1, EXIT_USAGE = 2 };
enum { CHECK_AUTO, CHECK_REF, CHECK_HASH };

#define MAX_N (UINT64_C(1) << 36)
/* --runs: the range every sort program of the course takes */
#define MAX_RUNS 1000
#define REFERENCE_AUTO_MAX (UINT64_C(1) << 28) /* beyond it, --check auto checks by hash */

typedef struct {
    size_t n;
    key_dist dist;
    uint64_t seed;
    int gpus, runs, check, no_cub, no_composition, verbose, step;
    const char *input, *output;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: 08_multi_gpu [options]        (mpirun -np G 08_multi_gpu [options]: a GPU a rank)\n"
            "%s\n\n"
            "the step\n"
            "  --step K          step 08.K of the stage, 1..%d (default %d, the last)\n"
            "input (default: -n 268435456 --dist uniform --seed 2026)\n"
            "  -n N              keys to generate (0..2^36); each GPU makes its share from the\n"
            "                    global index, so the input is stages 01-07's for the same -n,\n"
            "                    --dist and --seed, whatever the number of GPUs\n"
            "  --dist NAME       %s\n"
            "  --seed S          seed of the generator\n"
            "  --input FILE      sort raw little-endian uint32 keys read from FILE (split across the GPUs)\n"
            "  --output FILE     gather the sorted parts and write them to FILE\n"
            "the GPUs\n"
            "  --gpus G          GPUs of this host to use, 1..%d (default: every visible one)\n"
            "measurement\n"
            "  --runs R          timed runs after one warm-up, 1..1000; the median is shown (default 5)\n"
            "  --verbose, -v     also print each GPU's part and the exchange's plan\n"
            "  --no-cub          do not run the CUB baseline (one GPU, the whole input)\n"
            "  --no-composition  do not run the library composition (CUB partition, NCCL, CUB\n"
            "                    sort: the baseline across 2 GPUs and more)\n"
            "  --check MODE      ref: the gathered result against the CPU reference sort; hash:\n"
            "                    parts sorted, in order, a permutation by a multiset hash;\n"
            "                    auto (default): ref up to 2^28 keys, hash beyond\n",
            *MG_STEPS[MG_STEP_COUNT - 1].name, MG_STEP_COUNT, MG_STEP_COUNT, dist_list(), MG_MAX_GPUS);
}

static int parse_size(const char *s, size_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || !end || *end || s[0] == '-' || s[0] == '\0')
        return -1;
    *out = (size_t)v;
    return 0;
}

static int is_value_option(const char *a)
{
    static const char *const with_value[] = {"-n", "--dist", "--seed", "--gpus", "--runs", "--step",
                                             "--check", "--input", "--output"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (!strcmp(a, with_value[i]))
            return 1;
    return 0;
}

static int parse_options(int argc, char **argv, options *o, char *err, size_t errlen)
{
    *o = (options){.n = 268435456, .dist = DIST_UNIFORM, .seed = 2026, .runs = 5, .step = MG_STEP_COUNT};
    int n_given = 0;
    for (int i = 1; i < argc; i++) {
        /* --option=value is --option value, as in every program of the course */
        char name[64];
        const char *a = argv[i], *inline_value = NULL;
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        if (eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            a = name, inline_value = eq + 1;
        }
        const char *v = inline_value ? inline_value : i + 1 < argc ? argv[i + 1] : NULL;
        int taken = inline_value ? 0 : 1; /* the arguments a value takes after the option */
        size_t x = 0;
        if (inline_value && (!strcmp(a, "--help") || !strcmp(a, "--verbose") || !strcmp(a, "--no-cub") ||
                             !strcmp(a, "--no-composition"))) {
            snprintf(err, errlen, "%s: takes no value", argv[i]);
            return -1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
            o->verbose = 1;
        } else if (!strcmp(a, "--no-cub")) {
            o->no_cub = 1;
        } else if (!strcmp(a, "--no-composition")) {
            o->no_composition = 1;
        } else if (!is_value_option(a)) {
            snprintf(err, errlen, "%s: unknown %s (--help lists the options)", argv[i], a[0] == '-' ? "option" : "argument");
            return -1;
        } else if (!v) {
            snprintf(err, errlen, "%s: needs a value", a);
            return -1;
        } else if (!strcmp(a, "-n")) {
            if (parse_size(v, &x) || x > MAX_N) {
                snprintf(err, errlen, "-n %s: a number of keys from 0 to 2^36 (68719476736)", v);
                return -1;
            }
            o->n = x, n_given = 1, i += taken;
        } else if (!strcmp(a, "--dist")) {
            if (dist_from_name(v, &o->dist)) {
                snprintf(err, errlen, "--dist %s: one of %s", v, dist_list());
                return -1;
            }
            i += taken;
        } else if (!strcmp(a, "--seed")) {
            if (parse_size(v, &x)) {
                snprintf(err, errlen, "--seed %s: a non-negative integer", v);
                return -1;
            }
            o->seed = x, i += taken;
        } else if (!strcmp(a, "--gpus")) {
            if (parse_size(v, &x) || x < 1 || x > MG_MAX_GPUS) {
                snprintf(err, errlen, "--gpus %s: from 1 to %d", v, MG_MAX_GPUS);
                return -1;
            }
            o->gpus = (int)x, i += taken;
        } else if (!strcmp(a, "--step")) {
            if (parse_size(v, &x) || x < 1 || x > (size_t)MG_STEP_COUNT) {
                snprintf(err, errlen, "--step %s: from 1 to %d", v, MG_STEP_COUNT);
                return -1;
            }
            o->step = (int)x, i += taken;
        } else if (!strcmp(a, "--runs")) {
            if (parse_size(v, &x) || x < 1 || x > MAX_RUNS) {
                snprintf(err, errlen, "--runs '%s': expected a whole number from 1 to %d", v, MAX_RUNS);
                return -1;
            }
            o->runs = (int)x, i += taken;
        } else if (!strcmp(a, "--check")) {
            if (!strcmp(v, "ref"))
                o->check = CHECK_REF;
            else if (!strcmp(v, "hash"))
                o->check = CHECK_HASH;
            else if (!strcmp(v, "auto"))
                o->check = CHECK_AUTO;
            else {
                snprintf(err, errlen, "--check %s: ref, hash or auto", v);
                return -1;
            }
            i += taken;
        } else if (!strcmp(a, "--input")) {
            o->input = v, i += taken;
        } else if (!strcmp(a, "--output")) {
            o->output = v, i += taken;
        }
    }
    if (o->input && n_given) {
        snprintf(err, errlen, "-n and --input: the file's size is the number of keys; give one");
        return -1;
    }
    if (o->input) {
        long long size = 0;
        if (stat_regular_file(o->input, "--input", &size, err, errlen))
            return -1;
        if (size % 4) {
            snprintf(err, errlen, "--input %s: %lld bytes, not a multiple of 4 (raw uint32 keys)", o->input, size);
            return -1;
        }
        o->n = (size_t)(size / 4);
    }
    if (o->output && check_output_file(o->output, err, errlen))
        return -1;
    return 0;
}

static uint64_t world_hash(mg_world *w, int after)
{
    uint64_t sum = 0;
    for (int l = 0; l < w->nlocal; l++) {
        mg_part *p = &w->part[l];
        CUDA_CHECK(cudaSetDevice(p->device));
        CUDA_CHECK(cudaMemset(p->d_sum, 0, sizeof(uint64_t)));
        mg_hash_keys(after ? p->sorted : p->d_keys, after ? p->n_out : p->n_in, p->d_sum);
        uint64_t s = 0;
        CUDA_CHECK(cudaMemcpy(&s, p->d_sum, sizeof s, cudaMemcpyDeviceToHost));
        sum += s;
    }
    return mg_world_sum_u64(w, sum);
}

/* ---- checks ------------------------------------------------------------------------------ */

/* Every part sorted, each part's last key at most the next part's first, n keys in all,
 * and the same multiset as the input (its hash).  One line in msg; 0 if all hold. */
static int check_parts(mg_world *w, size_t n, uint64_t input_hash, int exact, char *msg, size_t msglen)
{
    uint64_t descents = 0, keys = 0, off_share = 0;
    uint32_t ends[2 * MG_MAX_GPUS] = {0};
    size_t sizes[MG_MAX_GPUS] = {0};
    for (int l = 0; l < w->nlocal; l++) {
        mg_part *p = &w->part[l];
        CUDA_CHECK(cudaSetDevice(p->device));
        CUDA_CHECK(cudaMemset(p->d_sum, 0, sizeof(uint64_t)));
        mg_count_descents(p->sorted, p->n_out, p->d_sum);
        uint64_t d = 0;
        CUDA_CHECK(cudaMemcpy(&d, p->d_sum, sizeof d, cudaMemcpyDeviceToHost));
        descents += d;
        keys += p->n_out;
        size_t first, share;
        mg_share_of(n, w->nranks, p->rank, &first, &share);
        if (exact && p->n_out != share) {
            off_share++;
            snprintf(msg, msglen, "GPU %d holds %zu keys, not its share of %zu", p->rank, p->n_out, share);
        }
        sizes[p->rank] = p->n_out;
        if (p->n_out) {
            CUDA_CHECK(cudaMemcpy(&ends[2 * p->rank], p->sorted, sizeof(uint32_t), cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaMemcpy(&ends[2 * p->rank + 1], p->sorted + p->n_out - 1, sizeof(uint32_t),
                                  cudaMemcpyDeviceToHost));
        }
    }
    descents = mg_world_sum_u64(w, descents);
    keys = mg_world_sum_u64(w, keys);
    if (mg_world_sum_u64(w, off_share)) {
        if (!msg[0])
            snprintf(msg, msglen, "a GPU of another process does not hold its share");
        return -1;
    }
    if (descents) {
        snprintf(msg, msglen, "a part is not sorted: %llu keys greater than the next", (unsigned long long)descents);
        return -1;
    }
    if (keys != n) {
        snprintf(msg, msglen, "the parts hold %llu keys, not %zu", (unsigned long long)keys, n);
        return -1;
    }
    if (!w->mpi) { /* one process sees every part's ends */
        int last = -1;
        for (int r = 0; r < w->nranks; r++) {
            if (!sizes[r])
                continue;
            if (last >= 0 && ends[2 * last + 1] > ends[2 * r]) {
                snprintf(msg, msglen, "GPU %d's last key %u is greater than GPU %d's first %u",
                         last, ends[2 * last + 1], r, ends[2 * r]);
                return -1;
            }
            last = r;
        }
    }
    if (world_hash(w, 1) != input_hash) {
        snprintf(msg, msglen, "the sorted parts are not a permutation of the input (multiset hash)");
        return -1;
    }
    return 0;
}

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Step s's runs, each from the input (the first a warm-up, untimed): the median of each
 * phase in *m, the last run's bytes moved.  Returns 0, or -1 with one line in err. */
static int timed_runs(mg_world *w, const mg_step *s, const options *o, const uint32_t *host_input,
                      int reload_first, mg_times *m, char *err, size_t errlen)
{
    static mg_times t[MAX_RUNS + 1];
    static double phase[6][MAX_RUNS];
    for (int r = 0; r <= o->runs; r++) {
        if (r > 0 || reload_first)
            mg_parts_load(w, o->n, host_input, o->dist, o->seed);
        if (s->sort(w, &t[r], err, errlen))
            return -1;
        if (r > 0) {
            phase[0][r - 1] = t[r].total, phase[1][r - 1] = t[r].count;
            phase[2][r - 1] = t[r].partition, phase[3][r - 1] = t[r].split;
            phase[4][r - 1] = t[r].exchange, phase[5][r - 1] = t[r].local_sort;
        }
    }
    *m = (mg_times){median(phase[0], o->runs), median(phase[1], o->runs), median(phase[2], o->runs),
                    median(phase[3], o->runs), median(phase[4], o->runs), median(phase[5], o->runs),
                    t[o->runs].moved_gb};
    return 0;
}

typedef struct {
    int status[MG_COMPOSITION_FORMS];     /* 0: ran, parts right; 1: ran, wrong; -1: did not run */
    mg_times times[MG_COMPOSITION_FORMS]; /* the medians of each form that ran */
    char why[MG_COMPOSITION_FORMS][256];  /* where a form did not run or was wrong, why */
    int best;                             /* the fastest form that ran right (the baseline), or -1 */
} comp_result;

/* Each form of the library composition on the same input, timed as the step is and
 * checked as its parts are (they are not the exact shares).  Returns 0 where a form ran
 * right (the fastest is r->best), 1 where a form ran and its parts are wrong (why: its
 * line), -1 where none could run (why: the first form's line). */
static int run_composition(mg_world *w, const options *o, const uint32_t *host_input,
                           uint64_t input_hash, comp_result *r, char *why, size_t whylen)
{
    int wrong = -1;
    r->best = -1;
    for (int f = 0; f < MG_COMPOSITION_FORMS; f++) {
        r->status[f] = 0;
        r->why[f][0] = 0;
        if (timed_runs(w, MG_COMPOSITION_FORM[f], o, host_input, 1, &r->times[f], r->why[f],
                       sizeof r->why[f]))
            r->status[f] = -1;
        else if (check_parts(w, o->n, input_hash, 0, r->why[f], sizeof r->why[f]))
            r->status[f] = 1, wrong = wrong < 0 ? f : wrong;
        else if (r->best < 0 || r->times[f].total < r->times[r->best].total)
            r->best = f;
    }
    mg_composition_free(w);
    if (wrong >= 0) {
        snprintf(why, whylen, "its %s form: %s", MG_COMPOSITION_FORM_NAME[wrong], r->why[wrong]);
        return 1;
    }
    if (r->best < 0) {
        snprintf(why, whylen, "%s", r->why[0]);
        return -1;
    }
    return 0;
}

/* ---- main -------------------------------------------------------------------------------- */

static void die(int status, const char *fmt, const char *what)
{
    fprintf(stderr, "08_multi_gpu: error: "); /* the form of every program of the course */
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
    exit(status);
}

/* The RESULT line of a sort of n keys: the median of each phase (t), CUB's fields, the
 * check, the GPU's name. */
static void print_result(const options *o, size_t n, int gpus, int mpi, const mg_times *t,
                         const char *cub_field, int bad, const char *gpu)
{
    printf("RESULT stage=08_multi_gpu step=08.%d n=%zu dist=%s seed=%llu gpus=%d mpi=%d runs=%d "
           "sort_ms=%.3f count_ms=%.3f partition_ms=%.3f split_ms=%.3f exchange_ms=%.3f "
           "local_sort_ms=%.3f moved_gb=%.3f %s check=%s gpu=\"%s\"\n",
           o->step, n, o->input ? "file" : dist_name(o->dist), (unsigned long long)o->seed, gpus,
           mpi, o->runs, t->total, t->count, t->partition, t->split, t->exchange, t->local_sort,
           t->moved_gb, cub_field, bad ? "FAIL" : "PASS", gpu);
}

/* Zero keys (-n 0, an empty --input) are sorted to nothing, with no GPU, as every sort
 * program of the course does: an empty --output, a RESULT line, check PASS. */
static int sort_nothing(const options *o)
{
    char err[512];
    if (o->output && write_keys_file(o->output, NULL, 0, err, sizeof err))
        die(EXIT_USAGE, "%s", err);
    printf("08_multi_gpu - %s\n", *MG_STEPS[o->step - 1].name);
    printf("  input     0 keys: nothing to sort, and no GPU is needed for it\n");
    printf("  check     PASS: zero keys in, zero keys out\n");
    const mg_times nothing = {0};
    print_result(o, 0, 0, 0, &nothing, "cub_ms=NA vs_cub=NA comp_ms=NA vs_comp=NA", 0, "none");
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    char err[512] = "";
    if (parse_options(argc, argv, &o, err, sizeof err))
        die(EXIT_USAGE, "%s", err);
    if (o.n == 0)
        return sort_nothing(&o);
    gpu_require("08_multi_gpu");
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (o.gpus > count) { /* a GPU is here, so this is no skip: the command asks too much */
        snprintf(err, sizeof err, "--gpus %d: this host has %d GPU%s", o.gpus, count, count == 1 ? "" : "s");
        die(EXIT_USAGE, "%s", err);
    }

    mg_world w;
    if (mg_world_open(&w, o.gpus, &argc, &argv, err, sizeof err))
        die(EXIT_USAGE, "%s", err);
    int lead = mg_world_leader(&w);
    if (w.mpi && o.output)
        die(EXIT_USAGE, "%s", "--output: under mpirun each rank keeps its part; run one process to gather them");

    /* the input on the host where it is needed: a file, a distribution the GPUs cannot
     * make from the index, the reference check or the CUB baseline */
    int want_ref = o.check == CHECK_REF || (o.check == CHECK_AUTO && o.n <= REFERENCE_AUTO_MAX);
    if (w.mpi)
        want_ref = 0;
    uint32_t *host_input = NULL;
    if (o.input) {
        size_t n_file = 0;
        if (read_keys_file(o.input, o.n, &host_input, &n_file, err, sizeof err))
            die(EXIT_USAGE, "%s", err);
    } else if (!mg_dist_on_device(o.dist) || want_ref || (!o.no_cub && lead)) {
        host_input = malloc(o.n * sizeof(uint32_t));
        if (!host_input)
            die(EXIT_USAGE, "%s", "-n: the host cannot hold the input; try --no-cub --check hash");
        make_keys(host_input, o.n, o.dist, o.seed);
    }

    /* CUB on one GPU, the whole input, in the same process: first, while that GPU's memory
     * is its own (CUB frees what it takes) */
    cub_times cub = {-1.0, -1.0, -1.0};
    const char *cub_why = o.no_cub ? "--no-cub" : NULL;
    if (!cub_why && lead) {
        CUDA_CHECK(cudaSetDevice(w.part[0].device));
        size_t free_b = 0, total_b = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (o.n * sizeof(uint32_t) * 3 > free_b)
            cub_why = "the input does not fit one GPU";
        else if (cub_sort_keys(host_input, o.n, o.runs, NULL, &cub, err, sizeof err))
            die(EXIT_CUDA_ERROR, "%s", err);
    }

    /* each GPU's buffers and share */
    if (mg_parts_create(&w, o.n, err, sizeof err))
        die(EXIT_USAGE, "%s", err);
    mg_parts_load(&w, o.n, host_input, o.dist, o.seed);
    uint64_t input_hash = world_hash(&w, 0);

    /* the runs: the first a warm-up; each starts from the input */
    const mg_step *step = &MG_STEPS[o.step - 1];
    mg_times m;
    if (timed_runs(&w, step, &o, host_input, 0, &m, err, sizeof err))
        die(EXIT_CHECK_FAILED, "%s", err);
    double sort_ms = m.total, moved = m.moved_gb;
    double c_ms = m.count, p_ms = m.partition, s_ms = m.split, e_ms = m.exchange, l_ms = m.local_sort;

    /* checks */
    char msg[512] = "";
    int bad = check_parts(&w, o.n, input_hash, step->exact_shares, msg, sizeof msg);
    const char *how = "parts sorted, in order, a permutation (multiset hash)";
    uint32_t *gathered = NULL;
    if (!bad && (want_ref || o.output)) {
        gathered = mg_parts_gather(&w, o.n);
        if (!gathered)
            die(EXIT_USAGE, "%s", "the host cannot hold the sorted keys to check or write them");
    }
    if (!bad && want_ref) {
        uint32_t *ref = malloc(o.n * sizeof(uint32_t));
        if (!ref || reference_sort(host_input, ref, o.n))
            die(EXIT_USAGE, "%s", "the host cannot hold the reference sort; use --check hash");
        bad = verify_sorted(gathered, ref, o.n, msg, sizeof msg);
        how = "equal to the CPU reference sort, key for key";
        free(ref);
    }
    if (!bad && o.output && write_keys_file(o.output, gathered, o.n, err, sizeof err))
        die(EXIT_USAGE, "%s", err);

    /* the library composition on the same keys, in the same process, checked alike; it
     * runs after the step's checks, which read the step's parts */
    comp_result comps = {0};
    char comp_why[512] = "";
    int comp_status = -1;
    if (o.no_composition)
        snprintf(comp_why, sizeof comp_why, "--no-composition");
    else if (w.nranks == 1)
        snprintf(comp_why, sizeof comp_why, "one GPU: CUB's sort is the baseline");
    else
        comp_status = run_composition(&w, &o, host_input, input_hash, &comps, comp_why, sizeof comp_why);
    const mg_times comp = comp_status == 0 ? comps.times[comps.best] : (mg_times){0};
    if (comp_status == 1 && !bad) /* a wrong baseline is a failed run, as a wrong sort is */
        bad = 1, snprintf(msg, sizeof msg, "the library composition: %s", comp_why);

    if (lead) {
        char name[128] = "";
        gpu_name(name, sizeof name);
        printf("08_multi_gpu - %s\n", *step->name);
        printf("  input     %zu keys, %s%s --seed %llu, on %d GPU%s (%s)%s\n", o.n,
               o.input ? "--input " : "--dist ", o.input ? o.input : dist_name(o.dist),
               (unsigned long long)o.seed, w.nranks, w.nranks == 1 ? "" : "s", name,
               w.mpi ? ", one MPI rank each" : "");
        printf("  runs      %d timed after 1 warm-up; the median of each phase is shown\n", o.runs);
        printf("  phase                total ms\n");
        printf("  count                %9.3f   top-digit counts, all-gathered\n", c_ms);
        printf("  partition            %9.3f   one pass by the top digit\n", p_ms);
        if (step->exact_shares)
            printf("  split                %9.3f   the boundary digits' runs sorted, the keys at the shares found\n", s_ms);
        printf("  exchange             %9.3f   %.3f GB between GPUs, %.1f GB/s a GPU\n", e_ms, moved,
               e_ms > 0 ? moved / w.nranks / (e_ms / 1000.0) : 0.0);
        printf("  local sort           %9.3f   onesweep on each GPU's part\n", l_ms);
        printf("  sort                 %9.3f   %.2f Gkeys/s\n", sort_ms, o.n / (sort_ms / 1000.0) / 1e9);
        const char *const *form = MG_COMPOSITION_FORM_NAME;
        if (comp_status == 0) {
            printf("  composition          %9.3f   CUB partition, runs across, CUB sort, its fastest form (%s): "
                   "this sort takes %.2fx its time\n", comp.total, form[comps.best], sort_ms / comp.total);
            for (int f = 0; f < MG_COMPOSITION_FORMS; f++)
                if (comps.status[f] == 0)
                    printf("    its %-8s form  %9.3f   exchange %.3f ms\n", form[f], comps.times[f].total,
                           comps.times[f].exchange);
                else
                    printf("    its %-8s form  not run: %s\n", form[f], comps.why[f]);
        } else
            printf("  composition          not run: %s\n", comp_why);
        if (cub_why)
            printf("  CUB, one GPU         not run: %s\n", cub_why);
        else
            printf("  CUB, one GPU         %9.3f   this sort takes %.2fx its time (CUB's faster call: %s count)\n",
                   cub.ms, sort_ms / cub.ms, strcmp(cub_call_name(&cub), "i32") ? "int64_t" : "int");
        printf("  check     %s: %s\n", bad ? "FAIL" : "PASS", bad ? msg : how);
        if (o.verbose && !w.mpi)
            for (int l = 0; l < w.nlocal; l++)
                printf("  GPU %d     %zu keys in, %zu keys out\n", w.part[l].rank, w.part[l].n_in, w.part[l].n_out);
        char cub_field[512] = "cub_ms=NA vs_cub=NA";
        if (!cub_why)
            snprintf(cub_field, sizeof cub_field, "cub_ms=%.3f vs_cub=%.2f cub_call=%s", cub.ms,
                     sort_ms / cub.ms, cub_call_name(&cub));
        size_t at = strlen(cub_field);
        if (comp_status == 0) {
            at += snprintf(cub_field + at, sizeof cub_field - at,
                           " comp_ms=%.3f vs_comp=%.2f comp_form=%s comp_partition_ms=%.3f comp_exchange_ms=%.3f "
                           "comp_local_sort_ms=%.3f",
                           comp.total, sort_ms / comp.total, form[comps.best], comp.partition, comp.exchange,
                           comp.local_sort);
            for (int f = 0; f < MG_COMPOSITION_FORMS; f++)
                at += comps.status[f] == 0
                          ? snprintf(cub_field + at, sizeof cub_field - at, " comp_%s_ms=%.3f", form[f],
                                     comps.times[f].total)
                          : snprintf(cub_field + at, sizeof cub_field - at, " comp_%s_ms=NA", form[f]);
        } else
            snprintf(cub_field + at, sizeof cub_field - at, " comp_ms=NA vs_comp=NA");
        const mg_times medians = {sort_ms, c_ms, p_ms, s_ms, e_ms, l_ms, moved};
        print_result(&o, o.n, w.nranks, w.mpi, &medians, cub_field, bad, name);
    }

    mg_parts_destroy(&w);
    free(gathered);
    free(host_input);
    mg_world_close(&w);
    return bad ? EXIT_CHECK_FAILED : 0;
}
