/* options.c - the sort programs' command line (see options.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "options.h"

const char *scan_variant_name(int variant)
{
    return variant == SCAN_HILLIS_STEELE ? "hillis-steele"
           : variant == SCAN_BLELLOCH    ? "blelloch"
                                         : "?";
}

const char *mode_name(int mode) { return mode == MODE_BLOCKED ? "blocked" : "plain"; }

const char *key_type_name(int type)
{
    return type == KEY_I32 ? "i32" : type == KEY_F32 ? "f32" : "u32";
}

size_t stage_max_keys(const stage_info *stage)
{
    return stage->max_keys && stage->max_keys < N_MAX ? stage->max_keys : N_MAX;
}

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

int option_with_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0 || (arg[len] != '\0' && arg[len] != '='))
        return 0;
    if (arg[len] == '=')
        *value = arg + len + 1;
    else
        *value = *i + 1 < argc ? argv[++*i] : NULL;
    return 1;
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
    {"--thrust", 0, 0},
    {"--help", 0, 0},      {"-h", 0, 0},            {"--bits", USES_BITS, 1},
    {"--block", USES_BLOCK, 1}, {"--scan-block", USES_SCAN_BLOCK, 1},
    {"--kpt", USES_KPT, 1},  {"--hist", USES_HIST, 1}, {"--scan", USES_SCAN, 1},
    {"--mode", USES_MODE, 1}, {"--step", 0, 1}, {"--no-skip", USES_SKIP, 0},
    {"--type", USES_TYPE, 1}, {"--pairs", USES_PAIRS, 0}, {"--output-values", USES_PAIRS, 1},
    {"--descending", USES_DESCENDING, 0}, {"--begin-bit", USES_BIT_RANGE, 1},
    {"--end-bit", USES_BIT_RANGE, 1},
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

/* "1..8" or "32..1024, powers of two": how --help and every error about a value state a
 * stage's range, so that the two always say the same. */
static void range_text(option_range r, char *buf, size_t len)
{
    snprintf(buf, len, "%d..%d%s", r.min, r.max, r.pow2 ? ", powers of two" : "");
}

/* The range the stage declares for a numeric option (USES_BITS ...). */
static option_range stage_range(const stage_info *stage, unsigned uses_bit)
{
    switch (uses_bit) {
    case USES_BITS: return stage->range.bits;
    case USES_BLOCK: return stage->range.block;
    case USES_SCAN_BLOCK: return stage->range.scan_block;
    default: return stage->range.kpt;
    }
}

#define BAD_VALUE(...)                                                                     \
    do {                                                                                   \
        snprintf(err, errlen, __VA_ARGS__);                                                \
        return -1;                                                                         \
    } while (0)

/* Applies one option with its value; -1 and a message if the value is bad.
 * The value is echoed clipped (v), so that the explanation always fits. */
