/* options.c - the sort programs' command line (see options.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

const char *scan_variant_name(int variant)
{
    return variant == SCAN_HILLIS_STEELE ? "hillis-steele"
           : variant == SCAN_BLELLOCH    ? "blelloch"
                                         : "?";
}

const char *mode_name(int mode) { return mode == MODE_BLOCKED ? "blocked" : "plain"; }

int parse_number(const char *text, uint64_t min, uint64_t max, uint64_t *value)
{
    if (!text || !*text)
        return -1;
    uint64_t v = 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned digit = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return -1; /* overflow */
        v = v * 10 + digit;
    }
    if (v < min || v > max)
        return -1;
    *value = v;
    return 0;
}

typedef struct {
    const char *name;
    unsigned uses; /* 0: a driver option every stage accepts */
    int takes_value;
} option_spec;

static const option_spec OPTIONS[] = {
    {"-n", 0, 1},          {"--dist", 0, 1},        {"--seed", 0, 1},
    {"--runs", 0, 1},      {"--input", 0, 1},       {"--output", 0, 1},
    {"--verbose", 0, 0},   {"-v", 0, 0},            {"--no-cub", 0, 0},
    {"--help", 0, 0},      {"-h", 0, 0},            {"--bits", USES_BITS, 1},
    {"--block", USES_BLOCK, 1}, {"--scan-block", USES_SCAN_BLOCK, 1},
    {"--kpt", USES_KPT, 1},  {"--hist", USES_HIST, 1}, {"--scan", USES_SCAN, 1},
    {"--mode", USES_MODE, 1},
};
enum { OPTION_COUNT = sizeof OPTIONS / sizeof OPTIONS[0] };

static const option_spec *find_option(const char *name, size_t len)
{
    for (int i = 0; i < OPTION_COUNT; i++)
        if (strlen(OPTIONS[i].name) == len && strncmp(OPTIONS[i].name, name, len) == 0)
            return &OPTIONS[i];
    return NULL;
}

/* The stage's own options, for error messages: "--bits --block --mode". */
static void list_stage_options(const stage_info *stage, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < OPTION_COUNT; i++) {
        if (OPTIONS[i].uses & stage->uses) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s%s", used ? " " : "", OPTIONS[i].name);
        }
    }
}

static int parse_scan_variant(const char *v, int *variant)
{
    if (!strcmp(v, "1") || !strcmp(v, "hs") || !strcmp(v, "hillis-steele"))
        *variant = SCAN_HILLIS_STEELE;
    else if (!strcmp(v, "2") || !strcmp(v, "blelloch"))
        *variant = SCAN_BLELLOCH;
    else
        return -1;
    return 0;
}

static int parse_mode(const char *v, int *mode)
{
    if (!strcmp(v, "plain"))
        *mode = MODE_PLAIN;
    else if (!strcmp(v, "blocked"))
        *mode = MODE_BLOCKED;
    else
        return -1;
    return 0;
}

#define BAD_VALUE(...)                                                                     \
    do {                                                                                   \
        snprintf(err, errlen, __VA_ARGS__);                                                \
        return -1;                                                                         \
    } while (0)

/* Applies one option with its value; -1 and a message if the value is bad. */
static int apply_option(const option_spec *o, const char *v, run_config *cfg, char *err,
                        size_t errlen)
{
    uint64_t x = 0;
    const char *name = o->name;
    if (!strcmp(name, "-n")) {
        if (parse_number(v, 0, N_MAX, &x))
            BAD_VALUE("-n '%s': expected a whole number of keys from 0 to %zu", v, N_MAX);
        cfg->n = (size_t)x;
    } else if (!strcmp(name, "--dist")) {
        if (dist_from_name(v, &cfg->dist))
            BAD_VALUE("--dist '%s': unknown distribution (known: %s)", v, dist_list());
    } else if (!strcmp(name, "--seed")) {
        if (parse_number(v, 0, UINT64_MAX, &x))
            BAD_VALUE("--seed '%s': expected a whole number from 0 to %llu", v,
                      (unsigned long long)UINT64_MAX);
        cfg->seed = x;
    } else if (!strcmp(name, "--runs")) {
        if (parse_number(v, 1, 1000, &x))
            BAD_VALUE("--runs '%s': expected a whole number from 1 to 1000", v);
        cfg->runs = (int)x;
    } else if (!strcmp(name, "--input")) {
        cfg->input = v;
    } else if (!strcmp(name, "--output")) {
        cfg->output = v;
    } else if (!strcmp(name, "--bits")) {
        if (parse_number(v, 1, 16, &x))
            BAD_VALUE("--bits '%s': expected a digit width from 1 to 16 bits", v);
        cfg->sort.bits = (int)x;
    } else if (!strcmp(name, "--block")) {
        if (parse_number(v, 1, 1u << 24, &x))
            BAD_VALUE("--block '%s': expected a whole number from 1 to %u", v, 1u << 24);
        cfg->sort.block = (int)x;
    } else if (!strcmp(name, "--scan-block")) {
        if (parse_number(v, 1, 1024, &x))
            BAD_VALUE("--scan-block '%s': expected a whole number from 1 to 1024", v);
        cfg->sort.scan_block = (int)x;
    } else if (!strcmp(name, "--kpt")) {
        if (parse_number(v, 1, 64, &x))
            BAD_VALUE("--kpt '%s': expected a whole number of keys per thread from 1 to 64", v);
        cfg->sort.kpt = (int)x;
    } else if (!strcmp(name, "--hist")) {
        if (parse_number(v, 1, 3, &x))
            BAD_VALUE("--hist '%s': expected 1 (sectioned), 2 (interleaved) or 3 (shared memory)",
                      v);
        cfg->sort.hist_variant = (int)x;
    } else if (!strcmp(name, "--scan")) {
        if (parse_scan_variant(v, &cfg->sort.scan_variant))
            BAD_VALUE("--scan '%s': expected hillis-steele (or 1, hs) or blelloch (or 2)", v);
    } else if (!strcmp(name, "--mode")) {
        if (parse_mode(v, &cfg->sort.mode))
            BAD_VALUE("--mode '%s': expected plain or blocked", v);
    } else if (!strcmp(name, "--verbose") || !strcmp(name, "-v")) {
        cfg->verbose = 1;
    } else if (!strcmp(name, "--no-cub")) {
        cfg->no_cub = 1;
    } else if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
        cfg->help = 1;
    }
    return 0;
}

