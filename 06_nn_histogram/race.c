/*
 * 06_nn_histogram/race.c - the grader's speed race for a version of stage 06
 * (tools/grade.sh, `make grade STEP=06.K`), as common/race.c is for a sort step.
 *
 * The course's version K and a student's copy of its file (built with its
 * nn_version_K named nn_version_work) run, in turn, on the same problem in this
 * one process - the stage's default data, fewer queries - so that the ratio of
 * their times is the grade, whatever the GPU.  Each time is the version's own
 * (the steps' CUDA events, nn_timing.total_ms), as the stage's program reports it;
 * the runs alternate, and the grade is the ratio of the two files' fastest runs, student /
 * course (race_pairs in common/stats.h says why).
 *
 *   race [-q N] [--runs M]
 *   RACE q=1000 runs=15 course_ms=5.210 work_ms=5.254 ratio=1.008 same_output=1
 *
 * Exit 0; 1 when the two histograms differ (a time is then no grade), or the
 * version runs as another here; 2 for bad usage; 77 where there is no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "nn_device.h"
#include "options.h"
#include "stats.h"
#include "vecs.h"

#ifndef RACE_VERSION
#error "build with -DRACE_VERSION=K, the version raced"
#endif

extern const nn_version nn_version_work; /* the student's copy of version RACE_VERSION */

static void usage_error(const char *message)
{
    fprintf(stderr, "race: error: %s\n", message);
    fprintf(stderr, "usage: race [-q N] [--runs M]\n");
    exit(2);
}

/* What each run of the race needs. */
typedef struct {
    nn_device *dev;
    uint32_t *hist[2];
} race_input;

/* One run of the course's version (RACE_COURSE) or of the student's (RACE_WORK): its time
 * in ms. */
static double run_once(int who, void *state)
{
    race_input *in = state;
    nn_timing t;
    char err[256];
    nn_device_poison_scratch(in->dev); /* each run on its own, not on the other's results */
    if (who == RACE_WORK) {
        nn_run_given(in->dev, &nn_version_work, NN_REDUCE_SHUFFLE, in->hist[RACE_WORK], &t);
    } else if (nn_run_version(in->dev, RACE_VERSION, NN_REDUCE_SHUFFLE, in->hist[RACE_COURSE], &t,
                              err, sizeof err)) {
        fprintf(stderr, "race: error: %s\n", err);
        exit(3);
    }
    return t.total_ms;
}

int main(int argc, char **argv)
{
    int queries = 1000, runs = 15;
    for (int i = 1; i < argc; i++) {
        uint64_t v;
        if (i + 1 >= argc)
            usage_error("an option without its value, or an unknown option");
        const char *a = argv[i], *text = argv[++i];
        if (!strcmp(a, "-q") && !parse_number(text, 1, 100000, &v))
            queries = (int)v;
        else if (!strcmp(a, "--runs") && !parse_number(text, 1, RACE_MAX_RUNS, &v))
            runs = (int)v;
        else
            usage_error("an unknown option, or a value out of its range");
    }
    gpu_require("race");

    /* the stage's default problem (its program's defaults), with fewer queries */
    int refs = NN_DEFAULT_REFS, dims = NN_DEFAULT_DIMS;
    float *query = malloc((size_t)queries * dims * sizeof *query);
    float *base = malloc((size_t)refs * dims * sizeof *base);
    if (!query || !base)
        usage_error("not enough host memory for the data");
    make_sift_like(query, queries, dims, NN_DEFAULT_SEED);
    make_sift_like(base, refs, dims, NN_DEFAULT_SEED + 1);
    nn_problem p = {.queries = queries, .refs = refs, .dims = dims, .bins = NN_DEFAULT_BINS,
                    .query = query, .base = base};
    char err[256];
    nn_device *dev = nn_device_create(&p, err, sizeof err);
    if (!dev)
        usage_error(err);
    if (nn_version_runs_as(dev, RACE_VERSION) != RACE_VERSION) {
        printf("RACE q=%d not run: version %d runs as another here\n", queries, RACE_VERSION);
        return 1;
    }
    size_t counts = (size_t)queries * p.bins;
    race_input in = {dev, {malloc(counts * sizeof(uint32_t)), malloc(counts * sizeof(uint32_t))}};
    if (!in.hist[RACE_COURSE] || !in.hist[RACE_WORK])
        usage_error("not enough host memory for the histograms");

    /* the warm-ups: their histograms are the ones compared */
    run_once(RACE_COURSE, &in);
    run_once(RACE_WORK, &in);
    int same = !memcmp(in.hist[RACE_COURSE], in.hist[RACE_WORK], counts * sizeof(uint32_t));

    double course_ms, work_ms, ratio;
    race_pairs(run_once, &in, runs, &course_ms, &work_ms, &ratio);
    printf("RACE q=%d runs=%d course_ms=%.4f work_ms=%.4f ratio=%.3f same_output=%d\n", queries,
           runs, course_ms, work_ms, ratio, same);
    nn_device_destroy(dev);
    free(in.hist[RACE_COURSE]);
    free(in.hist[RACE_WORK]);
    free(query);
    free(base);
    return same ? 0 : 1;
}
