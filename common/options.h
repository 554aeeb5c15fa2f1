/*
 * options.h - the one command-line parser of the sort programs.
 *
 * Every stage accepts the same options; a stage's stage_info says which of the
 * sort options it reads, and an option it does not read is rejected rather than
 * silently ignored.  Anything malformed or out of range gets one line that says
 * what was wrong and what is accepted.
 */
#ifndef COMMON_OPTIONS_H
#define COMMON_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "keys.h"
#include "sort_stage.h"

#ifdef __cplusplus
extern "C" {
#endif

#define N_DEFAULT (((size_t)1 << 24) + 1) /* 2^24 + 1, as in the course reports */
#define N_MAX ((size_t)1 << 31)
#define SEED_DEFAULT 2026u
#define RUNS_DEFAULT 5

typedef struct {
    size_t n;
    key_dist dist;
    uint64_t seed;
    int runs;
    const char *input;  /* raw little-endian uint32 keys, or NULL to generate */
    const char *output; /* where to write the sorted keys, or NULL */
    const char *output_values; /* where to write the sorted values (--pairs), or NULL */
    int verbose;        /* per-pass times, like the course reports' logs */
    int no_cub;         /* skip the CUB baseline */
    int thrust;         /* also time thrust::sort on the same keys */
    int help;
    sort_options sort;
    unsigned given; /* USES_* bits of the sort options that were on the command line */
    unsigned refused; /* parse_sort_args failed on an option the stage does not read: its USES_*
                         bit and its name, so that a stage of several steps can name the step
                         that reads it */
    const char *refused_option;
} run_config;

/* A whole decimal number in [min, max]: no sign, no spaces, no suffix.  0 and
 * *value set, or -1.  (Also used by stage 06's own command line.) */
int parse_number(const char *text, uint64_t min, uint64_t max, uint64_t *value);

/* The most timed runs any program of the course takes (--runs). */
#define RUNS_MAX 1000

/* The one rule of every program's options with a value: "--name VALUE" or "--name=VALUE".
 * 1 where argv[*i] is option `name` in either form: *value is its value (NULL where it
 * is missing) and *i has moved past it; 0 otherwise, *i unchanged. */
int option_with_value(int argc, char **argv, int *i, const char *name, const char **value);

/* The step of a stage of `nsteps` steps that --step K names (K in 1..nsteps),
 * or nsteps when there is no --step: the last step is the stage's default.
 * -1 and one line in err for a bad K.  parse_sort_args then skips --step. */
int step_from_args(int argc, char **argv, const char *stage_name, int nsteps, char *err,
                   size_t errlen);

/* Parses argv (argv[0] is the program) for `stage`, starting from its defaults,
 * and checks the values against the stage's declared ranges.  0 on success; -1
 * and one line in err otherwise.  Needs no GPU. */
int parse_sort_args(int argc, char **argv, const stage_info *stage, run_config *cfg, char *err,
                    size_t errlen);

/* The USES_* bits of the options the stage reads with these settings (stage
 * 01 reads --block only in its blocked mode); one given on the command line
 * and not read is refused. */
unsigned sort_options_in_use(const stage_info *stage, const sort_options *opt);

/* 0 if every numeric option the stage reads lies in its declared range
 * (stage_info.range); otherwise -1 and one line in err. */
int check_option_ranges(const stage_info *stage, const sort_options *opt, char *err,
                        size_t errlen);

/* Everything the stage can check about its options without a GPU: the
 * declared ranges, then the stage's own rules for n keys (a stage of several
 * steps: the step's own rules, stage_step.check_options). */
static inline int check_sort_options(const stage_info *stage, const sort_options *opt, size_t n,
                                     char *err, size_t errlen)
{
    if (check_option_ranges(stage, opt, err, errlen))
        return -1;
    return stage_check_options(opt, n, err, errlen);
}

void print_sort_usage(FILE *f, const stage_info *stage);

/* The most keys the stage sorts: its stage_info.max_keys, or N_MAX. */
size_t stage_max_keys(const stage_info *stage);

/* "hillis-steele" / "blelloch", "plain" / "blocked", "u32" / "i32" / "f32". */
const char *scan_variant_name(int variant);
const char *mode_name(int mode);
const char *key_type_name(int type);

#ifdef __cplusplus
}
#endif
#endif