int parse_sort_args(int argc, char **argv, const stage_info *stage, run_config *cfg, char *err,
                    size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->n = N_DEFAULT;
    cfg->dist = DIST_UNIFORM;
    cfg->seed = SEED_DEFAULT;
    cfg->runs = RUNS_DEFAULT;
    cfg->sort = stage->defaults;
    int n_given = 0, dist_given = 0;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t name_len = eq && arg[0] == '-' && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
        const option_spec *o = find_option(arg, name_len);
        if (!o) {
            snprintf(err, errlen, "unknown option '%s' (see --help)", arg);
            return -1;
        }
        if (o->uses && !(o->uses & stage->uses)) {
            char own[160];
            list_stage_options(stage, own, sizeof own);
            snprintf(err, errlen, "%s is not an option of %s (its own options: %s)", o->name,
                     stage->name, own[0] ? own : "none");
            return -1;
        }
        const char *value = NULL;
        if (o->takes_value) {
            if (name_len < strlen(arg))
                value = eq + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else {
                snprintf(err, errlen, "%s needs a value (see --help)", o->name);
                return -1;
            }
        } else if (name_len < strlen(arg)) {
            snprintf(err, errlen, "%s takes no value", o->name);
            return -1;
        }
        if (apply_option(o, value, cfg, err, errlen))
            return -1;
        cfg->given |= o->uses;
        n_given |= !strcmp(o->name, "-n");
        dist_given |= !strcmp(o->name, "--dist");
    }
    if (cfg->input && (n_given || dist_given)) {
        snprintf(err, errlen, "--input reads the keys from a file: it cannot be combined with %s",
                 n_given ? "-n" : "--dist");
        return -1;
    }
    return 0;
}

void print_sort_usage(FILE *f, const stage_info *stage)
{
    const sort_options *d = &stage->defaults;
    fprintf(f, "usage: %s [options]\n%s\n\n", stage->name, stage->title);
    fprintf(f, "input (default: -n %zu --dist uniform --seed %u)\n", N_DEFAULT, SEED_DEFAULT);
    fprintf(f, "  -n N              number of keys to generate (0..%zu)\n", N_MAX);
    fprintf(f, "  --dist NAME       %s\n", dist_list());
    fprintf(f, "  --seed S          seed of the generator\n");
    fprintf(f, "  --input FILE      sort raw little-endian uint32 keys read from FILE\n");
    fprintf(f, "  --output FILE     write the sorted keys to FILE, same format\n");
    fprintf(f, "measurement\n");
    fprintf(f, "  --runs R          timed runs after one warm-up; the median is shown (default %d)\n",
            RUNS_DEFAULT);
    fprintf(f, "  --verbose, -v     also print the time of every step of every pass\n");
    fprintf(f, "  --no-cub          do not run the CUB baseline\n");
    fprintf(f, "options of this stage\n");
    if (stage->uses & USES_BITS)
        fprintf(f, "  --bits K          digit width in bits (default %d)\n", d->bits);
    if (stage->uses & USES_MODE)
        fprintf(f, "  --mode M          plain (textbook LSD) or blocked (per-block histograms, the "
                   "paper's layout) (default %s)\n", mode_name(d->mode));
    if (stage->uses & USES_BLOCK)
        fprintf(f, "  --block B         %s (default %d)\n",
                stage->needs_gpu ? "threads per block of the histogram / sort kernels"
                                 : "keys per block in blocked mode",
                d->block);
    if (stage->uses & USES_SCAN_BLOCK)
        fprintf(f, "  --scan-block B    threads per block of the scan (default %d)\n",
                d->scan_block);
    if (stage->uses & USES_KPT)
        fprintf(f, "  --kpt K           keys per thread (default %d)\n", d->kpt);
    if (stage->uses & USES_HIST)
        fprintf(f, "  --hist N          histogram kernel: 1 sectioned, 2 interleaved, 3 shared "
                   "memory (default %d)\n", d->hist_variant);
    if (stage->uses & USES_SCAN)
        fprintf(f, "  --scan NAME       scan: hillis-steele (hs, 1) or blelloch (2) (default %s)\n",
                scan_variant_name(d->scan_variant));
}
