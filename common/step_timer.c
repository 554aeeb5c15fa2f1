/* step_timer.c - the device event timer (see timer.h): CUDA events between the steps, or
 * only around the sort. */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "timer.h"

/* 1: an event at every step boundary; 0: only the first and the last (step_timer_marks). */
static int marks_on = 1;

void step_timer_marks(int on) { marks_on = on; }

/* Events are created as the marks need them: a sort of 8 passes needs a few
 * dozen, not STEP_TIMER_MAX_MARKS. */
void step_timer_create(step_timer *t)
{
    t->count = 0;
    t->created = 0;
    t->host_gaps = 0;
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
    t->host_gaps = 0;
    record(t, -1, -1);
}

void step_timer_mark(step_timer *t, int pass, int step)
{
    if (marks_on)
        record(t, pass, step);
}

/* Without the marks the host's work here would fall inside the one interval: counting
 * the gap lets the caller see that this sort can only be timed by its steps. */
void step_timer_resume(step_timer *t)
{
    t->host_gaps++;
    record(t, -1, -1);
}

void step_timer_collect(step_timer *t, sort_report *rep)
{
    if (t->count == 0)
        return;
    if (!marks_on)
        record(t, -1, -1); /* the end of the sort: the only event after the first */
    CUDA_CHECK(cudaEventSynchronize(t->event[t->count - 1]));
    rep->host_gaps += t->host_gaps;
    if (!marks_on) {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, t->event[0], t->event[t->count - 1]));
        rep->span_ms += ms;
        return;
    }
    for (int i = 1; i < t->count; i++) {
        if (t->step[i] < 0)
            continue;
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, t->event[i - 1], t->event[i]));
        rep->pass_ms[t->pass[i]][t->step[i]] += ms;
    }
}
