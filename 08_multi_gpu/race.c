/*
 * 08_multi_gpu/race.c - main() of the grader's speed race for a step of stage 08
 * (tools/grade.sh, `make race`): the course's file of the step and a student's copy,
 * built into one program (mg_sort renamed mg_sort_course and mg_sort_work), sort the same
 * keys on the same two GPUs in turn, as common/race.c does for the other stages.  Each
 * time is the step's whole sort (mg_times.total: every phase, from a barrier of the GPUs
 * to the last); the grade is the ratio of the two files' fastest runs, student / course
 * (race_pairs in common/stats.h says why).
 *
 *   race [-n N] [--dist D] [--seed S] [--runs M]
 *   RACE n=16777217 dist=uniform runs=15 course_ms=1.020 work_ms=1.033 ratio=1.01 same_output=1
 *
 * Exit 0; 1 when the two outputs differ; 2 for bad usage; 77 with fewer than two GPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu.h"
#include "keys.h"
#include "mg.h"
#include "stats.h"

int mg_sort_course(mg_world *w, mg_times *t, char *err, size_t errlen);
int mg_sort_work(mg_world *w, mg_times *t, char *err, size_t errlen);

typedef struct {
    mg_world *w;
    const uint32_t *keys;
    size_t n;
} race_input;

/* One sort by the course's step (RACE_COURSE) or the student's (RACE_WORK), from the
 * input: its time in ms, or exit with the step's message. */
static double sort_once(int who, void *state)
{
    const race_input *in = state;
    mg_times t;
    char err[512] = "";
    mg_parts_load(in->w, in->n, in->keys, 0, 0);
    int (*sort)(mg_world *, mg_times *, char *, size_t) = who == RACE_COURSE ? mg_sort_course : mg_sort_work;
    if (sort(in->w, &t, err, sizeof err)) {
        fprintf(stderr, "race: error: %s's sort: %s\n", who == RACE_COURSE ? "the course" : "the work", err);
        exit(3);
    }
    return t.total;
}

int main(int argc, char **argv)
{
    race_config c = race_parse_args(argc, argv, (size_t)1 << 30);
    gpu_require("race");
    int gpus = 0;
    CUDA_CHECK(cudaGetDeviceCount(&gpus));
    if (gpus < 2) {
        printf("SKIP: the race of a stage 08 step needs 2 GPUs, found %d\n", gpus);
        return 77;
    }
    mg_world w;
    char err[512];
    if (mg_world_open(&w, 2, &argc, &argv, err, sizeof err) || mg_parts_create(&w, c.n, err, sizeof err))
        race_usage_error(err);
    uint32_t *keys = malloc(c.n * sizeof *keys);
    if (!keys)
        race_usage_error("not enough host memory");
    make_keys(keys, c.n, c.dist, c.seed);
    race_input in = {&w, keys, c.n};

    /* the warm-ups: their outputs are the ones compared */
    sort_once(RACE_COURSE, &in);
    uint32_t *course_out = mg_parts_gather(&w, c.n);
    sort_once(RACE_WORK, &in);
    uint32_t *work_out = mg_parts_gather(&w, c.n);
    int same = course_out && work_out && !memcmp(course_out, work_out, c.n * sizeof *keys);

    double course_ms, work_ms, ratio;
    race_pairs(sort_once, &in, c.runs, &course_ms, &work_ms, &ratio);
    printf("RACE n=%zu dist=%s runs=%d course_ms=%.4f work_ms=%.4f ratio=%.3f same_output=%d\n",
           c.n, dist_name(c.dist), c.runs, course_ms, work_ms, ratio, same);
    free(course_out);
    free(work_out);
    free(keys);
    mg_parts_destroy(&w);
    mg_world_close(&w);
    return same ? 0 : 1;
}