static int apply_option(const option_spec *o, const char *value, const stage_info *stage,
                        run_config *cfg, char *err, size_t errlen)
{
    uint64_t x = 0;
    const char *name = o->name, *v = value;
    const clipped shown = clip(value); /* v as an error line echoes it */
    if (!strcmp(name, "-n")) {
        if (parse_number(v, 0, N_MAX, &x))
            BAD_VALUE("-n '%s': expected a whole number of keys from 0 to %zu", shown.text,
                      stage_max_keys(stage));
        cfg->n = (size_t)x;
    } else if (!strcmp(name, "--dist")) {
        if (dist_from_name(v, &cfg->dist))
            BAD_VALUE("--dist '%s': unknown distribution (known: %s)", shown.text, dist_list());
    } else if (!strcmp(name, "--seed")) {
        if (parse_number(v, 0, UINT64_MAX, &x))
            BAD_VALUE("--seed '%s': expected a whole number from 0 to %llu", shown.text,
                      (unsigned long long)UINT64_MAX);
        cfg->seed = x;
    } else if (!strcmp(name, "--runs")) {
        if (parse_number(v, 1, RUNS_MAX, &x))
            BAD_VALUE("--runs '%s': expected a whole number from 1 to %d", shown.text, RUNS_MAX);
        cfg->runs = (int)x;
    } else if (!strcmp(name, "--input")) {
        cfg->input = v;
    } else if (!strcmp(name, "--output")) {
        cfg->output = v;
    } else if (o->uses & (USES_BITS | USES_BLOCK | USES_SCAN_BLOCK | USES_KPT)) {
        /* a number here; whether the stage accepts it is check_option_ranges's to say */
        if (parse_number(v, 0, INT_MAX, &x)) {
            char range[64];
            range_text(stage_range(stage, o->uses), range, sizeof range);
            BAD_VALUE("%s '%s': %s accepts %s (see --help)", name, shown.text, stage->name,
                      range);
        }
        int *field = o->uses == USES_BITS    ? &cfg->sort.bits
                     : o->uses == USES_BLOCK ? &cfg->sort.block
                     : o->uses == USES_KPT   ? &cfg->sort.kpt
                                             : &cfg->sort.scan_block;
        *field = (int)x;
    } else if (!strcmp(name, "--hist")) {
        if (parse_number(v, 1, 3, &x))
            BAD_VALUE("--hist '%s': expected 1 (sectioned), 2 (interleaved) or 3 (shared memory)",
                      shown.text);
        cfg->sort.hist_variant = (int)x;
    } else if (!strcmp(name, "--scan")) {
        if (parse_scan_variant(v, &cfg->sort.scan_variant))
            BAD_VALUE("--scan '%s': expected hillis-steele (or 1, hs) or blelloch (or 2)",
                      shown.text);
    } else if (!strcmp(name, "--mode")) {
        if (parse_mode(v, &cfg->sort.mode))
            BAD_VALUE("--mode '%s': expected plain or blocked", shown.text);
    } else if (!strcmp(name, "--no-skip")) {
        cfg->sort.no_skip = 1;
    } else if (!strcmp(name, "--type")) {
        if (!strcmp(v, "u32"))
            cfg->sort.key_type = KEY_U32;
        else if (!strcmp(v, "i32"))
            cfg->sort.key_type = KEY_I32;
        else if (!strcmp(v, "f32"))
            cfg->sort.key_type = KEY_F32;
        else
            BAD_VALUE("--type '%s': expected u32, i32 or f32", shown.text);
    } else if (!strcmp(name, "--pairs")) {
        cfg->sort.pairs = 1;
    } else if (!strcmp(name, "--output-values")) {
        cfg->output_values = v;
    } else if (!strcmp(name, "--descending")) {
        cfg->sort.descending = 1;
    } else if (!strcmp(name, "--begin-bit") || !strcmp(name, "--end-bit")) {
        if (parse_number(v, 0, 32, &x))
            BAD_VALUE("%s '%s': expected a bit from 0 to 32", name, shown.text);
        if (!strcmp(name, "--begin-bit"))
            cfg->sort.begin_bit = (int)x;
        else
            cfg->sort.end_bit = (int)x;
    } else if (!strcmp(name, "--verbose") || !strcmp(name, "-v")) {
        cfg->verbose = 1;
    } else if (!strcmp(name, "--no-cub")) {
        cfg->no_cub = 1;
    } else if (!strcmp(name, "--thrust")) {
        cfg->thrust = 1;
    } else if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
        cfg->help = 1;
    }
    return 0;
}

