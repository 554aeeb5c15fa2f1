/* stats.c - median of timings (see stats.h). */
#include "stats.h"

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
