/* stats.c - median of timings, the grader's paired runs and their command line (see stats.h). */
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

int median_index(const double *v, int n)
{
    /* n is small (the number of runs): count, for each value, how many are
     * below it; the median is the value with (n-1)/2 below it, ties broken by index. */
    int want = (n - 1) / 2;
    for (int i = 0; i < n; i++) {
        int below = 0;
        for (int j = 0; j < n; j++)
            if (v[j] < v[i] || (v[j] == v[i] && j < i))
                below++;
        if (below == want)
            return i;
    }
    return 0;
}

void race_pairs(double (*time_one)(int who, void *state), void *state, int runs,
                double *course_ms, double *work_ms, double *ratio)
{
    double fastest[2] = {0.0, 0.0};
    if (runs > RACE_MAX_RUNS)
        runs = RACE_MAX_RUNS;
    for (int i = 0; i < runs; i++) {
        for (int turn = 0; turn < 2; turn++) {
            int who = (i + turn) % 2;
            double ms = time_one(who, state);
            if (i == 0 || ms < fastest[who])
                fastest[who] = ms;
        }
    }
    *course_ms = fastest[RACE_COURSE];
    *work_ms = fastest[RACE_WORK];
    *ratio = fastest[RACE_COURSE] > 0 ? fastest[RACE_WORK] / fastest[RACE_COURSE] : 0.0;
}

void race_usage_error(const char *message)
{
    fprintf(stderr, "race: error: %s\n", message);
    fprintf(stderr, "usage: race [-n N] [--dist D] [--seed S] [--runs M]\n");
    exit(2);
}

race_config race_parse_args(int argc, char **argv, size_t n_max)
{
    race_config c = {N_DEFAULT, DIST_UNIFORM, SEED_DEFAULT, 15};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc)
            race_usage_error("an option without its value, or an unknown option");
        uint64_t v;
        const char *text = argv[++i];
        if (!strcmp(a, "-n") && !parse_number(text, 1, n_max, &v))
            c.n = (size_t)v;
        else if (!strcmp(a, "--dist") && !dist_from_name(text, &c.dist))
            continue;
        else if (!strcmp(a, "--seed") && !parse_number(text, 0, UINT64_MAX, &v))
            c.seed = v;
        else if (!strcmp(a, "--runs") && !parse_number(text, 1, RACE_MAX_RUNS, &v))
            c.runs = (int)v;
        else
            race_usage_error("an unknown option, or a value out of its range");
    }
    return c;
}