int step_from_args(int argc, char **argv, const char *stage_name, int nsteps, char *err,
                   size_t errlen)
{
    int step = nsteps;
    for (int i = 1; i < argc; i++) {
        const char *value = NULL;
        if (nsteps > 1 && !strncmp(argv[i], "--rank", 6)) { /* stage 05's rankings are its steps */
            snprintf(err, errlen, "%s: %s picks its ranking with --step K (see --help)",
                     clip(argv[i]).text, stage_name);
            return -1;
        }
        if (!strncmp(argv[i], "--step=", 7))
            value = argv[i] + 7;
        else if (!strcmp(argv[i], "--step"))
            value = i + 1 < argc ? argv[++i] : NULL;
        else
            continue;
        uint64_t k;
        if (nsteps == 1) { /* no --step at all: its --help lists none */
            snprintf(err, errlen, "--step: %s is a stage of one step (its --help lists no --step)",
                     stage_name);
            return -1;
        }
        if (!value) {
            snprintf(err, errlen, "--step needs a value (see --help)");
            return -1;
        }
        if (parse_number(value, 0, INT_MAX, &k)) { /* the words of a bad --bits */
            snprintf(err, errlen, "--step '%s': %s accepts 1..%d (see --help)", clip(value).text,
                     stage_name, nsteps);
            return -1;
        }
        if (k < 1 || k > (uint64_t)nsteps) {
            snprintf(err, errlen, "--step %s: %s accepts 1..%d (see --help)", clip(value).text,
                     stage_name, nsteps);
            return -1;
        }
        step = (int)k;
    }
    return step;
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
    int n_given = 0, dist_given = 0, end_bit_given = 0;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t name_len = eq && arg[0] == '-' && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
        const option_spec *o = find_option(arg, name_len);
        if (!o) {
            snprintf(err, errlen, "unknown option '%s' (see --help)", clip(arg).text);
            return -1;
        }
        if (o->uses && !(o->uses & stage->uses)) {
            char own[160];
            cfg->refused = o->uses;
            cfg->refused_option = o->name;
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
        if (apply_option(o, value, stage, cfg, err, errlen))
            return -1;
        cfg->given |= o->uses;
        n_given |= !strcmp(o->name, "-n");
        dist_given |= !strcmp(o->name, "--dist");
        end_bit_given |= !strcmp(o->name, "--end-bit");
    }
    if (cfg->output_values && !cfg->sort.pairs) {
        snprintf(err, errlen, "--output-values writes the values of --pairs: add --pairs");
        return -1;
    }
    if (!end_bit_given) /* only an absent --end-bit means 32; --end-bit 0 is no bit at all */
        cfg->sort.end_bit = 32;
    if (cfg->sort.begin_bit >= cfg->sort.end_bit) {
        snprintf(err, errlen, "--begin-bit %d --end-bit %d: no bit to sort by (0 <= B < E <= 32)",
                 cfg->sort.begin_bit, cfg->sort.end_bit);
        return -1;
    }
    if (cfg->input && (n_given || dist_given)) {
        snprintf(err, errlen, "--input reads the keys from a file: it cannot be combined with %s",
                 n_given ? "-n" : "--dist");
        return -1;
    }
    unsigned unused = cfg->given & ~sort_options_in_use(stage, &cfg->sort);
    if (unused & USES_BLOCK) {
        snprintf(err, errlen, "--block is read only in blocked mode: add --mode blocked");
        return -1;
    }
    return check_option_ranges(stage, &cfg->sort, err, errlen);
}

unsigned sort_options_in_use(const stage_info *stage, const sort_options *opt)
{
    unsigned uses = stage->uses;
    /* stage 01: --block is the blocked mode's keys per block */
    if ((uses & USES_MODE) && opt->mode == MODE_PLAIN)
        uses &= ~(unsigned)USES_BLOCK;
    return uses;
}

static int check_range(const char *option, int value, option_range r, const char *stage,
                       char *err, size_t errlen)
{
    int is_pow2 = value > 0 && (value & (value - 1)) == 0;
    if (value >= r.min && value <= r.max && (!r.pow2 || is_pow2))
        return 0;
    char range[64];
    range_text(r, range, sizeof range);
    snprintf(err, errlen, "%s %d: %s accepts %s (see --help)", option, value, stage, range);
    return -1;
}

int check_option_ranges(const stage_info *stage, const sort_options *opt, char *err,
                        size_t errlen)
{
    unsigned uses = sort_options_in_use(stage, opt);
    const struct {
        unsigned bit;
        const char *option;
        int value;
        option_range range;
    } numeric[] = {
        {USES_BITS, "--bits", opt->bits, stage->range.bits},
        {USES_BLOCK, "--block", opt->block, stage->range.block},
        {USES_SCAN_BLOCK, "--scan-block", opt->scan_block, stage->range.scan_block},
        {USES_KPT, "--kpt", opt->kpt, stage->range.kpt},
    };
    for (size_t i = 0; i < sizeof numeric / sizeof numeric[0]; i++) {
        if (!(uses & numeric[i].bit))
            continue;
        /* a stage that reads an option declares its range; none declared is a bug */
        if (numeric[i].range.max == 0) {
            snprintf(err, errlen, "%s declares no range for %s", stage->name, numeric[i].option);
            return -1;
        }
        if (check_range(numeric[i].option, numeric[i].value, numeric[i].range, stage->name, err,
                        errlen))
            return -1;
    }
    return 0;
}


