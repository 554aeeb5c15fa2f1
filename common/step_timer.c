/* step_timer.c - the device event timer (see timer.h): CUDA events between the steps. */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "timer.h"

/* Events are created as the marks need them: a sort of 8 passes needs a few
 * dozen, not STEP_TIMER_MAX_MARKS. */
void step_timer_create(step_timer *t)
{
    t->count = 0;
    t->created = 0;
}

void step_timer_destroy(step_timer *t)
{
    for (int i = 0; i < t->created; i++)
        CUDA_CHECK(cudaEventDestroy(t->event[i]));
    t->count = 0;
    t->created = 0;
}

static void record(step_timer *t, int pass, int step)
{
    if (t->count >= STEP_TIMER_MAX_MARKS) {
        fprintf(stderr, "step_timer: more than %d marks in one sort\n", STEP_TIMER_MAX_MARKS);
        exit(EXIT_FAILURE);
    }
    if (t->count == t->created)
        CUDA_CHECK(cudaEventCreate(&t->event[t->created++]));
    t->pass[t->count] = pass;
    t->step[t->count] = step;
    CUDA_CHECK(cudaEventRecord(t->event[t->count], 0));
    t->count++;
}

void step_timer_start(step_timer *t)
{
    t->count = 0;
    record(t, -1, -1);
}

void step_timer_mark(step_timer *t, int pass, int step) { record(t, pass, step); }

void step_timer_resume(step_timer *t) { record(t, -1, -1); }

void step_timer_collect(step_timer *t, sort_report *rep)
{
    if (t->count == 0)
        return;
    CUDA_CHECK(cudaEventSynchronize(t->event[t->count - 1]));
    for (int i = 1; i < t->count; i++) {
        if (t->step[i] < 0)
            continue;
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, t->event[i - 1], t->event[i]));
        rep->pass_ms[t->pass[i]][t->step[i]] += ms;
    }
}
