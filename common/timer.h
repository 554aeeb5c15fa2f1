/*
 * timer.h - the two clocks of the course.
 *
 * Host work is timed with the monotonic clock (never the wall clock, which can
 * jump): timer.c; the grader's race of two CPU files, with the thread's CPU time.  Device work is asynchronous: the host reaches the end of a kernel
 * launch long before the kernel ends, so a host clock around a launch measures
 * nothing useful.  Device work is timed with CUDA events recorded in the stream
 * between the steps; the time between two events is read once the work is done.
 *
 * step_timer (step_timer.c) records one event per step boundary, so that the steps of every
 * pass are timed without a synchronisation between them, and adds each
 * interval to the (pass, step) it belongs to in a sort_report.  Recording an event between
 * two kernels costs time of its own (on an H100 about a percent of stage 07's sort of 2^24
 * keys), so the driver times the sort itself as CUB's is timed - one event before it, one
 * after, no marks between (step_timer_marks(0)) - and takes the step breakdown from runs of
 * its own.
 */
#ifndef COMMON_TIMER_H
#define COMMON_TIMER_H

#include "sort_stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Milliseconds on the monotonic clock (only differences mean anything). */
double host_time_ms(void);
/* Milliseconds of CPU time this thread has used (only differences mean anything): unlike
 * the monotonic clock, it does not count the time other processes held the core. */
double thread_cpu_time_ms(void);

#define STEP_TIMER_MAX_MARKS 256

/* A CUDA event (what cudaEvent_t points to), named here without the CUDA headers, so that
 * the CPU build, which has none, can include this file: only step_timer.c, which the CPU
 * build leaves out, touches the events. */
struct CUevent_st;

typedef struct {
    struct CUevent_st *event[STEP_TIMER_MAX_MARKS];
    int pass[STEP_TIMER_MAX_MARKS]; /* interval ending at event i belongs to (pass[i], step[i]) */
    int step[STEP_TIMER_MAX_MARKS]; /* -1: the interval is not counted (host work in between) */
    int count;     /* events recorded in this sort */
    int created;   /* events created so far */
    int host_gaps; /* intervals left out since the start: host work between two steps */
} step_timer;

/* 1 (the default): step_timer_mark records an event, and collect adds each interval to its
 * step.  0: the marks record nothing, and collect adds the time from the start to its own
 * call to rep->span_ms: the sort timed with two events.  A sort with host work between its
 * steps (step_timer_resume, counted in rep->host_gaps) can only be timed with the marks. */
void step_timer_marks(int on);

void step_timer_create(step_timer *t);
void step_timer_destroy(step_timer *t);
/* Records the first event: timing starts here. */
void step_timer_start(step_timer *t);
/* Records an event; the device time since the previous event belongs to (pass, step). */
void step_timer_mark(step_timer *t, int pass, int step);
/* Records an event that starts a new interval without counting the one that
 * ends here (the host did its own, separately timed, work meanwhile). */
void step_timer_resume(step_timer *t);
/* Waits for the last event and adds every counted interval to rep->pass_ms (without the
 * marks: the whole interval to rep->span_ms). */
void step_timer_collect(step_timer *t, sort_report *rep);

#ifdef __cplusplus
}
#endif
#endif