void print_sort_usage(FILE *f, const stage_info *stage)
{
    const sort_options *d = &stage->defaults;
    fprintf(f, "usage: %s [options]\n%s\n\n", stage->name, stage->title);
    fprintf(f, "input (default: -n %zu --dist uniform --seed %u)\n", N_DEFAULT, SEED_DEFAULT);
    fprintf(f, "  -n N              number of keys to generate (0..%zu)\n", stage_max_keys(stage));
    fprintf(f, "  --dist NAME       %s\n", dist_list());
    fprintf(f, "  --seed S          seed of the generator\n");
    fprintf(f, "  --input FILE      sort raw little-endian uint32 keys read from FILE\n");
    fprintf(f, "  --output FILE     write the sorted keys to FILE, same format\n");
    fprintf(f, "measurement\n");
    fprintf(f, "  --runs R          timed runs after one warm-up; the median is shown (default %d)\n",
            RUNS_DEFAULT);
    fprintf(f, "  --verbose, -v     also print the time of every step of every pass\n");
    fprintf(f, "  --no-cub          do not run the CUB baseline\n");
    if (stage->needs_gpu) /* the CPU stage refuses it */
        fprintf(f, "  --thrust          also time thrust::sort on the same keys (u32, ascending, keys only)\n");
    fprintf(f, "options of this stage\n");
    char bits[48], block[48], scan_block[48], kpt[48];
    range_text(stage->range.bits, bits, sizeof bits);
    range_text(stage->range.block, block, sizeof block);
    range_text(stage->range.scan_block, scan_block, sizeof scan_block);
    range_text(stage->range.kpt, kpt, sizeof kpt);
    if (stage->uses & USES_BITS)
        fprintf(f, "  --bits K          digit width in bits, %s (default %d)\n", bits, d->bits);
    if (stage->uses & USES_MODE)
        fprintf(f, "  --mode M          plain (textbook LSD) or blocked (per-block histograms, the "
                   "paper's layout) (default %s)\n", mode_name(d->mode));
    if (stage->uses & USES_BLOCK)
        fprintf(f, "  --block B         %s, %s (default %d)\n",
                (stage->uses & USES_MODE) ? "keys per block in blocked mode"
                                          : "threads per block of the histogram / sort kernels",
                block, d->block);
    if (stage->uses & USES_SCAN_BLOCK)
        fprintf(f, "  --scan-block B    threads per block of the scan, %s (default %d)\n",
                scan_block, d->scan_block);
    if (stage->uses & USES_KPT)
        fprintf(f, "  --kpt K           keys per thread, %s (default %d)\n", kpt, d->kpt);
    if (stage->uses & USES_HIST)
        fprintf(f, "  --hist N          histogram kernel: 1 sectioned, 2 interleaved, 3 shared "
                   "memory (default %d)\n", d->hist_variant);
    if (stage->uses & USES_SCAN)
        fprintf(f, "  --scan NAME       scan: hillis-steele (hs, 1) or blelloch (2) (default %s)\n",
                scan_variant_name(d->scan_variant));
    if (stage->uses & USES_SKIP)
        fprintf(f, "  --no-skip         run every pass, also one whose digit is the same for every "
                   "key (by default such a pass is skipped)\n");
    fprintf(f, "what is sorted\n");
    if (stage->uses & USES_TYPE)
        fprintf(f, "  --type T          the keys as u32, i32 or f32 (-NaN < -inf < ... < -0.0 < "
                   "+0.0 < ... < +inf < +NaN) (default u32)\n");
    if (stage->uses & USES_PAIRS)
        fprintf(f, "  --pairs           sort key-value pairs; a key's value is its index in the "
                   "input: the values come out as the stable argsort\n"
                   "  --output-values FILE  write the sorted values to FILE (raw uint32)\n");
    if (stage->uses & USES_DESCENDING)
        fprintf(f, "  --descending      largest key first; equal keys keep their input order\n");
    if (stage->uses & USES_BIT_RANGE)
        fprintf(f, "  --begin-bit B --end-bit E  order by bits [B, E) of the key only "
                   "(0 <= B < E <= 32; no --end-bit: E = 32)\n");
    if ((stage->uses & (USES_TYPE | USES_PAIRS | USES_DESCENDING | USES_BIT_RANGE)) !=
        (USES_TYPE | USES_PAIRS | USES_DESCENDING | USES_BIT_RANGE))
        fprintf(f, "  this stage sorts %s%s%s%s (--type, --pairs, --descending and the bit range: "
                   "stage 01, and stage 07 from step 07.7 on)\n",
                stage->uses & USES_TYPE ? "" : "u32 keys", stage->uses & USES_PAIRS ? "" : ", keys only",
                stage->uses & USES_DESCENDING ? "" : ", ascending",
                stage->uses & USES_BIT_RANGE ? "" : ", by all 32 bits");
}
