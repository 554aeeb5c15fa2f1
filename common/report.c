/* report.c - sums over a stage's per-pass, per-step times. */
#include <string.h>

#include "sort_stage.h"

void report_clear(sort_report *rep, int npasses)
{
    memset(rep, 0, sizeof *rep);
    rep->npasses = npasses;
}

double report_step_ms(const sort_report *rep, int step)
{
    double sum = 0.0;
    for (int p = 0; p < rep->npasses; p++)
        sum += rep->pass_ms[p][step];
    return sum;
}

double report_total_ms(const sort_report *rep, int nsteps)
{
    double sum = 0.0;
    for (int s = 0; s < nsteps; s++)
        sum += report_step_ms(rep, s);
    return sum;
}
