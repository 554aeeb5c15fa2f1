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
    int verbose;        /* per-pass times, like the course reports' logs */
    int no_cub;         /* skip the CUB baseline */
    int help;
    sort_options sort;
    unsigned given; /* USES_* bits of the sort options that were on the command line */
} run_config;

/* A whole decimal number in [min, max]: no sign, no spaces, no suffix.  0 and
 * *value set, or -1.  (Also used by stage 06's own command line.) */
int parse_number(const char *text, uint64_t min, uint64_t max, uint64_t *value);

/* Parses argv (argv[0] is the program) for `stage`, starting from its defaults.
 * 0 on success; -1 and one line in err otherwise. */
int parse_sort_args(int argc, char **argv, const stage_info *stage, run_config *cfg, char *err,
                    size_t errlen);

void print_sort_usage(FILE *f, const stage_info *stage);

/* "hillis-steele" / "blelloch", "plain" / "blocked". */
const char *scan_variant_name(int variant);
const char *mode_name(int mode);

#ifdef __cplusplus
}
#endif
#endif
