/*
 * race.c - main() of the grader's speed race (tools/grade.sh, `make grade`).
 *
 * The course's file of one step and a student's copy of the same file are built
 * into one program, renamed as the build renames the steps of a stage (sort_stage.h,
 * STEP_DECLARE): the course's as step 1, the student's as step 2.  Both sort the
 * same keys, in turn, in this one process: on the same GPU, in the same state, so
 * that the ratio of their times is the grade, whatever the GPU.  Each time is the one
 * the stage reports for its sort (the steps' CUDA events; allocation and transfers
 * apart), as the driver reports it; for the CPU step, the thread's CPU time (sort_once).
 * The runs alternate, and the grade is the ratio of the two files' fastest runs, student /
 * course (race_pairs in stats.h says why).
 *
 *   race [-n N] [--dist D] [--seed S] [--runs M]
 *   RACE n=16777217 dist=uniform runs=15 course_ms=0.520 work_ms=0.533 ratio=1.03 same_output=1
 *
 * Keys of distribution D (default uniform; keys.h), at the step's default options.
 * Exit 0; 1 when the two outputs differ (a time is then no grade); 2 for bad usage;
 * 77 where the step needs a GPU and there is none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "keys.h"
#include "options.h"
#include "sort_stage.h"
#include "stats.h"
#include "timer.h"

STEP_DECLARE(1)
STEP_DECLARE(2)

static const stage_step RACERS[2] = {STEP_ENTRY(1), STEP_ENTRY(2)};

/* What each sort of the race needs. */
typedef struct {
    const uint32_t *keys;
    uint32_t *out[2];
    size_t n;
    const sort_options *opt;
} race_input;

/* One sort by the course's file (RACE_COURSE) or the student's (RACE_WORK): its time in
 * ms, or exit with the stage's message.  A GPU step's time is the one its events report.
 * A CPU step's is the CPU time of this thread through the whole call: on a busy machine
 * (make test runs tests side by side, a class is graded on a shared server) a sort's wall
 * time also counts the time other processes held the core, which is neither file's speed. */
static double sort_once(int who, void *state)
{
    const race_input *in = state;
    const stage_step *s = &RACERS[who];
    sort_report rep;
    char err[256] = "";
    double cpu_start = thread_cpu_time_ms();
    if (s->sort(in->keys, in->out[who], in->n, in->opt, &rep, err, sizeof err)) {
        fprintf(stderr, "race: error: %s's sort: %s\n",
                who == RACE_COURSE ? "the course" : "the work", err);
        exit(3);
    }
    if (!s->info->needs_gpu)
        return thread_cpu_time_ms() - cpu_start;
    return report_total_ms(&rep, s->info->nsteps);
}

int main(int argc, char **argv)
{
    race_config c = race_parse_args(argc, argv, N_MAX);
    const stage_info *info = RACERS[RACE_COURSE].info;
    sort_options opt = info->defaults;
    char err[256];
    if (check_option_ranges(info, &opt, err, sizeof err) ||
        RACERS[RACE_COURSE].check_options(&opt, c.n, err, sizeof err) ||
        RACERS[RACE_WORK].check_options(&opt, c.n, err, sizeof err))
        race_usage_error(err);
    if (info->needs_gpu) {
        gpu_require("race");
        if (gpu_require_memory(RACERS[RACE_COURSE].device_bytes(&opt, c.n), "the race", err,
                               sizeof err))
            race_usage_error(err);
    }

    uint32_t *keys = malloc(c.n * sizeof *keys);
    race_input in = {keys, {malloc(c.n * sizeof *keys), malloc(c.n * sizeof *keys)}, c.n, &opt};
    if (!keys || !in.out[RACE_COURSE] || !in.out[RACE_WORK])
        race_usage_error("not enough host memory");
    make_keys(keys, c.n, c.dist, c.seed);
    fill_garbage(in.out[RACE_COURSE], c.n, 1);
    fill_garbage(in.out[RACE_WORK], c.n, 2);

    /* the warm-ups: their outputs are the ones compared */
    sort_once(RACE_COURSE, &in);
    sort_once(RACE_WORK, &in);
    int same = !memcmp(in.out[RACE_COURSE], in.out[RACE_WORK], c.n * sizeof *keys);

    double course_ms, work_ms, ratio;
    race_pairs(sort_once, &in, c.runs, &course_ms, &work_ms, &ratio);
    printf("RACE n=%zu dist=%s runs=%d course_ms=%.4f work_ms=%.4f ratio=%.3f same_output=%d\n",
           c.n, dist_name(c.dist), c.runs, course_ms, work_ms, ratio, same);
    free(keys);
    free(in.out[RACE_COURSE]);
    free(in.out[RACE_WORK]);
    return same ? 0 : 1;
}
